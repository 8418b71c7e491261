"""Compiled kernels of the multibody layer: UAC, kinematic rates, accelerations, energy, outputs.

All functions take a ``SystemArrays`` tuple and flat state vectors q (coordinates) and v
(velocity coordinates); none allocates Python objects. Status codes: OK, SINGULAR (a rotation
parameterisation hit its singularity), DIVERGED (non-finite numbers).

The explicit right-hand side -- ``update_coordinates``, ``kinematic_rates`` and
``state_accelerations`` with a preallocated ``RhsWork`` -- allocates no arrays for rigid bodies of
the explicit formulations (RV, Rxyz, F1, EP-F1) under gravity and body or global torques: 3-vectors
are carried as tuples, so an integration step costs its arithmetic only. These kernels also take
the arrays they read out of ``sys`` once and index the state directly instead of slicing it (every
tuple-member access and every view costs reference counting in numba).
"""
import math
from typing import NamedTuple

import numpy as np
from numba import njit

from lgbench.lie.euler_parameters import body_ep_matrix, rotation_ep_transpose_apply, rotation_matrix_ep
from lgbench.lie.se3 import compose_se3, tangent_operator_inverse_se3
from lgbench.lie.so3 import (
    compose_rotation_vectors_tuple, compose_with_quaternion, exp_so3, exp_so3_apply, exp_so3_transpose_apply,
    quaternion_of_rotation_vector, tangent_operator_inverse_so3_apply,
)
from lgbench.lie.tait_bryan import (
    SINGULAR_COS_PITCH,
    body_rate_apply_rxyz,
    body_rate_dot_apply_rxyz,
    body_rate_inverse_apply_rxyz,
    body_rate_matrix_dot_rxyz,
    body_rate_matrix_rxyz,
    body_rate_matrix_rxyz_into,
    rotation_matrix_rxyz,
    rotation_rxyz_apply,
    rotation_rxyz_transpose_apply,
)
from lgbench.mbs.chain import (
    chain_accelerations, chain_kinetic_energy, chain_potential_energy,
)
from lgbench.mbs.dense import cross, lu_factor, lu_solve, mat3_vec, mat3t_vec
from lgbench.mbs.trajectories import prescribed_motion
from lgbench.mbs.manufactured import MANUFACTURED_LOAD, manufactured_load
from lgbench.mbs.formulations import EP, EP_F1, F1, RV, RXYZ, SE3
from lgbench.mbs.system import (
    B_COM, B_FORM, B_INERTIA, B_INERTIA_INV, B_KIND, B_MASS, B_QSTART, B_VSTART, BODY_TORQUE, C_COORDINATE,
    EP_NORM_RATE_TORQUE, F_BODY, F_OTHER, F_TYPE, FREE, GLOBAL_TORQUE, GRAVITY, GROUND, JOINT_PD,
    POINT_SPRING_DAMPER, RAMP_BODY_TORQUE,
)

OK = 0
DIVERGED = 1
SINGULAR = 2


class RhsWork(NamedTuple):
    """Preallocated arrays of ``state_accelerations`` (one per integration run, reused every stage)."""

    force: np.ndarray    # (n_bodies, 3) applied forces, global, at the reference points
    torque: np.ndarray   # (n_bodies, 3) applied torques, body frame
    rate_map: np.ndarray  # (3, 3) G(theta) of a Tait-Bryan body
    mass: np.ndarray     # (3, 3) its mass matrix G^T J G, factorised in place
    piv: np.ndarray      # (3,) pivots of that factorisation
    rhs: np.ndarray      # (3,) right-hand side, overwritten by the solution
    rate: np.ndarray     # (nq,) coordinate rates of a stage (``kinematic_rates``)
    acc: np.ndarray      # (nv,) accelerations of a stage
    base: np.ndarray     # (n_bodies, 4) Euler parameters of RV bodies at a step's start (``rigid_base_rotations``)
    rotation: np.ndarray  # (n_bodies, 4) and at a stage (``rigid_stage_coordinates``)


@njit(cache=True)
def rhs_work(sys):
    """A fresh ``RhsWork`` for the system."""
    nb = sys.body_int.shape[0]
    return RhsWork(np.zeros((nb, 3)), np.zeros((nb, 3)), np.zeros((3, 3)), np.zeros((3, 3)),
                   np.zeros(3, dtype=np.int64), np.zeros(3), np.zeros(sys.sizes[0]), np.zeros(sys.sizes[1]),
                   np.zeros((nb, 4)), np.zeros((nb, 4)))


@njit(cache=True)
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


@njit(cache=True)
def rotation_size(form):
    """Number of rotation coordinates of a formulation code."""
    return 4 if (form == EP_F1 or form == EP) else 3


@njit(cache=True)
def rotation_matrix(form, r):
    """R(rho) for the rotation coordinates r of a body with formulation code ``form``."""
    if form == RV or form == SE3:
        return exp_so3(r)
    if form == RXYZ or form == F1:
        return rotation_matrix_rxyz(r)
    n = math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3])
    return rotation_matrix_ep(r / n)


@njit(cache=True)
def velocity_map(form, r):
    """W(rho) with omega_body = W w: I (RV, F1, EP-F1), G(theta) (Rxyz), 2 L(e) (EP)."""
    if form == RXYZ:
        return body_rate_matrix_rxyz(r)
    if form == EP:
        return 2.0 * body_ep_matrix(r)
    return np.eye(3)


@njit(cache=True)
def velocity_map_rate(form, r, w):
    """W'(rho) w, the velocity-dependent part of omega' = W w' + W' w (zero for RV and EP)."""
    if form == RXYZ:
        return mat3_vec(body_rate_matrix_dot_rxyz(r, w), w)
    return np.zeros(3)


@njit(cache=True)
def angular_velocity(form, r, w):
    """Body-frame angular velocity from the rotational velocity coordinates w."""
    if form == RXYZ:
        return mat3_vec(body_rate_matrix_rxyz(r), w)
    if form == EP:
        return 2.0 * (body_ep_matrix(r) @ w[0:4])
    return w[0:3].copy()


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def translation_rate(sys, i, q, v):
    """Velocity-dependent part of x'' of body i: R (omega x U) for SE3 nodes (x' = R U), else 0."""
    out = np.zeros(3)
    if sys.body_int[i, B_FORM] == SE3:
        qr, vr = _rot_start(sys, i)
        vs = sys.body_int[i, B_VSTART]
        out[:] = mat3_vec(exp_so3(q[qr:qr + 3]), cross(v[vr:vr + 3], v[vs:vs + 3]))
    return out


@njit(inline="always")
def _add_translation_and_classical_rotation(form, s, qr, q0, dq, q):
    """UAC by addition (paper 000 eq. 31) of a body's translation q0[s:qr] and, unless it is an RV node,
    of its rotation coordinates."""
    for k in range(s, qr):
        q[k] = q0[k] + dq[k]
    if form != RV:
        for k in range(qr, qr + rotation_size(form)):
            q[k] = q0[k] + dq[k]


@njit(inline="always")
def rigid_update_coordinates(body_int, q0, dq, q):
    """UAC(q0, dq) of paper 000 Alg. 1 for every body except SE3 nodes: Lie group nodes compose
    (eq. 30, App. A.3), classical ones add (eq. 31)."""
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        if form == SE3:
            continue
        s = body_int[i, B_QSTART]
        qr, _ = rotation_start(body_int, i)
        _add_translation_and_classical_rotation(form, s, qr, q0, dq, q)
        if form == RV:
            q[qr], q[qr + 1], q[qr + 2] = compose_rotation_vectors_tuple(_vec3(q0, qr), _vec3(dq, qr))


@njit(inline="always")
def rigid_base_rotations(body_int, q0, base):
    """Euler parameters of the RV bodies' rotations exp(psi) at q0 into base[i] (paper 000 eq. A11):
    computed once per step for ``rigid_stage_coordinates``."""
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == RV:
            qr, _ = rotation_start(body_int, i)
            base[i, 0], base[i, 1], base[i, 2], base[i, 3] = quaternion_of_rotation_vector(_vec3(q0, qr))


@njit(inline="always")
def rigid_stage_coordinates(body_int, base, q0, dq, q, rotation):
    """``rigid_update_coordinates`` with the RV compositions started from the Euler parameters base[i] of
    q0 (``rigid_base_rotations``); the Euler parameters of each RV body's new rotation go to rotation[i],
    from which ``elementary_loads`` takes R without trigonometric functions."""
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        s = body_int[i, B_QSTART]
        qr, _ = rotation_start(body_int, i)
        _add_translation_and_classical_rotation(form, s, qr, q0, dq, q)
        if form == RV:
            e = (base[i, 0], base[i, 1], base[i, 2], base[i, 3])
            psi, e1 = compose_with_quaternion(e, _vec3(dq, qr))
            q[qr], q[qr + 1], q[qr + 2] = psi
            rotation[i, 0], rotation[i, 1], rotation[i, 2], rotation[i, 3] = e1


@njit(inline="always")
def update_coordinates_inline(sys, q0, dq, q):
    """UAC(q0, dq) of paper 000 Alg. 1 (``rigid_update_coordinates``); SE3 nodes: (R0, x0) o exp_SE3(dq)
    (paper 002 eqs. 11b, 37a); minimal coordinates add."""
    body_int = sys.body_int
    chain_int = sys.chain_int
    rigid_update_coordinates(body_int, q0, dq, q)
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == SE3:
            s = body_int[i, B_QSTART]
            _update_se3(q0, dq, q, s, s + 3)
    for j in range(chain_int.shape[0]):
        k = chain_int[j, C_COORDINATE]
        q[k] = q0[k] + dq[k]


@njit(cache=True)
def update_coordinates(sys, q0, dq, q):
    """``update_coordinates_inline`` as a compiled call."""
    update_coordinates_inline(sys, q0, dq, q)


@njit(cache=True)
def _update_se3(q0, dq, q, s, qr):
    x, psi = compose_se3(q0[s:s + 3], q0[qr:qr + 3], dq[s:s + 6])
    q[s:s + 3] = x
    q[qr:qr + 3] = psi


@njit(cache=True)
def _rates_se3(dq, v, K, s, vs):
    K[s:s + 6] = tangent_operator_inverse_se3(dq[s:s + 6]) @ v[vs:vs + 6]


@njit(inline="always")
def rigid_kinematic_rates(body_int, q, dq, v, K):
    """Slopes K of the coordinates of every body except SE3 nodes: Lie nodes T_exp^{-1}(dq) v (paper 000
    eq. 25), classical q' = H^{-1} v; returns a status code."""
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        if form == SE3:
            continue
        s = body_int[i, B_QSTART]
        vs = body_int[i, B_VSTART]
        qr, vr = rotation_start(body_int, i)
        for k in range(qr - s):
            K[s + k] = v[vs + k]
        if form == RV:
            K[qr], K[qr + 1], K[qr + 2] = tangent_operator_inverse_so3_apply(_vec3(dq, qr), _vec3(v, vr))
        elif form == RXYZ:
            for k in range(3):
                K[qr + k] = v[vr + k]
        elif form == EP:
            for k in range(4):
                K[qr + k] = v[vr + k]
        elif form == F1:
            if abs(math.cos(q[qr + 1])) < SINGULAR_COS_PITCH:
                return SINGULAR
            K[qr], K[qr + 1], K[qr + 2] = body_rate_inverse_apply_rxyz(_vec3(q, qr), _vec3(v, vr))
        else:
            # e' = L(e)^T omega / 2, L of ``body_ep_matrix`` written out
            e0, e1, e2, e3 = q[qr], q[qr + 1], q[qr + 2], q[qr + 3]
            w0, w1, w2 = v[vr], v[vr + 1], v[vr + 2]
            K[qr] = 0.5 * (-e1 * w0 - e2 * w1 - e3 * w2)
            K[qr + 1] = 0.5 * (e0 * w0 - e3 * w1 + e2 * w2)
            K[qr + 2] = 0.5 * (e3 * w0 + e0 * w1 - e1 * w2)
            K[qr + 3] = 0.5 * (-e2 * w0 + e1 * w1 + e0 * w2)
    return OK


@njit(cache=True)
def kinematic_rates(sys, q, dq, v, K):
    """Slopes K of the coordinates (``rigid_kinematic_rates``); SE3 nodes T_SE3^{-1}(dq) v, minimal
    coordinates q' = v."""
    body_int = sys.body_int
    chain_int = sys.chain_int
    status = rigid_kinematic_rates(body_int, q, dq, v, K)
    if status != OK:
        return status
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == SE3:
            _rates_se3(dq, v, K, body_int[i, B_QSTART], body_int[i, B_VSTART])
    for j in range(chain_int.shape[0]):
        k = chain_int[j, C_COORDINATE]
        K[k] = v[k]
    return OK


@njit(cache=True)
def to_body_frame(form, q, qr, x):
    """R(rho)^T x as a tuple for the rotation coordinates q[qr:...] of a body of formulation ``form``."""
    if form == RV or form == SE3:
        return exp_so3_transpose_apply(_vec3(q, qr), x)
    if form == RXYZ or form == F1:
        return rotation_rxyz_transpose_apply(_vec3(q, qr), x)
    return rotation_ep_transpose_apply((q[qr], q[qr + 1], q[qr + 2], q[qr + 3]), x)


@njit(cache=True)
def is_elementary_load(ftype):
    """Gravity, constant body or global torques and point spring-dampers: the loads ``elementary_loads``
    evaluates without allocating."""
    return ftype == GRAVITY or ftype == BODY_TORQUE or ftype == GLOBAL_TORQUE or ftype == POINT_SPRING_DAMPER


@njit(cache=True)
def from_body_frame(form, q, qr, x):
    """R(rho) x as a tuple for the rotation coordinates q[qr:...] of a body of formulation ``form``."""
    if form == RV or form == SE3:
        return exp_so3_apply(_vec3(q, qr), x)
    if form == RXYZ or form == F1:
        return rotation_rxyz_apply(_vec3(q, qr), x)
    # R(e) = R(e*)^T with the conjugate e* = (e0, -e1, -e2, -e3)
    return rotation_ep_transpose_apply((q[qr], -q[qr + 1], -q[qr + 2], -q[qr + 3]), x)


@njit(cache=True)
def body_angular_velocity(form, q, qr, v, vr):
    """omega_body = W(rho) w as a tuple (``angular_velocity`` without allocation)."""
    if form == RXYZ:
        return body_rate_apply_rxyz(_vec3(q, qr), _vec3(v, vr))
    if form == EP:
        e0, e1, e2, e3 = q[qr], q[qr + 1], q[qr + 2], q[qr + 3]
        d0, d1, d2, d3 = v[vr], v[vr + 1], v[vr + 2], v[vr + 3]
        return (2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3), 2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3),
                2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3))
    return _vec3(v, vr)


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
    b = (force_real[k, 6], force_real[k, 7], force_real[k, 8])
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
    f = (-force_real[k, 0] * (x[0] + Rb[0] - force_real[k, 9]) - force_real[k, 3] * (u[0] + Rwb[0]),
         -force_real[k, 1] * (x[1] + Rb[1] - force_real[k, 10]) - force_real[k, 4] * (u[1] + Rwb[1]),
         -force_real[k, 2] * (x[2] + Rb[2] - force_real[k, 11]) - force_real[k, 5] * (u[2] + Rwb[2]))
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
            fg = (m * force_real[k, 0], m * force_real[k, 1], m * force_real[k, 2])
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
                                             (force_real[k, 0], force_real[k, 1], force_real[k, 2]))
            torque[i, 0] += b0
            torque[i, 1] += b1
            torque[i, 2] += b2
        elif ftype == POINT_SPRING_DAMPER:
            _add_point_spring_damper(body_int, force_real, k, i, form, qr, q, v, cached, rotation, force, torque)


@njit(inline="always")
def applied_loads(sys, q, v, t, force, torque):
    """Accumulate applied forces (global, at the reference point) and torques (body frame) per body."""
    force_int = sys.force_int
    # no Euler parameters cached (``force`` only stands in for the array, which is not read)
    elementary_loads(sys.body_int, sys.body_real, force_int, sys.force_real, q, v, False, force, force, torque)
    for k in range(force_int.shape[0]):
        if not is_elementary_load(force_int[k, F_TYPE]):
            other_load(sys, k, q, v, t, force, torque)


@njit(cache=True)
def other_load(sys, k, q, v, t, force, torque):
    """Force element k of the types that need matrices (PD controllers, springs, ramps, manufactured
    loads); kept out of ``applied_loads`` so that its frame stays small for gravity and torques."""
    ftype = sys.force_int[k, F_TYPE]
    i = sys.force_int[k, F_BODY]
    p = sys.force_real[k]
    form = sys.body_int[i, B_FORM]
    qr, _ = _rot_start(sys, i)
    r = q[qr:qr + rotation_size(form)]
    if ftype == JOINT_PD:
        R = rotation_matrix(form, r)
        other = sys.force_int[k, F_OTHER]
        tau, axis = joint_pd_torque(sys, k, q, v, t)
        torque[i] += mat3t_vec(R, tau * axis)
        if other != GROUND:
            R1, _ = body_pose(sys, other, q)
            torque[other] -= mat3t_vec(R1, tau * axis)
    elif ftype == RAMP_BODY_TORQUE:
        factor = 1.0 if p[3] <= 0.0 else min(t / p[3], 1.0)
        torque[i] += factor * p[0:3]
    elif ftype == EP_NORM_RATE_TORQUE and form == EP:
        _, vr = _rot_start(sys, i)
        e = q[qr:qr + 4]
        e_rate = v[vr:vr + 4]
        J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
        norm_rate = e[0] * e_rate[0] + e[1] * e_rate[1] + e[2] * e_rate[2] + e[3] * e_rate[3]
        torque[i] -= 2.0 * norm_rate * mat3_vec(J, angular_velocity(form, e, e_rate))
    elif ftype == MANUFACTURED_LOAD:
        R = rotation_matrix(form, r)
        f, couple = manufactured_load(sys.body_real[i, B_MASS],
                                      sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3), p, t)
        force[i] += f
        torque[i] += mat3t_vec(R, couple)


@njit(cache=True)
def accelerations(sys, q, v, t, force, torque, a):
    """``state_accelerations`` with the given force/torque arrays and fresh small work arrays."""
    work = RhsWork(force, torque, np.zeros((3, 3)), np.zeros((3, 3)), np.zeros(3, dtype=np.int64), np.zeros(3),
                   np.zeros(0), np.zeros(0), np.zeros((0, 4)), np.zeros((0, 4)))
    return state_accelerations(sys, q, v, t, work, a)


@njit(inline="always")
def euler_moment(body_real, i, torque, o0, o1, o2):
    """tau - omega x J omega of body i (right-hand side of Euler's equations, paper 000 eq. 11) as a
    tuple, for the body angular velocity omega = (o0, o1, o2) and the body-frame torque torque[i]."""
    J = B_INERTIA
    h0 = body_real[i, J] * o0 + body_real[i, J + 1] * o1 + body_real[i, J + 2] * o2
    h1 = body_real[i, J + 3] * o0 + body_real[i, J + 4] * o1 + body_real[i, J + 5] * o2
    h2 = body_real[i, J + 6] * o0 + body_real[i, J + 7] * o1 + body_real[i, J + 8] * o2
    return (torque[i, 0] - (o1 * h2 - o2 * h1), torque[i, 1] - (o2 * h0 - o0 * h2),
            torque[i, 2] - (o0 * h1 - o1 * h0))


@njit(inline="always")
def rigid_accelerations(body_int, body_real, q, v, force, torque, rate_map, mass, piv, rhs, a):
    """v' = M^{-1} g(q, v, t) per body from the applied forces and torques (paper 000 eqs. 11, 14, 32),
    except the translation of SE3 nodes; returns a status code.

    RV, F1, EP-F1 (and SE3 rotation): J omega' = tau - omega x J omega. Rxyz (formulation 2):
    G^T J G theta'' = G^T (tau - omega x J omega - J G' theta'), solved with the q-dependent mass matrix
    in rate_map, mass, piv and rhs (``tait_bryan_accelerations``).
    """
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        vs = body_int[i, B_VSTART]
        qr, vr = rotation_start(body_int, i)
        if body_int[i, B_KIND] == FREE and form != SE3:
            m = body_real[i, B_MASS]
            for k in range(3):
                a[vs + k] = force[i, k] / m
        if form == RXYZ:
            if abs(math.cos(q[qr + 1])) < SINGULAR_COS_PITCH:
                return SINGULAR
            tau = (torque[i, 0], torque[i, 1], torque[i, 2])
            if not tait_bryan_accelerations(body_real, i, _vec3(q, qr), _vec3(v, vr), tau, rate_map, mass, piv, rhs):
                return SINGULAR
            a[vr], a[vr + 1], a[vr + 2] = _vec3(rhs, 0)
        else:
            Ji = B_INERTIA_INV
            g0, g1, g2 = euler_moment(body_real, i, torque, v[vr], v[vr + 1], v[vr + 2])
            a[vr] = body_real[i, Ji] * g0 + body_real[i, Ji + 1] * g1 + body_real[i, Ji + 2] * g2
            a[vr + 1] = body_real[i, Ji + 3] * g0 + body_real[i, Ji + 4] * g1 + body_real[i, Ji + 5] * g2
            a[vr + 2] = body_real[i, Ji + 6] * g0 + body_real[i, Ji + 7] * g1 + body_real[i, Ji + 8] * g2
    return OK


@njit(cache=True)
def state_accelerations(sys, q, v, t, work, a):
    """v' = M^{-1} g(q, v, t) for unconstrained systems (paper 000 eqs. 11, 14, 32); ``work`` is an ``RhsWork``.

    Rigid bodies: ``rigid_accelerations``. SE3: m U' = R^T f - m omega x U (paper 002 eq. 22b).
    Minimal-coordinate chains: ``chain_accelerations``.
    """
    force = work.force
    torque = work.torque
    applied_loads(sys, q, v, t, force, torque)
    body_int = sys.body_int
    status = rigid_accelerations(body_int, sys.body_real, q, v, force, torque, work.rate_map, work.mass, work.piv,
                                 work.rhs, a)
    if status != OK:
        return status
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == SE3:
            vs = body_int[i, B_VSTART]
            _translation_se3(q, v, force[i], sys.body_real[i, B_MASS], body_int[i, B_QSTART] + 3, vs + 3, vs, a)
    if sys.chain_int.shape[0] > 0:
        chain_accelerations(sys, q, v, t, a)
    return OK


@njit(cache=True)
def is_rigid_body_system(sys):
    """True when ``rigid_body_stage`` evaluates the whole right-hand side: no SE3 node, no
    minimal-coordinate chain, and only ``is_elementary_load`` force elements."""
    for i in range(sys.body_int.shape[0]):
        if sys.body_int[i, B_FORM] == SE3:
            return False
    for k in range(sys.force_int.shape[0]):
        if not is_elementary_load(sys.force_int[k, F_TYPE]):
            return False
    return sys.chain_int.shape[0] == 0


@njit(inline="always")
def rigid_body_stage(body_int, body_real, force_int, force_real, base, q0, dq, v, q, K, rotation, force, torque,
                     rate_map, mass, piv, rhs, a):
    """One stage of paper 000 Alg. 2/3 for an ``is_rigid_body_system``: q = UAC(q0, dq), the coordinate
    slopes K and the accelerations a at (q, v), in one compiled frame; base holds the Euler parameters
    of the RV bodies at q0 (``rigid_base_rotations``), rotation receives those at q.

    It is ``update_coordinates``, ``kinematic_rates`` and ``state_accelerations`` with the system's
    arrays passed one by one: every compiled call that takes the ``SystemArrays`` tuple copies and
    reference-counts all of its arrays, which was most of an explicit step's time."""
    rigid_stage_coordinates(body_int, base, q0, dq, q, rotation)
    status = rigid_kinematic_rates(body_int, q, dq, v, K)
    if status != OK:
        return status
    elementary_loads(body_int, body_real, force_int, force_real, q, v, True, rotation, force, torque)
    return rigid_accelerations(body_int, body_real, q, v, force, torque, rate_map, mass, piv, rhs, a)


@njit(cache=True)
def _translation_se3(q, v, f, m, qr, vr, vs, a):
    """U' = R^T f / m - omega x U of an SE3 node (paper 002 eq. 22b)."""
    R = exp_so3(q[qr:qr + 3])
    a[vs:vs + 3] = mat3t_vec(R, f) / m - cross(v[vr:vr + 3], v[vs:vs + 3])


@njit(cache=True)
def tait_bryan_accelerations(body_real, i, theta, rates, tau, G, M, piv, b):
    """theta'' of Tait-Bryan body i (paper 000 eq. 14) into b: forms G^T J G in M and factorises it (pivots
    in piv), as formulation 2 does every stage, with G(theta) in G; returns False if the mass matrix is
    singular. theta, rates, tau are 3-tuples."""
    J = body_real[i, B_INERTIA:B_INERTIA + 9]
    body_rate_matrix_rxyz_into(theta, G)
    o0 = G[0, 0] * rates[0] + G[0, 1] * rates[1] + G[0, 2] * rates[2]
    o1 = G[1, 0] * rates[0] + G[1, 1] * rates[1] + G[1, 2] * rates[2]
    o2 = G[2, 0] * rates[0] + G[2, 1] * rates[1] + G[2, 2] * rates[2]
    h0 = J[0] * o0 + J[1] * o1 + J[2] * o2
    h1 = J[3] * o0 + J[4] * o1 + J[5] * o2
    h2 = J[6] * o0 + J[7] * o1 + J[8] * o2
    d0, d1, d2 = body_rate_dot_apply_rxyz(theta, rates)
    r0 = tau[0] - (o1 * h2 - o2 * h1) - (J[0] * d0 + J[1] * d1 + J[2] * d2)
    r1 = tau[1] - (o2 * h0 - o0 * h2) - (J[3] * d0 + J[4] * d1 + J[5] * d2)
    r2 = tau[2] - (o0 * h1 - o1 * h0) - (J[6] * d0 + J[7] * d1 + J[8] * d2)
    for r in range(3):
        for c in range(3):
            acc = 0.0
            for k in range(3):
                acc += (G[0, r] * J[k] + G[1, r] * J[3 + k] + G[2, r] * J[6 + k]) * G[k, c]
            M[r, c] = acc
    for r in range(3):
        b[r] = G[0, r] * r0 + G[1, r] * r1 + G[2, r] * r2
    if not lu_factor(M, piv):
        return False
    lu_solve(M, piv, b)
    return True


@njit(cache=True)
def _wrap(angle):
    return math.atan2(math.sin(angle), math.cos(angle))


@njit(cache=True)
def joint_angle(sys, k, q, v, t):
    """(phi, phi', global axis) of the revolute joint of force element k (a JOINT_PD row).

    phi is measured from reference 1 to reference 2 about the axis, continued from the set-point
    phi_d(t) (phi = phi_d + wrap(phi_measured - phi_d)), so it does not jump by 2 pi.
    """
    p = sys.force_real[k]
    body = sys.force_int[k, F_BODY]
    other = sys.force_int[k, F_OTHER]
    R2, _, _, omega2 = body_state(sys, body, q, v)
    if other == GROUND:
        R1 = np.eye(3)
        omega1 = np.zeros(3)
    else:
        R1, _, _, omega1 = body_state(sys, other, q, v)
    axis = mat3_vec(R1, p[0:3])
    e1 = mat3_vec(R1, p[3:6])
    e2 = mat3_vec(R2, p[6:9])
    measured = math.atan2(axis @ cross(e1, e2), e1 @ e2)
    phi_d, _, _ = prescribed_motion(int(p[11]), p[12], p[13], p[14], t)
    rate = axis @ (mat3_vec(R2, omega2) - mat3_vec(R1, omega1))
    return phi_d + _wrap(measured - phi_d), rate, axis


@njit(cache=True)
def joint_pd_torque(sys, k, q, v, t):
    """(torque about the axis on body 2, global axis) of the JOINT_PD force element k."""
    p = sys.force_real[k]
    phi, rate, axis = joint_angle(sys, k, q, v, t)
    phi_d, rate_d, _ = prescribed_motion(int(p[11]), p[12], p[13], p[14], t)
    return p[9] * (phi_d - phi) + p[10] * (rate_d - rate), axis


@njit(cache=True)
def body_point_motion(sys, i, q, v, b):
    """Global position and velocity of the body-frame point b of body i."""
    R, x, u, omega = body_state(sys, i, q, v)
    return x + mat3_vec(R, b), u + mat3_vec(R, cross(omega, b))


@njit(cache=True)
def body_com(sys, i, q, v):
    """Global centre-of-mass position and velocity of body i."""
    return body_point_motion(sys, i, q, v, sys.body_real[i, B_COM:B_COM + 3])


@njit(cache=True)
def kinetic_energy(sys, q, v):
    e = 0.0
    for i in range(sys.body_int.shape[0]):
        R, x, u, omega = body_state(sys, i, q, v)
        J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
        e += 0.5 * (omega @ mat3_vec(J, omega))
        if sys.body_int[i, B_KIND] == FREE:
            e += 0.5 * sys.body_real[i, B_MASS] * (u @ u)
    return e + chain_kinetic_energy(sys, q, v)


@njit(cache=True)
def potential_energy(sys, q, v):
    """Potential of the conservative loads (gravity, springs)."""
    e = 0.0
    for k in range(sys.force_int.shape[0]):
        i = sys.force_int[k, F_BODY]
        p = sys.force_real[k]
        if sys.force_int[k, F_TYPE] == GRAVITY:
            xc, _ = body_com(sys, i, q, v)
            e -= sys.body_real[i, B_MASS] * (p[0:3] @ xc)
        elif sys.force_int[k, F_TYPE] == POINT_SPRING_DAMPER:
            position, _ = body_point_motion(sys, i, q, v, p[6:9])
            for j in range(3):
                e += 0.5 * p[j] * (position[j] - p[9 + j]) ** 2
    return e + chain_potential_energy(sys, q, v)


@njit(cache=True)
def angular_momentum(sys, q, v):
    """Total angular momentum about the global origin, in the global frame."""
    L = np.zeros(3)
    for i in range(sys.body_int.shape[0]):
        R, x, u, omega = body_state(sys, i, q, v)
        J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
        L += mat3_vec(R, mat3_vec(J, omega))
        if sys.body_int[i, B_KIND] == FREE:
            L += sys.body_real[i, B_MASS] * cross(x, u)
    return L


@njit(cache=True)
def algebra_commutator(sys, v, w, out):
    """hat(v) w = [v~, w~] per node (paper 002 eqs. 29, 34): RV nodes [0, Omega x W_Omega];
    SE3 nodes [U x W_Omega + Omega x W_U, Omega x W_Omega] (lgbench order [U, Omega]); 0 for the
    linear coordinates of classical nodes and chains."""
    out[:] = 0.0
    for i in range(sys.body_int.shape[0]):
        form = sys.body_int[i, B_FORM]
        if form != RV and form != SE3:
            continue
        _, vr = _rot_start(sys, i)
        out[vr:vr + 3] = cross(v[vr:vr + 3], w[vr:vr + 3])
        if form == SE3:
            vs = sys.body_int[i, B_VSTART]
            out[vs:vs + 3] = cross(v[vs:vs + 3], w[vr:vr + 3]) + cross(v[vr:vr + 3], w[vs:vs + 3])


@njit(cache=True)
def largest_rotation_increment(body_int, dq):
    """max over RV bodies of |dq_rotation|: the rotation angle of a Lie group update UAC(q, dq)."""
    largest = 0.0
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == RV:
            qr, _ = rotation_start(body_int, i)
            largest = max(largest, math.sqrt(dq[qr] ** 2 + dq[qr + 1] ** 2 + dq[qr + 2] ** 2))
    return largest


@njit(cache=True)
def all_finite(x):
    for k in range(x.shape[0]):
        if not math.isfinite(x[k]):
            return False
    return True
