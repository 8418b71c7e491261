"""Intrinsic time integration of free rigid bodies (paper 003 Sect. 4.2), one stepper for three schemes.

Each body is a motion tensor C = (R, x) (paper 003 eq. 16; reference point = centre of mass) with
material velocities V* = [v*, omega*], v* = R^T x'. The configuration is never parameterised: every
step updates it with the intrinsic motion update C_f = C_i C*(Q) (eq. 20), the incremental motion
tensor C*(Q) being evaluated with one of the vectorial parameterisations of
``lgbench.lie.vectorial`` (option ``parameterisation``). Momenta and loads are written in the
material frame of C_i (the inertial equations (22)-(23) multiplied by C_i^T):

- energy-momentum (eq. 22): C*(h V_m)^-T M* V_f - M* V_i = h C_i^T A_m, V_m = (V_i + V_f)/2, loads at
  the midpoint configuration C_i C*(h V_m / 2), t + h/2;
- energy-decaying (eq. 23): C*(h (V_f + V_j)/2)^-T M* V_f - M* V_i = h C_i^T (A_f + A_i)/2 and
  C*(-h (V_f - V_j)/6)^-T M* V_j - M* V_i = -h C_i^T (A_f - A_i)/6;
- generalized-alpha (eqs. 24-26) in material form: M* V'_f - ad(V_f)^T M* V_f = C_f^T A_f with the
  Arnold-Bruls recurrence for the algorithmic accelerations and C_f = C_i C*(dU);
- kinematics alone (eqs. 20-21, the experiment of Figs. 3-4): no dynamics, V_f is the exact material
  velocity of a prescribed motion at t + h and C_f = C_i C*(h V_m), V_m = (V_i + V_f)/2, so the error is
  that of the discrete kinematic compatibility equation and of the parameterisation of C*.

Newton: the iteration matrix linearises C*(Q) as (I + dQ~) C*(Q), i.e. without the tangent tensor,
which the intrinsic formulation does not need (paper 003 Sect. 5, operation count); the loads are
lagged within the iteration matrix (they are re-evaluated in every residual). Convergence when the
velocity correction satisfies ||dV|| <= newton_rtol (1 + ||V||). The iterations run in the shared
Newton driver (``newton.newton_solve``, full Newton) on block-diagonal systems, one 6x6 (12x12 for the
energy-decaying scheme) block per body, in preallocated arrays: a step allocates nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import entry_point, kernel
from lgbench.exceptions import InputError
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.integrators.newton import N_STATISTICS, ST_STEPS, NewtonOptions, newton_counts, newton_solve
from lgbench.integrators.second_order_method import generalized_alpha
from lgbench.lie.so3 import exp_so3, log_so3_into
from lgbench.lie.vectorial import PARAMETERISATIONS, motion_increment_into
from lgbench.mbs.codes import DIVERGED, F_BODY, F_TYPE, FREE, MANUFACTURED_LOAD, OK
from lgbench.mbs.dense import all_finite, copy_matrix, copy_vector, lu_factor, lu_solve
from lgbench.mbs.formulations import FORMULATION_CODES
from lgbench.mbs.loads import applied_loads
from lgbench.mbs.manufactured import prescribed_material_velocity
from lgbench.mbs.system import B_FORM, B_INERTIA, B_KIND, B_MASS, B_QSTART, B_VSTART, SystemArrays

ENERGY_MOMENTUM = 0
ENERGY_DECAYING = 1
GENERALIZED_ALPHA = 2
KINEMATICS = 3


class IntrinsicMethod(NamedTuple):
    """The scheme as the compiled stepper reads it (built by ``IntrinsicIntegrator.method``)."""

    scheme: int            # ENERGY_MOMENTUM, ENERGY_DECAYING, GENERALIZED_ALPHA or KINEMATICS
    kind: int              # vectorial parameterisation of C*(Q) (``lie.vectorial.PARAMETERISATIONS``)
    rtol: float            # ||dV|| <= rtol (1 + ||V||)
    coefficients: tuple    # (alpha_m, alpha_f, beta, gamma) of the generalized-alpha scheme


class IntrinsicWorkspace(NamedTuple):
    """Preallocated arrays of a step (no allocation per step or Newton iteration): body masses and
    inertia tensors, the motion at the load point, material loads, coordinates and loads of the mbs
    layer, and per body the increments (R*, u*), transported momenta and Newton blocks (n = 6, or 12
    for the energy-decaying scheme with unknowns V_f, V_j)."""

    mass: np.ndarray       # (nb,)
    inertia: np.ndarray    # (nb, 3, 3)
    Xm: np.ndarray         # (nb, 3) motion where the loads act
    Rm: np.ndarray         # (nb, 3, 3)
    Vm: np.ndarray         # (nb, 6)
    loads: np.ndarray      # (nb, 6) C_i^T A at the load point
    loads_i: np.ndarray    # (nb, 6) C_i^T A_i (energy-decaying)
    q: np.ndarray          # RV coordinates for the mbs layer's loads
    v: np.ndarray
    force: np.ndarray      # (nb, 3)
    torque: np.ndarray     # (nb, 3)
    Q: np.ndarray          # (6,) increment of one body
    Rs: np.ndarray         # (nb, 2, 3, 3) R* of C*(Q) (second slot: the jump increment of eq. 23)
    us: np.ndarray         # (nb, 2, 3)
    z: np.ndarray          # (nb, 2, 6) transported momenta C*^-T M* V
    r: np.ndarray          # (nb, n) residual
    J: np.ndarray          # (nb, n, n) Newton matrix, factorised in place
    piv: np.ndarray        # (nb, n)
    delta: np.ndarray      # (n,)


@kernel
def to_motion(sys, q, v, X, R, V):
    """(x, R, V*) of every body from the RV coordinates q = [x, psi], v = [x', omega*]."""
    for i in range(sys.body_int.shape[0]):
        qs = sys.body_int[i, B_QSTART]
        vs = sys.body_int[i, B_VSTART]
        X[i] = q[qs:qs + 3]
        R[i] = exp_so3(q[qs + 3:qs + 6])
        _rotate_transposed(R[i], v[vs:vs + 3], V[i, 0:3])
        V[i, 3:6] = v[vs + 3:vs + 6]


@kernel
def to_coordinates(sys, X, R, V, q, v):
    """RV coordinates q, v of the motion tensors and material velocities."""
    for i in range(sys.body_int.shape[0]):
        qs = sys.body_int[i, B_QSTART]
        vs = sys.body_int[i, B_VSTART]
        q[qs:qs + 3] = X[i]
        log_so3_into(R[i], q[qs + 3:qs + 6])
        _rotate(R[i], V[i, 0:3], v[vs:vs + 3])
        v[vs + 3:vs + 6] = V[i, 3:6]


@njit(inline="always")
def _rotate(R, x, out):
    """out = R x (3-vectors)."""
    for a in range(3):
        out[a] = R[a, 0] * x[0] + R[a, 1] * x[1] + R[a, 2] * x[2]


@njit(inline="always")
def _rotate_transposed(R, x, out):
    """out = R^T x (3-vectors)."""
    for a in range(3):
        out[a] = R[0, a] * x[0] + R[1, a] * x[1] + R[2, a] * x[2]


@njit(inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(inline="always")
def _apply(M, x0, x1, x2):
    """M x as a tuple (3x3 M)."""
    return (M[0, 0] * x0 + M[0, 1] * x1 + M[0, 2] * x2, M[1, 0] * x0 + M[1, 1] * x1 + M[1, 2] * x2,
            M[2, 0] * x0 + M[2, 1] * x1 + M[2, 2] * x2)


@njit(inline="always")
def _skew_entry(x0, x1, x2, a, b):
    """hat(x)[a, b]."""
    if a == b:
        return 0.0
    if a == 0:
        return -x2 if b == 1 else x1
    if a == 1:
        return x2 if b == 0 else -x0
    return -x1 if b == 0 else x0


@njit(inline="always")
def _add_skew(J, r0, c0, weight, x, k):
    """J[r0:r0+3, c0:c0+3] += weight * hat(x[k:k+3])."""
    J[r0, c0 + 1] -= weight * x[k + 2]
    J[r0, c0 + 2] += weight * x[k + 1]
    J[r0 + 1, c0] += weight * x[k + 2]
    J[r0 + 1, c0 + 2] -= weight * x[k]
    J[r0 + 2, c0] -= weight * x[k + 1]
    J[r0 + 2, c0 + 1] += weight * x[k]


@kernel
def material_loads(sys, X, R, V, t, Xref, Rref, w, out):
    """out[i] = C_ref^T A: force and moment about the reference point of C_ref, in its material frame,
    of the loads acting on the configuration (X, R, V) at time t (the mbs layer's ``applied_loads``)."""
    to_coordinates(sys, X, R, V, w.q, w.v)
    applied_loads(sys, w.q, w.v, t, w.force, w.torque)
    for i in range(sys.body_int.shape[0]):
        f = w.force[i]
        m = w.Q[0:3]
        _rotate(R[i], w.torque[i], m)
        d0, d1, d2 = X[i, 0] - Xref[i, 0], X[i, 1] - Xref[i, 1], X[i, 2] - Xref[i, 2]
        c0, c1, c2 = _cross(d0, d1, d2, f[0], f[1], f[2])
        m[0] += c0
        m[1] += c1
        m[2] += c2
        _rotate_transposed(Rref[i], f, out[i, 0:3])
        _rotate_transposed(Rref[i], m, out[i, 3:6])


@kernel
def transported_momentum(mass, inertia, Rs, us, Vf, z):
    """z = C*^-T M* V_f = [m R* v_f, u* x (m R* v_f) + R* J omega_f] (paper 003 eq. 22b in C_i's frame)."""
    _rotate(Rs, Vf[0:3], z[0:3])
    for a in range(3):
        z[a] *= mass
    _rotate(inertia, Vf[3:6], z[3:6])
    c0, c1, c2 = _cross(us[0], us[1], us[2], z[0], z[1], z[2])
    r0, r1, r2 = _apply(Rs, z[3], z[4], z[5])
    z[3] = c0 + r0
    z[4] = c1 + r1
    z[5] = c2 + r2


@kernel
def momentum_jacobian(mass, inertia, Rs, us, z, weight, J, r0, c0, own):
    """Block d(C*^-T M* V_f)/dV of the iteration matrix: C*^-T M* (if ``own``) + weight * N(z),
    N(z) = [[0, -z1~], [-z1~, -z2~]] from dC* = dQ~ C* with dQ = weight dV."""
    _add_skew(J, r0, c0 + 3, -weight, z, 0)
    _add_skew(J, r0 + 3, c0, -weight, z, 0)
    _add_skew(J, r0 + 3, c0 + 3, -weight, z, 3)
    if own:
        for b in range(3):
            u0, u1, u2 = _cross(us[0], us[1], us[2], Rs[0, b], Rs[1, b], Rs[2, b])
            J[r0 + 3, c0 + b] += mass * u0
            J[r0 + 4, c0 + b] += mass * u1
            J[r0 + 5, c0 + b] += mass * u2
            for a in range(3):
                J[r0 + a, c0 + b] += mass * Rs[a, b]
                J[r0 + 3 + a, c0 + 3 + b] += Rs[a, 0] * inertia[0, b] + Rs[a, 1] * inertia[1, b] \
                    + Rs[a, 2] * inertia[2, b]


@njit(inline="always")
def _gyroscopic(mass, inertia, V):
    """-ad(V)^T M* V = [m omega x v, omega x J omega] as a 6-tuple (material form of paper 003 eq. 24)."""
    c0, c1, c2 = _cross(V[3], V[4], V[5], V[0], V[1], V[2])
    j0, j1, j2 = _apply(inertia, V[3], V[4], V[5])
    g3, g4, g5 = _cross(V[3], V[4], V[5], j0, j1, j2)
    return mass * c0, mass * c1, mass * c2, g3, g4, g5


@kernel
def initial_accelerations(sys, X, R, V, t, w, Vd):
    """V*' from the equations of motion at (X, R, V, t): M* V' = C^T A - gyroscopic terms."""
    material_loads(sys, X, R, V, t, X, R, w, w.loads)
    for i in range(sys.body_int.shape[0]):
        mass, inertia = w.mass[i], w.inertia[i]
        rhs = np.empty(3)
        gyroscopic = _gyroscopic(mass, inertia, V[i])
        for a in range(3):
            Vd[i, a] = (w.loads[i, a] - gyroscopic[a]) / mass
            rhs[a] = w.loads[i, 3 + a] - gyroscopic[3 + a]
        Vd[i, 3:6] = np.linalg.solve(inertia, rhs)


@njit(inline="always")
def _move(kind, Xi, Ri, Q, Xo, Ro, i, Rs, us):
    """C_o = C_i C*(Q) for body i; (R*, u*) into Rs, us."""
    motion_increment_into(kind, Q, Rs, us)
    for a in range(3):
        for b in range(3):
            Ro[i, a, b] = Ri[i, a, 0] * Rs[0, b] + Ri[i, a, 1] * Rs[1, b] + Ri[i, a, 2] * Rs[2, b]
        Xo[i, a] = Xi[i, a] + (Ri[i, a, 0] * us[0] + Ri[i, a, 1] * us[1] + Ri[i, a, 2] * us[2])


class IntrinsicIterate(NamedTuple):
    """What the Newton iterations of one intrinsic step read (``newton_solve``'s step context); the
    unknowns V_f (and V_j) or V'_f live in the state arrays."""

    sys: SystemArrays
    method: IntrinsicMethod
    Xi: np.ndarray
    Ri: np.ndarray
    Vi: np.ndarray
    Vdi: np.ndarray
    ai: np.ndarray
    Xf: np.ndarray
    Rf: np.ndarray
    Vf: np.ndarray
    Vj: np.ndarray
    Vdf: np.ndarray
    af: np.ndarray
    t: float
    h: float
    w: IntrinsicWorkspace


@njit(inline="always")
def _start(it):
    """Predictor: V_f = V_j = V_i (energy schemes), V'_f = V'_i (generalized-alpha)."""
    copy_matrix(it.Vf, it.Vi)
    copy_matrix(it.Vj, it.Vi)
    copy_matrix(it.Vdf, it.Vdi)


@njit(inline="always")
def _alpha_weight(it):
    """gamma' = h gamma (1 - alpha_f)/(1 - alpha_m): dV_f = gamma' dV'_f."""
    alpha_m, alpha_f, beta, gamma = it.method.coefficients
    return it.h * gamma * ((1.0 - alpha_f) / (1.0 - alpha_m))


@njit(inline="always")
def _alpha_update(it, i):
    """a_f, V_f and C_f of body i from V'_f (paper 003 eqs. 25-26, Arnold-Bruls recurrence)."""
    alpha_m, alpha_f, beta, gamma = it.method.coefficients
    h, w = it.h, it.w
    factor = (1.0 - alpha_f) / (1.0 - alpha_m)
    for k in range(6):
        it.af[i, k] = factor * it.Vdf[i, k] + (alpha_f * it.Vdi[i, k] - alpha_m * it.ai[i, k]) / (1.0 - alpha_m)
        it.Vf[i, k] = it.Vi[i, k] + h * ((1.0 - gamma) * it.ai[i, k] + gamma * it.af[i, k])
        w.Q[k] = h * it.Vi[i, k] + h * h * ((0.5 - beta) * it.ai[i, k] + beta * it.af[i, k])
    _move(it.method.kind, it.Xi, it.Ri, w.Q, it.Xf, it.Rf, i, w.Rs[i, 0], w.us[i, 0])


@njit(inline="always")
def _residual(it, algebra):
    """Residuals of every body at the iterate (eq. 22, 23 or 24 in C_i's material frame); returns their
    norm, which is only checked for being finite (the test is on the correction)."""
    sys, w, h, kind = it.sys, it.w, it.h, it.method.kind
    Xi, Ri, Vi, Vf, Vj = it.Xi, it.Ri, it.Vi, it.Vf, it.Vj
    nb = Xi.shape[0]
    scheme = it.method.scheme
    if scheme == ENERGY_MOMENTUM:
        for i in range(nb):
            for k in range(6):
                w.Q[k] = 0.25 * h * (Vi[i, k] + Vf[i, k])
                w.Vm[i, k] = 0.5 * (Vi[i, k] + Vf[i, k])
            _move(kind, Xi, Ri, w.Q, w.Xm, w.Rm, i, w.Rs[i, 0], w.us[i, 0])
        material_loads(sys, w.Xm, w.Rm, w.Vm, it.t + 0.5 * h, Xi, Ri, w, w.loads)
    elif scheme == ENERGY_DECAYING:
        for i in range(nb):
            for k in range(6):
                w.Q[k] = 0.5 * h * (Vf[i, k] + Vj[i, k])
            _move(kind, Xi, Ri, w.Q, it.Xf, it.Rf, i, w.Rs[i, 0], w.us[i, 0])
        material_loads(sys, it.Xf, it.Rf, Vf, it.t + h, Xi, Ri, w, w.loads)
    else:
        for i in range(nb):
            _alpha_update(it, i)
        material_loads(sys, it.Xf, it.Rf, Vf, it.t + h, it.Xf, it.Rf, w, w.loads)
    s = 0.0
    for i in range(nb):
        mass, inertia, r, z = w.mass[i], w.inertia[i], w.r[i], w.z[i]
        if scheme == ENERGY_MOMENTUM:
            for k in range(6):
                w.Q[k] = 0.5 * h * (Vi[i, k] + Vf[i, k])
            motion_increment_into(kind, w.Q, w.Rs[i, 0], w.us[i, 0])
            transported_momentum(mass, inertia, w.Rs[i, 0], w.us[i, 0], Vf[i], z[0])
            J_omega = _apply(inertia, Vi[i, 3], Vi[i, 4], Vi[i, 5])
            for a in range(3):
                r[a] = z[0, a] - mass * Vi[i, a] - h * w.loads[i, a]
                r[3 + a] = z[0, 3 + a] - J_omega[a] - h * w.loads[i, 3 + a]
        elif scheme == ENERGY_DECAYING:
            for k in range(6):
                w.Q[k] = -h / 6.0 * (Vf[i, k] - Vj[i, k])
            motion_increment_into(kind, w.Q, w.Rs[i, 1], w.us[i, 1])
            transported_momentum(mass, inertia, w.Rs[i, 0], w.us[i, 0], Vf[i], z[0])
            transported_momentum(mass, inertia, w.Rs[i, 1], w.us[i, 1], Vj[i], z[1])
            J_omega = _apply(inertia, Vi[i, 3], Vi[i, 4], Vi[i, 5])
            for k in range(6):
                Mi = mass * Vi[i, k] if k < 3 else J_omega[k - 3]
                r[k] = z[0, k] - Mi - 0.5 * h * (w.loads[i, k] + w.loads_i[i, k])
                r[6 + k] = z[1, k] - Mi + h / 6.0 * (w.loads[i, k] - w.loads_i[i, k])
        else:
            Vdf = it.Vdf
            gyroscopic = _gyroscopic(mass, inertia, Vf[i])
            J_acc = _apply(inertia, Vdf[i, 3], Vdf[i, 4], Vdf[i, 5])
            for a in range(3):
                r[a] = mass * Vdf[i, a] + gyroscopic[a] - w.loads[i, a]
                r[3 + a] = J_acc[a] + gyroscopic[3 + a] - w.loads[i, 3 + a]
        for k in range(r.shape[0]):
            s += r[k] * r[k]
    return math.sqrt(s)


@njit(inline="always")
def _factor(it, algebra):
    """Newton blocks of every body at the iterate just evaluated, factorised; False if one is singular."""
    w, h = it.w, it.h
    scheme = it.method.scheme
    for i in range(it.Xi.shape[0]):
        mass, inertia, J, z, Rs, us = w.mass[i], w.inertia[i], w.J[i], w.z[i], w.Rs[i], w.us[i]
        J[:, :] = 0.0
        if scheme == ENERGY_MOMENTUM:
            momentum_jacobian(mass, inertia, Rs[0], us[0], z[0], 0.5 * h, J, 0, 0, True)
        elif scheme == ENERGY_DECAYING:
            momentum_jacobian(mass, inertia, Rs[0], us[0], z[0], 0.5 * h, J, 0, 0, True)
            momentum_jacobian(mass, inertia, Rs[0], us[0], z[0], 0.5 * h, J, 0, 6, False)
            momentum_jacobian(mass, inertia, Rs[1], us[1], z[1], -h / 6.0, J, 6, 0, False)
            momentum_jacobian(mass, inertia, Rs[1], us[1], z[1], h / 6.0, J, 6, 6, True)
        else:
            gp = _alpha_weight(it)
            V = it.Vf[i]
            # [[m (I + gp w~), -gp m v~], [0, J + gp (w~ J - (J w)~)]] (material form of eq. 24)
            j0, j1, j2 = _apply(inertia, V[3], V[4], V[5])
            for b in range(3):
                c = _cross(V[3], V[4], V[5], inertia[0, b], inertia[1, b], inertia[2, b])
                for a in range(3):
                    J[a, b] = mass * ((1.0 if a == b else 0.0) + gp * _skew_entry(V[3], V[4], V[5], a, b))
                    J[3 + a, 3 + b] = inertia[a, b] + gp * (c[a] - _skew_entry(j0, j1, j2, a, b))
            _add_skew(J, 0, 3, -gp * mass, V, 0)
        if not lu_factor(J, w.piv[i]):
            return False
    return True


@njit(inline="always")
def _round_off(it):
    """No acceptance at the round-off level of the residual: these schemes test their corrections (``_correct``)."""
    return False


@njit(inline="always")
def _correct(it, algebra):
    """Solve every body's block and update its unknowns; True when ||dV|| <= rtol (1 + ||V_f||)."""
    w = it.w
    scheme = it.method.scheme
    gp = _alpha_weight(it)
    correction = 0.0
    size = 0.0
    for i in range(it.Xi.shape[0]):
        delta = w.delta
        copy_vector(delta, w.r[i])
        lu_solve(w.J[i], w.piv[i], delta)
        if scheme == GENERALIZED_ALPHA:
            for k in range(6):
                it.Vdf[i, k] -= delta[k]
        else:
            for k in range(6):
                it.Vf[i, k] -= delta[k]
            if scheme == ENERGY_DECAYING:
                for k in range(6):
                    it.Vj[i, k] -= delta[6 + k]
        squares = 0.0
        for k in range(delta.shape[0]):
            squares += delta[k] * delta[k]
        correction += gp * gp * squares if scheme == GENERALIZED_ALPHA else squares
        squares = 0.0
        for k in range(6):
            squares += it.Vf[i, k] * it.Vf[i, k]
        size += squares
    return math.sqrt(correction) <= it.method.rtol * (1.0 + math.sqrt(size))


class IntrinsicProblem(NamedTuple):
    """What a step of an intrinsic scheme reads: system, method, Newton settings, workspace, statistics."""

    sys: SystemArrays
    method: IntrinsicMethod
    newton: NewtonOptions
    w: IntrinsicWorkspace
    stats: np.ndarray
    jacobian_valid: np.ndarray


@njit(inline="always")
def intrinsic_fixed_step(problem, state, t, h, h_nominal):
    """One step of the scheme on the motion state (X, R, V, V', a) at t, then the coordinates (q, v)."""
    Xi, Ri, Vi, Vdi, ai, Xf, Rf, Vf, Vj, Vdf, af, q, v = state
    sys, method, w, stats = problem.sys, problem.method, problem.w, problem.stats
    if method.scheme == ENERGY_DECAYING:
        material_loads(sys, Xi, Ri, Vi, t, Xi, Ri, w, w.loads_i)
    iterate = IntrinsicIterate(sys, method, Xi, Ri, Vi, Vdi, ai, Xf, Rf, Vf, Vj, Vdf, af, t, h, w)
    if method.scheme == KINEMATICS:
        prescribed_velocities(sys, t + h, Vf)
    else:
        status = newton_solve(_start, _residual, _factor, _correct, _round_off, None, iterate, problem.newton,
                              problem.jacobian_valid, stats)
        if status != OK:
            return status
    # the configuration of the converged (or prescribed) velocities
    for i in range(Xi.shape[0]):
        if method.scheme == GENERALIZED_ALPHA:
            _alpha_update(iterate, i)
        else:
            for k in range(6):
                w.Q[k] = 0.5 * h * (Vf[i, k] + Vj[i, k]) if method.scheme == ENERGY_DECAYING else \
                    0.5 * h * (Vi[i, k] + Vf[i, k])
            _move(method.kind, Xi, Ri, w.Q, Xf, Rf, i, w.Rs[i, 0], w.us[i, 0])
    for i in range(Xi.shape[0]):
        if not (all_finite(Xf[i]) and all_finite(Vf[i])):
            return DIVERGED
        for a in range(3):
            if not all_finite(Rf[i, a]):
                return DIVERGED
    copy_matrix(Xi, Xf)
    for i in range(Ri.shape[0]):
        copy_matrix(Ri[i], Rf[i])
    copy_matrix(Vi, Vf)
    copy_matrix(Vdi, Vdf)
    copy_matrix(ai, af)
    stats[ST_STEPS] += 1
    to_coordinates(sys, Xi, Ri, Vi, q, v)
    return OK


@kernel
def prescribed_velocities(sys, t, V):
    """V[i] = the material velocities at t of every body that follows a prescribed motion (its
    ``MANUFACTURED_LOAD`` element); ``check_prescribed_motion`` makes sure every body has one."""
    for k in range(sys.force_int.shape[0]):
        if sys.force_int[k, F_TYPE] == MANUFACTURED_LOAD:
            prescribed_material_velocity(sys.force_real[k], t, V[sys.force_int[k, F_BODY]])


@entry_point
def integrate_intrinsic(sys, method, newton, q, v, t0, t_end, h, sample_times, q_samples, v_samples, w, stats,
                        motion, stop):
    """Fixed-step intrinsic integration from t0 to t_end (``run_fixed_steps``), (q, v) in place; motion:
    the arrays of ``motion_arrays``. Returns (status, steps, t)."""
    Xi, Ri, Vi, Vdi, ai, Xf, Rf, Vf, Vj, Vdf, af, jacobian_valid, no_multipliers, no_multiplier_samples = motion
    to_motion(sys, q, v, Xi, Ri, Vi)
    if method.scheme == GENERALIZED_ALPHA:
        initial_accelerations(sys, Xi, Ri, Vi, t0, w, Vdi)
        copy_matrix(ai, Vdi)
    problem = IntrinsicProblem(sys, method, newton, w, stats, jacobian_valid)
    state = (Xi, Ri, Vi, Vdi, ai, Xf, Rf, Vf, Vj, Vdf, af, q, v)
    samples = (sample_times, q_samples, v_samples, no_multiplier_samples)
    return run_fixed_steps(intrinsic_fixed_step, problem, state, (q, v, no_multipliers), samples, t0, t_end, h,
                           stop)


def motion_arrays(n_bodies: int, n_samples: int) -> tuple[np.ndarray, ...]:
    """The state of ``integrate_intrinsic`` for n bodies (zeros): positions X (n, 3) and rotations R (n, 3, 3)
    at the step's start and end, material velocities V, their rates V' and the algorithmic accelerations
    a (n, 6) at start and end, and V of the energy-decaying scheme's second stage; the Newton matrix flag;
    the (empty) multipliers and their samples."""
    def six():
        return np.zeros((n_bodies, 6))

    Xi, Xf = np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3))
    Ri, Rf = np.zeros((n_bodies, 3, 3)), np.zeros((n_bodies, 3, 3))
    return (Xi, Ri, six(), six(), six(), Xf, Rf, six(), six(), six(), six(), np.zeros(1, dtype=np.bool_),
            np.zeros(0), np.zeros((n_samples, 0)))


def make_workspace(system, scheme: int) -> IntrinsicWorkspace:
    """The arrays of ``IntrinsicWorkspace`` for the bodies of ``system``."""
    nb = system.body_int.shape[0]
    n = 12 if scheme == ENERGY_DECAYING else 6
    return IntrinsicWorkspace(
        mass=system.body_real[:, B_MASS].copy(),
        inertia=system.body_real[:, B_INERTIA:B_INERTIA + 9].reshape(nb, 3, 3).copy(),
        Xm=np.zeros((nb, 3)), Rm=np.zeros((nb, 3, 3)), Vm=np.zeros((nb, 6)), loads=np.zeros((nb, 6)),
        loads_i=np.zeros((nb, 6)), q=np.zeros(int(system.sizes[0])), v=np.zeros(int(system.sizes[1])),
        force=np.zeros((nb, 3)), torque=np.zeros((nb, 3)), Q=np.zeros(6), Rs=np.zeros((nb, 2, 3, 3)),
        us=np.zeros((nb, 2, 3)), z=np.zeros((nb, 2, 6)), r=np.zeros((nb, n)), J=np.zeros((nb, n, n)),
        piv=np.zeros((nb, n), dtype=np.int64), delta=np.zeros(n),
    )


@dataclass(frozen=True)
class IntrinsicIntegrator:
    """Registry entry of one intrinsic scheme of paper 003 (free RV bodies, no constraints)."""

    name: str
    description: str
    scheme: int
    order: int = 2
    kind: str = "implicit"
    formulations: tuple[str, ...] = ("RV",)
    defaults: dict[str, Any] = field(default_factory=dict)

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]:
        merged = dict(self.defaults)
        for key, value in options.items():
            if key not in merged:
                raise InputError(f"unknown option '{key}' of integrator '{self.name}'", field=f"options.{key}",
                                 allowed=sorted(merged))
            merged[key] = value
        if merged["parameterisation"] not in PARAMETERISATIONS:
            raise InputError(f"invalid value {merged['parameterisation']!r}", field="options.parameterisation",
                             allowed=list(PARAMETERISATIONS))
        if "newton_rtol" in merged:
            try:
                merged["newton_rtol"] = float(merged["newton_rtol"])
            except (TypeError, ValueError):
                raise InputError(f"must be a number, got {merged['newton_rtol']!r}",
                                 field="options.newton_rtol") from None
            if not merged["newton_rtol"] > 0.0:
                raise InputError("must be positive", field="options.newton_rtol")
        if "max_iterations" in merged and (not isinstance(merged["max_iterations"], (int, np.integer))
                                           or merged["max_iterations"] < 1):
            raise InputError(f"must be a positive integer, got {merged['max_iterations']!r}",
                             field="options.max_iterations")
        if "rho_inf" in merged:
            try:
                merged["rho_inf"] = float(merged["rho_inf"])
            except (TypeError, ValueError):
                raise InputError(f"must be a number, got {merged['rho_inf']!r}", field="options.rho_inf") from None
            if not 0.0 <= merged["rho_inf"] <= 1.0:
                raise InputError(f"must lie in [0, 1], got {merged['rho_inf']}", field="options.rho_inf")
        return merged

    def method(self, options: dict[str, Any]) -> IntrinsicMethod:
        """The compiled-side scheme from validated options."""
        coefficients = (0.0, 0.0, 0.0, 0.0)
        if self.scheme == GENERALIZED_ALPHA:
            coefficients = tuple(float(x) for x in generalized_alpha(options["rho_inf"]).as_array())
        return IntrinsicMethod(self.scheme, PARAMETERISATIONS[options["parameterisation"]],
                               float(options.get("newton_rtol", 0.0)), coefficients)

    @staticmethod
    def newton(options: dict[str, Any]) -> NewtonOptions:
        """Full Newton, the test on the correction only (``_correct``): the residual test is switched off
        (rtol = atol = 0)."""
        return NewtonOptions(modified=False, texp=False, full_tangent=False, analytic_tangent=False,
                             loads_jacobian=True, damper_position_jacobian=True, rtol=0.0,
                             atol=0.0, max_iterations=int(options.get("max_iterations", 1)), max_modified_iterations=0,
                             contractivity=0.0, fd_relative_step=0.0, fd_step_floor=0.0, scaling=False, index=3)

    def integrate(self, system, q0, v0, options, h, t_end, sample_times) -> Integration:
        """Warm-up (compilation), then the timed fixed-step run."""
        check_free_rv_bodies(system)
        if self.scheme == KINEMATICS:
            check_prescribed_motion(system)
        method = self.method(options)
        newton = self.newton(options)
        ns = sample_times.shape[0]
        q_samples, v_samples = sample_arrays(ns, q0.shape[0], v0.shape[0])

        def run(inputs, t_stop, warm_up, stop):
            times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
            q, v, workspace, stats, motion = inputs
            return integrate_intrinsic(system, method, newton, q, v, 0.0, t_stop, h, times, qs, vs, workspace, stats,
                                       motion, stop)

        (q, v, _, stats, _), (code, steps, t_reached), cpu = timed_run(
            lambda: (q0.copy(), v0.copy(), make_workspace(system, self.scheme), np.zeros(N_STATISTICS),
                     motion_arrays(system.body_int.shape[0], ns)),
            run, t_end)
        statistics = {
            **newton_counts(stats, steps),
            "failed_steps": 0 if code == OK else 1,
            **({"newton_rtol": options["newton_rtol"]} if "newton_rtol" in options else {}),
            "parameterisation": options["parameterisation"],
        }
        return Integration(int(code), int(steps), float(t_reached), cpu, q, v, np.zeros(0), q_samples,
                           v_samples, np.zeros((ns, 0)), statistics)


def check_free_rv_bodies(system) -> None:
    """The intrinsic schemes integrate free RV bodies without constraints or chain coordinates."""
    if system.sizes[2] > 0 or system.chain_int.shape[0] > 0:
        raise InputError("the intrinsic schemes integrate free rigid bodies without constraints",
                         field="integrator")
    for row in system.body_int:
        if row[B_KIND] != FREE or row[B_FORM] != FORMULATION_CODES["RV"]:
            raise InputError("the intrinsic schemes need free bodies in the RV formulation", field="formulation",
                             allowed=["RV"])


def check_prescribed_motion(system) -> None:
    """The kinematics-only scheme needs the exact velocities of every body: a prescribed motion."""
    bodies = {int(row[F_BODY]) for row in system.force_int if row[F_TYPE] == MANUFACTURED_LOAD}
    if bodies != set(range(system.body_int.shape[0])):
        raise InputError("the kinematics-only scheme needs a prescribed motion of every body (model "
                         "manufactured_body)", field="integrator")


_DEFAULTS = {"parameterisation": "exponential", "newton_rtol": 1e-12, "max_iterations": 25}

INTRINSIC_INTEGRATORS = {
    entry.name: entry for entry in (
        IntrinsicIntegrator("intrinsic-energy-momentum",
                            "intrinsic energy-momentum preserving scheme (paper 003 eqs. 9, 22)",
                            ENERGY_MOMENTUM, defaults=dict(_DEFAULTS)),
        IntrinsicIntegrator("intrinsic-energy-decaying",
                            "intrinsic momentum preserving, energy decaying scheme (paper 003 eqs. 10, 23)",
                            ENERGY_DECAYING, defaults=dict(_DEFAULTS)),
        IntrinsicIntegrator("intrinsic-generalized-alpha",
                            "intrinsic generalized-alpha (paper 003 eqs. 24-26, Arnold-Bruls form)",
                            GENERALIZED_ALPHA, defaults={**_DEFAULTS, "rho_inf": 1.0}),
        IntrinsicIntegrator("intrinsic-kinematics",
                            "intrinsic motion update alone, driven by the exact velocities of a prescribed "
                            "motion (paper 003 eqs. 20-21, Figs. 3-4)",
                            KINEMATICS, kind="explicit", defaults={"parameterisation": "exponential"}),
    )
}
