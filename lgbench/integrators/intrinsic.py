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
  Arnold-Bruls recurrence for the algorithmic accelerations and C_f = C_i C*(dU).

Newton: the iteration matrix linearises C*(Q) as (I + dQ~) C*(Q), i.e. without the tangent tensor,
which the intrinsic formulation does not need (paper 003 Sect. 5, operation count); the loads are
lagged within the iteration matrix (they are re-evaluated in every residual). Convergence when the
velocity correction satisfies ||dV|| <= newton_rtol (1 + ||V||).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from numba import njit
import numpy as np

from lgbench.exceptions import InputError
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.interface import Integration, sampling, timed_run
from lgbench.integrators.second_order_method import generalized_alpha
from lgbench.lie.so3 import exp_so3, hat, log_so3
from lgbench.lie.vectorial import PARAMETERISATIONS, motion_increment
from lgbench.mbs.codes import DIVERGED, FREE, NEWTON_FAILED, OK, SINGULAR_MATRIX
from lgbench.mbs.dense import all_finite, cross, lu_factor, lu_solve, mat3_vec, mat3t_vec
from lgbench.mbs.formulations import FORMULATION_CODES
from lgbench.mbs.loads import applied_loads
from lgbench.mbs.system import B_FORM, B_INERTIA, B_KIND, B_MASS, B_QSTART, B_VSTART, SystemArrays

ENERGY_MOMENTUM = 0
ENERGY_DECAYING = 1
GENERALIZED_ALPHA = 2

# parameter vector: scheme, parameterisation, rtol, max iterations, alpha_m, alpha_f, beta, gamma
(P_SCHEME, P_KIND, P_RTOL, P_MAX_ITERATIONS, P_ALPHA_M, P_ALPHA_F, P_BETA, P_GAMMA) = range(8)
N_PARAMETERS = 8
# statistics: Newton iterations, steps, max iterations in a step
(ST_NEWTON, ST_STEPS, ST_MAX_ITERATIONS) = range(3)
N_STATISTICS = 3


@njit(cache=True)
def to_motion(sys, q, v, X, R, V):
    """(x, R, V*) of every body from the RV coordinates q = [x, psi], v = [x', omega*]."""
    for i in range(sys.body_int.shape[0]):
        qs = sys.body_int[i, B_QSTART]
        vs = sys.body_int[i, B_VSTART]
        X[i] = q[qs:qs + 3]
        R[i] = exp_so3(q[qs + 3:qs + 6])
        V[i, 0:3] = mat3t_vec(R[i], v[vs:vs + 3])
        V[i, 3:6] = v[vs + 3:vs + 6]


@njit(cache=True)
def to_coordinates(sys, X, R, V, q, v):
    """RV coordinates q, v of the motion tensors and material velocities."""
    for i in range(sys.body_int.shape[0]):
        qs = sys.body_int[i, B_QSTART]
        vs = sys.body_int[i, B_VSTART]
        q[qs:qs + 3] = X[i]
        q[qs + 3:qs + 6] = log_so3(R[i])
        v[vs:vs + 3] = mat3_vec(R[i], V[i, 0:3])
        v[vs + 3:vs + 6] = V[i, 3:6]


@njit(cache=True)
def material_loads(sys, X, R, V, t, Xref, Rref, q, v, force, torque, out):
    """out[i] = C_ref^T A: force and moment about the reference point of C_ref, in its material frame,
    of the loads acting on the configuration (X, R, V) at time t (the mbs layer's ``applied_loads``)."""
    to_coordinates(sys, X, R, V, q, v)
    applied_loads(sys, q, v, t, force, torque)
    for i in range(sys.body_int.shape[0]):
        moment = cross(X[i] - Xref[i], force[i]) + mat3_vec(R[i], torque[i])
        out[i, 0:3] = mat3t_vec(Rref[i], force[i])
        out[i, 3:6] = mat3t_vec(Rref[i], moment)


@njit(cache=True)
def transported_momentum(mass, inertia, Rs, us, Vf, z):
    """z = C*^-T M* V_f = [m R* v_f, u* x (m R* v_f) + R* J omega_f] (paper 003 eq. 22b in C_i's frame)."""
    z[0:3] = mass * mat3_vec(Rs, Vf[0:3])
    z[3:6] = cross(us, z[0:3]) + mat3_vec(Rs, mat3_vec(inertia, Vf[3:6]))


@njit(cache=True)
def momentum_jacobian(mass, inertia, Rs, us, z, weight, J, r0, c0, own):
    """Block d(C*^-T M* V_f)/dV of the iteration matrix: C*^-T M* (if ``own``) + weight * N(z),
    N(z) = [[0, -z1~], [-z1~, -z2~]] from dC* = dQ~ C* with dQ = weight dV."""
    z1 = hat(z[0:3])
    z2 = hat(z[3:6])
    for a in range(3):
        for b in range(3):
            J[r0 + a, c0 + 3 + b] += -weight * z1[a, b]
            J[r0 + 3 + a, c0 + b] += -weight * z1[a, b]
            J[r0 + 3 + a, c0 + 3 + b] += -weight * z2[a, b]
    if own:
        RJ = Rs @ inertia
        uR = hat(us) @ Rs
        for a in range(3):
            for b in range(3):
                J[r0 + a, c0 + b] += mass * Rs[a, b]
                J[r0 + 3 + a, c0 + b] += mass * uR[a, b]
                J[r0 + 3 + a, c0 + 3 + b] += RJ[a, b]


@njit(cache=True)
def _norm(x):
    return np.sqrt(np.sum(x * x))


@njit(cache=True)
def _solve(J, r, delta):
    """delta = J^-1 r; False if J is singular."""
    piv = np.zeros(r.shape[0], dtype=np.int64)
    LU = J.copy()
    if not lu_factor(LU, piv):
        return False
    delta[:] = r
    lu_solve(LU, piv, delta)
    return True


@njit(cache=True)
def _gyroscopic(mass, inertia, V):
    """-ad(V)^T M* V = [m omega x v, omega x J omega] (material form of paper 003 eq. 24)."""
    out = np.empty(6)
    out[0:3] = mass * cross(V[3:6], V[0:3])
    out[3:6] = cross(V[3:6], mat3_vec(inertia, V[3:6]))
    return out


@njit(cache=True)
def body_data(sys, i):
    return sys.body_real[i, B_MASS], sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3).copy()


@njit(cache=True)
def initial_accelerations(sys, X, R, V, t, q, v, force, torque, loads, Vd):
    """V*' from the equations of motion at (X, R, V, t): M* V' = C^T A - gyroscopic terms."""
    material_loads(sys, X, R, V, t, X, R, q, v, force, torque, loads)
    for i in range(sys.body_int.shape[0]):
        mass, inertia = body_data(sys, i)
        g = _gyroscopic(mass, inertia, V[i])
        Vd[i, 0:3] = (loads[i, 0:3] - g[0:3]) / mass
        Vd[i, 3:6] = np.linalg.solve(inertia, loads[i, 3:6] - g[3:6])


@njit(cache=True)
def _move(kind, Xi, Ri, Q, Xo, Ro, i):
    """C_o = C_i C*(Q) for body i."""
    Rs, us = motion_increment(kind, Q)
    Ro[i] = Ri[i] @ Rs
    Xo[i] = Xi[i] + mat3_vec(Ri[i], us)
    return Rs, us


@njit(cache=True)
def energy_momentum_step(sys, kind, rtol, max_it, Xi, Ri, Vi, t, h, Xf, Rf, Vf, w, stats):
    """One step of paper 003 eq. (22); Vf holds the predictor on entry. Returns (status, iterations)."""
    nb = Xi.shape[0]
    Xm, Rm, loads, q, v, force, torque = w
    J = np.zeros((6, 6))
    r = np.zeros(6)
    delta = np.zeros(6)
    z = np.zeros(6)
    for it in range(1, max_it + 1):
        for i in range(nb):
            _move(kind, Xi, Ri, 0.25 * h * (Vi[i] + Vf[i]), Xm, Rm, i)
        Vm = 0.5 * (Vi + Vf)
        material_loads(sys, Xm, Rm, Vm, t + 0.5 * h, Xi, Ri, q, v, force, torque, loads)
        correction = 0.0
        size = 0.0
        for i in range(nb):
            mass, inertia = body_data(sys, i)
            Rs, us = motion_increment(kind, 0.5 * h * (Vi[i] + Vf[i]))
            transported_momentum(mass, inertia, Rs, us, Vf[i], z)
            r[0:3] = z[0:3] - mass * Vi[i, 0:3] - h * loads[i, 0:3]
            r[3:6] = z[3:6] - mat3_vec(inertia, Vi[i, 3:6]) - h * loads[i, 3:6]
            J[:, :] = 0.0
            momentum_jacobian(mass, inertia, Rs, us, z, 0.5 * h, J, 0, 0, True)
            if not _solve(J, r, delta):
                return SINGULAR_MATRIX, it
            Vf[i] -= delta
            correction += np.sum(delta * delta)
            size += np.sum(Vf[i] * Vf[i])
        stats[ST_NEWTON] += 1
        if not all_finite(Vf.ravel()):
            return DIVERGED, it
        if np.sqrt(correction) <= rtol * (1.0 + np.sqrt(size)):
            for i in range(nb):
                _move(kind, Xi, Ri, 0.5 * h * (Vi[i] + Vf[i]), Xf, Rf, i)
            return OK, it
    return NEWTON_FAILED, max_it


@njit(cache=True)
def energy_decaying_step(sys, kind, rtol, max_it, Xi, Ri, Vi, t, h, Xf, Rf, Vf, Vj, w, stats):
    """One step of paper 003 eq. (23); unknowns V_f and V_j (velocity across the jump at t_i)."""
    nb = Xi.shape[0]
    Xm, Rm, loads, q, v, force, torque = w
    loads_i = np.zeros((nb, 6))
    material_loads(sys, Xi, Ri, Vi, t, Xi, Ri, q, v, force, torque, loads_i)
    J = np.zeros((12, 12))
    r = np.zeros(12)
    delta = np.zeros(12)
    zf = np.zeros(6)
    zj = np.zeros(6)
    for it in range(1, max_it + 1):
        for i in range(nb):
            _move(kind, Xi, Ri, 0.5 * h * (Vf[i] + Vj[i]), Xf, Rf, i)
        material_loads(sys, Xf, Rf, Vf, t + h, Xi, Ri, q, v, force, torque, loads)
        correction = 0.0
        size = 0.0
        for i in range(nb):
            mass, inertia = body_data(sys, i)
            Rf_s, uf_s = motion_increment(kind, 0.5 * h * (Vf[i] + Vj[i]))
            Rj_s, uj_s = motion_increment(kind, -h / 6.0 * (Vf[i] - Vj[i]))
            transported_momentum(mass, inertia, Rf_s, uf_s, Vf[i], zf)
            transported_momentum(mass, inertia, Rj_s, uj_s, Vj[i], zj)
            Mi = np.empty(6)
            Mi[0:3] = mass * Vi[i, 0:3]
            Mi[3:6] = mat3_vec(inertia, Vi[i, 3:6])
            r[0:6] = zf - Mi - 0.5 * h * (loads[i] + loads_i[i])
            r[6:12] = zj - Mi + h / 6.0 * (loads[i] - loads_i[i])
            J[:, :] = 0.0
            momentum_jacobian(mass, inertia, Rf_s, uf_s, zf, 0.5 * h, J, 0, 0, True)
            momentum_jacobian(mass, inertia, Rf_s, uf_s, zf, 0.5 * h, J, 0, 6, False)
            momentum_jacobian(mass, inertia, Rj_s, uj_s, zj, -h / 6.0, J, 6, 0, False)
            momentum_jacobian(mass, inertia, Rj_s, uj_s, zj, h / 6.0, J, 6, 6, True)
            if not _solve(J, r, delta):
                return SINGULAR_MATRIX, it
            Vf[i] -= delta[0:6]
            Vj[i] -= delta[6:12]
            correction += np.sum(delta * delta)
            size += np.sum(Vf[i] * Vf[i])
        stats[ST_NEWTON] += 1
        if not (all_finite(Vf.ravel()) and all_finite(Vj.ravel())):
            return DIVERGED, it
        if np.sqrt(correction) <= rtol * (1.0 + np.sqrt(size)):
            for i in range(nb):
                _move(kind, Xi, Ri, 0.5 * h * (Vf[i] + Vj[i]), Xf, Rf, i)
            return OK, it
    return NEWTON_FAILED, max_it


@njit(cache=True)
def generalized_alpha_step(sys, kind, rtol, max_it, coefficients, Xi, Ri, Vi, Vdi, ai, t, h,
                           Xf, Rf, Vf, Vdf, af, w, stats):
    """One step of paper 003 eqs. (24)-(26) (material form); unknown V'_f, predictor in Vdf on entry."""
    alpha_m, alpha_f, beta, gamma = coefficients
    nb = Xi.shape[0]
    Xm, Rm, loads, q, v, force, torque = w
    factor = (1.0 - alpha_f) / (1.0 - alpha_m)
    J = np.zeros((6, 6))
    r = np.zeros(6)
    delta = np.zeros(6)
    for it in range(1, max_it + 1):
        for i in range(nb):
            af[i] = (factor * Vdf[i] + (alpha_f * Vdi[i] - alpha_m * ai[i]) / (1.0 - alpha_m))
            Vf[i] = Vi[i] + h * ((1.0 - gamma) * ai[i] + gamma * af[i])
            dU = h * Vi[i] + h * h * ((0.5 - beta) * ai[i] + beta * af[i])
            _move(kind, Xi, Ri, dU, Xf, Rf, i)
        material_loads(sys, Xf, Rf, Vf, t + h, Xf, Rf, q, v, force, torque, loads)
        correction = 0.0
        size = 0.0
        for i in range(nb):
            mass, inertia = body_data(sys, i)
            g = _gyroscopic(mass, inertia, Vf[i])
            r[0:3] = mass * Vdf[i, 0:3] + g[0:3] - loads[i, 0:3]
            r[3:6] = mat3_vec(inertia, Vdf[i, 3:6]) + g[3:6] - loads[i, 3:6]
            gp = h * gamma * factor
            wt = hat(Vf[i, 3:6])
            vt = hat(Vf[i, 0:3])
            Jw = hat(mat3_vec(inertia, Vf[i, 3:6]))
            J[:, :] = 0.0
            J[0:3, 0:3] = mass * (np.eye(3) + gp * wt)
            J[0:3, 3:6] = -gp * mass * vt
            J[3:6, 3:6] = inertia + gp * (wt @ inertia - Jw)
            if not _solve(J, r, delta):
                return SINGULAR_MATRIX, it
            Vdf[i] -= delta
            correction += gp * gp * np.sum(delta * delta)
            size += np.sum(Vf[i] * Vf[i])
        stats[ST_NEWTON] += 1
        if not all_finite(Vdf.ravel()):
            return DIVERGED, it
        if np.sqrt(correction) <= rtol * (1.0 + np.sqrt(size)):
            for i in range(nb):
                af[i] = (factor * Vdf[i] + (alpha_f * Vdi[i] - alpha_m * ai[i]) / (1.0 - alpha_m))
                Vf[i] = Vi[i] + h * ((1.0 - gamma) * ai[i] + gamma * af[i])
                dU = h * Vi[i] + h * h * ((0.5 - beta) * ai[i] + beta * af[i])
                _move(kind, Xi, Ri, dU, Xf, Rf, i)
            return OK, it
    return NEWTON_FAILED, max_it


class IntrinsicProblem(NamedTuple):
    """What a step of an intrinsic scheme reads: system, scheme and parameterisation codes, Newton
    settings, generalized-alpha coefficients, workspace and statistics."""

    sys: SystemArrays
    scheme: int
    kind: int
    rtol: float
    max_iterations: int
    coefficients: tuple    # (alpha_m, alpha_f, beta, gamma) of the intrinsic generalized-alpha scheme
    w: tuple               # (Xm, Rm, loads, q, v, force, torque) work arrays
    stats: np.ndarray


@njit(inline="always")
def intrinsic_fixed_step(problem, state, t, h, h_nominal):
    """One step of the scheme on the motion state (X, R, V, V', a) at t, then the coordinates (q, v)."""
    Xi, Ri, Vi, Vdi, ai, Xf, Rf, Vf, Vj, Vdf, af, q, v = state
    sys, kind, rtol, max_it, w, stats = problem.sys, problem.kind, problem.rtol, problem.max_iterations, problem.w, \
        problem.stats
    Vf[:, :] = Vi
    if problem.scheme == ENERGY_MOMENTUM:
        status, it = energy_momentum_step(sys, kind, rtol, max_it, Xi, Ri, Vi, t, h, Xf, Rf, Vf, w, stats)
    elif problem.scheme == ENERGY_DECAYING:
        Vj[:, :] = Vi
        status, it = energy_decaying_step(sys, kind, rtol, max_it, Xi, Ri, Vi, t, h, Xf, Rf, Vf, Vj, w, stats)
    else:
        Vdf[:, :] = Vdi
        status, it = generalized_alpha_step(sys, kind, rtol, max_it, problem.coefficients, Xi, Ri, Vi, Vdi, ai, t, h,
                                            Xf, Rf, Vf, Vdf, af, w, stats)
    stats[ST_MAX_ITERATIONS] = max(stats[ST_MAX_ITERATIONS], it)
    if status != OK:
        return status
    if not (all_finite(Xf.ravel()) and all_finite(Rf.ravel())):
        return DIVERGED
    Xi[:, :] = Xf
    Ri[:, :, :] = Rf
    Vi[:, :] = Vf
    Vdi[:, :] = Vdf
    ai[:, :] = af
    stats[ST_STEPS] += 1
    to_coordinates(sys, Xi, Ri, Vi, q, v)
    return OK


@njit(cache=True)
def integrate_intrinsic(sys, parameters, q, v, t0, t_end, h, sample_times, q_samples, v_samples, stats):
    """Fixed-step intrinsic integration from t0 to t_end (``run_fixed_steps``), (q, v) in place; returns
    (status, steps, t)."""
    scheme = int(parameters[P_SCHEME])
    coefficients = (parameters[P_ALPHA_M], parameters[P_ALPHA_F], parameters[P_BETA], parameters[P_GAMMA])
    nb = sys.body_int.shape[0]
    Xi, Xf, Xm = np.zeros((nb, 3)), np.zeros((nb, 3)), np.zeros((nb, 3))
    Ri, Rf, Rm = np.zeros((nb, 3, 3)), np.zeros((nb, 3, 3)), np.zeros((nb, 3, 3))
    Vi, Vf, Vj = np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6))
    Vdi, Vdf, ai, af = np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6))
    w = (Xm, Rm, np.zeros((nb, 6)), np.zeros(q.shape[0]), np.zeros(v.shape[0]), np.zeros((nb, 3)),
         np.zeros((nb, 3)))
    to_motion(sys, q, v, Xi, Ri, Vi)
    if scheme == GENERALIZED_ALPHA:
        initial_accelerations(sys, Xi, Ri, Vi, t0, w[3], w[4], w[5], w[6], w[2], Vdi)
        ai[:, :] = Vdi
    problem = IntrinsicProblem(sys, scheme, int(parameters[P_KIND]), parameters[P_RTOL],
                               int(parameters[P_MAX_ITERATIONS]), coefficients, w, stats)
    state = (Xi, Ri, Vi, Vdi, ai, Xf, Rf, Vf, Vj, Vdf, af, q, v)
    no_lam = np.zeros(0)
    samples = (sample_times, q_samples, v_samples, np.zeros((sample_times.shape[0], 0)))
    return run_fixed_steps(intrinsic_fixed_step, problem, state, (q, v, no_lam), samples, t0, t_end, h)


SCHEMES = {"energy-momentum": ENERGY_MOMENTUM, "energy-decaying": ENERGY_DECAYING,
           "generalized-alpha": GENERALIZED_ALPHA}


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
        try:
            merged["newton_rtol"] = float(merged["newton_rtol"])
        except (TypeError, ValueError):
            raise InputError(f"must be a number, got {merged['newton_rtol']!r}", field="options.newton_rtol") from None
        if not merged["newton_rtol"] > 0.0:
            raise InputError("must be positive", field="options.newton_rtol")
        if not isinstance(merged["max_iterations"], (int, np.integer)) or merged["max_iterations"] < 1:
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

    def parameters(self, options: dict[str, Any]) -> np.ndarray:
        p = np.zeros(N_PARAMETERS)
        p[P_SCHEME] = self.scheme
        p[P_KIND] = PARAMETERISATIONS[options["parameterisation"]]
        p[P_RTOL] = options["newton_rtol"]
        p[P_MAX_ITERATIONS] = options["max_iterations"]
        if self.scheme == GENERALIZED_ALPHA:
            method = generalized_alpha(options["rho_inf"])
            p[P_ALPHA_M], p[P_ALPHA_F], p[P_BETA], p[P_GAMMA] = method.as_array()
        return p

    def integrate(self, system, q0, v0, options, h, t_end, sample_times) -> Integration:
        """Warm-up step (compilation), then the timed fixed-step run."""
        check_free_rv_bodies(system)
        parameters = self.parameters(options)
        ns = sample_times.shape[0]
        q_samples = np.zeros((ns, q0.shape[0]))
        v_samples = np.zeros((ns, v0.shape[0]))
        def run(inputs, t_stop, warm_up):
            times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
            q, v, stats = inputs
            return integrate_intrinsic(system, parameters, q, v, 0.0, t_stop, h, times, qs, vs, stats)

        (q, v, stats), (code, steps, t_reached), cpu = timed_run(
            lambda: (q0.copy(), v0.copy(), np.zeros(N_STATISTICS)), run, h, t_end)
        statistics = {
            "newton_iterations": int(stats[ST_NEWTON]),
            "newton_per_step": stats[ST_NEWTON] / steps if steps else float("nan"),
            "jacobians": int(stats[ST_NEWTON]),
            "factorizations": int(stats[ST_NEWTON]),
            "max_newton_in_step": int(stats[ST_MAX_ITERATIONS]),
            "failed_steps": 0 if code == OK else 1,
            "newton_rtol": options["newton_rtol"],
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
    )
}
