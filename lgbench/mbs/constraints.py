"""Holonomic constraints: Phi(q), the constraint matrix B(q) = dPhi'/dv (paper 000 eq. 10) and the
curvature term B'(q, v) v of the acceleration-level constraint (paper 002 eqs. 16-18).

Rows: first the Euler-parameter norm constraint of every EP body (e.e - 1 = 0), then the joint
primitives, from which every joint is built (``SystemBuilder.add_*_joint``):

- COINCIDENT (3 rows): p1 - p2 = 0 for body points p_i = x_i + R_i b_i (spherical joint);
- PERPENDICULAR (1 row): n1 . n2 = 0 for body vectors n_i = R_i a_i (revolute, universal, prismatic);
- POINT_ON_LINE (2 rows): (p2 - p1) . (R1 t_k) = 0, k = 1, 2 (prismatic: p2 on the line through
  p1 along the axis normal to t_1, t_2); POINT_ON_PLANE (1 row): the same with t_1 only (p2 on the plane
  through p1 normal to t_1), the rows that ``lgbench/mbs/redundancy.py`` keeps of a point joint whose other
  rows are redundant;
- BODY_FRAME_POINT (3 rows): R1^T (g - x1) - b1 = 0 for a ground point g, i.e. the spherical joint
  written in body 1's frame as in paper 002 eqs. (21c), (22c) (X - R^T x = 0 for g = 0, b1 = -X).
  With c = R1^T (x1 - g): Phi' = -R1^T x1' + omega x c, so B = [-R^T, -hat(c) W] for R3 x SO(3)
  nodes and B = [-I, -hat(c)] for SE3 nodes (constant on the constraint manifold, paper 002
  Lemma 3.5);
- DISTANCE (1 row): (|p1 - p2|^2 - L^2)/2 = 0 (paper 002 Example 3.2), B = d^T (J_1 - J_2) with d = p1 - p2;
- BODY_FRAME_COINCIDENT (3 rows): R1^T (p2 - p1) = 0, the spherical joint between two bodies written in
  body 1's frame (paper 002's form, eq. 21c between bodies). Phi and body 1's part of B are those of
  BODY_FRAME_POINT with body 2's point p2 as the ground point, body 2's part is R1^T J_p2; the curvature
  term and Z take them as the rows of POINT_ON_LINE along body 1's three axes. B depends on the relative
  rotation R1^T R2 only, and for SE3 nodes it is constant on the constraint manifold when body 2 is
  ground (Lemma 3.5; global form when body 1 is ground).

SE3 nodes move their reference point with x' = R U and x'' = R U' + R (omega x U).

With omega_i = W_i w_i a body point moves with p' = u - R hat(b) W w and
p'' = u' - R hat(b) (W w' + W' w) + R (omega x (omega x b)); a body vector with n' = -R hat(a) W w and
n'' = -R hat(a) (W w' + W' w) + R (omega x (omega x a)). Ground points and vectors are global.
"""
import math

import numpy as np
from numba import njit

from lgbench._compiled import kernel
from lgbench.lie.so3 import one_minus_cos_over_sq, sinc
from lgbench.lie.tait_bryan import body_rate_dot_apply_rxyz
from lgbench.mbs.codes import (
    BODY_FRAME_COINCIDENT, BODY_FRAME_POINT, COINCIDENT, DISTANCE, EP, F1, FREE, PERPENDICULAR, POINT_ON_LINE,
    POINT_ON_PLANE, RV, RXYZ, SE3,
)
from lgbench.mbs.pose import _vec3, body_angular_velocity, rotation_start
from lgbench.mbs.system import (
    B_CROW, B_FORM, B_KIND, B_NV, B_QSTART, B_VSTART, GROUND, J_BODY1, J_BODY2, J_LENGTH, J_NROWS, J_ROW, J_TYPE, S_NC,
)


@kernel
def rotation_entries(form, q, qr):
    """R(rho) of ``kernels.rotation_matrix`` for the rotation coordinates at q[qr], as a row-major 9-tuple
    with the same arithmetic (Rodrigues for RV and SE3, Rx Ry Rz for Rxyz and F1, R(e/|e|) for EP and
    EP-F1), no array."""
    if form == RV or form == SE3:
        x, y, z = q[qr], q[qr + 1], q[qr + 2]
        phi = math.sqrt(x * x + y * y + z * z)
        c1 = sinc(phi)
        c2 = one_minus_cos_over_sq(phi)
        return (1.0 - c2 * (z * z + y * y), -c1 * z + c2 * (y * x), c1 * y + c2 * (z * x),
                c1 * z + c2 * (x * y), 1.0 - c2 * (z * z + x * x), -c1 * x + c2 * (z * y),
                -c1 * y + c2 * (x * z), c1 * x + c2 * (y * z), 1.0 - c2 * (y * y + x * x))
    if form == RXYZ or form == F1:
        c0, s0 = math.cos(q[qr]), math.sin(q[qr])
        c1, s1 = math.cos(q[qr + 1]), math.sin(q[qr + 1])
        c2, s2 = math.cos(q[qr + 2]), math.sin(q[qr + 2])
        return (c1 * c2, -c1 * s2, s1,
                c0 * s2 + s0 * s1 * c2, c0 * c2 - s0 * s1 * s2, -s0 * c1,
                s0 * s2 - c0 * s1 * c2, s0 * c2 + c0 * s1 * s2, c0 * c1)
    n = math.sqrt(q[qr] * q[qr] + q[qr + 1] * q[qr + 1] + q[qr + 2] * q[qr + 2] + q[qr + 3] * q[qr + 3])
    e0, e1, e2, e3 = q[qr] / n, q[qr + 1] / n, q[qr + 2] / n, q[qr + 3] / n
    return (e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 - e0 * e3), 2.0 * (e1 * e3 + e0 * e2),
            2.0 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 - e0 * e1),
            2.0 * (e1 * e3 - e0 * e2), 2.0 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3)


@kernel
def rate_map_entries(form, q, qr):
    """W(rho) of ``kernels.velocity_map`` (omega_body = W w) as a 12-tuple, row by row with 4 columns (the
    4th is zero except for EP): G(theta) for Rxyz, 2 L(e) for EP, I otherwise; the same entries, no array."""
    if form == RXYZ:
        c1, s1 = math.cos(q[qr + 1]), math.sin(q[qr + 1])
        c2, s2 = math.cos(q[qr + 2]), math.sin(q[qr + 2])
        return (c1 * c2, s2, 0.0, 0.0, -c1 * s2, c2, 0.0, 0.0, s1, 0.0, 1.0, 0.0)
    if form == EP:
        e0, e1, e2, e3 = 2.0 * q[qr], 2.0 * q[qr + 1], 2.0 * q[qr + 2], 2.0 * q[qr + 3]
        return (-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0)
    return (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)


@kernel
def _rotate(R, a):
    """R a for a row-major 9-tuple R (the arithmetic of ``mat3_vec``)."""
    return (R[0] * a[0] + R[1] * a[1] + R[2] * a[2], R[3] * a[0] + R[4] * a[1] + R[5] * a[2],
            R[6] * a[0] + R[7] * a[1] + R[8] * a[2])


@kernel
def _rotate_back(R, a):
    """R^T a for a row-major 9-tuple R (the arithmetic of ``mat3t_vec``)."""
    return (R[0] * a[0] + R[3] * a[1] + R[6] * a[2], R[1] * a[0] + R[4] * a[1] + R[7] * a[2],
            R[2] * a[0] + R[5] * a[1] + R[8] * a[2])


@kernel
def _cross3(a, b):
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@kernel
def _dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(inline="always")
def _body_rotation(body_int, i, q):
    """R of body i as a 9-tuple (``rotation_entries``)."""
    qr, _ = rotation_start(body_int, i)
    return rotation_entries(body_int[i, B_FORM], q, qr)


@njit(inline="always")
def _joint_body_rotation(body_int, i, q):
    """R of body i, evaluated once for the rows of one joint (``rotation_entries``); ground: the identity,
    which no row reads. ``constraint_rows`` takes R from here, ``constraint_jacobian`` R and W from
    ``_joint_body_frame``, instead of evaluating R once per point, vector and projection (ten times per
    revolute joint and body in B before)."""
    if i == GROUND:
        return 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
    return _body_rotation(body_int, i, q)


@njit(inline="always")
def _joint_body_frame(body_int, i, q):
    """(R, W) of body i for the rows of one joint, each evaluated once (``rotation_entries``,
    ``rate_map_entries``); ground: the identity and zeros, which no row reads (``_joint_body_rotation``)."""
    if i == GROUND:
        return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                                               0.0)
    form = body_int[i, B_FORM]
    qr, _ = rotation_start(body_int, i)
    return rotation_entries(form, q, qr), rate_map_entries(form, q, qr)


@kernel
def _body_position(body_int, i, q):
    """x of body i as a tuple; the reference point of a FIXED_POINT body is the origin."""
    if body_int[i, B_KIND] == FREE:
        return _vec3(q, body_int[i, B_QSTART])
    return 0.0, 0.0, 0.0


@kernel
def body_point(body_int, i, q, b):
    """p = x + R b of the body point b (3 entries) as a tuple; ground: b."""
    return _point_in_frame(body_int, i, q, _joint_body_rotation(body_int, i, q), b)


@kernel
def _point_in_frame(body_int, i, q, R, b):
    """``body_point`` with body i's R given."""
    if i == GROUND:
        return b[0], b[1], b[2]
    r0, r1, r2 = _rotate(R, b)
    if body_int[i, B_KIND] == FREE:
        s = body_int[i, B_QSTART]
        return q[s] + r0, q[s + 1] + r1, q[s + 2] + r2
    return 0.0 + r0, 0.0 + r1, 0.0 + r2


@kernel
def body_vector(body_int, i, q, a):
    """n = R a of the body vector a as a tuple; ground: a."""
    return _vector_in_frame(i, _joint_body_rotation(body_int, i, q), a)


@kernel
def _vector_in_frame(i, R, a):
    """``body_vector`` with body i's R given."""
    if i == GROUND:
        return a[0], a[1], a[2]
    return _rotate(R, a)


@kernel
def _joint_vector(p, k):
    """(p[k], p[k+1], p[k+2]) of a joint's real parameters."""
    return _vec3(p, k)


@njit(inline="always")
def projected_rows(kind):
    """Rows of a projected-point primitive: 2 for POINT_ON_LINE (its line's normals), 1 for POINT_ON_PLANE
    (its plane's normal), 3 for BODY_FRAME_COINCIDENT (body 1's axes)."""
    if kind == POINT_ON_LINE:
        return 2
    return 1 if kind == POINT_ON_PLANE else 3


@njit(inline="always")
def is_projected_point(kind):
    """Whether the primitive's rows project p2 - p1 on body-1 vectors (``projected_rows``, ``projection_axis``)."""
    return kind == POINT_ON_LINE or kind == POINT_ON_PLANE or kind == BODY_FRAME_COINCIDENT


@njit(inline="always")
def projection_axis(p, kind, k):
    """The body-1 vector of row k of a projected-point primitive: normal k of the line (POINT_ON_LINE), the
    plane's normal (POINT_ON_PLANE) or body 1's axis e_k (BODY_FRAME_COINCIDENT)."""
    if kind == POINT_ON_LINE or kind == POINT_ON_PLANE:
        return _vec3(p, 6 + 3 * k)
    return (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)


@njit(inline="always")
def _body_motion(body_int, i, q, v):
    """(R, x, u, omega, W' w, a) of body i as tuples: R row-major (``rotation_entries``), x its reference
    point, u = x' global (R U for SE3 nodes), omega = W w in the body frame, W' w the velocity-dependent
    part of omega' (Rxyz only), a that of x'' (R (omega x U) for SE3 nodes, paper 002 eq. 3); ground: the
    identity and zeros, with which the point and vector motions below return (b, 0, 0)."""
    zero = (0.0, 0.0, 0.0)
    if i == GROUND:
        return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), zero, zero, zero, zero, zero
    form = body_int[i, B_FORM]
    qr, vr = rotation_start(body_int, i)
    R = rotation_entries(form, q, qr)
    omega = body_angular_velocity(form, q, qr, v, vr)
    rate = body_rate_dot_apply_rxyz(_vec3(q, qr), _vec3(v, vr)) if form == RXYZ else zero
    u = zero
    a = zero
    if body_int[i, B_KIND] == FREE:
        U = _vec3(v, body_int[i, B_VSTART])
        if form == SE3:
            u = _rotate(R, U)
            a = _rotate(R, _cross3(omega, U))
        else:
            u = U
    return R, _body_position(body_int, i, q), u, omega, rate, a


@kernel
def _point_motion(motion, b):
    """(p, p', velocity-dependent part of p'') of the body point b for a body's ``_body_motion``:
    x + R b, u + R (omega x b), R (omega x (omega x b) + W' w x b) + a (module note)."""
    _, x, u, _, _, a = motion
    (r0, r1, r2), (d0, d1, d2), (c0, c1, c2) = _vector_motion(motion, b)
    return ((x[0] + r0, x[1] + r1, x[2] + r2), (u[0] + d0, u[1] + d1, u[2] + d2),
            (c0 + a[0], c1 + a[1], c2 + a[2]))


@kernel
def _vector_motion(motion, n):
    """(R n, R (omega x n), R (omega x (omega x n) + W' w x n)): the body vector n and the derivatives of
    ``_point_motion`` without the reference point's."""
    R, _, _, omega, rate, _ = motion
    w0, w1, w2 = _cross3(omega, _cross3(omega, n))
    s0, s1, s2 = _cross3(rate, n)
    return _rotate(R, n), _rotate(R, _cross3(omega, n)), _rotate(R, (w0 + s0, w1 + s1, w2 + s2))


@njit(inline="always")
def _add_projected_row(form, free, vr, u, direction, W, b, translation, sign, row, C, col0):
    """C[row, body] += sign * direction^T J with u = R^T direction and W = ``rate_map_entries`` evaluated by
    the caller; the body's translation columns start at col0, its rotation columns at vr.

    For a point (translation=True) J = [I, -R hat(b) W] (SE3 nodes: [R, -R hat(b)]); for a vector
    J = [0, -R hat(b) W]. direction^T (-R hat(b) W) = (b x u)^T W: tuples, no array.
    """
    if translation and free:
        along = u if form == SE3 else (direction[0], direction[1], direction[2])
        for k in range(3):
            C[row, col0 + k] += sign * along[k]
    y0, y1, y2 = _cross3(b, u)
    for c in range(4 if form == EP else 3):
        C[row, vr + c] += sign * (y0 * W[c] + y1 * W[4 + c] + y2 * W[8 + c])


@kernel
def _add_projected_jacobian(body_int, i, R, W, b, direction, translation, sign, row, C, col0):
    """C[row, body i] += sign * direction^T J (``_add_projected_row``), J = d(point or vector velocity)/dv_i,
    with body i's R and W given (``_joint_body_frame``); body i's velocity columns start at col0 of C (its
    B_VSTART for the dense B, 0 for a block of ``constraint_blocks``)."""
    if i == GROUND:
        return
    _, vr = rotation_start(body_int, i)
    _add_projected_row(body_int[i, B_FORM], body_int[i, B_KIND] == FREE, vr + col0 - body_int[i, B_VSTART],
                       _rotate_back(R, direction), direction, W, b, translation, sign, row, C, col0)


@kernel
def _add_point_jacobian(body_int, i, R, W, b, sign, row, C, col0):
    """C[row:row+3, body i] += sign * J of the body point b: the rows of ``_add_projected_row`` along the unit
    vectors e_k (u = R^T e_k is row k of R), with body i's R and W given."""
    if i == GROUND:
        return
    form = body_int[i, B_FORM]
    _, vr = rotation_start(body_int, i)
    free = body_int[i, B_KIND] == FREE
    for k in range(3):
        e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
        _add_projected_row(form, free, vr + col0 - body_int[i, B_VSTART], (R[3 * k], R[3 * k + 1], R[3 * k + 2]),
                           e, W, b, True, sign, row + k, C, col0)


@njit(inline="always")
def _rotate_rows_back(R, row, C, col0, n):
    """C[row:row+3, col0:col0+n] = R^T C[row:row+3, col0:col0+n] (R a row-major 9-tuple)."""
    for c in range(col0, col0 + n):
        a0, a1, a2 = C[row, c], C[row + 1, c], C[row + 2, c]
        C[row, c] = R[0] * a0 + R[3] * a1 + R[6] * a2
        C[row + 1, c] = R[1] * a0 + R[4] * a1 + R[7] * a2
        C[row + 2, c] = R[2] * a0 + R[5] * a1 + R[8] * a2


@kernel
def _reference_in_body_frame(body_int, i, q, R, g):
    """c = R_i^T (x_i - g): the reference point of body i relative to the ground point g, body frame, as
    a tuple; R = body i's rotation."""
    x0, x1, x2 = _body_position(body_int, i, q)
    return _rotate_back(R, (x0 - g[0], x1 - g[1], x2 - g[2]))


@kernel
def _add_body_frame_point_jacobian(body_int, i, q, R, W, g, row, C, col0):
    """C[row:row+3, body i] = B of R^T (g - x) - b: [-R^T (I for SE3), -hat(c) W] with c = R^T (x - g);
    body i's R and W given, its columns start at col0. Tuples, no array."""
    form = body_int[i, B_FORM]
    _, vr = rotation_start(body_int, i)
    vr += col0 - body_int[i, B_VSTART]
    if body_int[i, B_KIND] == FREE:
        for r in range(3):
            for k in range(3):
                C[row + r, col0 + k] -= (1.0 if r == k else 0.0) if form == SE3 else R[3 * k + r]
    c0, c1, c2 = _reference_in_body_frame(body_int, i, q, R, g)
    for c in range(4 if form == EP else 3):
        C[row, vr + c] += -(-c2 * W[4 + c] + c1 * W[8 + c])
        C[row + 1, vr + c] += -(c2 * W[c] - c0 * W[8 + c])
        C[row + 2, vr + c] += -(-c1 * W[c] + c0 * W[4 + c])


@njit(inline="always")
def norm_rows(body_int, q, phi):
    """Phi(q) of the Euler-parameter norm rows e.e - 1 = 0, the first rows (module note)."""
    for i in range(body_int.shape[0]):
        row = body_int[i, B_CROW]
        if row >= 0:
            qr, _ = rotation_start(body_int, i)
            phi[row] = q[qr] ** 2 + q[qr + 1] ** 2 + q[qr + 2] ** 2 + q[qr + 3] ** 2 - 1.0


@njit(inline="always")
def norm_curvature(body_int, v, out):
    """B'(q, v) v of the Euler-parameter norm rows: 2 e'.e' (paper 002 eq. 18)."""
    for i in range(body_int.shape[0]):
        row = body_int[i, B_CROW]
        if row >= 0:
            _, vr = rotation_start(body_int, i)
            out[row] = 2.0 * (v[vr] ** 2 + v[vr + 1] ** 2 + v[vr + 2] ** 2 + v[vr + 3] ** 2)


@njit(inline="always")
def norm_jacobian(body_int, q, C, dense):
    """The rows 2 e^T of B of the Euler-parameter norms into C, at each body's B_VSTART (dense) or 0."""
    for i in range(body_int.shape[0]):
        row = body_int[i, B_CROW]
        if row >= 0:
            qr, vr = rotation_start(body_int, i)
            if not dense:
                vr -= body_int[i, B_VSTART]
            for k in range(4):
                C[row, vr + k] = 2.0 * q[qr + k]


@njit(inline="always")
def joint_ends(joint_int, j):
    """Joint j's first constraint row, its two bodies and its type (``JointType``)."""
    return joint_int[j, J_ROW], joint_int[j, J_BODY1], joint_int[j, J_BODY2], joint_int[j, J_TYPE]


@kernel
def constraint_rows(body_int, joint_int, joint_real, q, phi):
    """Phi(q) for all constraint rows; allocation-free (``body_point``, ``body_vector``). The kernel takes
    the three arrays it reads, not the system tuple: a compiled call copies every array of a tuple
    argument, which cost as much as the constraint rows of a small mechanism."""
    norm_rows(body_int, q, phi)
    for j in range(joint_int.shape[0]):
        row, b1, b2, kind = joint_ends(joint_int, j)
        p = joint_real[j]
        R1 = _joint_body_rotation(body_int, b1, q)
        R2 = _joint_body_rotation(body_int, b2, q)
        if kind == COINCIDENT:
            p1 = _point_in_frame(body_int, b1, q, R1, _joint_vector(p, 0))
            p2 = _point_in_frame(body_int, b2, q, R2, _joint_vector(p, 3))
            for k in range(3):
                phi[row + k] = p1[k] - p2[k]
        elif kind == PERPENDICULAR:
            phi[row] = _dot3(_vector_in_frame(b1, R1, _joint_vector(p, 0)),
                             _vector_in_frame(b2, R2, _joint_vector(p, 3)))
        elif kind == POINT_ON_LINE or kind == POINT_ON_PLANE:
            p1 = _point_in_frame(body_int, b1, q, R1, _joint_vector(p, 0))
            p2 = _point_in_frame(body_int, b2, q, R2, _joint_vector(p, 3))
            d = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
            for k in range(projected_rows(kind)):
                phi[row + k] = _dot3(d, _vector_in_frame(b1, R1, projection_axis(p, kind, k)))
        elif kind == BODY_FRAME_COINCIDENT:
            # R1^T (p2 - x1) - b1: BODY_FRAME_POINT's rows with body 2's point as the ground point
            p2 = _point_in_frame(body_int, b2, q, R2, _joint_vector(p, 3))
            c = (p[0] - p2[0], p[1] - p2[1], p[2] - p2[2]) if b1 == GROUND else \
                _reference_in_body_frame(body_int, b1, q, R1, p2)
            for k in range(3):
                phi[row + k] = -c[k] - (0.0 if b1 == GROUND else p[k])
        elif kind == BODY_FRAME_POINT:
            c = _reference_in_body_frame(body_int, b1, q, R1, _joint_vector(p, 3))
            for k in range(3):
                phi[row + k] = -c[k] - p[k]
        elif kind == DISTANCE:
            p1 = _point_in_frame(body_int, b1, q, R1, _joint_vector(p, 0))
            p2 = _point_in_frame(body_int, b2, q, R2, _joint_vector(p, 3))
            d = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
            phi[row] = 0.5 * (_dot3(d, d) - p[J_LENGTH] * p[J_LENGTH])


@njit(inline="always")
def constraint_residual_inline(sys, q, t, phi):
    """Phi(q) (``constraint_rows``) inside a compiled caller: hands the kernel three arrays of the system."""
    constraint_rows(sys.body_int, sys.joint_int, sys.joint_real, q, phi)


@kernel
def constraint_residual(sys, q, t, phi):
    """Phi(q) for Python callers (``constraint_residual_inline``)."""
    constraint_residual_inline(sys, q, t, phi)


@njit(inline="always")
def constraint_matrix_inline(sys, q, C):
    """B(q) (n_constraints x nv), Phi' = B v (paper 000 eq. 10), inside a compiled caller
    (``constraint_jacobian`` on three arrays of the system)."""
    C[:, :] = 0.0
    constraint_jacobian(sys.body_int, sys.joint_int, sys.joint_real, q, C, C, True)


@kernel
def constraint_matrix(sys, q, C):
    """B(q) for Python callers (``constraint_matrix_inline``)."""
    constraint_matrix_inline(sys, q, C)


@kernel
def constraint_blocks(sys, q, Cb):
    """B(q) by rows and bodies: Cb[row, 0, :] = d Phi'_row / d v_body1 and Cb[row, 1, :] for body2
    (``constraint_row_bodies``), each over that body's own velocity coordinates; O(rows), no dense B."""
    Cb[:, :, :] = 0.0
    constraint_jacobian(sys.body_int, sys.joint_int, sys.joint_real, q, Cb[:, 0, :], Cb[:, 1, :], False)


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


@kernel
def constraint_jacobian(body_int, joint_int, joint_real, q, C1, C2, dense):
    """Adds the rows of B: body1's part into C1, body2's into C2, at its B_VSTART (dense) or 0;
    allocation-free (tuples); three arrays of the system, as ``constraint_rows``."""
    norm_jacobian(body_int, q, C1, dense)
    for j in range(joint_int.shape[0]):
        row, b1, b2, kind = joint_ends(joint_int, j)
        o1 = body_int[b1, B_VSTART] if dense and b1 != GROUND else 0
        o2 = body_int[b2, B_VSTART] if dense and b2 != GROUND else 0
        p = joint_real[j]
        a1 = _joint_vector(p, 0)
        a2 = _joint_vector(p, 3)
        R1, W1 = _joint_body_frame(body_int, b1, q)
        R2, W2 = _joint_body_frame(body_int, b2, q)
        if kind == COINCIDENT:
            _add_point_jacobian(body_int, b1, R1, W1, a1, 1.0, row, C1, o1)
            _add_point_jacobian(body_int, b2, R2, W2, a2, -1.0, row, C2, o2)
        elif kind == PERPENDICULAR:
            n1 = _vector_in_frame(b1, R1, a1)
            n2 = _vector_in_frame(b2, R2, a2)
            _add_projected_jacobian(body_int, b1, R1, W1, a1, n2, False, 1.0, row, C1, o1)
            _add_projected_jacobian(body_int, b2, R2, W2, a2, n1, False, 1.0, row, C2, o2)
        elif kind == BODY_FRAME_COINCIDENT:
            if b1 == GROUND:
                _add_point_jacobian(body_int, b2, R2, W2, a2, 1.0, row, C2, o2)
            else:
                _add_body_frame_point_jacobian(body_int, b1, q, R1, W1, _point_in_frame(body_int, b2, q, R2, a2),
                                               row, C1, o1)
                if b2 != GROUND:     # R1^T J_p2: body 2's point rows turned into body 1's frame
                    _add_point_jacobian(body_int, b2, R2, W2, a2, 1.0, row, C2, o2)
                    _rotate_rows_back(R1, row, C2, o2, body_int[b2, B_NV])
        elif kind == POINT_ON_LINE or kind == POINT_ON_PLANE:
            p1 = _point_in_frame(body_int, b1, q, R1, a1)
            p2 = _point_in_frame(body_int, b2, q, R2, a2)
            d = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
            for k in range(projected_rows(kind)):
                t = projection_axis(p, kind, k)
                n = _vector_in_frame(b1, R1, t)
                _add_projected_jacobian(body_int, b2, R2, W2, a2, n, True, 1.0, row + k, C2, o2)
                _add_projected_jacobian(body_int, b1, R1, W1, a1, n, True, -1.0, row + k, C1, o1)
                _add_projected_jacobian(body_int, b1, R1, W1, t, d, False, 1.0, row + k, C1, o1)
        elif kind == BODY_FRAME_POINT:
            _add_body_frame_point_jacobian(body_int, b1, q, R1, W1, a2, row, C1, o1)
        elif kind == DISTANCE:
            p1 = _point_in_frame(body_int, b1, q, R1, a1)
            p2 = _point_in_frame(body_int, b2, q, R2, a2)
            d = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
            _add_projected_jacobian(body_int, b1, R1, W1, a1, d, True, 1.0, row, C1, o1)
            _add_projected_jacobian(body_int, b2, R2, W2, a2, d, True, -1.0, row, C2, o2)


@kernel
def curvature_rows(body_int, joint_int, joint_real, q, v, out):
    """B'(q, v) v, so that Phi'' = B v' + out (paper 002 eq. 18); allocation-free (``_body_motion``, each
    joint's bodies evaluated once), three arrays of the system as ``constraint_rows``."""
    out[:] = 0.0
    norm_curvature(body_int, v, out)
    for j in range(joint_int.shape[0]):
        row, b1, b2, kind = joint_ends(joint_int, j)
        p = joint_real[j]
        m1 = _body_motion(body_int, b1, q, v)
        m2 = _body_motion(body_int, b2, q, v)
        if kind == COINCIDENT:
            _, _, a1 = _point_motion(m1, _joint_vector(p, 0))
            _, _, a2 = _point_motion(m2, _joint_vector(p, 3))
            for k in range(3):
                out[row + k] = a1[k] - a2[k]
        elif kind == PERPENDICULAR:
            n1, d1, a1 = _vector_motion(m1, _joint_vector(p, 0))
            n2, d2, a2 = _vector_motion(m2, _joint_vector(p, 3))
            out[row] = _dot3(a1, n2) + 2.0 * _dot3(d1, d2) + _dot3(n1, a2)
        elif is_projected_point(kind):
            p1, pd1, pa1 = _point_motion(m1, _joint_vector(p, 0))
            p2, pd2, pa2 = _point_motion(m2, _joint_vector(p, 3))
            d = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
            dd = (pd2[0] - pd1[0], pd2[1] - pd1[1], pd2[2] - pd1[2])
            da = (pa2[0] - pa1[0], pa2[1] - pa1[1], pa2[2] - pa1[2])
            for k in range(projected_rows(kind)):
                n, nd, na = _vector_motion(m1, projection_axis(p, kind, k))
                out[row + k] = _dot3(da, n) + 2.0 * _dot3(dd, nd) + _dot3(d, na)
        elif kind == BODY_FRAME_POINT:
            R, x, u, omega, rate, a = m1
            c = _rotate_back(R, (x[0] - p[3], x[1] - p[4], x[2] - p[5]))
            t0, t1, t2 = _cross3(omega, _rotate_back(R, u))
            r0, r1, r2 = _cross3(rate, c)
            w0, w1, w2 = _cross3(omega, _cross3(omega, c))
            a0, a1, a2 = _rotate_back(R, a)
            out[row] = 2.0 * t0 + r0 - w0 - a0
            out[row + 1] = 2.0 * t1 + r1 - w1 - a1
            out[row + 2] = 2.0 * t2 + r2 - w2 - a2
        elif kind == DISTANCE:
            p1, pd1, pa1 = _point_motion(m1, _joint_vector(p, 0))
            p2, pd2, pa2 = _point_motion(m2, _joint_vector(p, 3))
            dd = (pd1[0] - pd2[0], pd1[1] - pd2[1], pd1[2] - pd2[2])
            out[row] = _dot3(dd, dd) + _dot3((p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]),
                                             (pa1[0] - pa2[0], pa1[1] - pa2[1], pa1[2] - pa2[2]))


@njit(inline="always")
def constraint_curvature_inline(sys, q, v, out):
    """B'(q, v) v (``curvature_rows``) inside a compiled caller: hands the kernel three arrays of the system."""
    curvature_rows(sys.body_int, sys.joint_int, sys.joint_real, q, v, out)


@kernel
def constraint_curvature(sys, q, v, out):
    """B'(q, v) v for Python callers (``constraint_curvature_inline``)."""
    constraint_curvature_inline(sys, q, v, out)


@kernel
def n_constraints(sys):
    return sys.sizes[S_NC]
