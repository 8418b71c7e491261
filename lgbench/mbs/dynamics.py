"""Accelerations of unconstrained systems, v' = M^{-1} g(q, v, t) (paper 000 eqs. 11, 14, 32).

``state_accelerations`` serves every node type and minimal-coordinate chains; ``rigid_body_stage``
is the fused stage of the explicit integrators (UAC, rates, loads and accelerations in one compiled
frame) for systems of rigid bodies under elementary loads (``is_rigid_body_system``).
"""
import math
from typing import NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import exp_so3_transpose_apply
from lgbench.lie.tait_bryan import SINGULAR_COS_PITCH, body_rate_dot_apply_rxyz, body_rate_matrix_rxyz_into
from lgbench.mbs.chain import chain_accelerations
from lgbench.mbs.codes import FREE, F_TYPE, OK, RXYZ, SE3, SINGULAR_PARAMETERISATION
from lgbench.mbs.coordinate_update import rigid_kinematic_rates, rigid_stage_coordinates
from lgbench.mbs.dense import lu_factor, lu_solve
from lgbench.mbs.loads import applied_loads, elementary_loads, inertia_apply, is_elementary_load
from lgbench.mbs.pose import _vec3, rotation_start
from lgbench.mbs.system import B_FORM, B_INERTIA, B_INERTIA_INV, B_KIND, B_MASS, B_QSTART, B_VSTART


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


@kernel
def rhs_work(sys):
    """A fresh ``RhsWork`` for the system."""
    nb = sys.body_int.shape[0]
    return RhsWork(np.zeros((nb, 3)), np.zeros((nb, 3)), np.zeros((3, 3)), np.zeros((3, 3)),
                   np.zeros(3, dtype=np.int64), np.zeros(3), np.zeros(sys.sizes[0]), np.zeros(sys.sizes[1]),
                   np.zeros((nb, 4)), np.zeros((nb, 4)))


@kernel
def accelerations(sys, q, v, t, force, torque, a):
    """``state_accelerations`` with the given force/torque arrays and fresh small work arrays."""
    work = RhsWork(force, torque, np.zeros((3, 3)), np.zeros((3, 3)), np.zeros(3, dtype=np.int64), np.zeros(3),
                   np.zeros(0), np.zeros(0), np.zeros((0, 4)), np.zeros((0, 4)))
    return state_accelerations(sys, q, v, t, work, a)


@njit(inline="always")
def euler_moment(body_real, i, torque, o0, o1, o2):
    """tau - omega x J omega of body i (right-hand side of Euler's equations, paper 000 eq. 11) as a
    tuple, for the body angular velocity omega = (o0, o1, o2) and the body-frame torque torque[i]."""
    h0, h1, h2 = inertia_apply(body_real, i, (o0, o1, o2))
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
                return SINGULAR_PARAMETERISATION
            tau = (torque[i, 0], torque[i, 1], torque[i, 2])
            if not tait_bryan_accelerations(body_real, i, _vec3(q, qr), _vec3(v, vr), tau, rate_map, mass, piv, rhs):
                return SINGULAR_PARAMETERISATION
            a[vr], a[vr + 1], a[vr + 2] = _vec3(rhs, 0)
        else:
            Ji = B_INERTIA_INV
            g0, g1, g2 = euler_moment(body_real, i, torque, v[vr], v[vr + 1], v[vr + 2])
            a[vr] = body_real[i, Ji] * g0 + body_real[i, Ji + 1] * g1 + body_real[i, Ji + 2] * g2
            a[vr + 1] = body_real[i, Ji + 3] * g0 + body_real[i, Ji + 4] * g1 + body_real[i, Ji + 5] * g2
            a[vr + 2] = body_real[i, Ji + 6] * g0 + body_real[i, Ji + 7] * g1 + body_real[i, Ji + 8] * g2
    return OK


@kernel
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
            m = sys.body_real[i, B_MASS]
            f0, f1, f2 = se3_translational_force(q, v, force, i, m, body_int[i, B_QSTART] + 3, vs + 3, vs)
            a[vs], a[vs + 1], a[vs + 2] = f0 / m, f1 / m, f2 / m
    if sys.chain_int.shape[0] > 0:
        chain_accelerations(sys, q, v, t, a)
    return OK


@kernel
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


@njit(inline="always")
def se3_translational_force(q, v, force, i, m, qr, vr, vs):
    """R^T f - m omega x U of SE3 node i (paper 002 eq. 22b: m U' = R^T f - m omega x U) as a tuple, for the
    global force f = force[i], rotation vector q[qr:qr+3], omega = v[vr:vr+3] and U = v[vs:vs+3]."""
    f0, f1, f2 = exp_so3_transpose_apply(_vec3(q, qr), (force[i, 0], force[i, 1], force[i, 2]))
    o0, o1, o2 = v[vr], v[vr + 1], v[vr + 2]
    u0, u1, u2 = v[vs], v[vs + 1], v[vs + 2]
    return f0 - m * (o1 * u2 - o2 * u1), f1 - m * (o2 * u0 - o0 * u2), f2 - m * (o0 * u1 - o1 * u0)


@kernel
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

