"""Where a body is and how it moves: rotation matrices, poses, velocities and frame changes per formulation.

Every formulation code (lgbench/mbs/codes.py) maps its rotation coordinates rho to R(rho) and its
rotational velocity coordinates w to the body angular velocity omega = W(rho) w (paper 000
eqs. 11, 13-14; paper 002 eq. 3 for SE3). The tuple-returning kernels (``to_body_frame``,
``from_body_frame``, ``body_angular_velocity``) allocate nothing and serve the hot paths; the
array-returning ones (``body_pose``, ``body_state``) serve constraints, outputs and invariants.
"""
import math

from numba import njit
import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.euler_parameters import (
    body_ep_matrix, body_rate_ep_apply, rotation_ep_transpose_apply, rotation_matrix_ep,
)
from lgbench.lie.so3 import exp_so3, exp_so3_apply, exp_so3_transpose_apply
from lgbench.lie.tait_bryan import (
    body_rate_apply_rxyz, body_rate_matrix_dot_rxyz, body_rate_matrix_rxyz, rotation_matrix_rxyz, rotation_rxyz_apply,
    rotation_rxyz_transpose_apply,
)
from lgbench.mbs.codes import EP, EP_F1, F1, FREE, RV, RXYZ, SE3
from lgbench.mbs.dense import cross, mat3_vec
from lgbench.mbs.system import B_COM, B_FORM, B_KIND, B_QSTART, B_VSTART


@kernel
def _vec3(x, k):
    """(x[k], x[k+1], x[k+2]) without creating a view."""
    return x[k], x[k + 1], x[k + 2]


@njit(inline="always")
def rotation_start(body_int, i):
    """First rotation coordinate and first rotation velocity of body i."""
    off = 3 if body_int[i, B_KIND] == FREE else 0
    return body_int[i, B_QSTART] + off, body_int[i, B_VSTART] + off


@njit(inline="always")
def _rot_start(sys, i):
    """``rotation_start`` from the system tuple."""
    return rotation_start(sys.body_int, i)


@kernel
def rotation_size(form):
    """Number of rotation coordinates of a formulation code."""
    return 4 if (form == EP_F1 or form == EP) else 3


@kernel
def rotation_matrix(form, r):
    """R(rho) for the rotation coordinates r of a body with formulation code ``form``."""
    if form == RV or form == SE3:
        return exp_so3(r)
    if form == RXYZ or form == F1:
        return rotation_matrix_rxyz(r)
    n = math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3])
    return rotation_matrix_ep(r / n)


@kernel
def velocity_map(form, r):
    """W(rho) with omega_body = W w: I (RV, F1, EP-F1), G(theta) (Rxyz), 2 L(e) (EP)."""
    if form == RXYZ:
        return body_rate_matrix_rxyz(r)
    if form == EP:
        return 2.0 * body_ep_matrix(r)
    return np.eye(3)


@kernel
def velocity_map_rate(form, r, w):
    """W'(rho) w, the velocity-dependent part of omega' = W w' + W' w (zero for RV and EP)."""
    if form == RXYZ:
        return mat3_vec(body_rate_matrix_dot_rxyz(r, w), w)
    return np.zeros(3)


@kernel
def angular_velocity(form, r, w):
    """Body-frame angular velocity from the rotational velocity coordinates w."""
    if form == RXYZ:
        return mat3_vec(body_rate_matrix_rxyz(r), w)
    if form == EP:
        return 2.0 * (body_ep_matrix(r) @ w[0:4])
    return w[0:3].copy()


@kernel
def body_pose(sys, i, q):
    """(R, x_ref) of body i; the reference point of a FIXED_POINT body is the origin."""
    form = sys.body_int[i, B_FORM]
    qr, _ = _rot_start(sys, i)
    R = rotation_matrix(form, q[qr:qr + rotation_size(form)])
    x = np.zeros(3)
    if sys.body_int[i, B_KIND] == FREE:
        q0 = sys.body_int[i, B_QSTART]
        x[:] = q[q0:q0 + 3]
    return R, x


@kernel
def body_state(sys, i, q, v):
    """(R, x_ref, u_ref, omega_body) of body i; the reference point of a FIXED_POINT body is the origin.

    u_ref is the global velocity x' (= R U for an SE3 node)."""
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    nr = rotation_size(form)
    R = rotation_matrix(form, q[qr:qr + nr])
    omega = angular_velocity(form, q[qr:qr + nr], v[vr:vr + (4 if form == EP else 3)])
    x = np.zeros(3)
    u = np.zeros(3)
    if sys.body_int[i, B_KIND] == FREE:
        q0 = sys.body_int[i, B_QSTART]
        v0 = sys.body_int[i, B_VSTART]
        x[:] = q[q0:q0 + 3]
        if form == SE3:
            u[:] = mat3_vec(R, v[v0:v0 + 3])
        else:
            u[:] = v[v0:v0 + 3]
    return R, x, u, omega


@kernel
def translation_rate(sys, i, q, v):
    """Velocity-dependent part of x'' of body i: R (omega x U) for SE3 nodes (x' = R U), else 0."""
    out = np.zeros(3)
    if sys.body_int[i, B_FORM] == SE3:
        qr, vr = _rot_start(sys, i)
        vs = sys.body_int[i, B_VSTART]
        out[:] = mat3_vec(exp_so3(q[qr:qr + 3]), cross(v[vr:vr + 3], v[vs:vs + 3]))
    return out


@kernel
def to_body_frame(form, q, qr, x):
    """R(rho)^T x as a tuple for the rotation coordinates q[qr:...] of a body of formulation ``form``."""
    if form == RV or form == SE3:
        return exp_so3_transpose_apply(_vec3(q, qr), x)
    if form == RXYZ or form == F1:
        return rotation_rxyz_transpose_apply(_vec3(q, qr), x)
    return rotation_ep_transpose_apply((q[qr], q[qr + 1], q[qr + 2], q[qr + 3]), x)


@kernel
def from_body_frame(form, q, qr, x):
    """R(rho) x as a tuple for the rotation coordinates q[qr:...] of a body of formulation ``form``."""
    if form == RV or form == SE3:
        return exp_so3_apply(_vec3(q, qr), x)
    if form == RXYZ or form == F1:
        return rotation_rxyz_apply(_vec3(q, qr), x)
    # R(e) = R(e*)^T with the conjugate e* = (e0, -e1, -e2, -e3)
    return rotation_ep_transpose_apply((q[qr], -q[qr + 1], -q[qr + 2], -q[qr + 3]), x)


@njit(inline="always")
def body_angular_velocity(form, q, qr, v, vr):
    """omega_body = W(rho) w as a tuple (``angular_velocity`` without allocation)."""
    if form == RXYZ:
        return body_rate_apply_rxyz(_vec3(q, qr), _vec3(v, vr))
    if form == EP:
        return body_rate_ep_apply((q[qr], q[qr + 1], q[qr + 2], q[qr + 3]), (v[vr], v[vr + 1], v[vr + 2], v[vr + 3]))
    return _vec3(v, vr)


@kernel
def body_point_motion(sys, i, q, v, b):
    """Global position and velocity of the body-frame point b of body i."""
    R, x, u, omega = body_state(sys, i, q, v)
    return x + mat3_vec(R, b), u + mat3_vec(R, cross(omega, b))


@kernel
def body_com(sys, i, q, v):
    """Global centre-of-mass position and velocity of body i."""
    return body_point_motion(sys, i, q, v, sys.body_real[i, B_COM:B_COM + 3])

