"""SE(3): exponential, logarithm and tangent operator (paper 002 eqs. 11b, 34, 35).

An element is (R, x) with (R_a, x_a) o (R_b, x_b) = (R_a R_b, R_a x_b + x_a); the velocity is
left-invariant, x' = R U and R' = R hat(Omega), with U the translational velocity in the body frame.

Ordering: lgbench stores a node's velocity translation first, v = [U, Omega] (paper 002 orders
(Omega, U)). Every 6-vector and 6x6 matrix here uses the lgbench order, so T_SE3 of paper 002
eq. (35), [[T, 0], [S, T]] in (Omega, U) order, reads [[T, S], [0, T]] here.

Tangent operator: d/ds exp(v + s w) |_{s=0} = exp(v) (T_SE3(v) w)~ (paper 002 eqs. 27-30, Cor. 2.7),
with T_SO3 = T_exp of lgbench/lie/so3.py (paper 002 eq. 33 = paper 000 eq. A2).
"""
import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import (
    compose_rotation_vectors, exp_so3, hat, log_so3, tangent_operator_inverse_so3,
    tangent_operator_so3,
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
def compose_se3(x0, psi0, dv):
    """(x, psi) of (R(psi0), x0) o exp_SE3(dv): psi by rotation-vector composition, x = x0 + R0 T^T dU."""
    R0 = exp_so3(psi0)
    dx = translation_coefficient_se3(dv[3:6].copy()) @ dv[0:3]
    return x0 + R0 @ dx, compose_rotation_vectors(psi0, dv[3:6])


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
def coupling_block_se3(U, W):
    """S_SE3(W, U) of paper 002 eq. (35) (S(0, U) = -hat(U)/2)."""
    phi = math.sqrt(W[0] * W[0] + W[1] * W[1] + W[2] * W[2])
    a1, a2, a3, a4 = coupling_coefficients_se3(phi)
    hu = hat(U)
    hw = hat(W)
    wu = W[0] * U[0] + W[1] * U[1] + W[2] * U[2]
    return a1 * hu + a2 * (hu @ hw + hw @ hu) + a3 * wu * hw + a4 * wu * (hw @ hw)


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
