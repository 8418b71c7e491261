"""Applied loads per body: forces (global, at the reference point) and torques (body frame).

``elementary_loads`` evaluates gravity, constant torques and point spring-dampers (the hot path of
every integrator, also on the cached rotations of ``rigid_stage_coordinates``); ``other_load`` the
rest: PD joint controllers with their set-point trajectories, timed torques (ramped or by a time
table, ``time_factor``), the EP norm-rate torque of paper 004 eq. 9, spring-dampers along the line
between two bodies' points, point forces, the manufactured loads of paper 003 (a function of time only).
None of them allocates. Parameters are read by the column names of lgbench/mbs/codes.py.
"""
import math

from numba import njit

from lgbench._compiled import kernel
from lgbench.lie.euler_parameters import rotation_ep_transpose_apply
from lgbench.mbs.codes import (
    BODY_TORQUE, EP, EP_NORM_RATE_TORQUE, FORCE_IN_BODY_FRAME, FORCE_POINT, FORCE_SCHEDULE, FORCE_VECTOR, FREE, F_BODY,
    F_OTHER, F_TYPE, GLOBAL_TORQUE, GRAVITY, GRAVITY_ACCELERATION, JOINT_PD, LINE_DAMPING, LINE_POINT1, LINE_POINT2,
    LINE_REST_LENGTH, LINE_SPRING_DAMPER, LINE_STIFFNESS, MANUFACTURED_LOAD, PD_AXIS, PD_KD, PD_KP, PD_REFERENCE1,
    PD_REFERENCE2, PD_SETPOINT, PD_SETPOINT_KIND, POINT_FORCE, POINT_SPRING_DAMPER, RV, SCHEDULE_RAMP_TIME,
    SCHEDULE_TABLE_POINTS, SE3, SPRING_BODY_POINT, SPRING_DAMPING, SPRING_GROUND_POINT, SPRING_STIFFNESS,
    TABLE_POINTS_PER_ROW, TIMED_TORQUE, TORQUE, TORQUE_IN_BODY_FRAME, TORQUE_SCHEDULE,
)
from lgbench.mbs.constraints import _body_rotation, _cross3, _dot3, _rotate, _rotate_back
from lgbench.mbs.manufactured import manufactured_load
from lgbench.mbs.pose import (
    _rot_start, _vec3, body_angular_velocity, from_body_frame, rotation_start, to_body_frame,
)
from lgbench.mbs.system import B_COM, B_FORM, B_INERTIA, B_KIND, B_MASS, B_QSTART, B_VSTART, GROUND
from lgbench.mbs.trajectories import prescribed_motion


ELEMENTARY_LOADS = frozenset({GRAVITY, BODY_TORQUE, GLOBAL_TORQUE, POINT_SPRING_DAMPER})
"""The force elements of ``is_elementary_load``, for Python."""


@kernel
def is_elementary_load(ftype):
    """Gravity, constant body or global torques and point spring-dampers (``ELEMENTARY_LOADS``): the loads
    ``elementary_loads`` evaluates without allocating."""
    return ftype == GRAVITY or ftype == BODY_TORQUE or ftype == GLOBAL_TORQUE or ftype == POINT_SPRING_DAMPER


@njit(inline="always")
def _load_to_body_frame(form, q, qr, cached, rotation, i, x):
    """R^T x of body i: from the Euler parameters rotation[i] of an RV body if ``cached`` (``rotation`` from
    ``rigid_stage_coordinates``), else from its coordinates (``to_body_frame``)."""
    if form == RV and cached:
        return rotation_ep_transpose_apply((rotation[i, 0], rotation[i, 1], rotation[i, 2], rotation[i, 3]), x)
    return to_body_frame(form, q, qr, x)


@njit(inline="always")
def _load_from_body_frame(form, q, qr, cached, rotation, i, x):
    """R x of body i, from rotation[i] like ``_load_to_body_frame``."""
    if form == RV and cached:
        return rotation_ep_transpose_apply((rotation[i, 0], -rotation[i, 1], -rotation[i, 2], -rotation[i, 3]), x)
    return from_body_frame(form, q, qr, x)


@njit(inline="always")
def _add_point_spring_damper(body_int, force_real, k, i, form, qr, q, v, cached, rotation, force, torque):
    """Spring-damper per global axis between the body point b and the ground point g (POINT_SPRING_DAMPER):
    f = -K (x + R b - g) - D (u + R (omega x b)) at the point, i.e. f at the reference point and the
    body-frame torque b x R^T f."""
    b = (force_real[k, SPRING_BODY_POINT], force_real[k, SPRING_BODY_POINT + 1], force_real[k, SPRING_BODY_POINT + 2])
    Rb = _load_from_body_frame(form, q, qr, cached, rotation, i, b)
    _, vr = rotation_start(body_int, i)
    w0, w1, w2 = body_angular_velocity(form, q, qr, v, vr)
    Rwb = _load_from_body_frame(form, q, qr, cached, rotation, i, (w1 * b[2] - w2 * b[1], w2 * b[0] - w0 * b[2],
                                                           w0 * b[1] - w1 * b[0]))
    x = (0.0, 0.0, 0.0)
    u = (0.0, 0.0, 0.0)
    if body_int[i, B_KIND] == FREE:
        x = _vec3(q, body_int[i, B_QSTART])
        u = _vec3(v, body_int[i, B_VSTART])
        if form == SE3:
            u = _load_from_body_frame(form, q, qr, cached, rotation, i, u)
    K, D, g = SPRING_STIFFNESS, SPRING_DAMPING, SPRING_GROUND_POINT
    f = (-force_real[k, K] * (x[0] + Rb[0] - force_real[k, g]) - force_real[k, D] * (u[0] + Rwb[0]),
         -force_real[k, K + 1] * (x[1] + Rb[1] - force_real[k, g + 1]) - force_real[k, D + 1] * (u[1] + Rwb[1]),
         -force_real[k, K + 2] * (x[2] + Rb[2] - force_real[k, g + 2]) - force_real[k, D + 2] * (u[2] + Rwb[2]))
    if body_int[i, B_KIND] == FREE:
        for j in range(3):
            force[i, j] += f[j]
    f0, f1, f2 = _load_to_body_frame(form, q, qr, cached, rotation, i, f)
    torque[i, 0] += b[1] * f2 - b[2] * f1
    torque[i, 1] += b[2] * f0 - b[0] * f2
    torque[i, 2] += b[0] * f1 - b[1] * f0


@njit(inline="always")
def elementary_loads(body_int, body_real, force_int, force_real, q, v, cached, rotation, force, torque):
    """Zero the per-body forces (global, at the reference point) and torques (body frame), then add the
    ``is_elementary_load`` elements; the other force elements are left to ``other_load``.
    ``cached``: take R of the RV bodies from their Euler parameters in ``rotation`` (``rigid_stage_coordinates``)."""
    for i in range(force.shape[0]):
        for j in range(3):
            force[i, j] = 0.0
            torque[i, j] = 0.0
    for k in range(force_int.shape[0]):
        ftype = force_int[k, F_TYPE]
        i = force_int[k, F_BODY]
        form = body_int[i, B_FORM]
        qr, _ = rotation_start(body_int, i)
        if ftype == GRAVITY:
            m = body_real[i, B_MASS]
            ga = GRAVITY_ACCELERATION
            fg = (m * force_real[k, ga], m * force_real[k, ga + 1], m * force_real[k, ga + 2])
            if body_int[i, B_KIND] == FREE:
                for j in range(3):
                    force[i, j] += fg[j]
            b0, b1, b2 = _load_to_body_frame(form, q, qr, cached, rotation, i, fg)
            c0, c1, c2 = body_real[i, B_COM], body_real[i, B_COM + 1], body_real[i, B_COM + 2]
            torque[i, 0] += c1 * b2 - c2 * b1
            torque[i, 1] += c2 * b0 - c0 * b2
            torque[i, 2] += c0 * b1 - c1 * b0
        elif ftype == BODY_TORQUE:
            for j in range(3):
                torque[i, j] += force_real[k, j]
        elif ftype == GLOBAL_TORQUE:
            b0, b1, b2 = _load_to_body_frame(form, q, qr, cached, rotation, i,
                                             (force_real[k, TORQUE], force_real[k, TORQUE + 1],
                                              force_real[k, TORQUE + 2]))
            torque[i, 0] += b0
            torque[i, 1] += b1
            torque[i, 2] += b2
        elif ftype == POINT_SPRING_DAMPER:
            _add_point_spring_damper(body_int, force_real, k, i, form, qr, q, v, cached, rotation, force, torque)


@njit(inline="always")
def elementary_applied_loads(sys, q, v, force, torque):
    """``applied_loads`` of the ``is_elementary_load`` elements alone (all of them in the free-bodies scope,
    ``lgbench.mbs.scope``)."""
    # no Euler parameters cached (``force`` only stands in for the array, which is not read)
    elementary_loads(sys.body_int, sys.body_real, sys.force_int, sys.force_real, q, v, False, force, force, torque)


@njit(inline="always")
def applied_loads(sys, q, v, t, force, torque):
    """Accumulate applied forces (global, at the reference point) and torques (body frame) per body."""
    force_int = sys.force_int
    elementary_applied_loads(sys, q, v, force, torque)
    for k in range(force_int.shape[0]):
        if not is_elementary_load(force_int[k, F_TYPE]):
            other_loads(sys, k, q, v, t, force, torque)
            break


@kernel
def other_loads(sys, first, q, v, t, force, torque):
    """The force elements from ``first`` on of the types ``elementary_loads`` leaves out (``other_load``), in
    one compiled call: kept out of ``applied_loads`` so that its frame stays small for gravity and
    torques, and one call per force evaluation because a call that passes the system tuple costs
    about 0.15 µs of reference counting (a call per element and per helper made a Puma 560 force
    evaluation 4.9 µs)."""
    for k in range(first, sys.force_int.shape[0]):
        if not is_elementary_load(sys.force_int[k, F_TYPE]):
            other_load(sys, k, q, v, t, force, torque)


@njit(inline="always")
def other_load(sys, k, q, v, t, force, torque):
    """Force element k of the types ``elementary_loads`` leaves out (PD controllers, timed torques, the EP
    norm-rate torque, line spring-dampers, point forces, manufactured loads; a TIME_TABLE row adds nothing).
    Allocation-free."""
    ftype = sys.force_int[k, F_TYPE]
    i = sys.force_int[k, F_BODY]
    p = sys.force_real[k]
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    if ftype == JOINT_PD:
        tau, axis = joint_pd_torque(sys, k, q, v, t)
        tau_axis = (tau * axis[0], tau * axis[1], tau * axis[2])
        _add_body_torque(torque, i, _rotate_back(_body_rotation(sys.body_int, i, q), tau_axis), 1.0)
        other = sys.force_int[k, F_OTHER]
        if other != GROUND:
            _add_body_torque(torque, other, _rotate_back(_body_rotation(sys.body_int, other, q), tau_axis), -1.0)
    elif ftype == TIMED_TORQUE:
        tau = (p[TORQUE], p[TORQUE + 1], p[TORQUE + 2])
        if p[TORQUE_IN_BODY_FRAME] <= 0.0:
            tau = _rotate_back(_body_rotation(sys.body_int, i, q), tau)
        _add_body_torque(torque, i, tau, time_factor(sys.force_real, k, TORQUE_SCHEDULE, t))
    elif ftype == EP_NORM_RATE_TORQUE and form == EP:
        norm_rate = q[qr] * v[vr] + q[qr + 1] * v[vr + 1] + q[qr + 2] * v[vr + 2] + q[qr + 3] * v[vr + 3]
        omega = body_angular_velocity(form, q, qr, v, vr)
        _add_body_torque(torque, i, inertia_apply(sys.body_real, i, omega), -2.0 * norm_rate)
    elif ftype == LINE_SPRING_DAMPER:
        other = sys.force_int[k, F_OTHER]
        b1 = (p[LINE_POINT1], p[LINE_POINT1 + 1], p[LINE_POINT1 + 2])
        b2 = (p[LINE_POINT2], p[LINE_POINT2 + 1], p[LINE_POINT2 + 2])
        p1, v1 = point_motion(sys, i, q, v, b1)
        p2, v2 = point_motion(sys, other, q, v, b2)
        d = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
        length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if length > 0.0:
            e = (d[0] / length, d[1] / length, d[2] / length)
            rate = e[0] * (v1[0] - v2[0]) + e[1] * (v1[1] - v2[1]) + e[2] * (v1[2] - v2[2])
            s = -(p[LINE_STIFFNESS] * (length - p[LINE_REST_LENGTH]) + p[LINE_DAMPING] * rate)
            f = (s * e[0], s * e[1], s * e[2])
            _add_point_force(sys, q, force, torque, i, b1, f, 1.0)
            _add_point_force(sys, q, force, torque, other, b2, f, -1.0)
    elif ftype == POINT_FORCE:
        factor = time_factor(sys.force_real, k, FORCE_SCHEDULE, t)
        f = (p[FORCE_VECTOR], p[FORCE_VECTOR + 1], p[FORCE_VECTOR + 2])
        if p[FORCE_IN_BODY_FRAME] > 0.0:
            f = from_body_frame(form, q, qr, f)
        _add_point_force(sys, q, force, torque, i, (p[FORCE_POINT], p[FORCE_POINT + 1], p[FORCE_POINT + 2]), f,
                         factor)
    elif ftype == MANUFACTURED_LOAD:
        f, couple = manufactured_load(sys.body_real[i, B_MASS],
                                      sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3), p, t)
        for j in range(3):
            force[i, j] += f[j]
        _add_body_torque(torque, i, _rotate_back(_body_rotation(sys.body_int, i, q), couple), 1.0)


@njit(inline="always")
def time_factor(force_real, k, schedule, t):
    """The factor of time that scales the timed element k (TIMED_TORQUE, POINT_FORCE; its schedule at column
    ``schedule``): linear in its time table if it has one (``table_factor``), else its ramp."""
    points = int(force_real[k, schedule + SCHEDULE_TABLE_POINTS])
    if points > 0:
        return table_factor(force_real, k + 1, points, t)
    return ramp_factor(force_real[k, schedule + SCHEDULE_RAMP_TIME], t)


@njit(inline="always")
def ramp_factor(ramp_time, t):
    """min(t / ramp time, 1) of a ramped element; 1 without a ramp (<= 0)."""
    return 1.0 if ramp_time <= 0.0 else min(t / ramp_time, 1.0)


@njit(inline="always")
def _table_point(force_real, first_row, j):
    """(time, factor) of point j of the table that starts at row ``first_row``."""
    row = first_row + j // TABLE_POINTS_PER_ROW
    column = 2 * (j % TABLE_POINTS_PER_ROW)
    return force_real[row, column], force_real[row, column + 1]


@kernel
def table_factor(force_real, first_row, points, t):
    """The piecewise-linear factor through the ``points`` (time, factor) points of the TIME_TABLE rows from
    ``first_row`` on (times strictly increasing), held at its first and last value outside them. A
    compiled call (only timed loads with a table take it); the interval by bisection."""
    t_first, f_first = _table_point(force_real, first_row, 0)
    if t <= t_first:
        return f_first
    t_last, f_last = _table_point(force_real, first_row, points - 1)
    if t >= t_last:
        return f_last
    lo, hi = 0, points - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _table_point(force_real, first_row, mid)[0] <= t:
            lo = mid
        else:
            hi = mid
    t0, f0 = _table_point(force_real, first_row, lo)
    t1, f1 = _table_point(force_real, first_row, hi)
    return f0 + (t - t0) / (t1 - t0) * (f1 - f0)


@njit(inline="always")
def point_motion(sys, i, q, v, b):
    """(position, velocity) of the point b (body frame) of body i, global, as tuples; for ground (i = -1)
    the fixed global point b."""
    if i == GROUND:
        return (b[0], b[1], b[2]), (0.0, 0.0, 0.0)
    form = sys.body_int[i, B_FORM]
    qr, vr = _rot_start(sys, i)
    Rb = from_body_frame(form, q, qr, b)
    w0, w1, w2 = body_angular_velocity(form, q, qr, v, vr)
    Rwb = from_body_frame(form, q, qr, (w1 * b[2] - w2 * b[1], w2 * b[0] - w0 * b[2], w0 * b[1] - w1 * b[0]))
    x = (0.0, 0.0, 0.0)
    u = (0.0, 0.0, 0.0)
    if sys.body_int[i, B_KIND] == FREE:
        x = _vec3(q, sys.body_int[i, B_QSTART])
        u = _vec3(v, sys.body_int[i, B_VSTART])
        if form == SE3:
            u = from_body_frame(form, q, qr, u)
    return ((x[0] + Rb[0], x[1] + Rb[1], x[2] + Rb[2]), (u[0] + Rwb[0], u[1] + Rwb[1], u[2] + Rwb[2]))


@njit(inline="always")
def _add_point_force(sys, q, force, torque, i, b, f, factor):
    """factor f (global) acting at the point b (body frame) of body i: force[i] += factor f at the reference
    point, torque[i] += b x R^T (factor f); nothing for ground (i = -1)."""
    if i == GROUND:
        return
    form = sys.body_int[i, B_FORM]
    qr, _ = _rot_start(sys, i)
    if sys.body_int[i, B_KIND] == FREE:
        for j in range(3):
            force[i, j] += factor * f[j]
    f0, f1, f2 = to_body_frame(form, q, qr, f)
    torque[i, 0] += factor * (b[1] * f2 - b[2] * f1)
    torque[i, 1] += factor * (b[2] * f0 - b[0] * f2)
    torque[i, 2] += factor * (b[0] * f1 - b[1] * f0)


@njit(inline="always")
def _add_body_torque(torque, i, x, factor):
    """torque[i] += factor * x for a 3-tuple x."""
    torque[i, 0] += factor * x[0]
    torque[i, 1] += factor * x[1]
    torque[i, 2] += factor * x[2]


@njit(inline="always")
def inertia_apply(body_real, i, x):
    """J x of body i (its inertia about the reference point, body frame) as a tuple."""
    J = B_INERTIA
    return (body_real[i, J] * x[0] + body_real[i, J + 1] * x[1] + body_real[i, J + 2] * x[2],
            body_real[i, J + 3] * x[0] + body_real[i, J + 4] * x[1] + body_real[i, J + 5] * x[2],
            body_real[i, J + 6] * x[0] + body_real[i, J + 7] * x[1] + body_real[i, J + 8] * x[2])


@kernel
def _wrap(angle):
    return math.atan2(math.sin(angle), math.cos(angle))


@njit(inline="always")
def _global_angular_velocity(sys, i, q, v, R):
    """R omega of body i, R its rotation (``_body_rotation``), as a tuple."""
    qr, vr = _rot_start(sys, i)
    return _rotate(R, body_angular_velocity(sys.body_int[i, B_FORM], q, qr, v, vr))


@njit(inline="always")
def joint_angle(sys, k, q, v, t):
    """(phi, phi', global axis as a tuple) of the revolute joint of force element k (a JOINT_PD row).

    phi is measured from reference 1 to reference 2 about the axis, continued from the set-point
    phi_d(t) (phi = phi_d + wrap(phi_measured - phi_d)), so it does not jump by 2 pi. One rotation per
    body, as a 9-tuple; no allocation.
    """
    p = sys.force_real[k]
    body = sys.force_int[k, F_BODY]
    other = sys.force_int[k, F_OTHER]
    R2 = _body_rotation(sys.body_int, body, q)
    e2 = _rotate(R2, (p[PD_REFERENCE2], p[PD_REFERENCE2 + 1], p[PD_REFERENCE2 + 2]))
    omega2 = _global_angular_velocity(sys, body, q, v, R2)
    axis = (p[PD_AXIS], p[PD_AXIS + 1], p[PD_AXIS + 2])
    e1 = (p[PD_REFERENCE1], p[PD_REFERENCE1 + 1], p[PD_REFERENCE1 + 2])
    omega1 = (0.0, 0.0, 0.0)
    if other != GROUND:
        R1 = _body_rotation(sys.body_int, other, q)
        axis = _rotate(R1, axis)
        e1 = _rotate(R1, e1)
        omega1 = _global_angular_velocity(sys, other, q, v, R1)
    measured = math.atan2(_dot3(axis, _cross3(e1, e2)), _dot3(e1, e2))
    phi_d, _, _ = setpoint(p, t)
    rate = _dot3(axis, (omega2[0] - omega1[0], omega2[1] - omega1[1], omega2[2] - omega1[2]))
    return phi_d + _wrap(measured - phi_d), rate, axis


@njit(inline="always")
def joint_pd_torque(sys, k, q, v, t):
    """(torque about the axis on body 2, global axis as a tuple) of the JOINT_PD force element k."""
    p = sys.force_real[k]
    phi, rate, axis = joint_angle(sys, k, q, v, t)
    phi_d, rate_d, _ = setpoint(p, t)
    return p[PD_KP] * (phi_d - phi) + p[PD_KD] * (rate_d - rate), axis


@njit(inline="always")
def setpoint(p, t):
    """(phi_d, phi_d', phi_d'') of the set-point trajectory of a JOINT_PD force element with parameters p."""
    s = PD_SETPOINT
    return prescribed_motion(int(p[PD_SETPOINT_KIND]), p[s], p[s + 1], p[s + 2], t)
