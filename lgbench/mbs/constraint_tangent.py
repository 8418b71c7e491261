"""Z = d(B(q) v)/dz along UAC(q, z) at fixed v: the hidden-constraint rows of the stabilised index-2
iteration matrix (paper 002 eq. 62), differentiated by hand.

Every joint primitive's velocity constraint B(q) v is made of the velocities of body points,
p' = u + R (omega x b), and of body vectors, n' = R (omega x a) (the body-frame point of paper 002:
omega x c - R^T u with c = R^T (x - x_g)). With each body's kinematic sensitivities
([dx; dPi] = P dz, [du; domega] = Vz dz at fixed v, ``force_tangent.kinematic_sensitivities``, dR = R dPi~):

    dp  = dx + R (dPi x b),        dp' = du + R (dPi x (omega x b)) + R (domega x b),
    dn  = R (dPi x a),             dn' = R (dPi x (omega x a)) + R (domega x a),
    d(omega x c - R^T u) = domega x c + omega x (R^T dx - dPi x c) + dPi x R^T u - R^T du,

and the Euler-parameter rows 2 e.e' give 2 e'. Each row then takes the product rule of its B v.
"""
from numba import njit

import numpy as np

from lgbench._compiled import kernel
from lgbench.mbs.banded import BODY_BLOCK
from lgbench.mbs.codes import (
    BODY_FRAME_POINT, COINCIDENT, DISTANCE, PERPENDICULAR,
)
from lgbench.mbs.constraints import (
    _body_rotation, _cross3, _joint_vector, _rotate, _rotate_back, body_vector, is_projected_point, joint_ends,
    projected_rows, projection_axis,
)
from lgbench.mbs.force_tangent import POSITION, VELOCITY_OF_Z, kinematic_sensitivities
from lgbench.mbs.loads import point_motion
from lgbench.mbs.pose import _rot_start, _vec3, body_angular_velocity, rotation_start
from lgbench.mbs.system import B_CROW, B_FORM, B_NV, B_QSTART, B_VSTART, GROUND

POINT, POINT_RATE, VECTOR, VECTOR_RATE = range(4)
"""Slots of the sensitivity scratch D[side, slot, 3, columns] of one joint's two bodies (a rate right after
its quantity)."""


@njit(inline="always")
def _column(K3, i, block, c):
    """Rows 0-2 and 3-5 of column c of body i's sensitivity ``block`` (POSITION or VELOCITY_OF_Z)."""
    m = K3[3 * i + block]
    return (m[0, c], m[1, c], m[2, c]), (m[3, c], m[4, c], m[5, c])


@kernel
def _sensitivity(body_int, K3, i, R, omega, b, point, D, side):
    """Derivatives along z of body i's point b (``point``: p = x + R b, p' = u + R (omega x b), into
    D[side, POINT], D[side, POINT_RATE]) or vector b (n = R b, n' = R (omega x b), into D[side, VECTOR],
    D[side, VECTOR_RATE]); 3 x the body's nv each (module note). A compiled call, as ``_body`` and
    ``_point_motion``: Z is assembled once per iteration matrix, and nine inlined copies of each took
    most of the 40 s this module took to compile."""
    wb = _cross3(omega, b)
    slot = POINT if point else VECTOR
    for c in range(body_int[i, B_NV]):
        dx, dpi = _column(K3, i, POSITION, c)
        du, dw = _column(K3, i, VELOCITY_OF_Z, c)
        rp = _rotate(R, _cross3(dpi, b))
        rv = _rotate(R, _cross3(dpi, wb))
        rw = _rotate(R, _cross3(dw, b))
        for k in range(3):
            D[side, slot, k, c] = (dx[k] if point else 0.0) + rp[k]
            D[side, slot + 1, k, c] = (du[k] if point else 0.0) + rv[k] + rw[k]


@njit(inline="always")
def _add_row(sys, i, D, side, slot, weights, sign, row, Z):
    """Z[row, body i] += sign * weights . D[side, slot]."""
    if i == GROUND:
        return
    vs = sys.body_int[i, B_VSTART]
    for c in range(sys.body_int[i, B_NV]):
        Z[row, vs + c] += sign * (weights[0] * D[side, slot, 0, c] + weights[1] * D[side, slot, 1, c]
                                  + weights[2] * D[side, slot, 2, c])


@njit(inline="always")
def _add_rows(sys, i, D, side, slot, sign, row, Z):
    """Z[row + k, body i] += sign * D[side, slot, k] for k = 0, 1, 2."""
    if i == GROUND:
        return
    vs = sys.body_int[i, B_VSTART]
    for k in range(3):
        for c in range(sys.body_int[i, B_NV]):
            Z[row + k, vs + c] += sign * D[side, slot, k, c]


@kernel
def _body(body_int, i, q, v, K3, E):
    """R of body i (9-tuple) and omega (body frame), with its sensitivities written to K3; ground: identity."""
    if i == GROUND:
        return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0)
    form = body_int[i, B_FORM]
    R = _body_rotation(body_int, i, q)
    kinematic_sensitivities(body_int, i, form, q, v, R, K3, E)
    qr, vr = rotation_start(body_int, i)
    return R, body_angular_velocity(form, q, qr, v, vr)


@kernel
def _point_motion(sys, i, q, v, b):
    """``loads.point_motion`` as a compiled call."""
    return point_motion(sys, i, q, v, b)


@kernel
def velocity_constraint_tangent(sys, q, v, K3, E, Z):
    """Z = d(B(q) v)/dz along UAC(q, z) at fixed v (module note); K3, E: ``TangentWorkspace.kinematics`` and
    ``load_map``. One small scratch array per call (once per iteration matrix)."""
    D = np.zeros((2, 4, 3, BODY_BLOCK))
    Z[:, :] = 0.0
    body_int = sys.body_int
    for i in range(body_int.shape[0]):
        row = body_int[i, B_CROW]
        if row >= 0:                       # e.e - 1 = 0: B v = 2 e.e'
            _, vr = _rot_start(sys, i)
            for k in range(4):
                Z[row, vr + k] = 2.0 * v[vr + k]
    joint_int = sys.joint_int
    for j in range(joint_int.shape[0]):
        row, b1, b2, kind = joint_ends(joint_int, j)
        p = sys.joint_real[j]
        R1, w1 = _body(body_int, b1, q, v, K3, E)
        R2, w2 = _body(body_int, b2, q, v, K3, E)
        a1 = _joint_vector(p, 0)
        a2 = _joint_vector(p, 3)
        if kind == COINCIDENT:
            for side, i, R, w, b in ((0, b1, R1, w1, a1), (1, b2, R2, w2, a2)):
                if i != GROUND:
                    _sensitivity(body_int, K3, i, R, w, b, True, D, side)
            _add_rows(sys, b1, D, 0, POINT_RATE, 1.0, row, Z)
            _add_rows(sys, b2, D, 1, POINT_RATE, -1.0, row, Z)
        elif kind == PERPENDICULAR:
            n1, n2 = body_vector(body_int, b1, q, a1), body_vector(body_int, b2, q, a2)
            nd1 = _rotate(R1, _cross3(w1, a1))
            nd2 = _rotate(R2, _cross3(w2, a2))
            if b1 != GROUND:
                _sensitivity(body_int, K3, b1, R1, w1, a1, False, D, 0)
                _add_row(sys, b1, D, 0, VECTOR_RATE, n2, 1.0, row, Z)
                _add_row(sys, b1, D, 0, VECTOR, nd2, 1.0, row, Z)
            if b2 != GROUND:
                _sensitivity(body_int, K3, b2, R2, w2, a2, False, D, 1)
                _add_row(sys, b2, D, 1, VECTOR_RATE, n1, 1.0, row, Z)
                _add_row(sys, b2, D, 1, VECTOR, nd1, 1.0, row, Z)
        elif is_projected_point(kind):
            p1, pd1 = _point_motion(sys, b1, q, v, a1)
            p2, pd2 = _point_motion(sys, b2, q, v, a2)
            d = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
            dd = (pd2[0] - pd1[0], pd2[1] - pd1[1], pd2[2] - pd1[2])
            if b1 != GROUND:
                _sensitivity(body_int, K3, b1, R1, w1, a1, True, D, 0)
            if b2 != GROUND:
                _sensitivity(body_int, K3, b2, R2, w2, a2, True, D, 1)
            for k in range(projected_rows(kind)):
                t = projection_axis(p, kind, k)
                n = body_vector(body_int, b1, q, t)
                nd = _rotate(R1, _cross3(w1, t)) if b1 != GROUND else (0.0, 0.0, 0.0)
                # d[(p2' - p1') . n + (p2 - p1) . n'] by the two points, then by n and n' of body 1
                _add_row(sys, b2, D, 1, POINT_RATE, n, 1.0, row + k, Z)
                _add_row(sys, b2, D, 1, POINT, nd, 1.0, row + k, Z)
                _add_row(sys, b1, D, 0, POINT_RATE, n, -1.0, row + k, Z)
                _add_row(sys, b1, D, 0, POINT, nd, -1.0, row + k, Z)
                if b1 != GROUND:
                    _sensitivity(body_int, K3, b1, R1, w1, t, False, D, 0)
                    _add_row(sys, b1, D, 0, VECTOR, dd, 1.0, row + k, Z)
                    _add_row(sys, b1, D, 0, VECTOR_RATE, d, 1.0, row + k, Z)
        elif kind == BODY_FRAME_POINT:
            _body_frame_point(sys, b1, q, v, R1, w1, a2, K3, row, Z)
        elif kind == DISTANCE:
            p1, pd1 = _point_motion(sys, b1, q, v, a1)
            p2, pd2 = _point_motion(sys, b2, q, v, a2)
            d = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
            dd = (pd1[0] - pd2[0], pd1[1] - pd2[1], pd1[2] - pd2[2])
            for side, i, R, w, b, sign in ((0, b1, R1, w1, a1, 1.0), (1, b2, R2, w2, a2, -1.0)):
                if i != GROUND:
                    _sensitivity(body_int, K3, i, R, w, b, True, D, side)
                    _add_row(sys, i, D, side, POINT, dd, sign, row, Z)
                    _add_row(sys, i, D, side, POINT_RATE, d, sign, row, Z)


@njit(inline="always")
def _body_frame_point(sys, i, q, v, R, omega, ground, K3, row, Z):
    """Rows of d(omega x c - R^T u)/dz, c = R^T (x - x_g) (paper 002's body-frame joint, module note)."""
    xs = sys.body_int[i, B_QSTART]
    x = _vec3(q, xs)
    c = _rotate_back(R, (x[0] - ground[0], x[1] - ground[1], x[2] - ground[2]))
    _, u = _point_motion(sys, i, q, v, (0.0, 0.0, 0.0))
    ub = _rotate_back(R, u)
    vs = sys.body_int[i, B_VSTART]
    for col in range(sys.body_int[i, B_NV]):
        dx, dpi = _column(K3, i, POSITION, col)
        du, dw = _column(K3, i, VELOCITY_OF_Z, col)
        dc = _rotate_back(R, dx)
        pc = _cross3(dpi, c)
        inner = (dc[0] - pc[0], dc[1] - pc[1], dc[2] - pc[2])
        t1 = _cross3(dw, c)
        t2 = _cross3(omega, inner)
        t3 = _cross3(dpi, ub)
        t4 = _rotate_back(R, du)
        for k in range(3):
            Z[row + k, vs + col] += t1[k] + t2[k] + t3[k] - t4[k]
