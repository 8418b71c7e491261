"""Holonomic constraints: Phi(q), the constraint matrix B(q) = dPhi'/dv (paper 000 eq. 10) and the
curvature term B'(q, v) v of the acceleration-level constraint (paper 002 eqs. 16-18).

Rows: first the Euler-parameter norm constraint of every EP body (e.e - 1 = 0), then the joints.
A point b fixed in body i moves with x_i + R_i b; its velocity is u_i - R_i hat(b) W_i w_i and
its acceleration u_i' - R_i hat(b) (W_i w_i' + W_i' w_i) + R_i (omega_i x (omega_i x b)).
"""
import numpy as np
from numba import njit

from lgbench.lie.so3 import hat
from lgbench.mbs.dense import cross, mat3_vec
from lgbench.mbs.formulations import EP
from lgbench.mbs.kernels import (
    _rot_start, angular_velocity, body_pose, rotation_size, velocity_map, velocity_map_rate,
)
from lgbench.mbs.system import (
    B_CROW, B_FORM, B_KIND, B_VSTART, FREE, GROUND, J_BODY1, J_BODY2, J_ROW, J_TYPE,
    S_NC, SPHERICAL,
)


@njit(cache=True)
def point_position(sys, i, q, b):
    """Global position of the body-frame point b of body i (b itself, global, for ground)."""
    if i == GROUND:
        return b.copy()
    R, x = body_pose(sys, i, q)
    return x + mat3_vec(R, b)


@njit(cache=True)
def _point_jacobian(sys, i, q, b, sign, row, C):
    """Add sign * d(point velocity)/dv of body point b into rows row..row+2 of C."""
    if i == GROUND:
        return
    form = sys.body_int[i, B_FORM]
    vs = sys.body_int[i, B_VSTART]
    qr, vr = _rot_start(sys, i)
    nr = rotation_size(form)
    R, _ = body_pose(sys, i, q)
    if sys.body_int[i, B_KIND] == FREE:
        for k in range(3):
            C[row + k, vs + k] += sign
    W = velocity_map(form, q[qr:qr + nr])
    block = -(R @ hat(b)) @ W
    for r in range(3):
        for c in range(W.shape[1]):
            C[row + r, vr + c] += sign * block[r, c]


@njit(cache=True)
def _point_curvature(sys, i, q, v, b):
    """Velocity-dependent part of a body point's acceleration: R(omega x (omega x b)) - R hat(b) W' w."""
    if i == GROUND:
        return np.zeros(3)
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    nr = rotation_size(form)
    nw = 4 if form == EP else 3
    R, _ = body_pose(sys, i, q)
    omega = angular_velocity(form, q[qr:qr + nr], v[vr:vr + nw])
    wdot = velocity_map_rate(form, q[qr:qr + nr], v[vr:vr + nw])
    return mat3_vec(R, cross(omega, cross(omega, b)) + cross(wdot, b))


@njit(cache=True)
def constraint_residual(sys, q, t, phi):
    """Phi(q) for all constraint rows."""
    for i in range(sys.body_int.shape[0]):
        row = sys.body_int[i, B_CROW]
        if row >= 0:
            qr, _ = _rot_start(sys, i)
            phi[row] = q[qr] ** 2 + q[qr + 1] ** 2 + q[qr + 2] ** 2 + q[qr + 3] ** 2 - 1.0
    for j in range(sys.joint_int.shape[0]):
        row = sys.joint_int[j, J_ROW]
        if sys.joint_int[j, J_TYPE] == SPHERICAL:
            p1 = point_position(sys, sys.joint_int[j, J_BODY1], q, sys.joint_real[j, 0:3])
            p2 = point_position(sys, sys.joint_int[j, J_BODY2], q, sys.joint_real[j, 3:6])
            phi[row:row + 3] = p1 - p2


@njit(cache=True)
def constraint_matrix(sys, q, C):
    """B(q) (n_constraints x nv), Phi' = B v (paper 000 eq. 10)."""
    C[:, :] = 0.0
    for i in range(sys.body_int.shape[0]):
        row = sys.body_int[i, B_CROW]
        if row >= 0:
            qr, vr = _rot_start(sys, i)
            for k in range(4):
                C[row, vr + k] = 2.0 * q[qr + k]
    for j in range(sys.joint_int.shape[0]):
        row = sys.joint_int[j, J_ROW]
        if sys.joint_int[j, J_TYPE] == SPHERICAL:
            _point_jacobian(sys, sys.joint_int[j, J_BODY1], q, sys.joint_real[j, 0:3], 1.0, row, C)
            _point_jacobian(sys, sys.joint_int[j, J_BODY2], q, sys.joint_real[j, 3:6], -1.0, row, C)


@njit(cache=True)
def constraint_curvature(sys, q, v, out):
    """(B(q) v)' - B(q) v' = B'(q, v) v, so that Phi'' = B v' + out (paper 002 eq. 18)."""
    out[:] = 0.0
    for i in range(sys.body_int.shape[0]):
        row = sys.body_int[i, B_CROW]
        if row >= 0:
            _, vr = _rot_start(sys, i)
            out[row] = 2.0 * (v[vr] ** 2 + v[vr + 1] ** 2 + v[vr + 2] ** 2 + v[vr + 3] ** 2)
    for j in range(sys.joint_int.shape[0]):
        row = sys.joint_int[j, J_ROW]
        if sys.joint_int[j, J_TYPE] == SPHERICAL:
            a1 = _point_curvature(sys, sys.joint_int[j, J_BODY1], q, v, sys.joint_real[j, 0:3])
            a2 = _point_curvature(sys, sys.joint_int[j, J_BODY2], q, v, sys.joint_real[j, 3:6])
            out[row:row + 3] = a1 - a2


@njit(cache=True)
def n_constraints(sys):
    return sys.sizes[S_NC]
