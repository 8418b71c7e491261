"""The one fixed-step loop (lgbench/integrators/fixed_step.py): a family plugs in its step, the loop ends
exactly at t_end, and a loop with its step inlined stays in numba's disk cache."""
import subprocess
import sys
import textwrap
from typing import NamedTuple

from numba import njit
import numpy as np

from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.mbs.codes import OK


class EulerProblem(NamedTuple):
    rate: float
    shortened: np.ndarray   # counts the steps shorter than the nominal step


@njit(inline="always")
def euler_step(problem, state, t, h, h_nominal):
    (x,) = state
    x[0] += h * problem.rate * x[0]
    if h != h_nominal:
        problem.shortened[0] += 1
    return OK


@njit
def integrate_euler(problem, x, sample_times, samples, t_end, h):
    empty = np.zeros(0)
    no_samples = np.zeros((samples.shape[0], 0))
    return run_fixed_steps(euler_step, problem, (x,), (x, empty, empty), (sample_times, samples, no_samples, no_samples),
                           0.0, t_end, h, np.zeros(1, dtype=np.bool_))


def test_the_loop_ends_exactly_at_t_end_and_the_step_sees_the_shortened_last_step():
    problem = EulerProblem(-1.0, np.zeros(1))
    x = np.array([1.0])
    samples = np.zeros((3, 1))
    status, steps, t = integrate_euler(problem, x, np.array([0.0, 0.5, 1.05]), samples, 1.05, 0.1)
    assert (status, steps, t) == (OK, 11, 1.05)
    assert problem.shortened[0] == 1
    expected = 1.0
    for h in [0.1] * 10 + [1.05 - 10 * 0.1]:
        expected += h * -1.0 * expected
    assert x[0] == expected
    assert samples[0, 0] == 1.0 and abs(samples[1, 0] - 0.9 ** 5) < 1e-14 and samples[2, 0] == x[0]


class ScratchProblem(NamedTuple):
    scratch: np.ndarray     # allocated by the entry point, owned by nothing else


@njit(inline="always")
def accumulate_step(problem, state, t, h, h_nominal):
    (x,) = state
    increment = np.full(64, h)          # allocates every step, as the general kernels do
    problem.scratch[:] += increment
    x[0] = problem.scratch.sum()
    return OK


@njit
def integrate_accumulate(x, t_end, h):
    empty = np.zeros(0)
    none = np.zeros((0, 0))
    problem = ScratchProblem(np.zeros(64))
    return run_fixed_steps(accumulate_step, problem, (x,), (x, empty, empty), (empty, none, none, none), 0.0, t_end, h,
                           np.zeros(1, dtype=np.bool_))


def test_scratch_arrays_of_the_entry_point_stay_alive_through_the_loop():
    """The loop borrows its arguments; an entry point's own scratch arrays must not be freed under it."""
    x = np.zeros(1)
    status, steps, _ = integrate_accumulate(x, 1.0, 1e-3)
    assert (status, steps) == (OK, 1000)
    assert abs(x[0] - 64.0) < 1e-9


PLUGIN = textwrap.dedent('''
    from typing import NamedTuple
    import numpy as np
    from numba import njit
    from lgbench.integrators.fixed_step import run_fixed_steps

    class DecayProblem(NamedTuple):
        rate: float
        work: tuple

    @njit(inline="always")
    def decay_step(problem, state, t, h, h_nominal):
        x, v = state
        if h != h_nominal:
            v[0] += 1.0
        x[0] += h * problem.rate * x[0] * problem.work[0][0]
        return 0

    @njit(cache=True)
    def integrate_decay(problem, x, t_end, h):
        empty = np.zeros(0)
        none = np.zeros((0, 0))
        return run_fixed_steps(decay_step, problem, (x, np.zeros(1)), (x, empty, empty), (empty, none, none, none),
                               0.0, t_end, h, np.zeros(1, dtype=np.bool_))

    def main():
        x = np.ones(1)
        integrate_decay(DecayProblem(-1.0, (np.ones(2), np.ones((2, 2)))), x, 1.0, 0.1)
        print(sum(integrate_decay.stats.cache_hits.values()))
''')


def test_a_family_loop_with_its_step_inlined_is_cached_on_disk(tmp_path):
    """A loop that received its step as a compiled function argument could not be cached (numba issue 6972)."""
    (tmp_path / "decay_plugin.py").write_text(PLUGIN)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": ":".join([str(tmp_path), *sys.path]),
           "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-W", "error::numba.NumbaWarning", "-c", "import decay_plugin; decay_plugin.main()"]
    runs = [subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
            for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr[-2000:]
    assert [run.stdout.strip() for run in runs] == ["0", "1"]
