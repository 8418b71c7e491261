"""Tait-Bryan (Cardan) angles xyz, R = Rx(theta0) Ry(theta1) Rz(theta2) ("Rxyz" in paper 000).

Body angular velocity omega = G(theta) theta'; G is singular where cos(theta1) = 0 (pitch +-pi/2).
"""
import math

import numpy as np

from lgbench._compiled import kernel

# |cos(theta1)| below this value is treated as the gimbal-lock singularity.
SINGULAR_COS_PITCH = 1e-10


@kernel
def rotation_matrix_rxyz(theta):
    """R = Rx(theta0) Ry(theta1) Rz(theta2)."""
    c0, s0 = math.cos(theta[0]), math.sin(theta[0])
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    R = np.empty((3, 3))
    R[0, 0] = c1 * c2
    R[0, 1] = -c1 * s2
    R[0, 2] = s1
    R[1, 0] = c0 * s2 + s0 * s1 * c2
    R[1, 1] = c0 * c2 - s0 * s1 * s2
    R[1, 2] = -s0 * c1
    R[2, 0] = s0 * s2 - c0 * s1 * c2
    R[2, 1] = s0 * c2 + c0 * s1 * s2
    R[2, 2] = c0 * c1
    return R


@kernel
def rotation_rxyz_transpose_apply(theta, x):
    """R(theta)^T x as a tuple (same arithmetic as ``rotation_matrix_rxyz`` then R^T x; no allocation)."""
    c0, s0 = math.cos(theta[0]), math.sin(theta[0])
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    r00, r01, r02 = c1 * c2, -c1 * s2, s1
    r10, r11, r12 = c0 * s2 + s0 * s1 * c2, c0 * c2 - s0 * s1 * s2, -s0 * c1
    r20, r21, r22 = s0 * s2 - c0 * s1 * c2, s0 * c2 + c0 * s1 * s2, c0 * c1
    return (r00 * x[0] + r10 * x[1] + r20 * x[2],
            r01 * x[0] + r11 * x[1] + r21 * x[2],
            r02 * x[0] + r12 * x[1] + r22 * x[2])


@kernel
def rotation_rxyz_apply(theta, x):
    """R(theta) x as a tuple (same arithmetic as ``rotation_matrix_rxyz`` then R x; no allocation)."""
    c0, s0 = math.cos(theta[0]), math.sin(theta[0])
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    return (c1 * c2 * x[0] - c1 * s2 * x[1] + s1 * x[2],
            (c0 * s2 + s0 * s1 * c2) * x[0] + (c0 * c2 - s0 * s1 * s2) * x[1] - s0 * c1 * x[2],
            (s0 * s2 - c0 * s1 * c2) * x[0] + (s0 * c2 + c0 * s1 * s2) * x[1] + c0 * c1 * x[2])


@kernel
def body_rate_apply_rxyz(theta, theta_dot):
    """omega_body = G(theta) theta' as a tuple (the entries of ``body_rate_matrix_rxyz_into``)."""
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    return (c1 * c2 * theta_dot[0] + s2 * theta_dot[1], -c1 * s2 * theta_dot[0] + c2 * theta_dot[1],
            s1 * theta_dot[0] + theta_dot[2])


@kernel
def body_rate_matrix_rxyz(theta):
    """G(theta) with omega_body = G theta'."""
    G = np.empty((3, 3))
    body_rate_matrix_rxyz_into(theta, G)
    return G


@kernel
def body_rate_matrix_rxyz_into(theta, G):
    """``body_rate_matrix_rxyz(theta)`` written into the 3x3 array G."""
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    G[:] = 0.0
    G[0, 0] = c1 * c2
    G[0, 1] = s2
    G[1, 0] = -c1 * s2
    G[1, 1] = c2
    G[2, 0] = s1
    G[2, 2] = 1.0


@kernel
def body_rate_inverse_apply_rxyz(theta, omega):
    """theta' = G(theta)^{-1} omega as a tuple, in closed form (det G = cos theta1; the caller checks
    ``rxyz_is_singular`` first)."""
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    r0 = (c2 * omega[0] - s2 * omega[1]) / c1
    return r0, s2 * omega[0] + c2 * omega[1], omega[2] - s1 * r0


@kernel
def body_rate_dot_apply_rxyz(theta, theta_dot):
    """G'(theta, theta') theta' as a tuple (same arithmetic as ``body_rate_matrix_dot_rxyz`` times theta')."""
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    d0, d1, d2 = theta_dot[0], theta_dot[1], theta_dot[2]
    return ((-s1 * c2 * d1 - c1 * s2 * d2) * d0 + (c2 * d2) * d1,
            (s1 * s2 * d1 - c1 * c2 * d2) * d0 + (-s2 * d2) * d1,
            (c1 * d1) * d0)


@kernel
def body_rate_matrix_dot_rxyz(theta, theta_dot):
    """Time derivative of G(theta) along theta' (needed for the gyroscopic term, paper 000 eq. 14)."""
    c1, s1 = math.cos(theta[1]), math.sin(theta[1])
    c2, s2 = math.cos(theta[2]), math.sin(theta[2])
    d1, d2 = theta_dot[1], theta_dot[2]
    Gd = np.zeros((3, 3))
    Gd[0, 0] = -s1 * c2 * d1 - c1 * s2 * d2
    Gd[0, 1] = c2 * d2
    Gd[1, 0] = s1 * s2 * d1 - c1 * c2 * d2
    Gd[1, 1] = -s2 * d2
    Gd[2, 0] = c1 * d1
    return Gd


@kernel
def rxyz_is_singular(theta):
    """True at (numerical) gimbal lock, |cos(theta1)| < SINGULAR_COS_PITCH."""
    return abs(math.cos(theta[1])) < SINGULAR_COS_PITCH


@kernel
def rxyz_from_rotation_matrix(R):
    """Angles theta with rotation_matrix_rxyz(theta) == R (theta1 in [-pi/2, pi/2])."""
    out = np.empty(3)
    s1 = min(1.0, max(-1.0, R[0, 2]))
    out[1] = math.asin(s1)
    out[0] = math.atan2(-R[1, 2], R[2, 2])
    out[2] = math.atan2(-R[0, 1], R[0, 0])
    return out
