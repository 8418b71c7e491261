"""The one step-size-controlled loop of every family with an embedded error estimate (paper 000 App. B).

A family describes what its step reads as a ``NamedTuple`` (the *problem*), keeps its state in a tuple
of arrays, and writes two inlined functions:

    @njit(inline="always")
    def my_trial(problem, state, t, h):    # -> (Status, err): a candidate step into the problem's scratch
        ...                               #    and its scaled error norm (eq. B18); err = inf if not finite
    @njit(inline="always")
    def my_accept(problem, state, t, h):   # -> Status: the candidate becomes the state
        ...

``run_adaptive_steps`` is inlined into the family's cached entry point (as ``fixed_step.run_fixed_steps``,
for the same reason). Per trial step of size h: h_opt = h err^(-1/(p+1)) with p the embedded order (B19)
and h_new = min(h_max, f_maxInc h, max(h_min, f_sfty h_opt)) (B20); a step with err <= 1 is accepted,
otherwise tried again with h_new. Steps are clipped so that sample times and t_end are hit exactly. A
step that fails at h_min is accepted (and counted as forced). An error that is not a number (a trial
whose solution or embedded solution overflowed) counts as err = inf, so B20 retries at h_min: taken as
it comes, err > 0 and err <= 1 are both false for NaN, and the same too-large step was rejected again
and again (the Puma 560 with RV nodes at h_max = 0.1, ``tests/test_adaptive_steps.py``). A trial that
fails (a singular stage matrix, a non-finite stage, a projection that does not converge) is rejected the
same way, as err = inf; at h_min its status ends the run (before, the first failed trial ended it: the
Puma 560 with EP nodes at h_max = 0.1).
"""
import math
from typing import NamedTuple

from numba import njit
import numpy as np

from lgbench.integrators.stepping import SAMPLE_TOLERANCE, record_due_samples
from lgbench.mbs.borrowed import borrowed, keep_alive
from lgbench.mbs.codes import INTERRUPTED, OK, STEP_BUDGET_EXHAUSTED


class StepControl(NamedTuple):
    """The controller's constants (paper 000 eqs. B19-B21)."""

    h_max: float             # the study's h (eq. B21: h_max = t_end / n_steps)
    h_min: float
    max_increase: float      # f_maxInc
    safety: float            # f_sfty
    max_steps: int           # accepted + rejected steps before the run ends with STEP_BUDGET_EXHAUSTED
    exponent: float          # 1 / (p + 1), p the embedded order


# step-control statistics vector layout
ST_ACCEPTED, ST_REJECTED, ST_FORCED, ST_H_MIN, ST_H_MAX = range(5)
N_STEP_CONTROL_STATISTICS = 5


def step_control(options, h: float, embedded_order: int) -> StepControl:
    """The controller of validated adaptive options (``ADAPTIVE_DEFAULTS``) with h_max = h."""
    return StepControl(h, float(options["h_min"]), float(options["max_increase"]), float(options["safety"]),
                       int(options["max_steps"]), 1.0 / (embedded_order + 1.0))


def step_control_statistics(stats, steps: int) -> dict:
    """runs.csv columns of a step-controlled run."""
    return {"rejected_steps": int(stats[ST_REJECTED]), "forced_steps": int(stats[ST_FORCED]),
            "min_step": float(stats[ST_H_MIN]) if steps else float("nan"),
            "max_step": float(stats[ST_H_MAX]) if steps else float("nan")}


@njit(inline="always")
def next_step_size(control, step: float, err: float, h_max: float) -> float:
    """The step after a trial step ``step`` with scaled error ``err`` (paper 000 eqs. B19-B21):
    h_opt = step (1/err)^(1/(p+1)), then f_sfty h_opt, at least h_min, at most f_maxInc step and h_max."""
    h_opt = step * (1.0 / err) ** control.exponent if err > 0.0 else control.max_increase * step
    return min(min(h_max, step * control.max_increase), max(control.h_min, control.safety * h_opt))


@njit(inline="always")
def run_adaptive_steps(trial, accept, problem, state, observed, samples, control, stats, t0, t_end, stop):
    """Step-controlled steps of ``trial`` / ``accept`` from t0 to t_end, in place.

    observed = (q, v, lambda) arrays that ``accept`` keeps current; samples = (sample_times, q_samples,
    v_samples, lam_samples): the observed values at each sample time (steps end exactly on them); stats:
    the step-control statistics (ST_*); stop as in ``run_fixed_steps``. Returns (status, accepted steps,
    t_reached)."""
    owners = (problem, state, observed, samples, stats)
    problem, state, observed, samples, stats = borrowed(owners)
    q, v, lam = observed
    sample_times, q_samples, v_samples, lam_samples = samples
    h_max = control.h_max
    stats[ST_H_MIN] = np.inf
    # steps end exactly on sample times: only round-off (1e-12 h_max) separates a due sample from t
    due = 1e-12 * h_max / SAMPLE_TOLERANCE
    next_sample = record_due_samples(sample_times, 0, t0, due, q, v, lam, q_samples, v_samples, lam_samples)
    t = t0
    h = h_max
    accepted = 0
    status = OK
    while t_end - t > 1e-12 * h_max:
        if accepted + stats[ST_REJECTED] >= control.max_steps:
            status = STEP_BUDGET_EXHAUSTED
            break
        if stop[0]:
            status = INTERRUPTED
            break
        target = t_end
        if next_sample < sample_times.shape[0] and sample_times[next_sample] < t_end:
            target = sample_times[next_sample]
        step = min(h, target - t)
        hits_target = step == target - t
        status, err = trial(problem, state, t, step)
        if status != OK:
            if step <= control.h_min * (1.0 + 1e-12):
                break
            status, err = OK, np.inf
        if math.isnan(err):
            err = np.inf
        h_new = next_step_size(control, step, err, h_max)
        if err <= 1.0 or step <= control.h_min * (1.0 + 1e-12):
            status = accept(problem, state, t, step)
            if status != OK:
                break
            if err > 1.0:
                stats[ST_FORCED] += 1
            t = target if hits_target else t + step
            accepted += 1
            stats[ST_H_MIN] = min(stats[ST_H_MIN], step)
            stats[ST_H_MAX] = max(stats[ST_H_MAX], step)
            next_sample = record_due_samples(sample_times, next_sample, t, due, q, v, lam, q_samples, v_samples,
                                             lam_samples)
            if not hits_target or h_new < h:
                h = h_new
        else:
            stats[ST_REJECTED] += 1
            h = h_new
    stats[ST_ACCEPTED] = accepted
    keep_alive(owners)
    return status, accepted, t
