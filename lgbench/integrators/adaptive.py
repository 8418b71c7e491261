"""Automatic step-size control for the embedded explicit pairs (paper 000 App. B).

One compiled entry point serves every tableau with embedded weights ``E`` and every formulation (the
stages are those of ``explicit.rk_stages``, RK or RKMK per node). Per trial step: the solution and the
embedded one from the same stages, and the error of xi = [q; v] scaled by s_j = a_tol + r_tol
max(|xi_0j|, |xi_1j|) (B17) in the RMS norm err (B18). The controller (B19-B21) is the loop of
``adaptive_steps``, shared with RKMK with projection (``index1_rk``).
"""
import math
from typing import NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import allocating_entry_point, kernel
from lgbench.integrators.adaptive_steps import (
    N_STEP_CONTROL_STATISTICS, run_adaptive_steps, step_control, step_control_statistics,
)
from lgbench.integrators.explicit import combine_stages, rk_stages
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.integrators.right_hand_side import multibody
from lgbench.mbs.codes import DIVERGED, OK
from lgbench.mbs.dense import all_finite, copy_vector
from lgbench.mbs.dynamics import is_rigid_body_system, rhs_work
from lgbench.mbs.system import SystemArrays


RULE_FACTOR = 1e-2
"""The 1e-2 of paper 000 Sect. 4's tolerance rule (``tolerance_rule``)."""


def tolerance_rule(t_end: float, h: float, order: int) -> tuple[float, float]:
    """(r_tol, a_tol) = (1e-2 / (t_end/h)^p, 1e-2 r_tol): the tolerances of paper 000 Sect. 4."""
    r_tol = RULE_FACTOR / (t_end / h) ** order
    return r_tol, RULE_FACTOR * r_tol


def rule_step(t_end: float, r_tol: float, order: int) -> float:
    """The h at which ``tolerance_rule`` gives ``r_tol``: its inverse, t_end (r_tol / 1e-2)^(1/p)."""
    return t_end * (r_tol / RULE_FACTOR) ** (1.0 / order)


@kernel
def scaled_error(q0, v0, q1, v1, q_hat, v_hat, r_tol, a_tol):
    """err of eq. (B18) with the scaling of eq. (B17)."""
    total = 0.0
    for k in range(q0.shape[0]):
        scale = a_tol + r_tol * max(abs(q0[k]), abs(q1[k]))
        total += ((q1[k] - q_hat[k]) / scale) ** 2
    for k in range(v0.shape[0]):
        scale = a_tol + r_tol * max(abs(v0[k]), abs(v1[k]))
        total += ((v1[k] - v_hat[k]) / scale) ** 2
    return math.sqrt(total / (q0.shape[0] + v0.shape[0]))


class ExplicitAdaptiveProblem(NamedTuple):
    """What a trial step of an embedded pair reads: system, tableau with embedded weights E, the error
    tolerances and the scratch arrays (Ks, ks, dq, qs, vs, q1, v1, q_hat, v_hat, RhsWork)."""

    sys: SystemArrays
    rigid: bool          # ``is_rigid_body_system``: the fused rigid-body stage applies
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    E: np.ndarray
    r_tol: float
    a_tol: float
    scratch: tuple


@njit(inline="always")
def explicit_trial(problem, state, t, h):
    """Stages, the solution (q1, v1) and the embedded one from the same stages, and err (B17-B18)."""
    q, v = state
    Ks, ks, dq, qs, vs, q1, v1, q_hat, v_hat, work = problem.scratch
    sys, rigid = problem.sys, problem.rigid
    status = rk_stages(multibody, sys, rigid, problem.A, problem.C, q, v, t, h, Ks, ks, dq, qs, vs, work)
    if status != OK:
        return status, np.inf
    combine_stages(multibody, sys, rigid, problem.B, q, v, h, Ks, ks, dq, q1, v1, work)
    combine_stages(multibody, sys, rigid, problem.E, q, v, h, Ks, ks, dq, q_hat, v_hat, work)
    if not (all_finite(q1) and all_finite(v1)):
        return OK, np.inf
    return OK, scaled_error(q, v, q1, v1, q_hat, v_hat, problem.r_tol, problem.a_tol)


@njit(inline="always")
def explicit_accept(problem, state, t, h):
    """(q, v) = (q1, v1) of the trial; DIVERGED if not finite (a step forced at h_min)."""
    q, v = state
    _, _, _, _, _, q1, v1, _, _, _ = problem.scratch
    if not (all_finite(q1) and all_finite(v1)):
        return DIVERGED
    copy_vector(q, q1)
    copy_vector(v, v1)
    return OK


@allocating_entry_point
def integrate_explicit_adaptive(sys, A, B, C, E, control, r_tol, a_tol, q, v, t0, t_end, sample_times, q_samples,
                                v_samples, stats, stop):
    """Adaptive integration (``run_adaptive_steps``) from t0 to t_end in place; returns (status, accepted
    steps, t_reached)."""
    s = B.shape[0]
    nq = q.shape[0]
    nv = v.shape[0]
    scratch = (np.zeros((s, nq)), np.zeros((s, nv)), np.zeros(nq), np.zeros(nq), np.zeros(nv), np.zeros(nq),
               np.zeros(nv), np.zeros(nq), np.zeros(nv), rhs_work(sys))
    problem = ExplicitAdaptiveProblem(sys, is_rigid_body_system(sys), A, B, C, E, r_tol, a_tol, scratch)
    samples = (sample_times, q_samples, v_samples, np.zeros((sample_times.shape[0], 0)))
    return run_adaptive_steps(explicit_trial, explicit_accept, problem, (q, v), (q, v, np.zeros(0)), samples, control,
                              stats, t0, t_end, stop)


ADAPTIVE_DEFAULTS = {
    "step_control": "fixed",      # "fixed" or "adaptive" (paper 000 App. B)
    "rtol": "rule",               # "rule": 1e-2 / (t_end/h)^p (paper 000 Sect. 4), or a number
    "atol": "rule",               # "rule": 1e-2 rtol, or a number
    "max_increase": 2.0,          # f_maxInc of eq. (B20)
    "safety": 0.9,                # f_sfty of eq. (B20)
    "h_min": 1e-12,               # h_min of eq. (B20)
    "max_steps": 50_000_000,      # accepted + rejected steps before the run counts as diverged
}


def adaptive_tolerances(options, order: int, h: float, t_end: float) -> tuple[float, float]:
    """(r_tol, a_tol) of validated adaptive options: the rule of paper 000 Sect. 4 unless given."""
    r_tol, a_tol = tolerance_rule(t_end, h, order)
    if options["rtol"] != "rule":
        r_tol = float(options["rtol"])
        a_tol = 1e-2 * r_tol
    if options["atol"] != "rule":
        a_tol = float(options["atol"])
    return r_tol, a_tol


def run_adaptive(system, tableau, q0, v0, options, h, t_end, sample_times) -> Integration:
    """Warm-up, then the timed adaptive run with h_max = h (eq. B21: h_max = t_end / n_steps)."""
    r_tol, a_tol = adaptive_tolerances(options, tableau.order, h, t_end)
    control = step_control(options, h, tableau.embedded_order)
    ns = sample_times.shape[0]
    q_samples, v_samples = sample_arrays(ns, q0.shape[0], v0.shape[0])

    def run(inputs, t_stop, warm_up, stop):
        q, v, stats = inputs
        times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
        return integrate_explicit_adaptive(system, tableau.A, tableau.B, tableau.C, tableau.E, control, r_tol, a_tol,
                                           q, v, 0.0, t_stop, times, qs, vs, stats, stop)

    (q, v, stats), (code, steps, t_reached), cpu = timed_run(
        lambda: (q0.copy(), v0.copy(), np.zeros(N_STEP_CONTROL_STATISTICS)), run, t_end)
    statistics = {**step_control_statistics(stats, steps), "rtol": r_tol, "atol": a_tol}
    return Integration(int(code), int(steps), float(t_reached), cpu, q, v, np.zeros(0), q_samples, v_samples,
                       np.zeros((ns, 0)), statistics)
