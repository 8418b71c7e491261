"""Vectorial parameterisations of rotation and motion (paper 003 Sect. 2 and 4, its refs. [33], [58]).

A vectorial parameterisation writes a rotation of angle phi about the unit vector n as
p = p(phi) n with an odd generating function, p(phi)/phi -> 1 (paper 003 eq. 3):

| kind                   | p(phi)         |
|------------------------|----------------|
| exponential            | phi            |
| euler-rodrigues        | 2 sin(phi/2)   |
| cayley-gibbs-rodrigues | 2 tan(phi/2)   |
| wiener-milenkovic      | 4 tan(phi/4)   |

With phi' = dphi/dt, Rodrigues' formula and the angular velocity omega = H(p) p' (inertial components,
paper 003 Sect. 1) give, for every kind,

    R(p)      = I + zeta1 p~ + zeta2 p~^2,            zeta1 = sin(phi)/p, zeta2 = (1 - cos phi)/p^2
    H(p)      = I/p'(phi) + zeta2 p~ + h2 p~^2,       h2 = (1/p' - sin(phi)/p)/p^2
    H(p)^-1   = p'(phi) I - p~/2 + hi2 p~^2,          hi2 = (p' - (p/2) cot(phi/2))/p^2

(p = |p| inside the coefficients). Motion: the incremental motion tensor C*(Q) of Q = {q, p}
(translation part first, as in paper 003 eq. 19) is the dual-number extension of R(p): with the screw
axis n + eps m, rotation phi and slide d, q = p'(phi) d n + p(phi) m. Q is then an eigenvector of
the 6x6 motion tensor C = [[R, u~ R], [0, R]] (paper 003 eq. 16) for the eigenvalue 1, C*(Q) Q = Q,
the property behind the energy proof of paper 003 Sect. 3.1. In terms of the SE(3) exponential,
C*(Q) = exp(theta, rho) with theta = (phi/p) p and rho = (phi/p) q + mb (p.q) p,
mb = (1/p' - phi/p)/p^2; the displacement is u = H_exp(theta) rho. For the exponential map this is the
SE(3) exponential, for Cayley-Gibbs-Rodrigues the Cayley transform of the 6x6 matrix Q~ (the
decomposition of paper 003 Sect. 4.1 with Z = I).

Small angles use the Taylor series of every coefficient (phi^0, phi^2, phi^4 terms) below
``SERIES_BELOW``; the cancelling coefficients multiply p~^2 = O(phi^2), so the absolute error of the
tensors stays at round-off on both sides of the switch.
"""
import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import hat, log_so3, skew_series_apply, skew_series_into

EXPONENTIAL = 0
EULER_RODRIGUES = 1
CAYLEY_GIBBS_RODRIGUES = 2
WIENER_MILENKOVIC = 3
PARAMETERISATIONS = {"exponential": EXPONENTIAL, "euler-rodrigues": EULER_RODRIGUES,
                     "cayley-gibbs-rodrigues": CAYLEY_GIBBS_RODRIGUES, "wiener-milenkovic": WIENER_MILENKOVIC}

SERIES_BELOW = 1e-2

# Taylor coefficients [phi^0, phi^2, phi^4] per kind of:
# zeta1, zeta2, h2, hi2, phi/p, mb, p/phi (columns in that order).
(C_ZETA1, C_ZETA2, C_H2, C_HI2, C_ANGLE_RATIO, C_MB, C_P_RATIO) = range(7)
_SERIES = np.array([
    [[1, -1 / 6, 1 / 120], [1 / 2, -1 / 24, 1 / 720], [1 / 6, -1 / 120, 1 / 5040], [1 / 12, 1 / 720, 1 / 30240],
     [1, 0, 0], [0, 0, 0], [1, 0, 0]],
    [[1, -1 / 8, 1 / 384], [1 / 2, 0, 0], [1 / 4, 1 / 32, 5 / 1536], [0, 0, 0],
     [1, 1 / 24, 7 / 5760], [1 / 12, 3 / 160, 47 / 17920], [1, -1 / 24, 1 / 1920]],
    [[1, -1 / 4, 1 / 48], [1 / 2, -1 / 8, 1 / 96], [0, 0, 0], [1 / 4, 0, 0],
     [1, -1 / 12, -1 / 720], [-1 / 6, 1 / 20, -17 / 3360], [1, 1 / 12, 1 / 120]],
    [[1, -3 / 16, 3 / 256], [1 / 2, -1 / 16, 5 / 1536], [1 / 8, -1 / 64, 5 / 6144], [1 / 8, 0, 0],
     [1, -1 / 48, -1 / 11520], [-1 / 24, 1 / 320, -17 / 215040], [1, 1 / 48, 1 / 1920]],
])


@kernel
def generating_function(kind, phi):
    """p(phi) of paper 003 eq. (3)."""
    if kind == EXPONENTIAL:
        return phi
    if kind == EULER_RODRIGUES:
        return 2.0 * math.sin(0.5 * phi)
    if kind == CAYLEY_GIBBS_RODRIGUES:
        return 2.0 * math.tan(0.5 * phi)
    return 4.0 * math.tan(0.25 * phi)


@kernel
def generating_derivative(kind, phi):
    """dp/dphi."""
    if kind == EXPONENTIAL:
        return 1.0
    if kind == EULER_RODRIGUES:
        return math.cos(0.5 * phi)
    if kind == CAYLEY_GIBBS_RODRIGUES:
        return 1.0 / math.cos(0.5 * phi) ** 2
    return 1.0 / math.cos(0.25 * phi) ** 2


@kernel
def rotation_angle(kind, p_norm):
    """phi >= 0 with p(phi) = p_norm (Euler-Rodrigues saturates at phi = pi)."""
    if kind == EXPONENTIAL:
        return p_norm
    if kind == EULER_RODRIGUES:
        return 2.0 * math.asin(min(0.5 * p_norm, 1.0))
    if kind == CAYLEY_GIBBS_RODRIGUES:
        return 2.0 * math.atan(0.5 * p_norm)
    return 4.0 * math.atan(0.25 * p_norm)


@kernel
def _series(kind, column, phi):
    c = _SERIES[kind, column]
    x = phi * phi
    return c[0] + x * (c[1] + x * c[2])


@kernel
def _norm3(v):
    return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


@kernel
def coefficient(kind, column, p_norm):
    """One of the coefficients zeta1, zeta2, h2, hi2, phi/p, mb, p/phi at |p| = p_norm."""
    phi = rotation_angle(kind, p_norm)
    if phi < SERIES_BELOW:
        return _series(kind, column, phi)
    p = p_norm
    dp = generating_derivative(kind, phi)
    if column == C_ZETA1:
        return math.sin(phi) / p
    if column == C_ZETA2:
        return (1.0 - math.cos(phi)) / (p * p)
    if column == C_H2:
        return (1.0 / dp - math.sin(phi) / p) / (p * p)
    if column == C_HI2:
        return (dp - 0.5 * p / math.tan(0.5 * phi)) / (p * p)
    if column == C_ANGLE_RATIO:
        return phi / p
    if column == C_MB:
        return (1.0 / dp - phi / p) / (p * p)
    return p / phi


@kernel
def rotation_tensor(kind, p):
    """R(p) = I + zeta1 p~ + zeta2 p~^2 (paper 003 eq. 5 with p = h omega*)."""
    n = _norm3(p)
    k = hat(p)
    return np.eye(3) + coefficient(kind, C_ZETA1, n) * k + coefficient(kind, C_ZETA2, n) * (k @ k)


@kernel
def tangent_tensor(kind, p):
    """H(p) with omega = H(p) p' (inertial components, paper 003 Sect. 1)."""
    n = _norm3(p)
    phi = rotation_angle(kind, n)
    k = hat(p)
    return (np.eye(3) / generating_derivative(kind, phi) + coefficient(kind, C_ZETA2, n) * k
            + coefficient(kind, C_H2, n) * (k @ k))


@kernel
def tangent_tensor_inverse(kind, p):
    """H(p)^-1 = p'(phi) I - p~/2 + hi2 p~^2."""
    n = _norm3(p)
    phi = rotation_angle(kind, n)
    k = hat(p)
    return generating_derivative(kind, phi) * np.eye(3) - 0.5 * k + coefficient(kind, C_HI2, n) * (k @ k)


@kernel
def parameters_of_rotation(kind, R):
    """p with R(p) = R, from the rotation vector of R (|phi| <= pi)."""
    psi = log_so3(R)
    phi = _norm3(psi)
    return coefficient(kind, C_P_RATIO, generating_function(kind, phi)) * psi


@kernel
def motion_increment(kind, Q):
    """(R*, u*) of the incremental motion tensor C*(Q) as new arrays (``motion_increment_into``)."""
    Rs = np.empty((3, 3))
    us = np.empty(3)
    motion_increment_into(kind, Q, Rs, us)
    return Rs, us


@kernel
def motion_increment_into(kind, Q, Rs, us):
    """(R*, u*) of the incremental motion tensor C*(Q), Q = [q, p] (paper 003 eqs. 19-20), into Rs, us.

    x_f = x_i + R_i u*, R_f = R_i R*. See the module docstring for the dual-number extension.
    R* = I + zeta1 p~ + zeta2 p~^2 (eq. 5); u* = V(theta) rho with V = I + zeta2(theta) theta~ +
    h2(theta) theta~^2 of the exponential map, theta = (phi/p) p, rho = (phi/p) q + mb (p.q) p.
    """
    n = _norm3(Q[3:6])
    ratio = coefficient(kind, C_ANGLE_RATIO, n)
    mb = coefficient(kind, C_MB, n)
    pq = Q[3] * Q[0] + Q[4] * Q[1] + Q[5] * Q[2]
    theta = (ratio * Q[3], ratio * Q[4], ratio * Q[5])
    rho = (ratio * Q[0] + (mb * pq) * Q[3], ratio * Q[1] + (mb * pq) * Q[4], ratio * Q[2] + (mb * pq) * Q[5])
    tn = _norm3(theta)
    us[0], us[1], us[2] = skew_series_apply(theta, coefficient(EXPONENTIAL, C_ZETA2, tn),
                                             coefficient(EXPONENTIAL, C_H2, tn), rho)
    skew_series_into(Q[3:6], coefficient(kind, C_ZETA1, n), coefficient(kind, C_ZETA2, n), Rs)


@kernel
def motion_tensor(R, u):
    """6x6 motion tensor C = [[R, u~ R], [0, R]] of paper 003 eq. (16)."""
    C = np.zeros((6, 6))
    C[0:3, 0:3] = R
    C[3:6, 3:6] = R
    C[0:3, 3:6] = hat(u) @ R
    return C
