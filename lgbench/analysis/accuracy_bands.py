"""The cheapest method per accuracy band: for each target error, which formulation x
integrator of a study reached it for the least CPU time, and what the runner-up costs.

A method's cost at a target is read off its work-precision curve (``cost_at_error``: log CPU time
interpolated in log error between the two consecutive step sizes whose errors bracket the target). A
method whose coarsest run is already below the target has at most that run's cost there (an upper
bound, shown as such). The timing spread enters the same way: the slowest of each run's timed repeats
(``cpu_s x (1 + cpu_spread)``) is read off at the target too, and the runner-up is *within the timing
spread* of the best when its fastest cost does not exceed the best's slowest one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat

from lgbench.analysis.convergence import error_table, method_label
from lgbench.analysis.expectations import cost_or_bound

DEFAULT_TARGETS = (1e-3, 1e-6, 1e-9)
"""Target errors of the bands when a study names none."""


class AccuracyBandRequest(BaseModel):
    """A study's ``accuracy_bands:``: the target errors, and which error they are of (default the
    study's first). A study that gives it has its bands on the campaign's index page as well."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    targets: Annotated[list[PositiveFloat], Field(min_length=1, max_length=6)] = list(DEFAULT_TARGETS)
    quantity: str | None = None
    measure: str | None = None


def band_error(study) -> tuple[str, str]:
    """(quantity, measure column of errors.csv) the study's bands are read in: the error its
    ``accuracy_bands`` names, else its first."""
    request = study.accuracy_bands
    quantity = request.quantity if request is not None and request.quantity else study.errors[0].quantity
    recorded = [item.label for item in study.errors if item.quantity == quantity]
    measure = request.measure if request is not None and request.measure else (recorded or [""])[0]
    return quantity, measure


@dataclass(frozen=True)
class MethodCost:
    """What one method costs at one target error."""

    method: str
    cpu_s: float            # fastest timed repeat, read off at the target
    slowest_cpu_s: float    # slowest timed repeat, read off at the target
    upper_bound: bool       # the coarsest run already beats the target: the cost there is at most this

    def text(self) -> str:
        return ("≤ " if self.upper_bound else "") + f"{self.cpu_s:.3g} s"


@dataclass(frozen=True)
class Band:
    """One target error: the methods that reached it, cheapest first, and those that did not."""

    target: float
    reached: tuple[MethodCost, ...]
    missed: tuple[str, ...]

    @property
    def best(self) -> MethodCost | None:
        return self.reached[0] if self.reached else None

    @property
    def runner_up(self) -> MethodCost | None:
        return self.reached[1] if len(self.reached) > 1 else None

    def runner_up_ratio(self) -> float:
        """CPU time of the runner-up over the best's (NaN with fewer than two methods)."""
        if self.runner_up is None:
            return math.nan
        return self.runner_up.cpu_s / self.best.cpu_s

    def within_timing_spread(self) -> bool:
        """The runner-up's fastest repeat is no slower than the best's slowest: no clear winner."""
        return self.runner_up is not None and self.runner_up.cpu_s <= self.best.slowest_cpu_s


def method_cost(method: str, h, error, cpu, spread, target: float) -> MethodCost | None:
    """The cost of ``method`` at ``target`` from its runs' step sizes, errors, CPU times and timing
    spreads (``cost_or_bound``, for the fastest and the slowest repeats); None if no run reached it."""
    points = [(float(x), float(e), float(c), float(s) if math.isfinite(s) else 0.0)
              for x, e, c, s in zip(h, error, cpu, spread) if e > 0 and c > 0 and math.isfinite(e)
              and math.isfinite(c)]
    if not points:
        return None
    hs, errors, fastest, spreads = zip(*points)
    cost, upper_bound = cost_or_bound(hs, errors, fastest, target)
    if math.isnan(cost):
        return None
    slowest, _ = cost_or_bound(hs, errors, [c * (1.0 + s) for c, s in zip(fastest, spreads)], target)
    return MethodCost(method, cost, slowest, upper_bound)


def accuracy_bands(runs, errors, quantity: str, measure: str,
                   targets=DEFAULT_TARGETS) -> list[Band]:
    """One Band per target from runs.csv (with ``cpu_s``, optionally ``cpu_spread``) and errors.csv;
    methods as in ``error_table`` (``formulation-integrator[.label]``)."""
    table = error_table(runs, errors, quantity, measure)
    runs = runs.drop_duplicates("run_id", keep="last")
    ok = runs[runs["status"] == "ok"]
    spread = ok["cpu_spread"] if "cpu_spread" in ok.columns else [0.0] * len(ok)
    timing = {(method_label(f, i), float(h)): (float(c), float(s))
              for f, i, h, c, s in zip(ok["formulation"], ok["integrator"], ok["h"], ok["cpu_s"], spread)}
    curves = {}
    for method in table.columns:
        column = table[method].dropna()
        rows = [(h, e, *timing[(method, float(h))]) for h, e in column.items() if (method, float(h)) in timing]
        curves[method] = tuple(zip(*rows)) if rows else None
    bands = []
    for target in targets:
        costs = {method: method_cost(method, *curve, target) if curve else None for method, curve in curves.items()}
        reached = sorted((cost for cost in costs.values() if cost is not None), key=lambda item: item.cpu_s)
        missed = tuple(method for method, cost in costs.items() if cost is None)
        bands.append(Band(float(target), tuple(reached), missed))
    return bands
