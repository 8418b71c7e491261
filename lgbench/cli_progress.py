"""The progress display of ``lgbench run``: one self-updating line on a terminal (runs done/total,
current run, elapsed, ETA); in CI logs or pipes only the few messages (reference, skipped runs) and
the summary, unless ``--verbose`` asks for a line per finished run. ``--quiet``: the summary only."""
from __future__ import annotations

import sys
import time

from lgbench.runner.execute import Reporter


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


class ProgressDisplay(Reporter):
    def __init__(self, quiet: bool = False, verbose: bool = False, stream=None):
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self.verbose = verbose and not quiet
        self.live = not quiet and not verbose and self.stream.isatty()
        self.start = time.monotonic()
        self.width = 0

    def _line(self, text: str) -> None:
        self._clear()
        print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self.live and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0

    def message(self, text: str) -> None:
        if not self.quiet:
            self._line(text)

    def started(self, total: int) -> None:
        self.start = time.monotonic()
        if self.live:
            self._status(f"[0/{total}] starting")

    def finished(self, number: int, total: int, identifier: str, summary: str) -> None:
        if self.verbose:
            self._line(f"[{number}/{total}] {identifier}  {summary}")
        elif self.live:
            elapsed = time.monotonic() - self.start
            eta = elapsed / number * (total - number)
            self._status(f"[{number}/{total}] {identifier}  elapsed {_clock(elapsed)}  ETA {_clock(eta)}")

    def _status(self, text: str) -> None:
        self._clear()
        self.stream.write(text)
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        self._clear()
