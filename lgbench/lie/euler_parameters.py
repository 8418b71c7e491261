"""Euler parameters (unit quaternions) e = [e0, e1, e2, e3].

R(e) = (e0^2 - e.e) I + 2 e e^T + 2 e0 hat(e); body angular velocity omega = 2 L(e) e',
global angular velocity omega_g = 2 G(e) e' (Nikravesh's G and L matrices; used in paper 000
Sect. 4 as "EP" and in paper 004 eqs. (2)-(5)).
"""
import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import sinc, _quaternion_from_matrix, _rotation_vector_from_unit_quaternion


@kernel
def rotation_matrix_ep(e):
    """Rotation matrix of Euler parameters (exact for unit e; a quadratic form otherwise)."""
    e0, e1, e2, e3 = e[0], e[1], e[2], e[3]
    R = np.empty((3, 3))
    R[0, 0] = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3
    R[0, 1] = 2.0 * (e1 * e2 - e0 * e3)
    R[0, 2] = 2.0 * (e1 * e3 + e0 * e2)
    R[1, 0] = 2.0 * (e1 * e2 + e0 * e3)
    R[1, 1] = e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3
    R[1, 2] = 2.0 * (e2 * e3 - e0 * e1)
    R[2, 0] = 2.0 * (e1 * e3 - e0 * e2)
    R[2, 1] = 2.0 * (e2 * e3 + e0 * e1)
    R[2, 2] = e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3
    return R


@kernel
def rotation_ep_transpose_apply(e, x):
    """R(e/|e|)^T x as a tuple (same arithmetic as ``rotation_matrix_ep(e / |e|)`` then R^T x; no allocation)."""
    n = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3])
    e0, e1, e2, e3 = e[0] / n, e[1] / n, e[2] / n, e[3] / n
    r00 = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3
    r01 = 2.0 * (e1 * e2 - e0 * e3)
    r02 = 2.0 * (e1 * e3 + e0 * e2)
    r10 = 2.0 * (e1 * e2 + e0 * e3)
    r11 = e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3
    r12 = 2.0 * (e2 * e3 - e0 * e1)
    r20 = 2.0 * (e1 * e3 - e0 * e2)
    r21 = 2.0 * (e2 * e3 + e0 * e1)
    r22 = e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3
    return (r00 * x[0] + r10 * x[1] + r20 * x[2],
            r01 * x[0] + r11 * x[1] + r21 * x[2],
            r02 * x[0] + r12 * x[1] + r22 * x[2])


@kernel
def body_ep_matrix(e):
    """L(e) (3x4): omega_body = 2 L(e) e', and e' = L(e)^T omega_body / 2 for unit e."""
    L = np.empty((3, 4))
    e0, e1, e2, e3 = e[0], e[1], e[2], e[3]
    L[0, 0], L[0, 1], L[0, 2], L[0, 3] = -e1, e0, e3, -e2
    L[1, 0], L[1, 1], L[1, 2], L[1, 3] = -e2, -e3, e0, e1
    L[2, 0], L[2, 1], L[2, 2], L[2, 3] = -e3, e2, -e1, e0
    return L


@kernel
def body_rate_ep_apply(e, d):
    """2 L(e) d as a tuple: the body angular velocity for d = e', the rate of e'' for d = e'' (``body_ep_matrix``;
    e and d have 4 entries, arrays or tuples)."""
    e0, e1, e2, e3 = e[0], e[1], e[2], e[3]
    d0, d1, d2, d3 = d[0], d[1], d[2], d[3]
    return (2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3), 2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3),
            2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3))


@kernel
def global_ep_matrix(e):
    """G(e) (3x4): omega_global = 2 G(e) e'."""
    G = np.empty((3, 4))
    e0, e1, e2, e3 = e[0], e[1], e[2], e[3]
    G[0, 0], G[0, 1], G[0, 2], G[0, 3] = -e1, e0, -e3, e2
    G[1, 0], G[1, 1], G[1, 2], G[1, 3] = -e2, e3, e0, -e1
    G[2, 0], G[2, 1], G[2, 2], G[2, 3] = -e3, -e2, e1, e0
    return G


@kernel
def ep_product(a, b):
    """Quaternion product a*b, so that R(a*b) = R(a) R(b)."""
    out = np.empty(4)
    out[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3]
    out[1] = a[0] * b[1] + b[0] * a[1] + a[2] * b[3] - a[3] * b[2]
    out[2] = a[0] * b[2] + b[0] * a[2] + a[3] * b[1] - a[1] * b[3]
    out[3] = a[0] * b[3] + b[0] * a[3] + a[1] * b[2] - a[2] * b[1]
    return out


@kernel
def ep_from_rotation_vector(psi):
    """Unit Euler parameters of the rotation vector psi."""
    phi = math.sqrt(psi[0] ** 2 + psi[1] ** 2 + psi[2] ** 2)
    s = 0.5 * sinc(0.5 * phi)
    out = np.empty(4)
    out[0] = math.cos(0.5 * phi)
    out[1] = s * psi[0]
    out[2] = s * psi[1]
    out[3] = s * psi[2]
    return out


@kernel
def rotation_vector_from_ep(e):
    """Rotation vector (|psi| <= pi) of Euler parameters, normalised first."""
    n = math.sqrt(e[0] ** 2 + e[1] ** 2 + e[2] ** 2 + e[3] ** 2)
    return _rotation_vector_from_unit_quaternion(e / n)


@kernel
def ep_from_rotation_matrix(R):
    """Unit Euler parameters (e0 >= 0 not enforced) of a rotation matrix."""
    return _quaternion_from_matrix(R)
