"""Executors: where the runs of a study are computed. Same run specifications, same results.

- ``serial`` (default): one run after the other in this process. The right choice for timing
  studies: nothing else competes for the core.
- ``processes`` (``--jobs N``): N worker processes on this machine. Each run is timed in its worker
  with ``time.thread_time`` of the thread that integrates, so CPU seconds stay per run, but N runs share the machine's cores and
  memory bandwidth: compare CPU times only within one executor setting (runs.csv records the
  executor and the worker count of every run).
- ``dask`` (``--executor dask --address tcp://host:8786``): the runs are submitted to a Dask
  distributed cluster (optional extra ``lgbench[cluster]``); results come back here and are stored
  as they arrive.

Per-run limits: a step budget (runs needing more steps are not started: ``status=timeout``) for
every executor, and a wall-time limit for the local executors (``serial`` then runs each task in
a worker process that is killed at the limit; ``status=timeout``).
"""
from __future__ import annotations

import math
import multiprocessing
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from lgbench.exceptions import EngineError, InputError
from lgbench.runner.single_run import ONE_TIMING, RunResult, RunSpec, TimingRule

EXECUTORS = ("serial", "processes", "dask")
Task = tuple[str, RunSpec]


@dataclass(frozen=True)
class Limits:
    """Per-run safeguards (None = unlimited) and the timing rule of the study's runs."""

    wall_seconds: float | None = None
    max_steps: int | None = None
    timing: TimingRule = ONE_TIMING


def _timeout(message: str) -> RunResult:
    return RunResult(status="timeout", message=message, steps=0, cpu_s=0.0, t_final=0.0, final_outputs={})


def run_task(spec: RunSpec, samples: int | None, limits: Limits) -> RunResult:
    """One run with the step budget applied (the function executed by every executor)."""
    from lgbench.runner.single_run import run_single

    if limits.max_steps is not None:
        needed = math.ceil(spec.t_end / spec.h - 1e-9)
        if needed > limits.max_steps:
            return _timeout(f"needs {needed} steps, more than the step budget of {limits.max_steps}")
    return run_single(spec, n_samples=samples, timing=limits.timing)


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the process that started it dies, however it dies."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def quiet_worker() -> None:
    """Set up a worker process: Ctrl-C is the parent's to handle (it kills or terminates its workers),
    and the worker dies with its parent (``_die_with_parent``)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()


def _serve(connection) -> None:
    """Worker process loop: receive (spec, samples, limits), send back ("ok", result) or ("error", the
    InputError, EngineError or OSError of the run, raised again in the parent); a parent gone means a quiet
    exit."""
    quiet_worker()
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            reply = ("ok", run_task(*task))
        except (InputError, EngineError, OSError) as error:
            reply = ("error", error)
        except Exception as error:              # outside run_single's guard: still named, never a traceback
            reply = ("error", EngineError.of(task[0].describe(), error))
        try:
            connection.send(reply)
        except OSError:                         # the parent closed the pipe
            return


class IsolatedWorker:
    """A worker process that computes one run at a time and is replaced if it exceeds the wall limit."""

    def __init__(self):
        self._context = multiprocessing.get_context("spawn")
        self._stopped = False
        self._start()

    def _start(self) -> None:
        self._connection, child = self._context.Pipe()
        self._process = self._context.Process(target=_serve, args=(child,), daemon=True)
        self._process.start()
        child.close()

    def run(self, spec: RunSpec, samples: int | None, limits: Limits) -> RunResult:
        self._connection.send((spec, samples, limits))
        ready = self._connection.poll(limits.wall_seconds)
        if not ready:
            self._restart()
            return _timeout(f"wall-time limit of {limits.wall_seconds:g} s exceeded; the run was stopped")
        try:
            kind, payload = self._connection.recv()
        except (EOFError, OSError):
            self._restart()
            return RunResult(status="failed", message="the worker process died during the run", steps=0,
                             cpu_s=0.0, t_final=0.0, final_outputs={})
        if kind == "error":
            raise payload
        return payload

    def _restart(self) -> None:
        self._process.kill()
        self._process.join()
        self._connection.close()
        if not self._stopped:
            self._start()

    def kill(self) -> None:
        """Stop the worker now, mid-run (an interrupt): the run in progress is lost, none is started."""
        self._stopped = True
        self._process.kill()

    def close(self) -> None:
        try:
            self._connection.send(None)
        except (OSError, ValueError):
            pass
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
        self._connection.close()


def serial(tasks: list[Task], samples: int | None, limits: Limits) -> Iterator[tuple[str, RunResult]]:
    """One run after the other; in this process unless a wall-time limit needs a killable worker."""
    if limits.wall_seconds is None:
        for identifier, spec in tasks:
            yield identifier, run_task(spec, samples, limits)
        return
    yield from processes(tasks, samples, limits, workers=1)


def processes(tasks: list[Task], samples: int | None, limits: Limits,
              workers: int) -> Iterator[tuple[str, RunResult]]:
    """``workers`` isolated worker processes, each fed by a thread; results in completion order."""
    pending: queue.Queue = queue.Queue()
    for task in tasks:
        pending.put(task)
    finished: queue.Queue = queue.Queue()
    stop = threading.Event()
    started: list[IsolatedWorker] = []

    def feed() -> None:
        worker = IsolatedWorker()
        started.append(worker)
        if stop.is_set():
            worker.kill()
        try:
            while not stop.is_set():
                try:
                    identifier, spec = pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    finished.put((identifier, worker.run(spec, samples, limits), None))
                except BaseException as error:          # handed to the caller, which stops
                    finished.put((identifier, None, error))
                    return
        finally:
            worker.close()

    threads = [threading.Thread(target=feed, daemon=True) for _ in range(max(1, min(workers, len(tasks))))]
    for thread in threads:
        thread.start()
    complete = False
    try:
        for _ in range(len(tasks)):
            identifier, result, error = finished.get()
            if error is not None:
                raise error
            yield identifier, result
        complete = True
    finally:
        stop.set()
        if not complete:                     # an interrupt or an error: the workers go down now
            for worker in list(started):
                worker.kill()
        for thread in threads:
            thread.join()


def dask(tasks: list[Task], samples: int | None, limits: Limits,
         address: str | None) -> Iterator[tuple[str, RunResult]]:
    """Submit every run to a Dask distributed scheduler at ``address``; results as they complete."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise InputError("the dask executor needs the optional extra: pip install 'lgbench[cluster]'",
                         field="--executor", allowed=[e for e in EXECUTORS if e != "dask"]) from None
    if not address:
        raise InputError("the dask executor needs --address tcp://HOST:PORT of a running scheduler",
                         field="--address")
    if limits.wall_seconds is not None:
        raise InputError("the wall-time limit is enforced by the local executors only; use --max-steps "
                         "with dask", field="--wall-limit")
    client = Client(address)
    try:
        futures = {client.submit(run_task, spec, samples, limits, pure=False): identifier
                   for identifier, spec in tasks}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        client.close()


def worker_count(executor: str, jobs: int, address: str | None) -> int:
    """Workers computing the runs: 1 (serial), ``jobs`` (processes) or the Dask cluster's worker count."""
    if executor == "serial":
        return 1
    if executor == "dask" and address:
        try:
            from dask.distributed import Client
        except ImportError:
            return jobs
        with Client(address) as client:
            return len(client.scheduler_info()["workers"]) or jobs
    return jobs


def results(tasks: list[Task], samples: int | None, limits: Limits, executor: str = "serial",
            workers: int = 1, address: str | None = None) -> Iterator[tuple[str, RunResult]]:
    """Run ``tasks`` with the chosen executor; (run id, result) pairs as runs finish."""
    if executor not in EXECUTORS:
        raise InputError(f"unknown executor '{executor}'", field="--executor", allowed=list(EXECUTORS))
    if workers < 1:
        raise InputError(f"--jobs must be at least 1, got {workers}", field="--jobs")
    if executor == "serial":
        return serial(tasks, samples, limits)
    if executor == "processes":
        return processes(tasks, samples, limits, workers)
    return dask(tasks, samples, limits, address)
