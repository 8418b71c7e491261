"""Bounds on what a study file or a single run may ask for, checked before anything is expanded,
allocated or started: file size and nesting, end time, step counts (with a step budget), samples,
grid size and integrator option ranges."""
from __future__ import annotations

import math
from typing import Any

from lgbench.exceptions import InputError, printable

MAX_FILE_BYTES = 1_000_000           # a study file
MAX_T_END = 1e6                      # seconds of simulated time
MAX_SAMPLES = 100_000                # output samples per run
MAX_STEP_SIZES = 1000                # step sizes per list or geometric range
MAX_RUNS = 100_000                   # runs of one grid
DEFAULT_MAX_STEPS = 10**7            # steps per run without --max-steps / max_steps
STEP_CEILING = 10**12                # steps per run, whatever the budget (exact in float and int64)
MAX_ECHO = 120                       # characters of free text echoed to the terminal

OPTION_RANGES: dict[str, tuple[float, float]] = {
    "fd_relative_step": (0.0, 1.0), "fd_step_floor": (0.0, math.inf), "newton_rtol": (0.0, 1.0),
    "newton_atol": (0.0, math.inf), "contractivity": (0.0, 1.0), "rtol": (0.0, 1.0), "atol": (0.0, math.inf),
    "h_min": (0.0, math.inf), "projection_tolerance": (0.0, 1.0),
}
"""Integrator options that must lie in the open interval (low, high) for every integrator that has them."""


def step_count(t_end: float, h: float) -> float:
    """Steps of a run from 0 to t_end with step h, as a float (inf when the quotient overflows)."""
    try:
        return math.ceil(t_end / h - 1e-9)
    except (OverflowError, ZeroDivisionError, ValueError):
        return math.inf


def step_budget(*budgets: int | None) -> int:
    """The largest of the given budgets (None = not given), else the default."""
    given = [budget for budget in budgets if budget is not None]
    return min(max(given), STEP_CEILING) if given else DEFAULT_MAX_STEPS


def check_steps(t_end: float, h: float, budget: int, field: str, file: str | None = None,
                raise_with: str = "--max-steps N") -> None:
    """InputError unless a run of step h to t_end needs between 1 and ``budget`` steps."""
    if not (math.isfinite(h) and h > 0):
        raise InputError(f"must be a finite positive step size, got {h!r}", file=file, field=field)
    if h > t_end:
        raise InputError(f"step size {h:g} is larger than t_end = {t_end:g}", file=file, field=field,
                         allowed="0 < h <= t_end")
    needed = step_count(t_end, h)
    if needed > budget:
        count = "more than 1e12" if needed > STEP_CEILING else f"{needed:.3g}"
        hint = "" if budget >= STEP_CEILING else f"; raise the budget with {raise_with}"
        raise InputError(f"h = {h:g} needs {count} steps to t_end = {t_end:g}, over the step budget of "
                         f"{budget:.3g}{hint}", file=file, field=field, allowed=f"h >= t_end / {budget:.3g}")


def check_option_ranges(options: dict[str, Any], field: str, file: str | None = None) -> None:
    """InputError if a numeric integrator option lies outside its range (see ``OPTION_RANGES``)."""
    for key, value in options.items():
        if key not in OPTION_RANGES or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        low, high = OPTION_RANGES[key]
        if not low < value < high:
            raise InputError(f"must lie in ({low:g}, {high:g}), got {value!r}", file=file, field=f"{field}.{key}")


def check_grid_size(runs: int, file: str | None = None) -> None:
    if runs > MAX_RUNS:
        raise InputError(f"the grid has {runs} runs, more than {MAX_RUNS}", file=file,
                         field="formulations x integrators x steps", allowed=f"at most {MAX_RUNS} runs")


def echo_text(text: str) -> str:
    """Free text (a description) shortened to one line for the terminal, its control characters escaped
    (``exceptions.printable``)."""
    line = printable(" ".join(text.split()))
    return line if len(line) <= MAX_ECHO else line[: MAX_ECHO - 1] + "…"
