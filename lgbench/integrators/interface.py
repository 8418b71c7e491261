"""What every integrator offers the runner: option validation, allowed formulations, ``integrate``.

An integrator (a Butcher tableau, a generalized-alpha/HHT parameter set, an intrinsic scheme ...)
is registered in ``lgbench.integrators.INTEGRATORS`` as an object with

- ``name``, ``description``, ``kind`` ("explicit" or "implicit"), ``order``;
- ``formulations``: the node formulations it can integrate (see ``lgbench.mbs.formulations``);
- ``validate_options(options) -> dict``: the merged, checked options (raises ``InputError``);
- ``integrate(system, q0, v0, options, h, t_end, sample_times) -> Integration``: warm-up
  (compilation) first, then one timed run. ``options`` are the validated ones;
- optionally ``consistent_start = True`` when the run starts with
  ``starting_values.consistent_accelerations`` (its warm-up then calls the stepper first, so that a
  parallel compilation can compile the two at once: ``lgbench/runner/precompile.py``).

Numerical failure is a status code in ``Integration.code``, never an exception.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
import threading
import time
from typing import Any, Protocol, TypeVar

import numpy as np

from lgbench.integrators.subnormals import flush_subnormals_to_zero


@dataclass
class Integration:
    """Outcome of one integration: final state, samples at ``sample_times``, statistics."""

    code: int                      # a ``lgbench.mbs.codes.Status``
    steps: int                     # accepted steps
    t_reached: float               # time of the last accepted state
    cpu_s: float                   # CPU time of the timed region (``timed_run``)
    q: np.ndarray                  # state at t_reached
    v: np.ndarray
    lam: np.ndarray                # multipliers at t_reached (empty without constraints)
    q_samples: np.ndarray          # (n_samples, nq); rows the run did not record are NaN (``sample_arrays``)
    v_samples: np.ndarray
    lam_samples: np.ndarray        # (n_samples, nc)
    statistics: dict[str, Any] = field(default_factory=dict)


class Integrator(Protocol):
    name: str
    description: str
    kind: str
    order: int
    formulations: tuple[str, ...]

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]: ...

    def integrate(self, system, q0: np.ndarray, v0: np.ndarray, options: dict[str, Any], h: float,
                  t_end: float, sample_times: np.ndarray) -> Integration: ...


def sample_arrays(n_samples: int, *widths: int) -> tuple[np.ndarray, ...]:
    """The sample arrays of a run, (n_samples, width) each, NaN until the run records a row: a run that
    fails before its first step (in its consistent accelerations) or stops early leaves the rows it did not
    reach NaN, and no such row is read as a state."""
    return tuple(np.full((n_samples, width), np.nan) for width in widths)


def sampling(warm_up: bool, sample_times: np.ndarray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """(sample times, sample arrays) of a run: none for the warm-up run of ``timed_run``."""
    if warm_up:
        return (np.zeros(0), *(a[:0] for a in arrays))
    return (sample_times, *arrays)


WAIT_SECONDS = 0.2
"""How often the main thread wakes while a timed run goes on (signals interrupt the wait anyway)."""

Inputs = TypeVar("Inputs")
Result = TypeVar("Result")


def timed_run(prepare: Callable[[], Inputs], run: Callable[[Inputs, float, bool, np.ndarray], Result],
              t_end: float) -> tuple[Inputs, Result, float]:
    """The timing rule of every integrator family (DESIGN.md, "Speed is part of correctness").

    ``prepare()`` makes what the timed region does not measure (copies of the initial state,
    workspaces, statistics arrays); ``run(inputs, t_end, warm_up, stop)`` is the algorithm from t = 0,
    including its own start (consistent accelerations, corrected starting values). A warm-up run to
    t = 0 on throw-away inputs compiles every kernel of the run first (numba compiles an entry point
    whole at its first call, whatever the call then executes), so compilation never enters the measured
    time. The warm-up takes no step: it runs on the main thread, where a signal cannot stop compiled
    code, and a step-size-controlled warm-up to t = h could take any number of steps (one that retried a
    step forever made a Puma 560 run deaf to SIGTERM). Returns (inputs, result, CPU seconds of the
    timed run).

    The timed run goes to a worker thread (the compiled entry points release the GIL) while the main
    thread waits, so that Ctrl-C and SIGTERM are handled at once: any exception in the main thread sets
    ``stop[0]``, which the compiled step loops read before every step (``fixed_step.run_fixed_steps``);
    the run ends within one step and the exception propagates. The CPU time is the worker's thread time.
    The worker flushes subnormal numbers to zero (``subnormals``), so that a long run is not timed on the
    processor's slow subnormal arithmetic; the main thread's floating-point modes stay as they are.
    """
    run(prepare(), 0.0, True, np.zeros(1, dtype=np.bool_))
    inputs = prepare()
    stop = np.zeros(1, dtype=np.bool_)
    outcome: dict[str, Any] = {}

    def timed() -> None:
        try:
            flush_subnormals_to_zero()
            start = time.thread_time()
            outcome["result"] = run(inputs, t_end, False, stop)
            outcome["cpu"] = time.thread_time() - start
        except BaseException as error:   # handed to the main thread
            outcome["error"] = error

    worker = threading.Thread(target=timed, name="lgbench-timed-run", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(WAIT_SECONDS)
    except BaseException:
        stop[0] = True
        worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return inputs, outcome["result"], outcome["cpu"]
