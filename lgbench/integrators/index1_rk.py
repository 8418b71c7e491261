"""Explicit RK / RKMK for constrained systems: the index-1 DAE with projection (paper 001).

One compiled stepper for every Butcher tableau (tableaus are data, ``tableaus.py``). Per stage i
(paper 001, RKMK algorithm after eq. 11, on the state-space Lie group TG of eq. 7):

    u_i = h sum_j a_ij K_j,  V_i = v_n + h sum_j a_ij k_j,  Q_i = UAC(q_n, u_i)      (exp(u_i) q_0)
    k_i, lambda_i from [M B^T; B 0] [k_i; lambda_i] = [g; -B' V_i] at (Q_i, V_i)      (eq. 10)
    K_i = dexpinv(u_i, V_i, n) on the SO(3) part of RV nodes, T_SE3^{-1}(u_i) V_i on SE3 nodes, K_i = V_i
    otherwise,

with dexpinv the Bernoulli series truncated after ad^{n-1} for a tableau of order n (``lie.dexpinv``)
or, with ``dexpinv: closed``, its closed form T_exp^{-1} (paper 000 eq. A3); SE3 nodes always take the
closed form of paper 002 eq. (13). The step is
q_{n+1} = UAC(q_n, h sum_j b_j K_j), v_{n+1} = v_n + h sum_j b_j k_j. For classical nodes (Rxyz, EP)
UAC adds and the scheme is the plain RK method on the index-1 DAE; the EP unit-length condition is
one more constraint row. After the step, the positions are projected onto Phi = 0 and the
velocities onto B v = 0 (paper 001 eq. 12, ``mbs.index1``), unless ``projection: false`` (then
Phi and B v drift, which the statistics show).

The accelerations at the end of a step are those of stage 1 of the next (u_1 = 0, c_1 = 0), so a
step costs s saddle-point solves, like an unconstrained RK step costs s force evaluations.

A tableau with embedded weights E also runs with ``step_control: adaptive``: the controller of paper 000
App. B (``adaptive_steps``) on the error between the step's solution and the embedded one, both before
the projection; a rejected trial costs its stages, an accepted one the projection as well.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import entry_point, kernel
from lgbench.exceptions import InputError
from lgbench.integrators.adaptive import ADAPTIVE_DEFAULTS, adaptive_tolerances, scaled_error
from lgbench.integrators.adaptive_steps import (
    N_STEP_CONTROL_STATISTICS, run_adaptive_steps, step_control, step_control_statistics,
)
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.integrators.tableaus import TABLEAUS, ButcherTableau
from lgbench.lie.dexpinv import dexpinv_so3_series_apply
from lgbench.lie.so3 import tangent_operator_inverse_so3_apply
from lgbench.mbs.codes import DIVERGED, OK, PROJECTION_FAILED, RV, SE3, SINGULAR_MATRIX
from lgbench.mbs.coordinate_update import se3_rates, update_coordinates
from lgbench.mbs.dense import all_finite, copy_vector
from lgbench.mbs.index1 import (
    SaddlePointWorkspace, constraint_norm, index1_accelerations, make_saddle_point_workspace, project_positions,
    project_velocities, velocity_constraint_norm,
)
from lgbench.mbs.pose import _rot_start, _vec3
from lgbench.mbs.system import B_FORM, B_QSTART, B_VSTART, SystemArrays


class ProjectionOptions(NamedTuple):
    """Settings of the index-1 step as the compiled stepper reads them."""

    projection: bool          # project onto Phi = 0 and B v = 0 after each step (paper 001 Sect. 4)
    tolerance: float          # of the position projection's Newton iteration
    max_iterations: int
    series_order: int         # terms of the dexpinv series (paper 001 eq. 19); 0: the exact T_exp^{-1}

# statistics vector layout (float64)
(ST_STEPS, ST_PROJECTION_ITERATIONS, ST_MAX_PROJECTION_IN_STEP, ST_MAX_PHI, ST_MAX_BV, ST_MAX_PHI_STEP,
 ST_MAX_BV_STEP, ST_SOLVES) = range(8)
N_STATISTICS = 8


@kernel
def coordinate_slopes(sys, u, v, series_order, K):
    """K = dexpinv(u, v) on the rotation block of RV nodes (series of order ``series_order``, or the
    closed form T_exp^{-1}(u) v if it is 0), K = T_SE3^{-1}(u) v on SE3 nodes (closed form, paper 002
    eq. 13), K = v elsewhere (nq == nv)."""
    K[:] = v
    for i in range(sys.body_int.shape[0]):
        form = sys.body_int[i, B_FORM]
        if form == RV:
            qr, vr = _rot_start(sys, i)
            if series_order > 0:
                K[qr], K[qr + 1], K[qr + 2] = dexpinv_so3_series_apply(_vec3(u, qr), _vec3(v, vr), series_order)
            else:
                K[qr], K[qr + 1], K[qr + 2] = tangent_operator_inverse_so3_apply(_vec3(u, qr), _vec3(v, vr))
        elif form == SE3:
            se3_rates(u, v, K, sys.body_int[i, B_QSTART], sys.body_int[i, B_VSTART])


@kernel
def _increment(h, weights, n_terms, slopes, out):
    """out = h sum_{j < n_terms} weights[j] slopes[j]."""
    for k in range(out.shape[0]):
        acc = 0.0
        for j in range(n_terms):
            acc += weights[j] * slopes[j, k]
        out[k] = h * acc


@kernel
def _advance(h, weights, n_terms, base, slopes, out):
    """out = base + h sum_{j < n_terms} weights[j] slopes[j]."""
    _increment(h, weights, n_terms, slopes, out)
    for k in range(out.shape[0]):
        out[k] += base[k]


@njit(inline="always")
def index1_stages(sys, A, C, opts, q, v, a, t, h, Ks, ks, u, qs, vs, lam_stage, w, stats):
    """Stage slopes of one step from (q, v) with accelerations a at t: Ks[i] coordinate slopes, ks[i]
    accelerations (stage 1 is the step's start, u_1 = 0). Returns a status code."""
    copy_vector(Ks[0], v)
    copy_vector(ks[0], a)
    for i in range(1, C.shape[0]):
        _increment(h, A[i], i, Ks, u)
        _advance(h, A[i], i, v, ks, vs)
        update_coordinates(sys, q, u, qs)
        coordinate_slopes(sys, u, vs, opts.series_order, Ks[i])
        if not index1_accelerations(sys, qs, vs, t + C[i] * h, w, ks[i], lam_stage):
            return SINGULAR_MATRIX
        stats[ST_SOLVES] += 1
    return OK


@njit(inline="always")
def index1_combine(sys, weights, q, v, h, Ks, ks, u, q_out, v_out):
    """q_out = UAC(q, h sum_j w_j K_j), v_out = v + h sum_j w_j k_j (weights B, or embedded E)."""
    s = weights.shape[0]
    _increment(h, weights, s, Ks, u)
    _advance(h, weights, s, v, ks, v_out)
    update_coordinates(sys, q, u, q_out)


@njit(inline="always")
def index1_finish(sys, opts, qs, vs, t_new, a, lam, w, stats):
    """The end of a step at (qs, vs): the residuals before projection, the projection onto Phi = 0 and
    B v = 0, and the accelerations and multipliers there (into a, lam). Returns a status code."""
    if not (all_finite(qs) and all_finite(vs)):
        return DIVERGED
    stats[ST_MAX_PHI_STEP] = max(stats[ST_MAX_PHI_STEP], constraint_norm(sys, qs, w))
    stats[ST_MAX_BV_STEP] = max(stats[ST_MAX_BV_STEP], velocity_constraint_norm(sys, qs, vs, w))
    if opts.projection:
        iterations = project_positions(sys, qs, w, opts.tolerance, opts.max_iterations)
        if iterations < 0:
            return PROJECTION_FAILED
        stats[ST_PROJECTION_ITERATIONS] += iterations
        stats[ST_MAX_PROJECTION_IN_STEP] = max(stats[ST_MAX_PROJECTION_IN_STEP], iterations)
        if not project_velocities(sys, qs, vs, w):
            return SINGULAR_MATRIX
    if not index1_accelerations(sys, qs, vs, t_new, w, a, lam):
        return SINGULAR_MATRIX
    stats[ST_SOLVES] += 1
    if not (all_finite(qs) and all_finite(vs) and all_finite(a)):
        return DIVERGED
    return OK


@kernel
def index1_rk_step(sys, A, B, C, opts, q, v, a, lam, t, h, Ks, ks, u, qs, vs, lam_stage, w, stats):
    """One step t -> t + h (stages, update, projection); on entry a, lam belong to (q, v, t), on exit
    to the new state. Returns a status code."""
    status = index1_stages(sys, A, C, opts, q, v, a, t, h, Ks, ks, u, qs, vs, lam_stage, w, stats)
    if status != OK:
        return status
    index1_combine(sys, B, q, v, h, Ks, ks, u, qs, vs)
    status = index1_finish(sys, opts, qs, vs, t + h, a, lam, w, stats)
    if status != OK:
        return status
    q[:] = qs
    v[:] = vs
    return OK


@njit(inline="always")
def record_constraint_maxima(sys, q, v, w, stats):
    """The maxima of ||Phi|| and ||B v|| over the states a run has been in (after projection)."""
    stats[ST_MAX_PHI] = max(stats[ST_MAX_PHI], constraint_norm(sys, q, w))
    stats[ST_MAX_BV] = max(stats[ST_MAX_BV], velocity_constraint_norm(sys, q, v, w))


@njit(inline="always")
def record_step(sys, q, v, w, stats):
    """A step done: its count and the constraint maxima at its (projected) end state."""
    stats[ST_STEPS] += 1
    record_constraint_maxima(sys, q, v, w, stats)


class Index1Problem(NamedTuple):
    """What a step of RKMK with projection reads: system, tableau, settings, saddle-point workspace,
    statistics and the stage scratch arrays."""

    sys: SystemArrays
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    opts: ProjectionOptions
    w: SaddlePointWorkspace
    stats: np.ndarray
    scratch: tuple         # (Ks, ks, u, qs, vs, lambda of a stage) of ``index1_rk_step``


@njit(inline="always")
def index1_fixed_step(problem, state, t, h, h_nominal):
    """``index1_rk_step`` on the state (q, v, a, lambda); the maxima of ||Phi|| and ||B v|| over the
    projected states."""
    q, v, a, lam = state
    Ks, ks, u, qs, vs, lam_stage = problem.scratch
    sys, w, stats = problem.sys, problem.w, problem.stats
    status = index1_rk_step(sys, problem.A, problem.B, problem.C, problem.opts, q, v, a, lam, t, h, Ks, ks, u, qs,
                            vs, lam_stage, w, stats)
    if status == OK:
        record_step(sys, q, v, w, stats)
    return status


@njit(inline="always")
def _start(sys, q, v, t0, w, stats, a, lam):
    """Consistent accelerations and multipliers at t0 (paper 001 eq. 10) into a, lam; False if singular."""
    if not index1_accelerations(sys, q, v, t0, w, a, lam):
        return False
    stats[ST_SOLVES] += 1
    record_constraint_maxima(sys, q, v, w, stats)
    return True


def stage_scratch(stages: int, nq: int, nv: int, nc: int) -> tuple[np.ndarray, ...]:
    """The scratch of the index-1 entry points: stage slopes Ks (s, nq), accelerations ks (s, nv), the
    increment u, a stage state (qs, vs) and the multipliers of a stage."""
    return np.zeros((stages, nq)), np.zeros((stages, nv)), np.zeros(nq), np.zeros(nq), np.zeros(nv), np.zeros(nc)


@entry_point
def integrate_index1_rk(sys, A, B, C, opts, q, v, a, lam, t0, t_end, h, sample_times, q_samples, v_samples,
                        lam_samples, w, stats, scratch, stop):
    """Fixed-step run (``run_fixed_steps``) from consistent accelerations a and multipliers lam at t0 (set
    here; they follow the state) to t_end; scratch: ``stage_scratch``.

    Records (q, v, lambda) at the first step boundary at or after each sample time and the maxima of
    ||Phi|| and ||B v|| over all states (after projection) in ``stats``. Returns (status, steps, t).
    """
    if not _start(sys, q, v, t0, w, stats, a, lam):
        return SINGULAR_MATRIX, 0, t0
    problem = Index1Problem(sys, A, B, C, opts, w, stats, scratch)
    return run_fixed_steps(index1_fixed_step, problem, (q, v, a, lam), (q, v, lam),
                           (sample_times, q_samples, v_samples, lam_samples), t0, t_end, h, stop)


class Index1AdaptiveProblem(NamedTuple):
    """What a trial step of an embedded pair with projection reads: ``Index1Problem``'s fields, the
    embedded weights E, the error tolerances and the embedded solution's scratch (q_hat, v_hat)."""

    sys: SystemArrays
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    E: np.ndarray
    opts: ProjectionOptions
    r_tol: float
    a_tol: float
    w: SaddlePointWorkspace
    stats: np.ndarray
    scratch: tuple         # (Ks, ks, u, qs, vs, lambda of a stage) of ``index1_rk_step``
    embedded: tuple        # (q_hat, v_hat)


@njit(inline="always")
def index1_trial(problem, state, t, h):
    """Stages, the step's (qs, vs) and the embedded solution before projection, and their scaled error
    (paper 000 eqs. B17-B18): the controller sees the integration error, not the projection's."""
    q, v, a, lam = state
    Ks, ks, u, qs, vs, lam_stage = problem.scratch
    q_hat, v_hat = problem.embedded
    sys = problem.sys
    status = index1_stages(sys, problem.A, problem.C, problem.opts, q, v, a, t, h, Ks, ks, u, qs, vs, lam_stage,
                           problem.w, problem.stats)
    if status != OK:
        return status, np.inf
    index1_combine(sys, problem.B, q, v, h, Ks, ks, u, qs, vs)
    index1_combine(sys, problem.E, q, v, h, Ks, ks, u, q_hat, v_hat)
    if not (all_finite(qs) and all_finite(vs)):
        return OK, np.inf
    return OK, scaled_error(q, v, qs, vs, q_hat, v_hat, problem.r_tol, problem.a_tol)


@njit(inline="always")
def index1_accept(problem, state, t, h):
    """The trial's (qs, vs), projected, becomes the state, with its accelerations and multipliers."""
    q, v, a, lam = state
    _, _, _, qs, vs, _ = problem.scratch
    sys, w, stats = problem.sys, problem.w, problem.stats
    status = index1_finish(sys, problem.opts, qs, vs, t + h, a, lam, w, stats)
    if status != OK:
        return status
    copy_vector(q, qs)
    copy_vector(v, vs)
    record_step(sys, q, v, w, stats)
    return OK


@entry_point
def integrate_index1_adaptive(sys, A, B, C, E, opts, control, r_tol, a_tol, q, v, a, lam, t0, t_end, sample_times,
                              q_samples, v_samples, lam_samples, w, stats, control_stats, scratch, embedded, stop):
    """Step-controlled run (``adaptive_steps.run_adaptive_steps``) of an embedded pair with projection
    from consistent accelerations at t0 to t_end; a, lam, scratch and statistics as ``integrate_index1_rk``,
    the controller's in ``control_stats``; embedded: (q_hat, v_hat) of a trial step. Returns (status,
    accepted steps, t)."""
    if not _start(sys, q, v, t0, w, stats, a, lam):
        return SINGULAR_MATRIX, 0, t0
    problem = Index1AdaptiveProblem(sys, A, B, C, E, opts, r_tol, a_tol, w, stats, scratch, embedded)
    return run_adaptive_steps(index1_trial, index1_accept, problem, (q, v, a, lam), (q, v, lam),
                              (sample_times, q_samples, v_samples, lam_samples), control, control_stats,
                              t0, t_end, stop)


INDEX1_DEFAULTS: dict[str, Any] = {
    "projection": True,            # paper 001 eq. (12) after every step
    "projection_tolerance": 1e-13,  # on ||Phi||_2 after the position projection
    "max_projection_iterations": 10,
    "dexpinv": "series",           # "series" (paper 001, truncated at the tableau order) or "closed"
    "linear_algebra": "auto",      # saddle-point solves: "dense", "banded" (chains) or "auto"
}
INDEX1_FORMULATIONS = ("RV", "Rxyz", "EP", "SE3")


@dataclass(frozen=True)
class Index1RungeKutta:
    """A Butcher tableau applied to the index-1 DAE with projection (registry entry)."""

    tableau: ButcherTableau
    kind: str = "explicit"
    formulations: tuple[str, ...] = INDEX1_FORMULATIONS

    @property
    def name(self) -> str:
        return f"{self.tableau.name}-index1"

    @property
    def order(self) -> int:
        return self.tableau.order

    @property
    def description(self) -> str:
        adaptive = ", adaptive steps if it has E" if self.tableau.E is not None else ""
        return (f"{self.tableau.name} (RKMK for RV and SE3) on the index-1 DAE, projection onto Phi = 0 and "
                f"B v = 0 after each step (paper 001){adaptive}")

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The projection options and, for a tableau with E, ``step_control: adaptive`` with the
        controller's options (as the tableau's own entry, paper 000 App. B)."""
        merged = {**INDEX1_DEFAULTS, **ADAPTIVE_DEFAULTS}
        for key, value in options.items():
            if key not in merged:
                raise InputError(f"unknown option '{key}' of integrator '{self.name}'",
                                 field=f"options.{key}", allowed=sorted(merged))
            merged[key] = value
        if not isinstance(merged["projection"], (bool, np.bool_)):
            raise InputError(f"must be true or false, got {merged['projection']!r}", field="options.projection")
        if merged["linear_algebra"] not in ("auto", "dense", "banded"):
            raise InputError(f"invalid value {merged['linear_algebra']!r}", field="options.linear_algebra",
                             allowed=["auto", "dense", "banded"])
        if merged["dexpinv"] not in ("series", "closed"):
            raise InputError(f"invalid value {merged['dexpinv']!r}", field="options.dexpinv",
                             allowed=["series", "closed"])
        tolerance = merged["projection_tolerance"]
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance > 0:
            raise InputError(f"must be a positive number, got {tolerance!r}", field="options.projection_tolerance")
        merged["projection_tolerance"] = float(tolerance)
        iterations = merged["max_projection_iterations"]
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise InputError(f"must be a positive integer, got {iterations!r}",
                             field="options.max_projection_iterations")
        self.tableau.check_step_control(merged, options)
        return merged

    def projection_options(self, options: dict[str, Any]) -> ProjectionOptions:
        return ProjectionOptions(bool(options["projection"]), float(options["projection_tolerance"]),
                                 int(options["max_projection_iterations"]),
                                 self.tableau.order if options["dexpinv"] == "series" else 0)

    def integrate(self, system, q0, v0, options, h, t_end, sample_times) -> Integration:
        """Warm-up (compilation), then the timed run (including the initial accelerations)."""
        nq, nv, nc = (int(x) for x in system.sizes)
        if nq != nv:
            raise InputError(f"integrator '{self.name}' needs as many coordinates as velocities "
                             f"(nq = {nq}, nv = {nv})", field="formulation", allowed=list(self.formulations))
        merged = self.validate_options(options)
        opts = self.projection_options(merged)
        tab = self.tableau
        n_bodies = system.body_int.shape[0]
        ns = sample_times.shape[0]
        q_samples, v_samples, lam_samples = sample_arrays(ns, nq, nv, nc)

        def prepare():
            return (q0.copy(), v0.copy(), make_saddle_point_workspace(nq, nv, nc, n_bodies, system,
                                                                      merged["linear_algebra"]),
                    np.zeros(N_STATISTICS), np.zeros(N_STEP_CONTROL_STATISTICS), (np.zeros(nv), np.zeros(nc)),
                    stage_scratch(tab.B.shape[0], nq, nv, nc), (np.zeros(nq), np.zeros(nv)))

        adaptive = merged["step_control"] == "adaptive"
        if adaptive:
            r_tol, a_tol = adaptive_tolerances(merged, tab.order, h, t_end)
            control = step_control(merged, h, tab.embedded_order)

        def run(inputs, t_stop, warm_up, stop):
            q, v, workspace, stats, control_stats, (a, lam), scratch, embedded = inputs
            times, qs, vs, ls = sampling(warm_up, sample_times, q_samples, v_samples, lam_samples)
            if adaptive:
                return integrate_index1_adaptive(system, tab.A, tab.B, tab.C, tab.E, opts, control, r_tol, a_tol, q, v,
                                                 a, lam, 0.0, t_stop, times, qs, vs, ls, workspace, stats,
                                                 control_stats, scratch, embedded, stop)
            return integrate_index1_rk(system, tab.A, tab.B, tab.C, opts, q, v, a, lam, 0.0, t_stop, h, times, qs, vs,
                                       ls, workspace, stats, scratch, stop)

        (q, v, _, stats, control_stats, (_, lam), _, _), (code, steps, t_reached), cpu = timed_run(prepare, run,
                                                                                                   t_end)
        done = max(int(stats[ST_STEPS]), 1)
        statistics = {
            "max_constraint_residual": stats[ST_MAX_PHI],
            "max_velocity_constraint_residual": stats[ST_MAX_BV],
            "max_constraint_residual_before_projection": stats[ST_MAX_PHI_STEP],
            "max_velocity_constraint_residual_before_projection": stats[ST_MAX_BV_STEP],
            "projection_iterations": int(stats[ST_PROJECTION_ITERATIONS]),
            "projection_per_step": stats[ST_PROJECTION_ITERATIONS] / done,
            "max_projection_in_step": int(stats[ST_MAX_PROJECTION_IN_STEP]),
            "saddle_point_solves": int(stats[ST_SOLVES]),
            "projection_tolerance": merged["projection_tolerance"],
        }
        if adaptive:
            statistics.update(step_control_statistics(control_stats, steps), rtol=r_tol, atol=a_tol)
        return Integration(int(code), int(steps), float(t_reached), cpu, q, v, lam, q_samples, v_samples,
                           lam_samples, statistics)


def tableau_integrators(tableau: ButcherTableau) -> dict[str, Any]:
    """The registry entries a tableau gives: NAME (RK, RKMK on Lie group nodes, adaptive if it has E) and
    NAME-index1 (paper 001's index-1 formulation with projection)."""
    index1 = Index1RungeKutta(tableau)
    return {tableau.name: tableau, index1.name: index1}


INDEX1_INTEGRATORS = {entry.name: entry for entry in (Index1RungeKutta(t) for t in TABLEAUS.values())}
