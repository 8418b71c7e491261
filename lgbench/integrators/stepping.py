"""Fixed-step bookkeeping shared by the explicit and implicit loops: step count and sampling rule."""
import numpy as np

from lgbench._compiled import kernel

# a sample time within this fraction of a step after a step boundary is taken at that boundary
SAMPLE_TOLERANCE = 1e-6


@kernel
def step_plan(t0, t_end, h):
    """(number of steps, size of the last step): full steps of h, the last one shortened if needed."""
    n_full = int(np.floor((t_end - t0) / h * (1.0 + 1e-12)))
    rest = (t_end - t0) - n_full * h
    if rest < 1e-12 * h:
        return n_full, h
    return n_full + 1, rest


@kernel
def step_end_time(t0, t_end, h, n, total):
    """Time at the end of step n (0-based); the last step ends exactly at t_end."""
    return t_end if n == total - 1 else t0 + (n + 1) * h


@kernel
def is_due(sample_time, t, h):
    return sample_time <= t + SAMPLE_TOLERANCE * h


@kernel
def record_due_samples(sample_times, next_sample, t, h, q, v, lam, q_samples, v_samples, lam_samples):
    """Store the state at every sample time due at t (see ``is_due``); returns the next sample index."""
    while next_sample < sample_times.shape[0] and is_due(sample_times[next_sample], t, h):
        q_samples[next_sample] = q
        v_samples[next_sample] = v
        lam_samples[next_sample] = lam
        next_sample += 1
    return next_sample
