"""Compile the engine a set of runs needs on every core at once, before the runs start.

numba compiles an entry point the first time it is called and keeps the machine code in the disk cache
(``lgbench/_compile_cache.py``). The runs of a study call the entry points of a few *compile groups*:
all fixed-step tableaus share ``integrate_explicit`` (``integrate_explicit_rigid_bodies`` for rigid
bodies under elementary loads), adaptive tableaus ``integrate_explicit_adaptive`` (with projection:
``integrate_index1_rk`` and ``integrate_index1_adaptive``), generalized-alpha ``integrate_implicit``
(``integrate_implicit_banded`` for chains, ``integrate_implicit_free_bodies`` for free rigid bodies),
HHT ``integrate_hht`` (``integrate_hht_banded``), and so on; models and formulations are data to them.
The implicit families also start from ``consistent_accelerations`` (paper 002 eq. 19;
``consistent_accelerations_free_bodies`` with the free-bodies solver), a compile of its own. On an empty
cache a serial study compiles all of them one after the other, on one core, inside its first run of each
group (compilation never enters a measured time: ``integrators/interface.timed_run``).

``precompile`` hands out one single-step integration per group, and the consistent accelerations and
each model's outputs as tasks of their own, to worker processes, as many at once as there are cores,
the longest compile first. Every worker writes what it compiled to the shared cache, and the study's
own runs then load it; the single-step runs' results are thrown away. The implicit families' warm-up
calls the stepper before the starting values, so a worker compiling ``integrate_implicit`` finds
``consistent_accelerations`` in the cache by the time it needs it. Kernels shared by two groups are
compiled by both if they run at once (each in its process), hence the order of ``compile_tasks``; the last
kernels of the dense generalized-alpha entry point, its longest compile, are a task of their own
(``compile_plan``). The wall time is that of the longest group instead of the sum (``docs/performance.md``,
"Compile time").
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from lgbench.exceptions import EngineError, InputError
from lgbench.runner.executors import quiet_worker
from lgbench.runner.single_run import RunSpec, integrator_of

RUN = "run"
START = "consistent accelerations"
OUTPUTS = "outputs"
KERNELS = "iteration-matrix kernels"
AHEAD_OF = ("ImplicitIntegrator", "dense")
"""The compile group (family, linear algebra) whose kernels ``compile_plan`` compiles ahead."""
Task = tuple[str, RunSpec]


def compile_group(spec: RunSpec) -> tuple[str, str, str]:
    """What decides which compiled entry point a run calls: the integrator family (the class of its
    registry entry), a tableau's ``step_control`` (the fixed-step or the adaptive loop), an implicit
    family's linear algebra (dense, banded or free bodies) and an explicit family's right-hand side
    (rigid bodies or multibody), an entry point each. Not the model otherwise: the models' arrays have the
    same numba types, so every model calls the same machine code of a family; a model's own output kernels
    are a task of their own (``compile_tasks``)."""
    integrator = integrator_of(spec)
    loop = str(spec.options_dict().get("step_control", "fixed"))
    return type(integrator).__qualname__, loop, _entry_point_variant(replace(spec, h=1.0, t_end=1.0))


VARIANTS = ("linear_algebra", "right_hand_side")
"""The integrator methods that name the entry point of a run within its family (system, options -> name)."""


@lru_cache(maxsize=None)
def _entry_point_variant(spec: RunSpec) -> str:
    """The integrator's ``linear_algebra`` or ``right_hand_side`` for the run's model ("" for the families
    with one entry point, and for input the run itself will report)."""
    from lgbench.runner.single_run import build_run

    integrator = integrator_of(spec)
    choose = next((getattr(integrator, name) for name in VARIANTS if hasattr(integrator, name)), None)
    if choose is None:
        return ""
    try:
        model, _, options = build_run(spec)
        return choose(model.system, options)
    except (InputError, EngineError):
        return ""


def compile_tasks(specs: Iterable[RunSpec]) -> list[Task]:
    """One single-step integration per compiled entry point of ``specs`` (``compile_group``: the model does not
    matter), the consistent accelerations once per kernel that the families starting from them call, and each
    model's output kernels: the first implicit family first (the Newton solver, the iteration matrix and the
    linear algebra take the longest to compile), if it is dense generalized-alpha the last of its kernels next,
    in a second process (``compile_plan``: the entry point then loads them), the explicit families next, then
    the starting values, the other implicit entry points (one solver's apart, ``_solvers_apart``), the outputs
    last. The implicit entry points and the starting values call the same compiled kernels (residual, force and
    constraint tangents, iteration-matrix blocks); compiled beside each other both processes compile those,
    compiled after the first they load them from the cache: HHT took 271 s beside generalized-alpha and 151 s
    after it, on an empty cache, and the starting values 86 s beside it and nothing after it. After the explicit
    families they still end before generalized-alpha needs them (its warm-up compiles the stepper first). A
    model's outputs are a task of their own, not part of its integration, so that they compile on another core
    than the longest entry point (``docs/performance.md``, "Compile time")."""
    from lgbench.integrators.starting_values import consistent_accelerations_of

    runs: dict[tuple[str, ...], RunSpec] = {}
    starts: dict[object, Task] = {}
    outputs: dict[str, RunSpec] = {}
    for spec in specs:
        short = replace(spec, t_end=spec.h)
        group = compile_group(short)
        runs.setdefault(group, short)
        outputs.setdefault(spec.model, short)
        if getattr(integrator_of(spec), "consistent_start", False):
            starts.setdefault(consistent_accelerations_of(group[-1]), (START, short))
    implicit = [spec for spec in runs.values() if integrator_of(spec).kind == "implicit"]
    others = [spec for spec in runs.values() if integrator_of(spec).kind != "implicit"]
    ahead = [(KERNELS, spec) for spec in implicit[:1] if compile_group(spec)[::2] == AHEAD_OF]
    return [(RUN, spec) for spec in implicit[:1]] + ahead + [(RUN, spec) for spec in others] + \
        list(starts.values()) + [(RUN, spec) for spec in _solvers_apart(implicit[1:])] + \
        [(OUTPUTS, spec) for spec in outputs.values()]


def _solvers_apart(specs: list[RunSpec]) -> list[RunSpec]:
    """``specs`` with the entry points of one linear algebra as far apart as the others allow: the first of
    each solver, then the second of each, ..., the solvers with the most entry points first. Two entry
    points of one solver share its kernels (generalized-alpha's and HHT's banded iteration matrix and LU);
    handed out one after the other they compiled side by side, both processes compiling those kernels
    (HHT's banded entry point took 76 s beside generalized-alpha's, 35 s after it)."""
    by_solver: dict[str, list[RunSpec]] = {}
    for spec in specs:
        by_solver.setdefault(compile_group(spec)[-1], []).append(spec)
    rows = sorted(by_solver.values(), key=len, reverse=True)
    return [spec for row in itertools.zip_longest(*rows) for spec in row if spec is not None]


def worker_budget() -> int:
    """The cores this process may use (its CPU affinity where the platform tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def task_label(task: Task) -> str:
    """What a compile task compiles, for progress lines: "generalized-alpha (heavy_top)"."""
    kind, spec = task
    return f"{spec.integrator} ({spec.model})" if kind == RUN else f"{kind} ({spec.model})"


def compile_task(task: Task) -> tuple[str, float]:
    """Compile by running: a single-step integration of the spec (no outputs), its model's consistent
    accelerations, or its model's outputs at the initial state; or by signature, the kernels of
    ``compile_plan``. Returns the task's label and the wall seconds it took."""
    import time

    import numpy as np

    from lgbench.integrators.starting_values import consistent_accelerations_of
    from lgbench.mbs.system import S_NC, S_NV
    from lgbench.runner.compile_plan import compile_planned_kernels
    from lgbench.runner.single_run import build_run, constraint_series, engine_errors, sample_times

    started = time.perf_counter()
    kind, spec = task
    try:
        with engine_errors(spec):
            model, integrator, options = build_run(spec)
            system, q0, v0 = model.system, model.q0.copy(), model.v0.copy()
            nv, nc = int(system.sizes[S_NV]), int(system.sizes[S_NC])
            if kind == RUN:
                integrator.integrate(system, q0, v0, options, spec.h, spec.t_end, sample_times(spec.t_end, None))
            elif kind == START:
                consistent_accelerations_of(compile_group(spec)[-1])(system, q0, v0, 0.0, np.zeros(nv), np.zeros(nc))
            elif kind == KERNELS:
                compile_planned_kernels(spec)
            else:
                model.outputs(system, q0, v0, np.zeros(nc), 0.0)
                # the constraint series of the model's formulations with constraints (the kernels' types
                # do not depend on the number of constraints)
                constraint_series(system, np.zeros(1), q0[None, :], v0[None, :], np.zeros((1, nc)))
    except (InputError, EngineError):      # the study's own run reports it, with its run id
        pass
    return task_label(task), time.perf_counter() - started


def precompile(specs: Iterable[RunSpec], workers: int | None = None,
               progress: Callable[[str], object] | None = None,
               status: Callable[[str], object] | None = None) -> int:
    """Compile, into the disk cache, every entry point that ``specs`` will call, ``workers`` tasks at a
    time (default: one per core); ``progress`` gets a line as each part is done, ``status`` (a line shown
    in place, on a terminal) the elapsed time once a second in between and "" at the end. Returns the
    number of worker processes used (0: one task, one core or a cache this process cannot write, which
    the workers could not share either; the runs then compile as they go, as before)."""
    tasks = compile_tasks(specs)
    workers = min(worker_budget() if workers is None else workers, len(tasks))
    if workers < 2:
        return 0
    with compile_lock() as shared:
        if not shared:
            return 0
        if progress is not None:
            progress(f"compiling in {len(tasks)} parts on {workers} cores")
        done = 0
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers, initializer=quiet_worker) as pool, \
                ticking(status, lambda elapsed: f"  compiling, {done} of {len(tasks)} parts done … {elapsed:.0f} s"):
            for label, seconds in pool.imap_unordered(compile_task, tasks):
                done += 1
                if progress is not None:
                    progress(f"compiled {done}/{len(tasks)}: {label} in {seconds:.0f} s")
    return workers


TICK_SECONDS = 1.0
"""How often ``ticking`` updates its line."""


@contextmanager
def ticking(status: Callable[[str], object] | None, text: Callable[[float], str]) -> Iterator[None]:
    """While the block runs, a background thread calls ``status(text(elapsed seconds))`` at once and then
    every TICK_SECONDS; ``status("")`` when the block ends, however it ends. Nothing without ``status``."""
    if status is None:
        yield
        return
    started = time.monotonic()
    stop = threading.Event()

    def tick() -> None:
        while True:
            status(text(time.monotonic() - started))
            if stop.wait(TICK_SECONDS):
                return

    thread = threading.Thread(target=tick, name="lgbench-compile-clock", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        status("")


@contextmanager
def compile_lock():
    """One parallel compilation per compile cache at a time: a second ``lgbench run`` started beside the
    first (``make check-quick`` starts two) waits, then finds what they share in the cache instead of
    compiling it again on the same cores. Advisory (``flock``), released when the process ends however
    it ends; where there is no ``fcntl`` (Windows), no lock. Yields whether the cache folder takes
    files (a read-only one cannot pass compiled code from the workers to the runs)."""
    import lgbench

    if not lgbench.NUMBA_CACHE_DIR:     # numba's own default: caches beside the sources, nothing shared here
        yield False
        return
    try:
        handle = open(Path(lgbench.NUMBA_CACHE_DIR) / "precompile.lock", "a")
    except OSError:
        yield False
        return
    with handle:
        try:
            import fcntl
        except ImportError:
            yield True
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield True
