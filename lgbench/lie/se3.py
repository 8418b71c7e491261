"""SE(3): exponential, logarithm and tangent operator (paper 002 eqs. 11b, 34, 35).

An element is (R, x) with (R_a, x_a) o (R_b, x_b) = (R_a R_b, R_a x_b + x_a); the velocity is
left-invariant, x' = R U and R' = R hat(Omega), with U the translational velocity in the body frame.

Ordering: lgbench stores a node's velocity translation first, v = [U, Omega] (paper 002 orders
(Omega, U)). Every 6-vector and 6x6 matrix here uses the lgbench order, so T_SE3 of paper 002
eq. (35), [[T, 0], [S, T]] in (Omega, U) order, reads [[T, S], [0, T]] here.

Tangent operator: d/ds exp(v + s w) |_{s=0} = exp(v) (T_SE3(v) w)~ (paper 002 eqs. 27-30, Cor. 2.7),
with T_SO3 = T_exp of lgbench/lie/so3.py (paper 002 eq. 33 = paper 000 eq. A2).

The matrix-returning kernels serve tests and setup; what a step calls (``compose_se3``,
``tangent_operator_inverse_se3_apply``, ``coupling_entries_se3``) takes and returns tuples of floats
(vector arguments may be arrays or tuples) and allocates nothing, as the SO(3) ``*_apply`` kernels do.
"""
import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import (
    compose_rotation_vectors_tuple, exp_so3, exp_so3_apply, log_so3, skew_series_apply, tangent_coefficients,
    tangent_operator_inverse_so3, tangent_operator_inverse_so3_apply, tangent_operator_so3,
)

# Below this angle the coefficients of S_SE3 are summed as power series (their closed forms lose
# up to eps / Phi^4 to cancellation); above it the closed forms lose less than 4e-15.
S_SERIES_BELOW = 0.5
S_SERIES_TERMS = 9


@kernel
def translation_coefficient_se3(psi):
    """T_SO3(psi)^T: the translation of exp_SE3([U, psi]) is T_SO3(psi)^T U (paper 002 eq. 11b)."""
    return tangent_operator_so3(psi).T


@kernel
def exp_se3(v):
    """(R, x) = exp_SE3 of v = [U, Omega] (paper 002 eq. 11b)."""
    psi = v[3:6].copy()
    R = exp_so3(psi)
    x = translation_coefficient_se3(psi) @ v[0:3]
    return R, x


@kernel
def log_se3(R, x):
    """v = [U, Omega] with exp_se3(v) == (R, x) and |Omega| <= pi."""
    psi = log_so3(R)
    out = np.empty(6)
    out[0:3] = tangent_operator_inverse_so3(psi).T @ x
    out[3:6] = psi
    return out


@kernel
def translation_coefficient_apply_se3(psi, u):
    """T_SO3(psi)^T u = (I - f1 hat(psi) + f2 hat(psi)^2) u as a tuple (``translation_coefficient_se3``
    applied to a vector; paper 002 eq. 11b, paper 000 eqs. A7, A8)."""
    f1, f2, _ = tangent_coefficients(math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2]))
    return skew_series_apply(psi, -f1, f2, u)


@kernel
def compose_se3(x0, psi0, du, dpsi):
    """(x, psi) as tuples of (R(psi0), x0) o exp_SE3([du, dpsi]) (paper 002 eqs. 11b, 37a): psi by
    rotation-vector composition, x = x0 + R(psi0) T_SO3(dpsi)^T du."""
    r0, r1, r2 = exp_so3_apply(psi0, translation_coefficient_apply_se3(dpsi, du))
    return (x0[0] + r0, x0[1] + r1, x0[2] + r2), compose_rotation_vectors_tuple(psi0, dpsi)


@kernel
def coupling_coefficients_se3(phi):
    """a1..a4 of S_SE3 = a1 hat(U) + a2 (hat(U) hat(W) + hat(W) hat(U)) + a3 (W.U) hat(W)
    + a4 (W.U) hat(W)^2 for phi = |W| (paper 002 eq. 35); power series below S_SERIES_BELOW.

    Series: a1 = sum_k (-1)^k phi^(2k-2)/(2k)!, a2 = sum_k (-1)^(k+1) phi^(2k-2)/(2k+1)!,
    a3 = sum_k (-1)^(k+1) 2k phi^(2k-2)/(2k+2)!, a4 = sum_k (-1)^(k+1) (2k-2) phi^(2k-4)/(2k+1)!.
    """
    if phi >= S_SERIES_BELOW:
        p2 = phi * phi
        c = math.cos(phi)
        sinc = math.sin(phi) / phi
        a1 = -(1.0 - c) / p2
        a2 = (1.0 - sinc) / p2
        a3 = (2.0 * (1.0 - c) / p2 - sinc) / p2
        a4 = (1.0 - c - 3.0 * (1.0 - sinc)) / (p2 * p2)
        return a1, a2, a3, a4
    p2 = phi * phi
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    a4 = 0.0
    power = 1.0      # phi^(2k-2)
    fact2k = 2.0     # (2k)!
    sign = -1.0      # (-1)^k
    for k in range(1, S_SERIES_TERMS + 1):
        fact2k1 = fact2k * (2 * k + 1)
        fact2k2 = fact2k1 * (2 * k + 2)
        a1 += sign * power / fact2k
        a2 -= sign * power / fact2k1
        a3 -= sign * 2.0 * k * power / fact2k2
        # a4 term k + 1: (-1)^k (2k) phi^(2k-2) / (2k+3)!
        a4 += sign * 2.0 * k * power / (fact2k2 * (2 * k + 3))
        fact2k = fact2k2
        power *= p2
        sign = -sign
    return a1, a2, a3, a4


@kernel
def coupling_entries_se3(U, W):
    """S_SE3(W, U) of paper 002 eq. (35) as a row-major 9-tuple (S(0, U) = -hat(U)/2), from
    hat(U) hat(W) + hat(W) hat(U) = W U^T + U W^T - 2 (W.U) I and hat(W)^2 = W W^T - |W|^2 I."""
    p2 = W[0] * W[0] + W[1] * W[1] + W[2] * W[2]
    a1, a2, a3, a4 = coupling_coefficients_se3(math.sqrt(p2))
    wu = W[0] * U[0] + W[1] * U[1] + W[2] * U[2]
    b3 = a3 * wu
    b4 = a4 * wu
    d = -2.0 * a2 * wu - b4 * p2
    return (d + 2.0 * a2 * W[0] * U[0] + b4 * W[0] * W[0],
            -a1 * U[2] + a2 * (W[0] * U[1] + U[0] * W[1]) - b3 * W[2] + b4 * W[0] * W[1],
            a1 * U[1] + a2 * (W[0] * U[2] + U[0] * W[2]) + b3 * W[1] + b4 * W[0] * W[2],
            a1 * U[2] + a2 * (W[1] * U[0] + U[1] * W[0]) + b3 * W[2] + b4 * W[1] * W[0],
            d + 2.0 * a2 * W[1] * U[1] + b4 * W[1] * W[1],
            -a1 * U[0] + a2 * (W[1] * U[2] + U[1] * W[2]) - b3 * W[0] + b4 * W[1] * W[2],
            -a1 * U[1] + a2 * (W[2] * U[0] + U[2] * W[0]) - b3 * W[1] + b4 * W[2] * W[0],
            a1 * U[0] + a2 * (W[2] * U[1] + U[2] * W[1]) + b3 * W[0] + b4 * W[2] * W[1],
            d + 2.0 * a2 * W[2] * U[2] + b4 * W[2] * W[2])


@kernel
def coupling_block_se3(U, W):
    """S_SE3(W, U) of paper 002 eq. (35) as a 3x3 matrix (``coupling_entries_se3``)."""
    S = coupling_entries_se3(U, W)
    out = np.empty((3, 3))
    for r in range(3):
        for c in range(3):
            out[r, c] = S[3 * r + c]
    return out


@kernel
def tangent_operator_se3(v):
    """T_SE3(v) for v = [U, Omega]: [[T_SO3, S], [0, T_SO3]] (paper 002 eq. 35 in lgbench order)."""
    W = v[3:6].copy()
    T = tangent_operator_so3(W)
    out = np.zeros((6, 6))
    out[0:3, 0:3] = T
    out[3:6, 3:6] = T
    out[0:3, 3:6] = coupling_block_se3(v[0:3].copy(), W)
    return out


@kernel
def tangent_operator_inverse_se3(v):
    """T_SE3(v)^-1 = [[T^-1, -T^-1 S T^-1], [0, T^-1]] (block inverse of eq. 35)."""
    W = v[3:6].copy()
    Ti = tangent_operator_inverse_so3(W)
    out = np.zeros((6, 6))
    out[0:3, 0:3] = Ti
    out[3:6, 3:6] = Ti
    out[0:3, 3:6] = -(Ti @ coupling_block_se3(v[0:3].copy(), W)) @ Ti
    return out


@kernel
def tangent_operator_inverse_se3_apply(U, W, x, y):
    """T_SE3([U, W])^-1 [x, y] as a 6-tuple: with b = T^-1 y, [T^-1 (x - S b), b] (the block inverse of
    eq. 35 applied to a vector; no matrix is formed)."""
    b0, b1, b2 = tangent_operator_inverse_so3_apply(W, y)
    S = coupling_entries_se3(U, W)
    a0, a1, a2 = tangent_operator_inverse_so3_apply(W, (x[0] - (S[0] * b0 + S[1] * b1 + S[2] * b2),
                                                        x[1] - (S[3] * b0 + S[4] * b1 + S[5] * b2),
                                                        x[2] - (S[6] * b0 + S[7] * b1 + S[8] * b2)))
    return a0, a1, a2, b0, b1, b2
