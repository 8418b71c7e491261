"""Analytic tangent stiffness K_t = -dg/dz (along UAC(q, z)) and damping C_t = -dg/dv of the generalized forces.

g(q, v, t) is ``generalized_forces_inline``: the applied loads plus the gyroscopic terms. Paper 000 eq. (42)
obtains K_t and C_t by finite differences of g (``iteration_matrix._grouped_force_blocks``); here
they are differentiated by hand, element by element, as the paper's own code does with its "direct"
Jacobians. Minimal-coordinate chains are differentiated by the tangent-linear RNEA of
``lgbench/mbs/chain_tangent.py``.

The chain rule runs through the physical variables of each body: position x (global), rotation R with
the body-frame increment dR = R dPi~, velocity u = x' (global) and angular velocity omega (body frame).
Their derivatives with respect to the body's own coordinates are its *kinematic sensitivities*
(``kinematic_sensitivities``): [dx; dPi] = P dz and [du; domega] = Vz dz + Vv dv, with
- RV: dPi = dz (UAC composes R exp(dz~), paper 000 eq. 30); SE3: dx = R dz_U, dPi = dz_Omega, u = R U
  (paper 002 eqs. 3, 11b);
- Rxyz: dPi = G(theta) dz, omega = G(theta) theta' (paper 000 eq. 13);
- EP: R = R(e/|e|), dPi = 2 L(e) dz / |e|^2, omega = 2 L(e) e', so domega/de = -2 L(e').
A force element supplies the derivatives of the wrench it puts on a body (global force f at the
reference point, body-frame torque tau) with respect to [x, Pi] and [u, omega] of the bodies it
connects (6 x 6 blocks Lp, Lv); the body's load map E = [[I or R^T (SE3), 0], [0, W^T]] takes the
wrench into g (g = [f; W^T (tau - omega x J omega - J W' w)], ``residual.rotational_forces``).
What g depends on with the wrench held fixed (W^T(q), the gyroscopic term, Rxyz's J W' w, SE3's
R^T f - m omega x U) is each body's own term (``_add_body_terms``).

Results go to group blocks out[grp, m, j] = entry (groups[grp, m], groups[grp, j]) of the matrix, the
layout of ``iteration_matrix._grouped_force_blocks``; ``slot[k] = (grp, member)`` of velocity index k.

Two integrator options give the matrix of paper 000's code instead (docs/notes/exudyn_newton.md):
``loads_jacobian = false`` leaves the ``LOADS`` out, and ``damper_position_jacobian = false``
differentiates the point spring-dampers' damping force by the velocities only, not by the coordinates
through the point's velocity v_P(q, v), as that code's connector Jacobian does (J_P^T D J_P, no
d(J_P v)/dq).
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from lgbench._compiled import kernel
from lgbench.lie.tait_bryan import body_rate_dot_apply_rxyz
from lgbench.mbs.banded import BODY_BLOCK
from lgbench.mbs.chain import K_WIDTH
from lgbench.mbs.codes import (
    BODY_TORQUE, EP, EP_NORM_RATE_TORQUE, FORCE_IN_BODY_FRAME, FORCE_POINT, FORCE_SCHEDULE, FORCE_VECTOR, FREE,
    F_BODY, F_OTHER, F_TYPE, GLOBAL_TORQUE, GRAVITY, GRAVITY_ACCELERATION, JOINT_PD, LINE_DAMPING, LINE_POINT1,
    LINE_POINT2, LINE_REST_LENGTH, LINE_SPRING_DAMPER, LINE_STIFFNESS, MANUFACTURED_LOAD, PD_AXIS, PD_KD, PD_KP,
    PD_REFERENCE1, PD_REFERENCE2, POINT_FORCE, POINT_SPRING_DAMPER, RV, RXYZ, SE3, SPRING_BODY_POINT,
    SPRING_DAMPING, SPRING_GROUND_POINT, SPRING_STIFFNESS, TIME_TABLE, TIMED_TORQUE, TORQUE, TORQUE_IN_BODY_FRAME,
    TORQUE_SCHEDULE,
)
from lgbench.mbs.constraints import _body_rotation, _cross3, _dot3, _rotate, _rotate_back, rate_map_entries
from lgbench.mbs.dynamics import euler_moment
from lgbench.mbs.loads import (
    _add_point_spring_damper, inertia_apply, is_elementary_load, joint_pd_torque, other_load, point_motion,
    time_factor,
)
from lgbench.mbs.manufactured import manufactured_load
from lgbench.mbs.pose import _vec3, body_angular_velocity, rotation_start
from lgbench.mbs.system import B_COM, B_FORM, B_INERTIA, B_KIND, B_MASS, B_NV, B_QSTART, B_VSTART, GROUND

WRENCH = 6              # [f (global); tau (body frame)], or [x; Pi], or [u; omega]
POSITION, VELOCITY_OF_Z, VELOCITY_OF_V = range(3)   # the kinematic sensitivities P, Vz, Vv
DIFFERENTIATED = frozenset({GRAVITY, BODY_TORQUE, GLOBAL_TORQUE, POINT_SPRING_DAMPER, TIMED_TORQUE, JOINT_PD,
                            EP_NORM_RATE_TORQUE, LINE_SPRING_DAMPER, POINT_FORCE, TIME_TABLE, MANUFACTURED_LOAD})
"""The force elements ``force_tangent`` differentiates; a system with any other falls back to finite differences."""
LOADS = frozenset({GRAVITY, BODY_TORQUE, GLOBAL_TORQUE, TIMED_TORQUE, POINT_FORCE, TIME_TABLE, MANUFACTURED_LOAD})
"""The elements that are applied loads in paper 000's code (its Load items, as opposed to objects and connectors):
with the integrator option ``loads_jacobian = false`` their derivatives stay out of K_t and C_t, as that code
leaves them out by default (``timeIntegration.computeLoadsJacobian = 0``; docs/notes/exudyn_newton.md)."""
ANALYTIC_FORMULATIONS = frozenset({RV, SE3, RXYZ, EP})
"""The node types ``_kinematics`` knows (those of the implicit integrators)."""


class TangentWorkspace(NamedTuple):
    """Scratch arrays of ``force_tangent``; ``slot[k]`` = (group, member) of velocity index k."""

    slot: np.ndarray        # (nv, 2) int64
    rotation: np.ndarray    # (n_bodies, 9) R per body, row-major
    kinematics: np.ndarray  # (3 n_bodies, WRENCH, BODY_BLOCK): P, Vz, Vv of body i at 3 i + POSITION, ...
    load_map: np.ndarray    # (n_bodies, BODY_BLOCK, WRENCH): E per body
    gyro: np.ndarray        # (3, 3) omega~ J - (J omega)~ of one body
    rate: np.ndarray        # (2, 3, 3) Rxyz: d(G' theta')/dtheta, d(G' theta')/dtheta'
    transposed: np.ndarray  # (4, 4) d(W^T m)/drho (Rxyz, EP)
    Lp: np.ndarray          # (WRENCH, WRENCH) wrench of one body by [x, Pi] of another
    Lv: np.ndarray          # (WRENCH, WRENCH) ... by [u, omega]
    Wz: np.ndarray          # (WRENCH, BODY_BLOCK) wrench by the other body's z
    Wv: np.ndarray          # (WRENCH, BODY_BLOCK) ... by its v
    chain: np.ndarray       # (chain rows, chain.K_WIDTH) the RNEA's link quantities
    chain_tangent: np.ndarray   # (chain rows, chain.K_WIDTH) their derivatives in one direction
    chain_torque: np.ndarray    # (chain rows,) scratch of the joint forces and their derivatives
    element_force: np.ndarray   # (n_bodies, 3) force of the elements that are not LOADS (``_element_loads``)
    element_torque: np.ndarray  # (n_bodies, 3) their torque, body frame


def analytic_tangent_applies(system) -> bool:
    """True if ``force_tangent`` covers ``system``: bodies of the node types in ``ANALYTIC_FORMULATIONS``,
    loaded by the elements in ``DIFFERENTIATED``, and minimal-coordinate chains."""
    return (system.chain_int.shape[0] + system.body_int.shape[0] > 0
            and all(int(f) in ANALYTIC_FORMULATIONS for f in system.body_int[:, B_FORM])
            and all(int(f) in DIFFERENTIATED for f in system.force_int[:, F_TYPE]))


def tangent_workspace(system) -> TangentWorkspace:
    """Scratch arrays for ``force_tangent`` on ``system`` (its force groups give the slots); an empty workspace,
    which selects finite differences, where ``analytic_tangent_applies`` is False."""
    if not analytic_tangent_applies(system):
        return empty_tangent_workspace()
    nv = int(system.sizes[1])
    n_bodies = system.body_int.shape[0]
    n_rows = system.chain_int.shape[0]
    slot = -np.ones((nv, 2), dtype=np.int64)
    for grp, members in enumerate(system.force_groups):
        for m, k in enumerate(members):
            if k >= 0:
                slot[k] = grp, m
    return TangentWorkspace(slot, np.zeros((n_bodies, 9)), np.zeros((3 * n_bodies, WRENCH, BODY_BLOCK)),
                            np.zeros((n_bodies, BODY_BLOCK, WRENCH)), np.zeros((3, 3)), np.zeros((2, 3, 3)),
                            np.zeros((4, 4)), np.zeros((WRENCH, WRENCH)),
                            np.zeros((WRENCH, WRENCH)), np.zeros((WRENCH, BODY_BLOCK)),
                            np.zeros((WRENCH, BODY_BLOCK)), np.zeros((n_rows, K_WIDTH)), np.zeros((n_rows, K_WIDTH)),
                            np.zeros(n_rows), np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3)))


def empty_tangent_workspace() -> TangentWorkspace:
    """A workspace with no slots: ``force_tangent`` is not available (finite differences are used)."""
    return TangentWorkspace(np.zeros((0, 2), dtype=np.int64), np.zeros((0, 9)), np.zeros((0, WRENCH, BODY_BLOCK)),
                            np.zeros((0, BODY_BLOCK, WRENCH)), np.zeros((3, 3)), np.zeros((2, 3, 3)),
                            np.zeros((4, 4)), np.zeros((WRENCH, WRENCH)),
                            np.zeros((WRENCH, WRENCH)), np.zeros((WRENCH, BODY_BLOCK)),
                            np.zeros((WRENCH, BODY_BLOCK)), np.zeros((0, K_WIDTH)), np.zeros((0, K_WIDTH)),
                            np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3)))


@njit(inline="always")
def _add_skew(A, r0, c0, a, scale):
    """A[r0:r0+3, c0:c0+3] += scale * a~ (a~ x = a x x)."""
    A[r0, c0 + 1] -= scale * a[2]
    A[r0, c0 + 2] += scale * a[1]
    A[r0 + 1, c0] += scale * a[2]
    A[r0 + 1, c0 + 2] -= scale * a[0]
    A[r0 + 2, c0] -= scale * a[1]
    A[r0 + 2, c0 + 1] += scale * a[0]


@njit(inline="always")
def _add_outer(A, r0, c0, a, b, scale):
    """A[r0:r0+3, c0:c0+3] += scale * a b^T."""
    for r in range(3):
        for c in range(3):
            A[r0 + r, c0 + c] += scale * a[r] * b[c]


@njit(inline="always")
def _set_matrix3(A, k, r0, c0, R, transpose):
    """A[k, r0:r0+3, c0:c0+3] = R (or R^T) for a row-major 9-tuple R."""
    for r in range(3):
        for c in range(3):
            A[k, r0 + r, c0 + c] = R[3 * c + r] if transpose else R[3 * r + c]


@njit(inline="always")
def kinematic_sensitivities(body_int, i, form, q, v, R, K3, E):
    """Body i's kinematic sensitivities P, Vz, Vv (module note) and its load map E, over its own velocity
    coordinates (translation first for free bodies). Which entries are nonzero depends on the body's kind
    and node type only, so every call writes the same entries and the others stay zero from allocation."""
    qr, vr = rotation_start(body_int, i)
    p, z, w = 3 * i + POSITION, 3 * i + VELOCITY_OF_Z, 3 * i + VELOCITY_OF_V
    rl = 0
    if body_int[i, B_KIND] == FREE:
        rl = 3
        if form == SE3:
            _set_matrix3(K3, p, 0, 0, R, False)
            _set_matrix3(K3, w, 0, 0, R, False)
            _set_matrix3(E, i, 0, 0, R, True)
            # u = R U: du = R dU + R (dPi x U), column c of the second term R (e_c x U)
            vs = body_int[i, B_VSTART]
            U = (v[vs], v[vs + 1], v[vs + 2])
            for c in range(3):
                x = _rotate(R, _cross3(_unit(c), U))
                K3[z, 0, rl + c], K3[z, 1, rl + c], K3[z, 2, rl + c] = x[0], x[1], x[2]
        else:
            for a in range(3):
                K3[p, a, a] = 1.0
                K3[w, a, a] = 1.0
                E[i, a, a] = 1.0
    if form == RV or form == SE3:
        for a in range(3):
            K3[p, 3 + a, rl + a] = 1.0
            K3[w, 3 + a, rl + a] = 1.0
            E[i, rl + a, 3 + a] = 1.0
        return
    W = rate_map_entries(form, q, qr)      # G(theta) (Rxyz) or 2 L(e) (EP), rows of 4 columns
    n = 4 if form == EP else 3
    scale = 1.0
    if form == EP:
        scale = 1.0 / (q[qr] * q[qr] + q[qr + 1] * q[qr + 1] + q[qr + 2] * q[qr + 2] + q[qr + 3] * q[qr + 3])
        Wd = rate_map_entries(EP, v, vr)     # omega = W(e) e' = -W(e') e
        for a in range(3):
            for c in range(4):
                K3[z, 3 + a, rl + c] = -Wd[4 * a + c]
    else:   # Rxyz: d(G(theta) theta')/dtheta
        s1, c1 = np.sin(q[qr + 1]), np.cos(q[qr + 1])
        s2, c2 = np.sin(q[qr + 2]), np.cos(q[qr + 2])
        d0, d1 = v[vr], v[vr + 1]
        K3[z, 3, rl + 1], K3[z, 4, rl + 1], K3[z, 5, rl + 1] = -s1 * c2 * d0, s1 * s2 * d0, c1 * d0
        K3[z, 3, rl + 2], K3[z, 4, rl + 2] = -c1 * s2 * d0 + c2 * d1, -c1 * c2 * d0 - s2 * d1
    for a in range(3):
        for c in range(n):
            K3[p, 3 + a, rl + c] = scale * W[4 * a + c]
            K3[w, 3 + a, rl + c] = W[4 * a + c]
            E[i, rl + c, 3 + a] = W[4 * a + c]


@njit(inline="always")
def _unit(c):
    return 1.0 if c == 0 else 0.0, 1.0 if c == 1 else 0.0, 1.0 if c == 2 else 0.0


@njit(inline="always")
def _rotation_of(rotation, i):
    """R of body i from ``TangentWorkspace.rotation`` as a row-major 9-tuple."""
    r = rotation[i]
    return r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]


@njit(inline="always")
def _rotation_column(body_int, i):
    """First rotation velocity coordinate of body i among its own."""
    return 3 if body_int[i, B_KIND] == FREE else 0


@njit(inline="always")
def _add_coordinate_wrench(body_int, slot, i, j, E, Wz, Wv, Kg, Cg, moment_only):
    """K_t(i, j) -= E_i Wz and C_t(i, j) -= E_i Wv: a wrench on body i that changes with the coordinates of
    body j by Wz (along z) and Wv (along v). ``moment_only``: only the torque changes, and only with body
    j's rotation coordinates (Wz, Wv zero outside rows 3:6 and those columns)."""
    vi, ni = body_int[i, B_VSTART], body_int[i, B_NV]
    vj, nj = body_int[j, B_VSTART], body_int[j, B_NV]
    a0 = 3 if moment_only else 0
    r0 = _rotation_column(body_int, i) if moment_only else 0
    c0 = _rotation_column(body_int, j) if moment_only else 0
    for r in range(r0, ni):
        grp, m = slot[vi + r, 0], slot[vi + r, 1]
        for c in range(c0, nj):
            col = slot[vj + c, 1]
            kz = 0.0
            kv = 0.0
            for a in range(a0, WRENCH):
                kz += E[i, r, a] * Wz[a, c]
                kv += E[i, r, a] * Wv[a, c]
            Kg[grp, m, col] -= kz
            Cg[grp, m, col] -= kv


@njit(inline="always")
def _add_wrench(body_int, slot, i, j, kinematics, E, Lp, Lv, Wz, Wv, Kg, Cg, moment_only, through_velocity):
    """The wrench on body i changes with [x, Pi] of body j by Lp and with [u, omega] by Lv: through body j's
    kinematic sensitivities into K_t(i, j) and C_t(i, j). ``moment_only``: Lp, Lv are zero outside their
    [3:6, 3:6] blocks (a torque that depends on rotations and angular velocities only, as most elements),
    and the products skip the zeros (on one-body systems they would be most of the cost).
    ``through_velocity``: Lv also acts on K_t through the velocity's dependence on the coordinates (Vz);
    False only for ``damper_position_jacobian = false`` (module note)."""
    p, z, w = 3 * j + POSITION, 3 * j + VELOCITY_OF_Z, 3 * j + VELOCITY_OF_V
    lo = 3 if moment_only else 0
    c0 = _rotation_column(body_int, j) if moment_only else 0
    via = 1.0 if through_velocity else 0.0
    for a in range(lo, WRENCH):
        for c in range(c0, body_int[j, B_NV]):
            sz = 0.0
            sv = 0.0
            for b in range(lo, WRENCH):
                sz += Lp[a, b] * kinematics[p, b, c] + via * Lv[a, b] * kinematics[z, b, c]
                sv += Lv[a, b] * kinematics[w, b, c]
            Wz[a, c] = sz
            Wv[a, c] = sv
    _add_coordinate_wrench(body_int, slot, i, j, E, Wz, Wv, Kg, Cg, moment_only)


@njit(inline="always")
def _skew_entry(a, r, c):
    """(a~)[r, c]."""
    if r == c:
        return 0.0
    if r == 0:
        return -a[2] if c == 1 else a[1]
    if r == 1:
        return a[2] if c == 0 else -a[0]
    return -a[1] if c == 0 else a[0]


@njit(inline="always")
def _rxyz_terms(body_real, i, q, qr, v, vr, m, rate, transposed):
    """Rxyz: the moment m less J G'(theta, theta') theta' (``tait_bryan.body_rate_dot_apply_rxyz``), the
    derivatives of G' theta' by theta (rate[0]) and theta' (rate[1]), and d(G(theta)^T m)/dtheta into
    transposed[0:3, 0:3]."""
    ja = inertia_apply(body_real, i, body_rate_dot_apply_rxyz(_vec3(q, qr), _vec3(v, vr)))
    s1, c1 = np.sin(q[qr + 1]), np.cos(q[qr + 1])
    s2, c2 = np.sin(q[qr + 2]), np.cos(q[qr + 2])
    d0, d1, d2 = v[vr], v[vr + 1], v[vr + 2]
    m = (m[0] - ja[0], m[1] - ja[1], m[2] - ja[2])
    dz, dv = rate[0], rate[1]
    dz[0, 1] = (-c1 * c2 * d1 + s1 * s2 * d2) * d0
    dz[1, 1] = (c1 * s2 * d1 + s1 * c2 * d2) * d0
    dz[2, 1] = -s1 * d1 * d0
    dz[0, 2] = (s1 * s2 * d1 - c1 * c2 * d2) * d0 - s2 * d2 * d1
    dz[1, 2] = (s1 * c2 * d1 + c1 * s2 * d2) * d0 - c2 * d2 * d1
    dv[0, 0] = -s1 * c2 * d1 - c1 * s2 * d2
    dv[1, 0] = s1 * s2 * d1 - c1 * c2 * d2
    dv[2, 0] = c1 * d1
    dv[0, 1] = -s1 * c2 * d0 + c2 * d2
    dv[1, 1] = s1 * s2 * d0 - s2 * d2
    dv[2, 1] = c1 * d0
    dv[0, 2] = -c1 * s2 * d0 + c2 * d1
    dv[1, 2] = -c1 * c2 * d0 - s2 * d1
    # G^T m = (c1 c2 m0 - c1 s2 m1 + s1 m2, s2 m0 + c2 m1, m2)
    transposed[0, 1] = -s1 * c2 * m[0] + s1 * s2 * m[1] + c1 * m[2]
    transposed[0, 2] = -c1 * s2 * m[0] - c1 * c2 * m[1]
    transposed[1, 2] = c2 * m[0] - s2 * m[1]
    return m


@njit(inline="always")
def _ep_transposed(m, transposed):
    """EP: d(W(e)^T m)/de for W = 2 L(e), linear in e: W^T m = 2 (-e1 m0 - e2 m1 - e3 m2, e0 m0 - e3 m1 + e2 m2,
    e3 m0 + e0 m1 - e1 m2, -e2 m0 + e1 m1 + e0 m2)."""
    m0, m1, m2 = 2.0 * m[0], 2.0 * m[1], 2.0 * m[2]
    transposed[0, 1], transposed[0, 2], transposed[0, 3] = -m0, -m1, -m2
    transposed[1, 0], transposed[1, 2], transposed[1, 3] = m0, m2, -m1
    transposed[2, 0], transposed[2, 1], transposed[2, 3] = m1, -m2, m0
    transposed[3, 0], transposed[3, 1], transposed[3, 2] = m2, m1, -m0


@njit(inline="always")
def _add_body_terms(body_int, body_real, slot, i, form, q, v, R, kinematics, E, force, torque, tw, Kg, Cg):
    """The terms of g_i that change with body i's own coordinates with its wrench held fixed: W^T(rho) on the
    moment m = tau - omega x J omega - J W' w, the gyroscopic term (d(omega x J omega) = (omega~ J - (J omega)~)
    domega), Rxyz's J W' w and, for SE3 nodes, R^T f - m omega x U."""
    qr, vr = rotation_start(body_int, i)
    rl = _rotation_column(body_int, i)
    ni = body_int[i, B_NV]
    vi = body_int[i, B_VSTART]
    J = B_INERTIA
    o = body_angular_velocity(form, q, qr, v, vr)
    h = inertia_apply(body_real, i, o)
    m = euler_moment(body_real, i, torque, o[0], o[1], o[2])
    D = tw.gyro
    for b in range(3):
        j0, j1, j2 = body_real[i, J + b], body_real[i, J + 3 + b], body_real[i, J + 6 + b]
        D[0, b] = -o[2] * j1 + o[1] * j2
        D[1, b] = o[2] * j0 - o[0] * j2
        D[2, b] = -o[1] * j0 + o[0] * j1
    D[0, 1] += h[2]
    D[0, 2] -= h[1]
    D[1, 0] -= h[2]
    D[1, 2] += h[0]
    D[2, 0] += h[1]
    D[2, 1] -= h[0]
    if form == RV or form == SE3:
        # W = I and omega = w: only C_t(rotation, rotation) += D
        for r in range(3):
            grp, row = slot[vi + rl + r, 0], slot[vi + rl + r, 1]
            for c in range(3):
                Cg[grp, row, slot[vi + rl + c, 1]] += D[r, c]
        if form == SE3 and rl == 3:
            mass = body_real[i, B_MASS]
            RTf = _rotate_back(R, (force[i, 0], force[i, 1], force[i, 2]))
            U = (v[vi], v[vi + 1], v[vi + 2])
            for r in range(3):
                grp, row = slot[vi + r, 0], slot[vi + r, 1]
                for c in range(3):
                    Kg[grp, row, slot[vi + 3 + c, 1]] -= _skew_entry(RTf, r, c)
                    Cg[grp, row, slot[vi + 3 + c, 1]] -= mass * _skew_entry(U, r, c)
                    Cg[grp, row, slot[vi + c, 1]] += mass * _skew_entry(o, r, c)
        return
    z, w = 3 * i + VELOCITY_OF_Z, 3 * i + VELOCITY_OF_V
    rxyz = form == RXYZ
    tw.transposed[:, :] = 0.0
    if rxyz:
        tw.rate[:, :, :] = 0.0
        m = _rxyz_terms(body_real, i, q, qr, v, vr, m, tw.rate, tw.transposed)
    else:
        _ep_transposed(m, tw.transposed)
    n = ni - rl
    dmz, dmv = tw.Wz, tw.Wv   # rows 0:3: dm/dz, dm/dv over the rotation columns, the wrench fixed
    for a in range(3):
        for c in range(n):
            sz = 0.0
            sv = 0.0
            for b in range(3):
                sz -= D[a, b] * kinematics[z, 3 + b, rl + c]
                sv -= D[a, b] * kinematics[w, 3 + b, rl + c]
            if rxyz:
                for b in range(3):
                    sz -= body_real[i, J + 3 * a + b] * tw.rate[0, b, c]
                    sv -= body_real[i, J + 3 * a + b] * tw.rate[1, b, c]
            dmz[a, c] = sz
            dmv[a, c] = sv
    for r in range(n):
        grp, row = slot[vi + rl + r, 0], slot[vi + rl + r, 1]
        for c in range(n):
            col = slot[vi + rl + c, 1]
            kz = tw.transposed[r, c]
            kv = 0.0
            for a in range(3):
                kz += E[i, rl + r, 3 + a] * dmz[a, c]
                kv += E[i, rl + r, 3 + a] * dmv[a, c]
            Kg[grp, row, col] -= kz
            Cg[grp, row, col] -= kv


@njit(inline="always")
def _gravity(body_real, i, g, R, Lp):
    """Gravity torque c x R^T (m g) about the reference point: d tau/dPi = c~ (R^T m g)~ = b c^T - (c.b) I."""
    mass = body_real[i, B_MASS]
    b = _rotate_back(R, (mass * g[0], mass * g[1], mass * g[2]))
    c = (body_real[i, B_COM], body_real[i, B_COM + 1], body_real[i, B_COM + 2])
    cb = _dot3(c, b)
    for r in range(3):
        for s in range(3):
            Lp[3 + r, 3 + s] = b[r] * c[s] - (cb if r == s else 0.0)


@kernel
def _point_spring_damper(body_int, force_real, k, i, form, q, v, R, Lp, Lv, damper_position):
    """f = -K (x + R b - g) - D (u + R (omega x b)) at the body point b; tau = b x R^T f (``loads``).
    Without ``damper_position`` the damping force's derivative by the rotation (through R (omega x b)) is
    left out of Lp (module note)."""
    qr, vr = rotation_start(body_int, i)
    b = (force_real[k, SPRING_BODY_POINT], force_real[k, SPRING_BODY_POINT + 1], force_real[k, SPRING_BODY_POINT + 2])
    o = body_angular_velocity(form, q, qr, v, vr)
    wb = _cross3(o, b)
    Rb = _rotate(R, b)
    Rwb = _rotate(R, wb)
    x = (0.0, 0.0, 0.0)
    u = (0.0, 0.0, 0.0)
    free = body_int[i, B_KIND] == FREE
    if free:
        s, vs = body_int[i, B_QSTART], body_int[i, B_VSTART]
        x = (q[s], q[s + 1], q[s + 2])
        u = (v[vs], v[vs + 1], v[vs + 2])
        if form == SE3:
            u = _rotate(R, u)
    K, D, g = SPRING_STIFFNESS, SPRING_DAMPING, SPRING_GROUND_POINT
    via = 1.0 if damper_position else 0.0
    f = (-force_real[k, K] * (x[0] + Rb[0] - force_real[k, g]) - force_real[k, D] * (u[0] + Rwb[0]),
         -force_real[k, K + 1] * (x[1] + Rb[1] - force_real[k, g + 1]) - force_real[k, D + 1] * (u[1] + Rwb[1]),
         -force_real[k, K + 2] * (x[2] + Rb[2] - force_real[k, g + 2]) - force_real[k, D + 2] * (u[2] + Rwb[2]))
    for c in range(3):
        # d(R a)/dPi column c = R (e_c x a)
        Rb_c = _rotate(R, _cross3(_unit(c), b))
        Rwb_c = _rotate(R, _cross3(_unit(c), wb))
        for r in range(3):
            Lp[r, 3 + c] = -force_real[k, K + r] * Rb_c[r] - via * force_real[k, D + r] * Rwb_c[r]
            Lv[r, 3 + c] = -force_real[k, D + r] * Rb_c[r]   # d(omega x b)/domega column c = e_c x b
        if free:
            Lp[c, c] = -force_real[k, K + c]
            Lv[c, c] = -force_real[k, D + c]
    # tau = b x R^T f: d tau = b~ ((R^T f)~ dPi + R^T df)
    RTf = _rotate_back(R, f)
    for c in range(WRENCH):
        col = _rotate_back(R, (Lp[0, c], Lp[1, c], Lp[2, c]))
        if c >= 3:
            e = _cross3(RTf, _unit(c - 3))
            col = (col[0] + e[0], col[1] + e[1], col[2] + e[2])
        t = _cross3(b, col)
        Lp[3, c], Lp[4, c], Lp[5, c] = t[0], t[1], t[2]
        colv = _rotate_back(R, (Lv[0, c], Lv[1, c], Lv[2, c]))
        tv = _cross3(b, colv)
        Lv[3, c], Lv[4, c], Lv[5, c] = tv[0], tv[1], tv[2]


@kernel
def _joint_pd(sys, k, q, v, t, rotation, kinematics, E, slot, tw, Kg, Cg):
    """JOINT_PD between body 2 (``F_BODY``) and body 1 (``F_OTHER`` or ground): body 2 gets R2^T (tau a1),
    body 1 -tau a (a1 = R1 a the global axis), tau = Kp (phi_d - phi) + Kd (phi_d' - phi') with
    phi = atan2(a1 . (e1 x e2), e1 . e2) and phi' = a1 . (omega2 - omega1) (global; ``loads.joint_angle``).
    With dtheta = R dPi the global rotation increments: dphi/dtheta2 = (c e2 x (a1 x e1) + s e1 x e2) / (s^2 + c^2),
    dphi/dtheta1 = (c (a1 x (e1 x e2) + e1 x (e2 x a1)) - s e1 x e2) / (s^2 + c^2), dphi'/dtheta2 = omega2 x a1,
    dphi'/dtheta1 = a1 x omega2, dphi'/domega2 = R2^T a1, dphi'/domega1 = -a."""
    body_int = sys.body_int
    p = sys.force_real[k]
    i = sys.force_int[k, F_BODY]
    other = sys.force_int[k, F_OTHER]
    kp, kd = p[PD_KP], p[PD_KD]
    tau, axis = joint_pd_torque(sys, k, q, v, t)
    a = (p[PD_AXIS], p[PD_AXIS + 1], p[PD_AXIS + 2])
    R2 = _rotation_of(rotation, i)
    e2 = _rotate(R2, (p[PD_REFERENCE2], p[PD_REFERENCE2 + 1], p[PD_REFERENCE2 + 2]))
    qr2, vr2 = rotation_start(body_int, i)
    w2 = _rotate(R2, body_angular_velocity(body_int[i, B_FORM], q, qr2, v, vr2))
    e1 = (p[PD_REFERENCE1], p[PD_REFERENCE1 + 1], p[PD_REFERENCE1 + 2])
    R1 = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    if other != GROUND:
        R1 = _rotation_of(rotation, other)
        e1 = _rotate(R1, e1)
    w12 = _cross3(e1, e2)
    s = _dot3(axis, w12)
    c = _dot3(e1, e2)
    den = s * s + c * c
    x2 = _cross3(e2, _cross3(axis, e1))
    n2 = _rotate_back(R2, axis)
    # d tau / dPi2, d tau / domega2 (row vectors, body-2 frame)
    w2xa = _cross3(w2, axis)
    t2 = _rotate_back(R2, (-(kp * (c * x2[0] + s * w12[0]) / den + kd * w2xa[0]),
                           -(kp * (c * x2[1] + s * w12[1]) / den + kd * w2xa[1]),
                           -(kp * (c * x2[2] + s * w12[2]) / den + kd * w2xa[2])))
    u2 = (-kd * n2[0], -kd * n2[1], -kd * n2[2])
    Lp, Lv = tw.Lp, tw.Lv
    Lp[:, :] = 0.0
    Lv[:, :] = 0.0
    _add_skew(Lp, 3, 3, (tau * n2[0], tau * n2[1], tau * n2[2]), 1.0)
    _add_outer(Lp, 3, 3, n2, t2, 1.0)
    _add_outer(Lv, 3, 3, n2, u2, 1.0)
    _add_wrench(body_int, slot, i, i, kinematics, E, Lp, Lv, tw.Wz, tw.Wv, Kg, Cg, True, True)
    if other == GROUND:
        return
    y1 = _cross3(axis, w12)
    y2 = _cross3(e1, _cross3(e2, axis))
    axw2 = _cross3(axis, w2)
    t1 = _rotate_back(R1, (-(kp * (c * (y1[0] + y2[0]) - s * w12[0]) / den + kd * axw2[0]),
                           -(kp * (c * (y1[1] + y2[1]) - s * w12[1]) / den + kd * axw2[1]),
                           -(kp * (c * (y1[2] + y2[2]) - s * w12[2]) / den + kd * axw2[2])))
    u1 = (kd * a[0], kd * a[1], kd * a[2])
    # body 2 by body 1: n2 dtau + tau R2^T d(R1 a), d(R1 a)/dPi1 column c = R1 (e_c x a)
    Lp[:, :] = 0.0
    Lv[:, :] = 0.0
    _add_outer(Lp, 3, 3, n2, t1, 1.0)
    _add_outer(Lv, 3, 3, n2, u1, 1.0)
    for col in range(3):
        d = _rotate_back(R2, _rotate(R1, _cross3(_unit(col), a)))
        for r in range(3):
            Lp[3 + r, 3 + col] += tau * d[r]
    _add_wrench(body_int, slot, i, other, kinematics, E, Lp, Lv, tw.Wz, tw.Wv, Kg, Cg, True, True)
    # body 1: -tau a
    for source in range(2):
        Lp[:, :] = 0.0
        Lv[:, :] = 0.0
        _add_outer(Lp, 3, 3, a, t1 if source == 0 else t2, -1.0)
        _add_outer(Lv, 3, 3, a, u1 if source == 0 else u2, -1.0)
        _add_wrench(body_int, slot, other, other if source == 0 else i, kinematics, E, Lp, Lv, tw.Wz, tw.Wv,
                    Kg, Cg, True, True)


@njit(inline="always")
def _line_force_apply(e, w, l, k, c, s, x, y):
    """A x + B y (``_line_spring_damper``): A x = -e (k e.x + c w.x / l) + s (x - e (e.x)) / l for a change x
    of d, B y = -c e (e.y) for a change y of the relative velocity."""
    ex, wx, ey = _dot3(e, x), _dot3(w, x), _dot3(e, y)
    return (-e[0] * (k * ex + c * wx / l) + s * (x[0] - e[0] * ex) / l - c * e[0] * ey,
            -e[1] * (k * ex + c * wx / l) + s * (x[1] - e[1] * ex) / l - c * e[1] * ey,
            -e[2] * (k * ex + c * wx / l) + s * (x[2] - e[2] * ex) / l - c * e[2] * ey)


@kernel
def _line_spring_damper(sys, k, q, v, rotation, kinematics, E, slot, tw, Kg, Cg, damper_position):
    """LINE_SPRING_DAMPER between body 1 (``F_BODY``) and body 2 (``F_OTHER`` or ground): f = s e on body 1's
    point b1 and -f on body 2's b2, with d = p1 - p2 = l e, s = -(k (l - L0) + c l'), l' = e . (v1 - v2)
    (``loads``). With w = (I - e e^T)(v1 - v2): df = A dd + B d(v1 - v2), A = -e (k e + c w / l)^T + s (I - e e^T) / l,
    B = -c e e^T. Body j (sign sigma_1 = 1, sigma_2 = -1) moves d by sigma_j [I, R_j (e_c x b_j)] along
    [x_j, Pi_j] and the relative velocity by sigma_j [0, R_j (e_c x (omega_j x b_j))] (left out without
    ``damper_position``, as the point damper's) and by sigma_j [I, R_j (e_c x b_j)] along [u_j, omega_j];
    body j's torque b_j x R_j^T F_j adds b_j~ (R_j^T F_j)~ dPi_j."""
    body_int = sys.body_int
    p = sys.force_real[k]
    first, second = sys.force_int[k, F_BODY], sys.force_int[k, F_OTHER]
    b1 = (p[LINE_POINT1], p[LINE_POINT1 + 1], p[LINE_POINT1 + 2])
    b2 = (p[LINE_POINT2], p[LINE_POINT2 + 1], p[LINE_POINT2 + 2])
    p1, v1 = point_motion(sys, first, q, v, b1)
    p2, v2 = point_motion(sys, second, q, v, b2)
    d = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    l = np.sqrt(_dot3(d, d))
    if l == 0.0:
        return
    e = (d[0] / l, d[1] / l, d[2] / l)
    dv = (v1[0] - v2[0], v1[1] - v2[1], v1[2] - v2[2])
    edv = _dot3(e, dv)
    w = (dv[0] - e[0] * edv, dv[1] - e[1] * edv, dv[2] - e[2] * edv)
    kk, cc = p[LINE_STIFFNESS], p[LINE_DAMPING]
    s = -(kk * (l - p[LINE_REST_LENGTH]) + cc * edv)
    via = 1.0 if damper_position else 0.0
    Lp, Lv = tw.Lp, tw.Lv
    for target in range(2):
        a = first if target == 0 else second
        if a == GROUND:
            continue
        ba = b1 if target == 0 else b2
        sa = 1.0 if target == 0 else -1.0
        Ra = _rotation_of(rotation, a)
        RaF = _rotate_back(Ra, (sa * s * e[0], sa * s * e[1], sa * s * e[2]))
        for source in range(2):
            j = first if source == 0 else second
            if j == GROUND:
                continue
            bj = b1 if source == 0 else b2
            sj = sa * (1.0 if source == 0 else -1.0)
            Rj = _rotation_of(rotation, j)
            qr, vr = rotation_start(body_int, j)
            wj = _cross3(body_angular_velocity(body_int[j, B_FORM], q, qr, v, vr), bj)
            Lp[:, :] = 0.0
            Lv[:, :] = 0.0
            for col in range(WRENCH):
                if col < 3:
                    move = _unit(col)
                    turn = (0.0, 0.0, 0.0)
                else:
                    move = _rotate(Rj, _cross3(_unit(col - 3), bj))
                    turn = _rotate(Rj, _cross3(_unit(col - 3), wj))
                    turn = (via * turn[0], via * turn[1], via * turn[2])
                fp = _line_force_apply(e, w, l, kk, cc, s, move, turn)
                em = _dot3(e, move)
                fv = (-cc * e[0] * em, -cc * e[1] * em, -cc * e[2] * em)
                for r in range(3):
                    Lp[r, col] = sj * fp[r]
                    Lv[r, col] = sj * fv[r]
                tp = _rotate_back(Ra, (Lp[0, col], Lp[1, col], Lp[2, col]))
                if source == target and col >= 3:
                    extra = _cross3(RaF, _unit(col - 3))
                    tp = (tp[0] + extra[0], tp[1] + extra[1], tp[2] + extra[2])
                tp = _cross3(ba, tp)
                tv = _cross3(ba, _rotate_back(Ra, (Lv[0, col], Lv[1, col], Lv[2, col])))
                Lp[3, col], Lp[4, col], Lp[5, col] = tp[0], tp[1], tp[2]
                Lv[3, col], Lv[4, col], Lv[5, col] = tv[0], tv[1], tv[2]
            _add_wrench(body_int, slot, a, j, kinematics, E, Lp, Lv, tw.Wz, tw.Wv, Kg, Cg, False, damper_position)


@njit(inline="always")
def _point_force(force_real, k, t, R, Lp):
    """POINT_FORCE F at the body point b: global F gives the torque b x R^T F, d tau/dPi = b~ (R^T F)~; a
    follower force F = R F_b gives a constant torque and dF/dPi column c = R (e_c x F_b)."""
    factor = time_factor(force_real, k, FORCE_SCHEDULE, t)
    f = (factor * force_real[k, FORCE_VECTOR], factor * force_real[k, FORCE_VECTOR + 1],
         factor * force_real[k, FORCE_VECTOR + 2])
    b = (force_real[k, FORCE_POINT], force_real[k, FORCE_POINT + 1], force_real[k, FORCE_POINT + 2])
    follower = force_real[k, FORCE_IN_BODY_FRAME] > 0.0
    RTf = f if follower else _rotate_back(R, f)
    for c in range(3):
        if follower:
            column = _rotate(R, _cross3(_unit(c), f))
            Lp[0, 3 + c], Lp[1, 3 + c], Lp[2, 3 + c] = column[0], column[1], column[2]
        else:
            torque = _cross3(b, _cross3(RTf, _unit(c)))
            Lp[3, 3 + c], Lp[4, 3 + c], Lp[5, 3 + c] = torque[0], torque[1], torque[2]


@kernel
def _ep_norm_rate(body_int, body_real, slot, i, q, v, kinematics, E, tw, Kg, Cg):
    """tau = -2 (e . e') J omega (EP_NORM_RATE_TORQUE): a function of e and e' directly."""
    qr, vr = rotation_start(body_int, i)
    rl = 3 if body_int[i, B_KIND] == FREE else 0
    rate = q[qr] * v[vr] + q[qr + 1] * v[vr + 1] + q[qr + 2] * v[vr + 2] + q[qr + 3] * v[vr + 3]
    h = inertia_apply(body_real, i, body_angular_velocity(EP, q, qr, v, vr))
    Wz, Wv = tw.Wz, tw.Wv
    Wz[:, :] = 0.0
    Wv[:, :] = 0.0
    z, w = 3 * i + VELOCITY_OF_Z, 3 * i + VELOCITY_OF_V
    J = B_INERTIA
    for c in range(4):
        for r in range(3):
            jz = 0.0
            jv = 0.0
            for b in range(3):
                jz += body_real[i, J + 3 * r + b] * kinematics[z, 3 + b, rl + c]
                jv += body_real[i, J + 3 * r + b] * kinematics[w, 3 + b, rl + c]
            Wz[3 + r, rl + c] = -2.0 * (v[vr + c] * h[r] + rate * jz)
            Wv[3 + r, rl + c] = -2.0 * (q[qr + c] * h[r] + rate * jv)
    _add_coordinate_wrench(body_int, slot, i, i, E, Wz, Wv, Kg, Cg, True)


@njit(inline="always")
def _is_load(ftype):
    """``ftype`` is one of ``LOADS``."""
    return (ftype == GRAVITY or ftype == BODY_TORQUE or ftype == GLOBAL_TORQUE or ftype == TIMED_TORQUE
            or ftype == POINT_FORCE or ftype == TIME_TABLE or ftype == MANUFACTURED_LOAD)


@kernel
def _element_loads(sys, q, v, t, rotation, force, torque):
    """force, torque of the force elements that are not ``LOADS`` (spring-dampers, PD controllers, the EP
    norm-rate torque), by the kernels of ``lgbench.mbs.loads``. A compiled call, not inlined: it serves
    only the option ``loads_jacobian = false``, and inlined it made the generalized-alpha entry point
    compile about 100 s longer."""
    force[:, :] = 0.0
    torque[:, :] = 0.0
    for k in range(sys.force_int.shape[0]):
        ftype = sys.force_int[k, F_TYPE]
        if ftype == POINT_SPRING_DAMPER:
            i = sys.force_int[k, F_BODY]
            qr, _ = rotation_start(sys.body_int, i)
            _add_point_spring_damper(sys.body_int, sys.force_real, k, i, sys.body_int[i, B_FORM], qr, q, v, False,
                                     rotation, force, torque)
        elif not _is_load(ftype):
            other_load(sys, k, q, v, t, force, torque)


@njit(inline="always")
def _add_load_wrench(sys, k, tw, Kg, Cg, with_damper_position):
    """Add the wrench derivatives tw.Lp, tw.Lv of force element k on its one body to Kg, Cg."""
    ftype = sys.force_int[k, F_TYPE]
    i = sys.force_int[k, F_BODY]
    _add_wrench(sys.body_int, tw.slot, i, i, tw.kinematics, tw.load_map, tw.Lp, tw.Lv, tw.Wz, tw.Wv, Kg, Cg,
                ftype != POINT_SPRING_DAMPER and ftype != POINT_FORCE,
                ftype != POINT_SPRING_DAMPER or with_damper_position)


@njit(inline="always")
def _load_blocks_start(tw, i):
    """The start of a load's tangent on body i: R of body i (``_rotation_of``), and tw.Lp and tw.Lv cleared."""
    R = _rotation_of(tw.rotation, i)
    tw.Lp[:, :] = 0.0
    tw.Lv[:, :] = 0.0
    return R


@njit(inline="always")
def _elementary_load_tangent(sys, k, q, v, tw, Kg, Cg, with_damper_position):
    """Add the tangent of force element k, an ``is_elementary_load`` one other than a body torque (whose
    tangent is zero): gravity, a global torque or a point spring-damper."""
    ftype = sys.force_int[k, F_TYPE]
    i = sys.force_int[k, F_BODY]
    force_real = sys.force_real
    R = _load_blocks_start(tw, i)
    Lp, Lv = tw.Lp, tw.Lv
    if ftype == GRAVITY:
        ga = GRAVITY_ACCELERATION
        _gravity(sys.body_real, i, (force_real[k, ga], force_real[k, ga + 1], force_real[k, ga + 2]), R, Lp)
    elif ftype == GLOBAL_TORQUE:
        _add_skew(Lp, 3, 3, _rotate_back(R, (force_real[k, TORQUE], force_real[k, TORQUE + 1],
                                             force_real[k, TORQUE + 2])), 1.0)
    elif ftype == POINT_SPRING_DAMPER:
        _point_spring_damper(sys.body_int, force_real, k, i, sys.body_int[i, B_FORM], q, v, R, Lp, Lv,
                             with_damper_position)
    _add_load_wrench(sys, k, tw, Kg, Cg, with_damper_position)


@njit(inline="always")
def other_load_tangent(sys, k, q, v, t, tw, Kg, Cg, with_damper_position):
    """Add the tangent of force element k, one that is not ``is_elementary_load``: a PD joint controller, a
    line spring-damper, the EP norm-rate torque, a timed torque in global axes, a point force, a
    manufactured load (the multibody scope's ``other_load_tangent``, ``lgbench.mbs.scope``)."""
    body_int = sys.body_int
    body_real = sys.body_real
    force_real = sys.force_real
    ftype = sys.force_int[k, F_TYPE]
    i = sys.force_int[k, F_BODY]
    if ftype == JOINT_PD:
        _joint_pd(sys, k, q, v, t, tw.rotation, tw.kinematics, tw.load_map, tw.slot, tw, Kg, Cg)
        return
    if ftype == LINE_SPRING_DAMPER:
        _line_spring_damper(sys, k, q, v, tw.rotation, tw.kinematics, tw.load_map, tw.slot, tw, Kg, Cg,
                            with_damper_position)
        return
    if ftype == EP_NORM_RATE_TORQUE:
        if body_int[i, B_FORM] == EP:
            _ep_norm_rate(body_int, body_real, tw.slot, i, q, v, tw.kinematics, tw.load_map, tw, Kg, Cg)
        return
    R = _load_blocks_start(tw, i)
    Lp = tw.Lp
    if ftype == TIMED_TORQUE:
        factor = time_factor(force_real, k, TORQUE_SCHEDULE, t)
        _add_skew(Lp, 3, 3, _rotate_back(R, (factor * force_real[k, TORQUE], factor * force_real[k, TORQUE + 1],
                                             factor * force_real[k, TORQUE + 2])), 1.0)
    elif ftype == POINT_FORCE:
        _point_force(force_real, k, t, R, Lp)
    elif ftype == MANUFACTURED_LOAD:
        _, couple = manufactured_load(body_real[i, B_MASS],
                                      body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3), force_real[k], t)
        _add_skew(Lp, 3, 3, _rotate_back(R, (couple[0], couple[1], couple[2])), 1.0)
    _add_load_wrench(sys, k, tw, Kg, Cg, with_damper_position)


@njit(inline="always")
def force_tangent_inline(scope, sys, q, v, t, force, torque, tw, Kg, Cg, with_loads, with_damper_position):
    """Group blocks Kg of K_t = -dg/dz (along UAC) and Cg of C_t = -dg/dv at (q, v, t), analytic (module
    note); force and torque must hold the applied loads at (q, v, t) (as after the residual evaluation
    the Newton loops make at the iterate); chains by ``chain_tangent``. Without ``with_loads`` the
    ``LOADS`` are left out: their own derivatives, and their force and torque in the bodies' terms. Without
    ``with_damper_position`` the point dampers are differentiated as paper 000's code does (module note).
    The elements that are not elementary, the chains and the option ``with_loads = False`` are the
    ``scope``'s (``lgbench.mbs.scope``). Inlined into the iteration matrices: a compiled call that passes
    the system and workspace tuples copies some 25 arrays, about as long as the whole kernel takes on a
    one-body system."""
    Kg[:, :, :] = 0.0
    Cg[:, :, :] = 0.0
    if not with_loads:
        scope.element_loads(sys, q, v, t, tw)
        force, torque = tw.element_force, tw.element_torque
    body_int = sys.body_int
    body_real = sys.body_real
    rotation = tw.rotation
    kinematics = tw.kinematics
    E = tw.load_map
    slot = tw.slot
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        R = _body_rotation(body_int, i, q)
        for r in range(9):
            rotation[i, r] = R[r]
        kinematic_sensitivities(body_int, i, form, q, v, R, kinematics, E)
        _add_body_terms(body_int, body_real, slot, i, form, q, v, R, kinematics, E, force, torque, tw, Kg, Cg)
    force_int = sys.force_int
    force_real = sys.force_real
    for k in range(force_int.shape[0]):
        ftype = force_int[k, F_TYPE]
        if (ftype == BODY_TORQUE or ftype == TIME_TABLE or (_is_load(ftype) and not with_loads)
                or ftype == TIMED_TORQUE and force_real[k, TORQUE_IN_BODY_FRAME] > 0.0):
            continue
        if is_elementary_load(ftype):
            _elementary_load_tangent(sys, k, q, v, tw, Kg, Cg, with_damper_position)
        else:
            scope.other_load_tangent(sys, k, q, v, t, tw, Kg, Cg, with_damper_position)
    scope.chain_force_tangent(sys, q, v, tw, Kg, Cg)
