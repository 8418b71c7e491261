"""The progress display of ``lgbench run``: one self-updating line on a terminal (runs done/total,
current run, elapsed, ETA; while the engine compiles, the elapsed seconds); in CI logs or pipes only
the few messages (reference, compiled parts, skipped runs) and the summary, unless ``--verbose`` asks
for a line per finished run. ``--quiet``: the summary only."""
from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from lgbench.runner.execute import Reporter


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


class Interrupted(BaseException):
    """Ctrl-C (exit code 130) or SIGTERM (143) during a run; like KeyboardInterrupt not an ``Exception``, so
    that no handler of errors (``single_run.engine_errors``) takes it for one."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 128 + signum


@contextmanager
def interruptible() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into ``Interrupted`` inside the block. Python code stops at once; a
    compiled run stops within one step (``integrators.interface.timed_run`` sets its stop flag)."""

    def stop(signum, frame):
        raise Interrupted(signum)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted(signal.SIGINT) from None
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class ProgressDisplay(Reporter):
    def __init__(self, quiet: bool = False, verbose: bool = False, stream=None):
        self.stream = stream or sys.stdout
        self.stored = 0
        self.quiet = quiet
        self.verbose = verbose and not quiet
        self.in_place = not quiet and self.stream.isatty()
        self.live = self.in_place and not verbose
        self.start = time.monotonic()
        self.width = 0
        self.lock = threading.Lock()        # status() is also called from a clock thread

    def _line(self, text: str) -> None:
        with self.lock:
            self._clear()
            print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def message(self, text: str) -> None:
        if not self.quiet:
            self._line(text)

    def status(self, text: str) -> None:
        if self.in_place:
            self._status(text)

    def started(self, total: int) -> None:
        self.start = time.monotonic()
        if self.live:
            self._status(f"[0/{total}] starting")

    def finished(self, number: int, total: int, identifier: str, summary: str) -> None:
        self.stored = number
        if self.verbose:
            self._line(f"[{number}/{total}] {identifier}  {summary}")
        elif self.live:
            elapsed = time.monotonic() - self.start
            eta = elapsed / number * (total - number)
            self._status(f"[{number}/{total}] {identifier}  elapsed {_clock(elapsed)}  ETA {_clock(eta)}")

    def _status(self, text: str) -> None:
        with self.lock:
            self._clear()
            self.stream.write(text)
            self.stream.flush()
            self.width = len(text)

    def close(self) -> None:
        with self.lock:
            self._clear()
