"""The one fixed-step loop of every one-step integrator family, and the way a family plugs its step in.

A family (explicit RK/RKMK, generalized-alpha, HHT, RKMK with projection, the intrinsic schemes)
describes what its step reads as a ``NamedTuple`` class of its own (the *problem*: system, method
data, workspace, statistics) and registers its step function for that class::

    @fixed_step_method(MyProblem)
    @njit(inline="always")
    def my_step(problem, state, t, h, h_nominal):   # -> Status; updates state in place
        ...

``run_fixed_steps(problem, state, observed, samples, t0, t_end, h)`` then advances from t0 to t_end
with steps h (the last one shortened to end at t_end; ``h_nominal`` lets a step notice it) and
records the ``observed`` arrays (q, v, lambda; the step keeps them current) at the sample times.

Why a registry and not a step function passed as an argument: numba cannot cache a compiled function
that receives another compiled function as an argument once it is lowered as a first-class function
(numba issue 6972; measured here: "Cannot cache ... dynamic globals" for the integrator signatures), and
an uncached integrator would recompile in every process. ``advance`` is resolved at typing time from
the problem's class, so each family's loop is one cached specialisation with its step inlined.

The loop works on ``borrowed`` views of its arguments (lgbench/mbs/borrowed.py: no reference counting
per kernel call); its caller owns them for the duration of the call.
"""
from numba import njit
from numba.extending import overload

from lgbench.integrators.stepping import is_due, record_due_samples, step_end_time, step_plan
from lgbench.mbs.borrowed import borrowed
from lgbench.mbs.codes import OK

FIXED_STEP_METHODS: dict[type, object] = {}
"""Problem class -> compiled step function (filled by ``fixed_step_method``)."""


def fixed_step_method(problem_class: type):
    """Register the decorated compiled step function as the step of problems of ``problem_class``."""
    def register(step):
        FIXED_STEP_METHODS[problem_class] = step
        return step
    return register


def advance(problem, state, t, h, h_nominal):
    """One step of the family of ``problem`` (compiled code only; see ``fixed_step_method``)."""
    raise NotImplementedError("advance is resolved inside compiled code")


@overload(advance, inline="always")
def _advance(problem, state, t, h, h_nominal):
    step = FIXED_STEP_METHODS.get(getattr(problem, "instance_class", None))
    if step is None:
        return None

    def impl(problem, state, t, h, h_nominal):
        return step(problem, state, t, h, h_nominal)
    return impl


@njit(cache=True)
def run_fixed_steps(problem, state, observed, samples, t0, t_end, h):
    """Fixed steps h from t0 to t_end (the last one shortened if needed), in place.

    observed = (q, v, lambda) arrays the step keeps current; samples = (sample_times, q_samples,
    v_samples, lam_samples): the observed values at the first step boundary at or after each sample
    time. Returns (status, steps, t_reached)."""
    problem, state, observed, samples = borrowed((problem, state, observed, samples))
    q, v, lam = observed
    sample_times, q_samples, v_samples, lam_samples = samples
    total, last = step_plan(t0, t_end, h)
    n_samples = sample_times.shape[0]
    next_sample = record_due_samples(sample_times, 0, t0, h, q, v, lam, q_samples, v_samples, lam_samples)
    steps = 0
    t = t0
    for n in range(total):
        hn = h if n < total - 1 else last
        status = advance(problem, state, t, hn, h)
        if status != OK:
            return status, steps, t
        steps += 1
        t = step_end_time(t0, t_end, h, n, total)
        if next_sample < n_samples and is_due(sample_times[next_sample], t, h):
            next_sample = record_due_samples(sample_times, next_sample, t, h, q, v, lam, q_samples, v_samples,
                                             lam_samples)
    return OK, steps, t
