"""Automatic step-size control for the embedded explicit pairs (paper 000 App. B).

One compiled loop serves every tableau with embedded weights ``E`` and every formulation (the
stages are those of ``explicit.rk_stages``, RK or RKMK per node). Per step: the solution and the
embedded one from the same stages, the error of xi = [q; v] scaled by s_j = a_tol + r_tol
max(|xi_0j|, |xi_1j|) (B17), the RMS norm err (B18), h_opt = h err^(-1/(p+1)) (B19) with p the
embedded order, and h_new = min(h_max, f_maxInc h, max(h_min, f_sfty h_opt)) (B20); a step with
err <= 1 is accepted, otherwise repeated with h_new. Steps are clipped so that sample times and
t_end are hit exactly. A step that fails at h_min is accepted (and counted).
"""
import math

from numba import njit
import numpy as np

from lgbench.integrators.explicit import combine_stages, rk_stages
from lgbench.integrators.interface import Integration, sampling, timed_run
from lgbench.integrators.stepping import SAMPLE_TOLERANCE, record_due_samples
from lgbench.mbs.borrowed import borrowed
from lgbench.mbs.codes import DIVERGED, INTERRUPTED, OK, STEP_BUDGET_EXHAUSTED
from lgbench.mbs.dense import all_finite
from lgbench.mbs.dynamics import is_rigid_body_system, rhs_work

# statistics vector layout
ST_ACCEPTED, ST_REJECTED, ST_FORCED, ST_H_MIN, ST_H_MAX = range(5)
N_ADAPTIVE_STATISTICS = 5


def tolerance_rule(t_end: float, h: float, order: int) -> tuple[float, float]:
    """(r_tol, a_tol) = (1e-2 / (t_end/h)^p, 1e-2 r_tol): the tolerances of paper 000 Sect. 4."""
    r_tol = 1e-2 / (t_end / h) ** order
    return r_tol, 1e-2 * r_tol


@njit(cache=True)
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


@njit(cache=True, nogil=True)
def integrate_explicit_adaptive(sys, A, B, C, E, embedded_order, q, v, t0, t_end, h_max, h_min, r_tol, a_tol,
                                max_increase, safety, max_steps, sample_times, q_samples, v_samples, stats, stop):
    """Adaptive integration from t0 to t_end in place; returns (status, accepted steps, t_reached)."""
    s = B.shape[0]
    nq = q.shape[0]
    nv = v.shape[0]
    scratch = (np.zeros((s, nq)), np.zeros((s, nv)), np.zeros(nq), np.zeros(nq), np.zeros(nv), np.zeros(nq),
               np.zeros(nv), np.zeros(nq), np.zeros(nv), rhs_work(sys))
    samples = (sample_times, q_samples, v_samples, np.zeros(0), np.zeros((sample_times.shape[0], 0)))
    return adaptive_loop(sys, A, B, C, E, embedded_order, q, v, t0, t_end, h_max, h_min, r_tol, a_tol,
                         max_increase, safety, max_steps, samples, stats, scratch, stop)


@njit(cache=True)
def adaptive_loop(sys, A, B, C, E, embedded_order, q, v, t0, t_end, h_max, h_min, r_tol, a_tol,
                  max_increase, safety, max_steps, samples, stats, scratch, stop):
    """The step loop of ``integrate_explicit_adaptive``, on ``borrowed`` arrays; ends with INTERRUPTED when
    stop[0] is set (as ``fixed_step.run_fixed_steps``)."""
    sys, A, B, C, E, q, v, samples, stats, scratch = borrowed((sys, A, B, C, E, q, v, samples, stats, scratch))
    sample_times, q_samples, v_samples, no_lam, no_lam_samples = samples
    Ks, ks, dq, qs, vs, q1, v1, q_hat, v_hat, work = scratch
    rigid = is_rigid_body_system(sys)
    exponent = 1.0 / (embedded_order + 1.0)
    stats[ST_H_MIN] = np.inf
    # steps end exactly on sample times: only round-off (1e-12 h_max) separates a due sample from t
    due = 1e-12 * h_max / SAMPLE_TOLERANCE
    next_sample = record_due_samples(sample_times, 0, t0, due, q, v, no_lam, q_samples, v_samples, no_lam_samples)
    t = t0
    h = h_max
    accepted = 0
    while t_end - t > 1e-12 * h_max:
        if accepted + stats[ST_REJECTED] >= max_steps:
            return STEP_BUDGET_EXHAUSTED, accepted, t
        if stop[0]:
            return INTERRUPTED, accepted, t
        target = t_end
        if next_sample < sample_times.shape[0] and sample_times[next_sample] < t_end:
            target = sample_times[next_sample]
        step = min(h, target - t)
        hits_target = step == target - t
        status = rk_stages(sys, rigid, A, C, q, v, t, step, Ks, ks, dq, qs, vs, work)
        if status != OK:
            return status, accepted, t
        combine_stages(sys, rigid, B, q, v, step, Ks, ks, dq, q1, v1, work)
        combine_stages(sys, rigid, E, q, v, step, Ks, ks, dq, q_hat, v_hat, work)
        if not (all_finite(q1) and all_finite(v1)):
            err = np.inf
        else:
            err = scaled_error(q, v, q1, v1, q_hat, v_hat, r_tol, a_tol)
        h_opt = step * (1.0 / err) ** exponent if err > 0.0 else max_increase * step
        h_new = min(min(h_max, step * max_increase), max(h_min, safety * h_opt))
        if err <= 1.0 or step <= h_min * (1.0 + 1e-12):
            if not (all_finite(q1) and all_finite(v1)):
                return DIVERGED, accepted, t
            if err > 1.0:
                stats[ST_FORCED] += 1
            q[:] = q1
            v[:] = v1
            t = target if hits_target else t + step
            accepted += 1
            stats[ST_H_MIN] = min(stats[ST_H_MIN], step)
            stats[ST_H_MAX] = max(stats[ST_H_MAX], step)
            next_sample = record_due_samples(sample_times, next_sample, t, due, q, v, no_lam, q_samples, v_samples,
                                             no_lam_samples)
            if not hits_target or h_new < h:
                h = h_new
        else:
            stats[ST_REJECTED] += 1
            h = h_new
    stats[ST_ACCEPTED] = accepted
    return OK, accepted, t


ADAPTIVE_DEFAULTS = {
    "step_control": "fixed",      # "fixed" or "adaptive" (paper 000 App. B)
    "rtol": "rule",               # "rule": 1e-2 / (t_end/h)^p (paper 000 Sect. 4), or a number
    "atol": "rule",               # "rule": 1e-2 rtol, or a number
    "max_increase": 2.0,          # f_maxInc of eq. (B20)
    "safety": 0.9,                # f_sfty of eq. (B20)
    "h_min": 1e-12,               # h_min of eq. (B20)
    "max_steps": 50_000_000,      # accepted + rejected steps before the run counts as diverged
}


def run_adaptive(system, tableau, q0, v0, options, h, t_end, sample_times) -> Integration:
    """Warm-up, then the timed adaptive run with h_max = h (eq. B21: h_max = t_end / n_steps)."""
    r_tol, a_tol = tolerance_rule(t_end, h, tableau.order)
    if options["rtol"] != "rule":
        r_tol = float(options["rtol"])
        a_tol = 1e-2 * r_tol
    if options["atol"] != "rule":
        a_tol = float(options["atol"])
    ns = sample_times.shape[0]
    q_samples = np.zeros((ns, q0.shape[0]))
    v_samples = np.zeros((ns, v0.shape[0]))
    arguments = (h, float(options["h_min"]), r_tol, a_tol, float(options["max_increase"]),
                 float(options["safety"]), int(options["max_steps"]))

    def run(inputs, t_stop, warm_up, stop):
        q, v, stats = inputs
        times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
        return integrate_explicit_adaptive(system, tableau.A, tableau.B, tableau.C, tableau.E, tableau.embedded_order,
                                           q, v, 0.0, t_stop, *arguments, times, qs, vs, stats, stop)

    (q, v, stats), (code, steps, t_reached), cpu = timed_run(
        lambda: (q0.copy(), v0.copy(), np.zeros(N_ADAPTIVE_STATISTICS)), run, h, t_end)
    statistics = {"rejected_steps": int(stats[ST_REJECTED]), "forced_steps": int(stats[ST_FORCED]),
                  "min_step": float(stats[ST_H_MIN]) if steps else float("nan"),
                  "max_step": float(stats[ST_H_MAX]) if steps else float("nan"),
                  "rtol": r_tol, "atol": a_tol}
    return Integration(int(code), int(steps), float(t_reached), cpu, q, v, np.zeros(0), q_samples, v_samples,
                       np.zeros((ns, 0)), statistics)
