"""Holonomic constraints: Phi(q), the constraint matrix B(q) = dPhi'/dv (paper 000 eq. 10) and the
curvature term B'(q, v) v of the acceleration-level constraint (paper 002 eqs. 16-18).

Rows: first the Euler-parameter norm constraint of every EP body (e.e - 1 = 0), then the joint
primitives, from which every joint is built (``SystemBuilder.add_*_joint``):

- COINCIDENT (3 rows): p1 - p2 = 0 for body points p_i = x_i + R_i b_i (spherical joint);
- PERPENDICULAR (1 row): n1 . n2 = 0 for body vectors n_i = R_i a_i (revolute, universal, prismatic);
- POINT_ON_LINE (2 rows): (p2 - p1) . (R1 t_k) = 0, k = 1, 2 (prismatic: p2 on the line through
  p1 along the axis normal to t_1, t_2);
- BODY_FRAME_POINT (3 rows): R1^T (g - x1) - b1 = 0 for a ground point g, i.e. the spherical joint
  written in body 1's frame as in paper 002 eqs. (21c), (22c) (X - R^T x = 0 for g = 0, b1 = -X).
  With c = R1^T (x1 - g): Phi' = -R1^T x1' + omega x c, so B = [-R^T, -hat(c) W] for R3 x SO(3)
  nodes and B = [-I, -hat(c)] for SE3 nodes (constant on the constraint manifold, paper 002
  Lemma 3.5);
- DISTANCE (1 row): (|p1 - p2|^2 - L^2)/2 = 0 (paper 002 Example 3.2), B = d^T (J_1 - J_2) with d = p1 - p2.

SE3 nodes move their reference point with x' = R U and x'' = R U' + R (omega x U).

With omega_i = W_i w_i a body point moves with p' = u - R hat(b) W w and
p'' = u' - R hat(b) (W w' + W' w) + R (omega x (omega x b)); a body vector with n' = -R hat(a) W w and
n'' = -R hat(a) (W w' + W' w) + R (omega x (omega x a)). Ground points and vectors are global.
"""
import numpy as np
from numba import njit

from lgbench.lie.so3 import hat
from lgbench.mbs.dense import cross, mat3_vec, mat3t_vec
from lgbench.mbs.formulations import EP
from lgbench.mbs.kernels import (
    _rot_start, angular_velocity, body_pose, rotation_size, translation_rate, velocity_map, velocity_map_rate,
)
from lgbench.mbs.formulations import SE3
from lgbench.mbs.system import (
    B_CROW, B_FORM, B_KIND, B_VSTART, BODY_FRAME_POINT, COINCIDENT, DISTANCE, FREE, GROUND, J_BODY1, J_BODY2, J_NROWS,
    J_ROW, J_TYPE, PERPENDICULAR, POINT_ON_LINE, S_NC,
)


@njit(cache=True)
def _body_motion(sys, i, q, v):
    """(R, x, u, omega, W' w, W) of body i; u = x' is global (R U for SE3 nodes)."""
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    nr = rotation_size(form)
    nw = 4 if form == EP else 3
    R, x = body_pose(sys, i, q)
    u = np.zeros(3)
    if sys.body_int[i, B_KIND] == FREE:
        vs = sys.body_int[i, B_VSTART]
        u[:] = mat3_vec(R, v[vs:vs + 3]) if form == SE3 else v[vs:vs + 3]
    omega = angular_velocity(form, q[qr:qr + nr], v[vr:vr + nw])
    rate = velocity_map_rate(form, q[qr:qr + nr], v[vr:vr + nw])
    W = velocity_map(form, q[qr:qr + nr])
    return R, x, u, omega, rate, W


@njit(cache=True)
def point_kinematics(sys, i, q, v, b):
    """(p, p', velocity-dependent part of p'') of body point b; ground: (b, 0, 0)."""
    if i == GROUND:
        return b.copy(), np.zeros(3), np.zeros(3)
    R, x, u, omega, rate, _ = _body_motion(sys, i, q, v)
    return (x + mat3_vec(R, b), u + mat3_vec(R, cross(omega, b)),
            mat3_vec(R, cross(omega, cross(omega, b)) + cross(rate, b)) + translation_rate(sys, i, q, v))


@njit(cache=True)
def vector_kinematics(sys, i, q, v, a):
    """(n, n', velocity-dependent part of n'') of body vector a; ground: (a, 0, 0)."""
    if i == GROUND:
        return a.copy(), np.zeros(3), np.zeros(3)
    R, _, _, omega, rate, _ = _body_motion(sys, i, q, v)
    return (mat3_vec(R, a), mat3_vec(R, cross(omega, a)),
            mat3_vec(R, cross(omega, cross(omega, a)) + cross(rate, a)))


@njit(cache=True)
def _add_projected_jacobian(sys, i, q, b, direction, translation, sign, row, C, col0):
    """C[row, body i] += sign * direction^T J, J = d(point or vector velocity)/dv_i; body i's velocity
    columns start at col0 of C (its B_VSTART for the dense B, 0 for a block of ``constraint_blocks``).

    For a point (translation=True) J = [I, -R hat(b) W] (SE3 nodes: [R, -R hat(b)]); for a vector
    J = [0, -R hat(b) W].
    """
    if i == GROUND:
        return
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    vs = sys.body_int[i, B_VSTART]
    vr += col0 - vs
    R, _ = body_pose(sys, i, q)
    if translation and sys.body_int[i, B_KIND] == FREE:
        vs = col0
        along = mat3t_vec(R, direction) if form == SE3 else direction
        for k in range(3):
            C[row, vs + k] += sign * along[k]
    W = velocity_map(form, q[qr:qr + rotation_size(form)])
    block = -(R @ hat(b)) @ W
    for c in range(W.shape[1]):
        C[row, vr + c] += sign * (direction[0] * block[0, c] + direction[1] * block[1, c]
                                  + direction[2] * block[2, c])


@njit(cache=True)
def _reference_in_body_frame(sys, i, q, g):
    """c = R_i^T (x_i - g): the reference point of body i relative to the ground point g, body frame."""
    R, x = body_pose(sys, i, q)
    return mat3t_vec(R, x - g)


@njit(cache=True)
def _add_body_frame_point_jacobian(sys, i, q, g, row, C, col0):
    """C[row:row+3, body i] = B of R^T (g - x) - b: [-R^T (I for SE3), -hat(c) W] with c = R^T (x - g);
    body i's columns start at col0."""
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    vr += col0 - sys.body_int[i, B_VSTART]
    R, x = body_pose(sys, i, q)
    if sys.body_int[i, B_KIND] == FREE:
        vs = col0
        for r in range(3):
            for k in range(3):
                C[row + r, vs + k] -= (1.0 if r == k else 0.0) if form == SE3 else R[k, r]
    W = velocity_map(form, q[qr:qr + rotation_size(form)])
    block = -hat(mat3t_vec(R, x - g)) @ W
    for r in range(3):
        for c in range(W.shape[1]):
            C[row + r, vr + c] += block[r, c]


@njit(cache=True)
def constraint_residual(sys, q, t, phi):
    """Phi(q) for all constraint rows."""
    z = np.zeros(q.shape[0])
    for i in range(sys.body_int.shape[0]):
        row = sys.body_int[i, B_CROW]
        if row >= 0:
            qr, _ = _rot_start(sys, i)
            phi[row] = q[qr] ** 2 + q[qr + 1] ** 2 + q[qr + 2] ** 2 + q[qr + 3] ** 2 - 1.0
    for j in range(sys.joint_int.shape[0]):
        row = sys.joint_int[j, J_ROW]
        b1 = sys.joint_int[j, J_BODY1]
        b2 = sys.joint_int[j, J_BODY2]
        p = sys.joint_real[j]
        kind = sys.joint_int[j, J_TYPE]
        if kind == COINCIDENT:
            p1, _, _ = point_kinematics(sys, b1, q, z, p[0:3])
            p2, _, _ = point_kinematics(sys, b2, q, z, p[3:6])
            phi[row:row + 3] = p1 - p2
        elif kind == PERPENDICULAR:
            n1, _, _ = vector_kinematics(sys, b1, q, z, p[0:3])
            n2, _, _ = vector_kinematics(sys, b2, q, z, p[3:6])
            phi[row] = n1 @ n2
        elif kind == POINT_ON_LINE:
            p1, _, _ = point_kinematics(sys, b1, q, z, p[0:3])
            p2, _, _ = point_kinematics(sys, b2, q, z, p[3:6])
            d = p2 - p1
            for k in range(2):
                n, _, _ = vector_kinematics(sys, b1, q, z, p[6 + 3 * k:9 + 3 * k])
                phi[row + k] = d @ n
        elif kind == BODY_FRAME_POINT:
            c = _reference_in_body_frame(sys, b1, q, p[3:6])
            phi[row:row + 3] = -c - p[0:3]
        elif kind == DISTANCE:
            p1, _, _ = point_kinematics(sys, b1, q, z, p[0:3])
            p2, _, _ = point_kinematics(sys, b2, q, z, p[3:6])
            d = p1 - p2
            phi[row] = 0.5 * (d @ d - p[6] * p[6])


@njit(cache=True)
def constraint_matrix(sys, q, C):
    """B(q) (n_constraints x nv), Phi' = B v (paper 000 eq. 10)."""
    C[:, :] = 0.0
    _constraint_jacobian(sys, q, C, C, True)


@njit(cache=True)
def constraint_blocks(sys, q, Cb):
    """B(q) by rows and bodies: Cb[row, 0, :] = d Phi'_row / d v_body1 and Cb[row, 1, :] for body2
    (``constraint_row_bodies``), each over that body's own velocity coordinates; O(rows), no dense B."""
    Cb[:, :, :] = 0.0
    _constraint_jacobian(sys, q, Cb[:, 0, :], Cb[:, 1, :], False)


def constraint_row_bodies(sys) -> np.ndarray:
    """(n_constraints, 2) int64: body1 and body2 of every constraint row (-1: ground or none)."""
    rows = -np.ones((int(sys.sizes[S_NC]), 2), dtype=np.int64)
    for i, crow in enumerate(sys.body_int[:, B_CROW]):
        if crow >= 0:
            rows[crow, 0] = i
    for j in range(sys.joint_int.shape[0]):
        first, n = sys.joint_int[j, J_ROW], sys.joint_int[j, J_NROWS]
        rows[first:first + n, 0] = sys.joint_int[j, J_BODY1]
        rows[first:first + n, 1] = sys.joint_int[j, J_BODY2]
    return rows


@njit(cache=True)
def _constraint_jacobian(sys, q, C1, C2, dense):
    """Adds the rows of B: body1's part into C1, body2's into C2, at its B_VSTART (dense) or 0."""
    z = np.zeros(C1.shape[1] if dense else sys.sizes[1])
    for i in range(sys.body_int.shape[0]):
        row = sys.body_int[i, B_CROW]
        if row >= 0:
            qr, vr = _rot_start(sys, i)
            if not dense:
                vr -= sys.body_int[i, B_VSTART]
            for k in range(4):
                C1[row, vr + k] = 2.0 * q[qr + k]
    unit = np.eye(3)
    for j in range(sys.joint_int.shape[0]):
        row = sys.joint_int[j, J_ROW]
        b1 = sys.joint_int[j, J_BODY1]
        b2 = sys.joint_int[j, J_BODY2]
        o1 = sys.body_int[b1, B_VSTART] if dense and b1 != GROUND else 0
        o2 = sys.body_int[b2, B_VSTART] if dense and b2 != GROUND else 0
        p = sys.joint_real[j]
        kind = sys.joint_int[j, J_TYPE]
        if kind == COINCIDENT:
            for k in range(3):
                _add_projected_jacobian(sys, b1, q, p[0:3], unit[k], True, 1.0, row + k, C1, o1)
                _add_projected_jacobian(sys, b2, q, p[3:6], unit[k], True, -1.0, row + k, C2, o2)
        elif kind == PERPENDICULAR:
            n1, _, _ = vector_kinematics(sys, b1, q, z, p[0:3])
            n2, _, _ = vector_kinematics(sys, b2, q, z, p[3:6])
            _add_projected_jacobian(sys, b1, q, p[0:3], n2, False, 1.0, row, C1, o1)
            _add_projected_jacobian(sys, b2, q, p[3:6], n1, False, 1.0, row, C2, o2)
        elif kind == POINT_ON_LINE:
            p1, _, _ = point_kinematics(sys, b1, q, z, p[0:3])
            p2, _, _ = point_kinematics(sys, b2, q, z, p[3:6])
            d = p2 - p1
            for k in range(2):
                t = p[6 + 3 * k:9 + 3 * k]
                n, _, _ = vector_kinematics(sys, b1, q, z, t)
                _add_projected_jacobian(sys, b2, q, p[3:6], n, True, 1.0, row + k, C2, o2)
                _add_projected_jacobian(sys, b1, q, p[0:3], n, True, -1.0, row + k, C1, o1)
                _add_projected_jacobian(sys, b1, q, t, d, False, 1.0, row + k, C1, o1)
        elif kind == BODY_FRAME_POINT:
            _add_body_frame_point_jacobian(sys, b1, q, p[3:6], row, C1, o1)
        elif kind == DISTANCE:
            p1, _, _ = point_kinematics(sys, b1, q, z, p[0:3])
            p2, _, _ = point_kinematics(sys, b2, q, z, p[3:6])
            d = p1 - p2
            _add_projected_jacobian(sys, b1, q, p[0:3], d, True, 1.0, row, C1, o1)
            _add_projected_jacobian(sys, b2, q, p[3:6], d, True, -1.0, row, C2, o2)


@njit(cache=True)
def constraint_curvature(sys, q, v, out):
    """B'(q, v) v, so that Phi'' = B v' + out (paper 002 eq. 18)."""
    out[:] = 0.0
    for i in range(sys.body_int.shape[0]):
        row = sys.body_int[i, B_CROW]
        if row >= 0:
            _, vr = _rot_start(sys, i)
            out[row] = 2.0 * (v[vr] ** 2 + v[vr + 1] ** 2 + v[vr + 2] ** 2 + v[vr + 3] ** 2)
    for j in range(sys.joint_int.shape[0]):
        row = sys.joint_int[j, J_ROW]
        b1 = sys.joint_int[j, J_BODY1]
        b2 = sys.joint_int[j, J_BODY2]
        p = sys.joint_real[j]
        kind = sys.joint_int[j, J_TYPE]
        if kind == COINCIDENT:
            _, _, a1 = point_kinematics(sys, b1, q, v, p[0:3])
            _, _, a2 = point_kinematics(sys, b2, q, v, p[3:6])
            out[row:row + 3] = a1 - a2
        elif kind == PERPENDICULAR:
            n1, d1, a1 = vector_kinematics(sys, b1, q, v, p[0:3])
            n2, d2, a2 = vector_kinematics(sys, b2, q, v, p[3:6])
            out[row] = a1 @ n2 + 2.0 * (d1 @ d2) + n1 @ a2
        elif kind == POINT_ON_LINE:
            p1, pd1, pa1 = point_kinematics(sys, b1, q, v, p[0:3])
            p2, pd2, pa2 = point_kinematics(sys, b2, q, v, p[3:6])
            d = p2 - p1
            dd = pd2 - pd1
            da = pa2 - pa1
            for k in range(2):
                n, nd, na = vector_kinematics(sys, b1, q, v, p[6 + 3 * k:9 + 3 * k])
                out[row + k] = da @ n + 2.0 * (dd @ nd) + d @ na
        elif kind == BODY_FRAME_POINT:
            R, x, u, omega, rate, _ = _body_motion(sys, b1, q, v)
            c = mat3t_vec(R, x - p[3:6])
            ub = mat3t_vec(R, u)
            out[row:row + 3] = (2.0 * cross(omega, ub) + cross(rate, c) - cross(omega, cross(omega, c))
                                - mat3t_vec(R, translation_rate(sys, b1, q, v)))
        elif kind == DISTANCE:
            p1, pd1, pa1 = point_kinematics(sys, b1, q, v, p[0:3])
            p2, pd2, pa2 = point_kinematics(sys, b2, q, v, p[3:6])
            dd = pd1 - pd2
            out[row] = dd @ dd + (p1 - p2) @ (pa1 - pa2)


@njit(cache=True)
def n_constraints(sys):
    return sys.sizes[S_NC]
