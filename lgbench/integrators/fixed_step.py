"""The one fixed-step loop of every one-step integrator family.

A family (explicit RK/RKMK, generalized-alpha, HHT, RKMK with projection, the intrinsic schemes)
describes what its step reads as a ``NamedTuple`` of its own (the *problem*: system, method data,
workspace, statistics), keeps its state in a tuple of arrays, and writes its step as

    @njit(inline="always")
    def my_step(problem, state, t, h, h_nominal):   # -> Status; updates state in place
        ...

Its cached entry point then calls ``run_fixed_steps(my_step, problem, state, observed, samples, t0,
t_end, h, stop)``, which advances from t0 to t_end with steps h (the last one shortened to end at t_end;
``h_nominal`` lets a step notice it) and records the ``observed`` arrays (q, v, lambda; the step keeps
them current) at the sample times.

``run_fixed_steps`` is inlined into each entry point, so the step is a known function there: numba
compiles one loop per family with its step inlined, and caches it on disk. (A compiled, non-inlined
loop that received the step as an argument would lower it as a first-class function, which numba
cannot cache: "Cannot cache ... dynamic globals", numba issue 6972; an uncached loop would recompile
in every process.)

The loop works on ``borrowed`` views of its arguments (lgbench/mbs/borrowed.py: no reference counting
per kernel call). Inlined, its arguments may be the entry point's own locals (scratch arrays it
allocated), which numba would release after their last use: ``keep_alive`` holds them to the end.
``tests/test_fixed_step.py`` runs a family whose scratch arrays are locals of its entry point.
"""
from numba import njit

from lgbench.integrators.stepping import is_due, record_due_samples, step_end_time, step_plan
from lgbench.mbs.borrowed import borrowed, keep_alive
from lgbench.mbs.codes import INTERRUPTED, OK


@njit(inline="always")
def run_fixed_steps(step, problem, state, observed, samples, t0, t_end, h, stop):
    """Fixed steps h of ``step`` from t0 to t_end (the last one shortened if needed), in place.

    observed = (q, v, lambda) arrays the step keeps current; samples = (sample_times, q_samples,
    v_samples, lam_samples): the observed values at the first step boundary at or after each sample
    time; stop: a one-element boolean array, read before every step (``interface.timed_run`` sets it
    from the main thread on Ctrl-C or SIGTERM; the loop then ends with INTERRUPTED).
    Returns (status, steps, t_reached)."""
    owners = (problem, state, observed, samples)
    problem, state, observed, samples = borrowed(owners)
    q, v, lam = observed
    sample_times, q_samples, v_samples, lam_samples = samples
    total, last = step_plan(t0, t_end, h)
    n_samples = sample_times.shape[0]
    next_sample = record_due_samples(sample_times, 0, t0, h, q, v, lam, q_samples, v_samples, lam_samples)
    steps = 0
    t = t0
    for n in range(total):
        if stop[0]:
            keep_alive(owners)
            return INTERRUPTED, steps, t
        hn = h if n < total - 1 else last
        status = step(problem, state, t, hn, h)
        if status != OK:
            keep_alive(owners)
            return status, steps, t
        steps += 1
        t = step_end_time(t0, t_end, h, n, total)
        if next_sample < n_samples and is_due(sample_times[next_sample], t, h):
            next_sample = record_due_samples(sample_times, next_sample, t, h, q, v, lam, q_samples, v_samples,
                                             lam_samples)
    keep_alive(owners)
    return OK, steps, t
