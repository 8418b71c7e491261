"""The progress display of ``lgbench run``: one self-updating line on a terminal (runs done/total,
current run, elapsed, ETA; while the engine compiles, the elapsed seconds); in CI logs or pipes only
the few messages (reference, compiled parts, skipped runs) and the summary, unless ``--verbose`` asks
for a line per finished run. ``--quiet``: the summary only."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
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


EXIT_SECONDS = 0.75
"""How long after a signal the process may take to end on its own before ``_Watch`` ends it."""


class _Watch:
    """What happens to a signal inside ``interruptible`` blocks, in one place.

    The main thread handles a signal by raising ``Interrupted``, so that the command stores what it has and
    says what it kept. Two moments cannot take that exception: while numba compiles (an exception raised in
    one of LLVM's ctypes callbacks is printed as a traceback and dropped, and numba then fails with "no
    compiled object yet"), and while the main thread is inside one long call into LLVM (a Python handler
    runs only once the call returns, tens of seconds later). In the first the handler ends the process at
    once; for the second a thread woken by the signal itself (``signal.set_wakeup_fd``) ends it if it has
    not ended EXIT_SECONDS later. Ending the process (``leave``) prints the command's last line and calls
    ``os._exit``: the files lgbench and numba write are written to a temporary name and renamed (a table row
    cut short by the exit is removed by the next run), and the worker processes die with their parent, so
    what is stored, the compile cache included, stays whole.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.depth = 0                  # nested interruptible blocks
        self.generation = 0             # outermost blocks ended; a signal belongs to one
        self.said = -1                  # the generation whose last line was printed by the command itself
        self.leaving = False
        self.last_lines: list[Callable[[], str]] = []
        self.pipe: tuple[int, int] | None = None
        self.previous_fd = -1

    def enter(self, last_line: Callable[[], str] | None) -> None:
        self.last_lines.append(last_line or (self.last_lines[-1] if self.last_lines else _plain))
        self.depth += 1
        if self.depth == 1:
            if self.pipe is None:
                self.pipe = os.pipe()
                os.set_blocking(self.pipe[1], False)
                threading.Thread(target=self._wait_for_signals, name="lgbench-signal-watch", daemon=True).start()
            self.previous_fd = signal.set_wakeup_fd(self.pipe[1], warn_on_full_buffer=False)

    def exit(self) -> None:
        self.last_lines.pop()
        self.depth -= 1
        if self.depth == 0:
            with self.lock:
                self.generation += 1
            signal.set_wakeup_fd(self.previous_fd)

    def _wait_for_signals(self) -> None:
        while True:
            signum = os.read(self.pipe[0], 1)[0]
            if signum not in (signal.SIGINT, signal.SIGTERM) or not self.depth:
                continue
            generation = self.generation
            time.sleep(EXIT_SECONDS)
            self.leave(signum, generation)

    def say(self, text: str) -> None:
        """The command's own last line after an interrupt (printed once; not if the process is being ended)."""
        with self.lock:
            leaving = self.leaving
            self.said = self.generation
        if leaving:
            threading.Event().wait()            # os._exit is on its way
        print(text, file=sys.stderr, flush=True)

    def leave(self, signum: int, generation: int | None = None) -> None:
        """End the process now with the innermost block's last line, unless the block of ``generation`` has
        ended meanwhile (the command handled the signal itself)."""
        with self.lock:
            if self.leaving or (generation is not None and generation != self.generation):
                return
            self.leaving = True
            say = self.said != self.generation
        try:
            text = self.last_lines[-1]() if say else ""
            sys.stdout.flush()
            if text:
                sys.stderr.write(text + "\n")
                sys.stderr.flush()
        finally:
            os._exit(128 + signum)


def _plain() -> str:
    return "interrupted"


_WATCH = _Watch()


def compiling() -> bool:
    """Whether this thread is inside numba's compiler (it holds numba's compiler lock)."""
    lock = sys.modules.get("numba.core.compiler_lock")
    return lock is not None and lock.global_compiler_lock.is_locked()


def say_interrupted(text: str) -> None:
    """Print a command's last line after Ctrl-C or SIGTERM (stderr)."""
    _WATCH.say(text)


@contextmanager
def interruptible(last_line: Callable[[], str] | None = None) -> Iterator[None]:
    """Turn SIGINT and SIGTERM into ``Interrupted`` inside the block. Python code stops at once; a
    compiled run stops within one step (``integrators.interface.timed_run`` sets its stop flag); a
    compilation ends the process within EXIT_SECONDS (``_Watch``), printing ``last_line()`` (that of the
    enclosing block if None)."""

    def stop(signum, frame):
        if compiling():
            _WATCH.leave(signum)
        raise Interrupted(signum)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    _WATCH.enter(last_line)
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted(signal.SIGINT) from None
    finally:
        _WATCH.exit()
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
