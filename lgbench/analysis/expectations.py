"""What a study is expected to show, and the check of a result folder against it.

Expectations live in the study file (``expectations:``) and are evaluated from the CSV files only,
so any result folder can be checked again later. Methods are named as in the tables:
``formulation-integrator`` or ``formulation-integrator.label`` (e.g. ``RV-RK44``,
``RV-generalized-alpha.modified``).

Kinds:
- ``order``: observed order of an error quantity (robust fit, see ``fit_order``) within a tolerance
  (or at least ``expected - tolerance`` with ``at_least``).
- ``fails`` / ``succeeds``: every run of a method in an h range ends not ok / ok.
- ``value``: a runs.csv column (e.g. ``newton_per_step``) at one h, within a tolerance.
- ``less``: a runs.csv column or an error (``error:QUANTITY``) of one method times ``factor`` stays
  below that of another at every common h where both ran (and, with ``max_factor``, above it divided
  by ``max_factor``).
- ``bound``: a runs.csv column stays within [min, max] for the given methods (all if none).
- ``cost_ratio``: the CPU time (or another cost column) of one method over another's within
  [min, max]: read off the two work-precision curves at one error (``at_error``), or their geometric
  mean over the common h of a grid ("on average faster"); the form of paper 000's CPU-time findings
  (Figs. 4, 5, 8, 12, 13, 17, 21).
- ``cheapest``: a group of methods is the cheapest at one error (``at_error``): the cost of the
  cheapest method outside the group (``among``, default every other method) over the cost of the
  cheapest in it, each read off its work-precision curve as ``cost_ratio`` does (a method whose coarsest
  run already beats the target costs at most that run), within [min, max]. The form of
  docs/findings.md's "cheapest method per accuracy band" statements.
- ``series``: a statistic of one output's time series (series/RUN.csv) of one run (method, h) over a time
  window - its ``period`` (twice the mean spacing of the zero crossings of the output less its mean),
  ``frequency`` (1 / period), largest absolute value ``max_abs`` or ``range`` (max - min) - or, with
  ``than``, its ratio to the same statistic of another run or output; within [min, max]. For the papers'
  statements about a solution's shape over time (a precession period, "much higher frequencies").
- ``parameter_fit``: an error at one h as a polynomial in a method parameter, fitted by least squares
  over methods that differ only in that parameter (paper 004 Fig. 10: e_omega against HHT's alpha); the
  fit's largest residual, relative to the largest error, within [min_residual, max_residual], and each
  bounded coefficient within its bounds. A law that does not hold shows as a ``min_residual`` that passes.

Every kind observes one statistic, the smallest and largest value of its quantity (one value for most
kinds; ``less`` the ratios over the common h, ``bound`` the values over the runs), and passes when both
lie in its window (``window``): the interval a claim's precision is compared with
(``lgbench.analysis.claims``).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from typing import Annotated, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, model_validator

from lgbench.analysis.convergence import ROUND_OFF_FLOOR, error_table, fit_order, method_label, with_variants
from lgbench.analysis.window import Interval


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"
"""An expectation's ``id``: what a finding (``lgbench.analysis.findings``) cites it by."""


class _Expectation(_Strict):
    """What every expectation has: an optional ``id`` unique in its study and a ``why``."""

    id: Annotated[str, Field(pattern=ID_PATTERN, max_length=60)] | None = None
    why: str = ""


StepRange = tuple[PositiveFloat, PositiveFloat]


class OrderExpectation(_Expectation):
    kind: Literal["order"]
    method: str
    quantity: str | None = None          # default: the study's first error quantity
    measure: str | None = None
    expected: float
    tolerance: PositiveFloat = 0.3
    at_least: bool = False
    h_range: StepRange | None = None
    floor: PositiveFloat = ROUND_OFF_FLOOR
    min_points: Annotated[int, Field(ge=2)] = 3


class StatusExpectation(_Expectation):
    kind: Literal["fails", "succeeds"]
    method: str
    h_range: StepRange


class ValueExpectation(_Expectation):
    kind: Literal["value"]
    method: str
    column: str
    h: PositiveFloat
    expected: float
    tolerance: PositiveFloat


class LessExpectation(_Expectation):
    kind: Literal["less"]
    column: str                          # runs.csv column, or "error:QUANTITY"
    lower: str
    than: str
    factor: PositiveFloat = 1.0
    max_factor: PositiveFloat | None = None
    h_range: StepRange | None = None

    @model_validator(mode="after")
    def _ordered_factors(self):
        if self.max_factor is not None and self.max_factor < self.factor:
            raise ValueError(f"max_factor ({self.max_factor:g}) is below factor ({self.factor:g})")
        return self


class BoundExpectation(_Expectation):
    kind: Literal["bound"]
    column: str
    methods: list[str] = []
    max: float | None = None
    min: float | None = None
    h_range: StepRange | None = None


def _bounded(item):
    """``item`` if it gives min, max or both, in order (the kinds whose window is [min, max])."""
    if item.min is None and item.max is None:
        raise ValueError(f"a {item.kind} expectation needs min, max or both")
    if item.min is not None and item.max is not None and item.min > item.max:
        raise ValueError(f"min ({item.min:g}) is above max ({item.max:g})")
    return item


class CostRatioExpectation(_Expectation):
    kind: Literal["cost_ratio"]
    method: str
    than: str
    column: str = "cpu_s"
    quantity: str | None = None          # error of the work-precision curves; default the study's first
    at_error: PositiveFloat | None = None
    extrapolate: bool = False            # beyond a curve's end by at most a decade of error
    h_range: StepRange | None = None
    min: PositiveFloat | None = None
    max: PositiveFloat | None = None

    @model_validator(mode="after")
    def _has_a_bound(self):
        return _bounded(self)


class CheapestExpectation(_Expectation):
    kind: Literal["cheapest"]
    methods: Annotated[list[str], Field(min_length=1)]    # the group said to be the cheapest
    at_error: PositiveFloat
    among: list[str] = []                # the rivals; default every other method of the study
    column: str = "cpu_s"
    quantity: str | None = None          # error of the work-precision curves; default the study's first
    min: PositiveFloat | None = None
    max: PositiveFloat | None = None

    @model_validator(mode="after")
    def _has_a_bound(self):
        _bounded(self)
        shared = sorted(set(self.methods) & set(self.among))
        if shared:
            raise ValueError(f"{', '.join(shared)} both in methods and among")
        return self


SERIES_STATISTICS = ("period", "frequency", "max_abs", "range")
"""What a ``series`` expectation measures of an output's time series."""


class SeriesReading(_Strict):
    """The run and output a ``series`` expectation divides by; each field defaults to the expectation's."""

    method: str | None = None
    h: PositiveFloat | None = None
    output: str | None = None


class SeriesExpectation(_Expectation):
    kind: Literal["series"]
    method: str
    h: PositiveFloat
    output: Annotated[str, Field(min_length=1)]          # a column of the run's series file, e.g. com_x
    statistic: Literal[SERIES_STATISTICS]
    t_range: tuple[float, float] | None = None           # the time window (default the whole run)
    than: SeriesReading | None = None
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _has_a_bound(self):
        _bounded(self)
        if self.t_range is not None and not self.t_range[0] < self.t_range[1]:
            raise ValueError(f"t_range: {self.t_range[0]:g} is not below {self.t_range[1]:g}")
        return self


class ParameterFitExpectation(_Expectation):
    kind: Literal["parameter_fit"]
    methods: dict[str, float]            # method -> its value of the parameter
    h: PositiveFloat
    powers: list[Annotated[int, Field(ge=0, le=8)]]       # of the parameter, one coefficient each
    quantity: str | None = None          # default: the study's first error quantity
    max_residual: PositiveFloat | None = None
    min_residual: PositiveFloat | None = None
    coefficients: dict[int, tuple[float, float]] = {}    # power -> [min, max] of its coefficient

    @model_validator(mode="after")
    def _well_posed(self):
        if not self.powers or len(set(self.powers)) != len(self.powers):
            raise ValueError("powers must name each power of the parameter once")
        if len(self.methods) <= len(self.powers):
            raise ValueError(f"{len(self.powers)} powers need more than {len(self.powers)} methods, so that "
                             "the residual says something")
        if self.max_residual is None and self.min_residual is None and not self.coefficients:
            raise ValueError("a parameter_fit expectation needs max_residual, min_residual or coefficients")
        unknown = sorted(set(self.coefficients) - set(self.powers))
        if unknown:
            raise ValueError(f"coefficients of powers {unknown} that are not in powers")
        for power, (low, high) in self.coefficients.items():
            if low > high:
                raise ValueError(f"coefficient of power {power}: min {low:g} is above max {high:g}")
        return self


Expectation = Annotated[Union[OrderExpectation, StatusExpectation, ValueExpectation, LessExpectation,
                              BoundExpectation, CostRatioExpectation, CheapestExpectation,
                              SeriesExpectation, ParameterFitExpectation],
                        Field(discriminator="kind")]


Statistic = tuple[float, float]
"""The smallest and the largest observed value of an expectation's quantity (equal for one value)."""


@dataclass(frozen=True)
class CheckResult:
    expectation: str
    expected: str
    observed: str
    passed: bool
    id: str | None = None                # the expectation's id, if it has one
    statistic: Statistic | None = None   # what ``passed`` was decided on; None: nothing to observe
    key: str = ""                        # ``observation_key`` of the expectation
    complete: bool = True                # False: a method it names has no runs in these results


WINDOW_FIELDS = {"order": ("expected", "tolerance", "at_least"), "value": ("expected", "tolerance"),
                 "less": ("factor", "max_factor"), "bound": ("min", "max"), "cost_ratio": ("min", "max"),
                 "cheapest": ("min", "max"), "series": ("min", "max"),
                 "parameter_fit": ("min_residual", "max_residual"), "fails": (), "succeeds": ()}
"""The fields of each kind that set its window rather than what it observes."""


def window(item) -> Interval:
    """The values of the statistic an expectation passes."""
    if item.kind == "order":
        low = item.expected - item.tolerance
        return Interval(low) if item.at_least else Interval(low, item.expected + item.tolerance)
    if item.kind == "value":
        return Interval(item.expected - item.tolerance, item.expected + item.tolerance)
    if item.kind == "less":
        return Interval(item.factor, math.inf if item.max_factor is None else item.max_factor, low_open=True)
    if item.kind in ("bound", "cost_ratio", "cheapest", "series"):
        return Interval(-math.inf if item.min is None else item.min, math.inf if item.max is None else item.max)
    if item.kind == "parameter_fit":
        return Interval(item.min_residual or 0.0, math.inf if item.max_residual is None else item.max_residual)
    return Interval(1.0, 1.0)       # fails, succeeds: the share of runs with the wanted status


def decide(item, statistic: Statistic | None) -> bool:
    """Whether an observed statistic passes: both its ends inside the expectation's window."""
    if statistic is None:
        return False
    allowed = window(item)
    return allowed.contains(statistic[0]) and allowed.contains(statistic[1])


def observation_key(item) -> str:
    """What an expectation observes, as text: every field but its id, its why and its window. A recorded
    statistic is valid for another expectation with the same key."""
    fields = item.model_dump(mode="json", exclude={"id", "why", *WINDOW_FIELDS[item.kind]})
    return json.dumps(fields, sort_keys=True)


def _result(item, description: str, observed: str, statistic: Statistic | None, extra: bool = True,
            expected: str | None = None) -> CheckResult:
    """The check result of ``item`` with its statistic decided on its window (and ``extra``)."""
    return CheckResult(description, window(item).text if expected is None else expected, observed,
                       decide(item, statistic) and extra, item.id, statistic, observation_key(item))


def _in_range(h: float, h_range) -> bool:
    return h_range is None or h_range[0] * (1 - 1e-9) <= h <= h_range[1] * (1 + 1e-9)


def _method_rows(runs, method: str):
    labels = [method_label(f, i) for f, i in zip(runs["formulation"], runs["integrator"])]
    return runs[[label == method for label in labels]]


def _column(runs, errors, column: str, method: str, study) -> dict[float, float]:
    """{h: value} of a method for a runs.csv column or an ``error:QUANTITY``; NaN where not ok."""
    rows = _method_rows(runs, method)
    if column.startswith("error:"):
        quantity = column.removeprefix("error:")
        measure = next((r.label for r in study.errors if r.quantity == quantity), "norm_at_t_end")
        table = error_table(runs, errors, quantity, measure)
        if method not in table.columns:
            return {}
        return {float(h): float(v) for h, v in table[method].items()}
    if column not in rows.columns:
        return {}
    return {float(h): (float(v) if status == "ok" else math.nan)
            for h, v, status in zip(rows["h"], rows[column], rows["status"])}


def _fmt(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def methods_named(item) -> list[tuple[str, str]]:
    """(field, method) of every method an expectation names: ``method``, ``lower``, ``than`` (a method, or
    the ``than.method`` of a ``series`` expectation), ``methods`` and ``among``."""
    named = [(key, getattr(item, key)) for key in ("method", "lower", "than")
             if isinstance(getattr(item, key, None), str)]
    than = getattr(item, "than", None)
    if isinstance(than, SeriesReading) and than.method is not None:
        named.append(("than.method", than.method))
    for key in ("methods", "among"):
        named += [(f"{key}[{position}]", name) for position, name in enumerate(getattr(item, key, []))]
    return named


def check(study, runs, errors, series=None) -> list[CheckResult]:
    """Evaluate every expectation of ``study`` on the runs.csv / errors.csv DataFrames, and ``series``
    expectations on the time series ``series(run_id)`` returns (a DataFrame, None if the run has none;
    without ``series`` they are not evaluated).

    ``study`` is read as plain data: its ``expectations`` and its ``errors`` (each with ``quantity``
    and ``label``, the errors.csv measure), as the runner's ``Study`` has them.
    """
    runs = with_variants(runs.drop_duplicates("run_id", keep="last"))
    known = {method_label(f, i) for f, i in zip(runs["formulation"], runs["integrator"])}
    results = []
    for item in study.expectations:
        missing = [name for _, name in methods_named(item) if name not in known]
        if missing:
            results.append(replace(_result(item, _describe(item), f"no runs of {', '.join(missing)}", None),
                                   complete=False))
            continue
        if item.kind == "series":
            results.append(_series(item, runs, series))
            continue
        results.append(_EVALUATORS[item.kind](item, study, runs, errors))
    return results


def _describe(item) -> str:
    if item.kind == "order":
        return f"{item.method}: order of {item.quantity or 'error'}"
    if item.kind in ("fails", "succeeds"):
        return f"{item.method} {item.kind} for h in [{item.h_range[0]:g}, {item.h_range[1]:g}]"
    if item.kind == "value":
        return f"{item.method}: {item.column} at h = {item.h:g}"
    if item.kind == "less":
        factor = f"{item.factor:g} x " if item.factor != 1 else ""
        return f"{factor}{item.column} of {item.lower} < {item.than}"
    if item.kind == "parameter_fit":
        return _describe_fit(item, item.quantity or "error")
    if item.kind == "cost_ratio":
        where = (f"at {item.quantity or 'error'} = {item.at_error:g}" if item.at_error is not None
                 else "geometric mean over the common h")
        return f"{item.column} of {item.method} / {item.than}, {where}"
    if item.kind == "series":
        than = item.than
        over = "" if than is None else (f" / the same of {than.output or item.output} of {than.method or item.method}"
                                         f" at h = {than.h or item.h:g}")
        window_text = "" if item.t_range is None else f" over t in [{item.t_range[0]:g}, {item.t_range[1]:g}]"
        return f"{item.statistic} of {item.output} of {item.method} at h = {item.h:g}{window_text}{over}"
    if item.kind == "cheapest":
        return (f"{item.column} of the cheapest of {', '.join(item.among) or 'the other methods'} / the cheapest of "
                f"{', '.join(item.methods)}, at {item.quantity or 'error'} = {item.at_error:g}")
    return f"{item.column} of {', '.join(item.methods) or 'all methods'} within bounds"


def _order(item, study, runs, errors) -> CheckResult:
    quantity = item.quantity or study.errors[0].quantity
    measure = item.measure or next((r.label for r in study.errors if r.quantity == quantity),
                                   study.errors[0].label)
    table = error_table(runs, errors, quantity, measure)
    description = f"{item.method}: order of {quantity} ({measure})"
    expected = (f">= {item.expected - item.tolerance:g}" if item.at_least
                else f"{item.expected:g} +- {item.tolerance:g}")
    if item.method not in table.columns:
        return _result(item, description, "no errors recorded", None, expected=expected)
    values = table[item.method]
    fit = fit_order(values.index.to_numpy(), values.to_numpy(), item.floor, item.h_range)
    if math.isnan(fit.slope) or fit.points < item.min_points:
        return _result(item, description, f"no fit ({fit.points} points; {fit.note or 'too few'})", None,
                       expected=expected)
    observed = f"{fit.slope:.2f} (h {fit.h_min:.3g}..{fit.h_max:.3g}, {fit.points} pts)"
    return _result(item, description, observed, (fit.slope, fit.slope), expected=expected)


def _status(item, study, runs, errors) -> CheckResult:
    rows = _method_rows(runs, item.method)
    rows = rows[[_in_range(h, item.h_range) for h in rows["h"]]]
    want_ok = item.kind == "succeeds"
    wrong = [h for h, status in zip(rows["h"], rows["status"]) if (status == "ok") != want_ok]
    observed = (f"{len(rows)} runs, all {'ok' if want_ok else 'not ok'}" if not wrong and len(rows)
                else f"{'failed' if want_ok else 'ok'} at h = {', '.join(f'{h:g}' for h in wrong)}"
                if wrong else "no runs in range")
    share = 1 - len(wrong) / len(rows) if len(rows) else None
    return _result(item, _describe(item), observed, None if share is None else (share, share),
                   expected="all ok" if want_ok else "all not ok")


def _value(item, study, runs, errors) -> CheckResult:
    values = _column(runs, errors, item.column, item.method, study)
    match = [v for h, v in values.items() if math.isclose(h, item.h, rel_tol=1e-9)]
    observed = match[0] if match else math.nan
    statistic = None if math.isnan(observed) else (observed, observed)
    return _result(item, _describe(item), _fmt(observed), statistic,
                   expected=f"{item.expected:g} +- {item.tolerance:g}")


def _ratio(upper: float, lower: float) -> float:
    """upper / lower, with a positive upper over a zero lower infinitely above any factor."""
    if lower > 0:
        return upper / lower
    return math.inf if upper > 0 and lower == 0 else -math.inf


def _less(item, study, runs, errors) -> CheckResult:
    lower = _column(runs, errors, item.column, item.lower, study)
    upper = _column(runs, errors, item.column, item.than, study)
    common = sorted(h for h in lower if h in upper and _in_range(h, item.h_range)
                    and not math.isnan(lower[h]) and not math.isnan(upper[h]))
    ratios = {h: _ratio(upper[h], lower[h]) for h in common}
    if not ratios:
        return _result(item, _describe(item), "no common h", None)
    allowed = window(item)
    violations = [h for h in common if not allowed.contains(ratios[h])]
    observed = f"ratio {min(ratios.values()):.3g}..{max(ratios.values()):.3g} over {len(common)} h"
    if violations:
        observed += f"; outside at h = {', '.join(f'{h:g}' for h in violations)}"
    return _result(item, _describe(item), observed, (min(ratios.values()), max(ratios.values())))


def _bound(item, study, runs, errors) -> CheckResult:
    methods = item.methods or sorted({method_label(f, i) for f, i in zip(runs["formulation"], runs["integrator"])})
    values = []
    for method in methods:
        values += [v for h, v in _column(runs, errors, item.column, method, study).items()
                   if _in_range(h, item.h_range) and not math.isnan(v)]
    if not values:
        return _result(item, _describe(item), "no values", None)
    low, high = min(values), max(values)
    return _result(item, _describe(item), f"{_fmt(low)}..{_fmt(high)} ({len(values)} runs)", (low, high))


EXTRAPOLATION_DECADES = 1.0
"""How far (in decades of error) ``cost_at_error`` may extend a work-precision curve beyond its end."""


def cost_at_error(h, error, cost, target: float, extrapolate: bool = False) -> tuple[float, str]:
    """Cost of a method at error ``target``, read off its work-precision curve: log cost interpolated
    linearly in log error between the two consecutive step sizes (largest h first) whose errors bracket
    ``target``. With ``extrapolate``, a target at most ``EXTRAPOLATION_DECADES`` beyond the curve's
    end is read off the line through its last two points (the note says so). NaN and the reason when
    neither applies."""
    points = sorted((float(x), float(e), float(c)) for x, e, c in zip(h, error, cost)
                    if e > 0 and c > 0 and math.isfinite(e) and math.isfinite(c))
    points.reverse()
    for (_, e0, c0), (_, e1, c1) in zip(points, points[1:]):
        if min(e0, e1) <= target <= max(e0, e1):
            return _log_line(e0, c0, e1, c1, target), ""
    if not points:
        return math.nan, "no ok runs with an error"
    errors = [e for _, e, _ in points]
    reason = f"errors {min(errors):.3g}..{max(errors):.3g} do not reach {target:g}"
    if not extrapolate or len(points) < 2:
        return math.nan, reason
    coarse, fine = (points[0], points[1]), (points[-1], points[-2])     # each end first
    (_, end, c0), (_, e1, c1) = min(coarse, fine, key=lambda pair: abs(math.log(pair[0][1] / target)))
    if abs(math.log10(end / target)) > EXTRAPOLATION_DECADES or end == e1:
        return math.nan, reason
    return _log_line(end, c0, e1, c1, target), f"extrapolated from {end:.3g}"


def _log_line(e0: float, c0: float, e1: float, c1: float, target: float) -> float:
    """Cost at error ``target`` on the straight line through (e0, c0) and (e1, c1) in log-log."""
    if e0 == e1:
        return min(c0, c1)
    s = (math.log(target) - math.log(e0)) / (math.log(e1) - math.log(e0))
    return math.exp((1 - s) * math.log(c0) + s * math.log(c1))


def _cost_ratio(item, study, runs, errors) -> CheckResult:
    costs = [{h: c for h, c in _column(runs, errors, item.column, m, study).items() if _in_range(h, item.h_range)}
             for m in (item.method, item.than)]
    if item.at_error is None:
        common = sorted(h for h in costs[0] if h in costs[1] and costs[0][h] > 0 and costs[1][h] > 0)
        if not common:
            return _result(item, _describe(item), "no common h with both runs ok", None)
        logs = [math.log(costs[0][h] / costs[1][h]) for h in common]
        ratio = math.exp(sum(logs) / len(logs))
        observed = (f"{ratio:.3g} (per h {math.exp(min(logs)):.3g}..{math.exp(max(logs)):.3g}, "
                    f"{len(common)} h)")
    else:
        quantity = item.quantity or study.errors[0].quantity
        readings = []
        for method, cost in zip((item.method, item.than), costs):
            error = _column(runs, errors, f"error:{quantity}", method, study)
            hs = [h for h in cost if h in error]
            readings.append(cost_at_error(hs, [error[h] for h in hs], [cost[h] for h in hs], item.at_error,
                                          item.extrapolate))
        (numerator, note), (denominator, note_than) = readings
        notes = [f"{m}: {r}" for m, r in ((item.method, note), (item.than, note_than)) if r]
        if math.isnan(numerator) or math.isnan(denominator):
            return _result(item, _describe(item), "; ".join(notes), None)
        ratio = numerator / denominator
        observed = f"{ratio:.3g} ({_fmt(numerator)} / {_fmt(denominator)})" + "".join(f"; {n}" for n in notes)
    return _result(item, _describe(item), observed, (ratio, ratio))


def cost_or_bound(h, error, cost, target: float) -> tuple[float, bool]:
    """A method's cost at error ``target`` and whether it is an upper bound: read off its work-precision
    curve (``cost_at_error``), or, where its coarsest run already beats the target, that run's cost (the
    method would be cheaper still at a larger step). NaN if no run reaches the target."""
    points = [(float(x), float(e), float(c)) for x, e, c in zip(h, error, cost)
              if e > 0 and c > 0 and math.isfinite(e) and math.isfinite(c)]
    if not points or min(e for _, e, _ in points) > target:
        return math.nan, False
    value, _ = cost_at_error(*zip(*points), target)
    if not math.isnan(value):
        return value, False
    return max(points)[2], True


def _cheapest(item, study, runs, errors) -> CheckResult:
    quantity = item.quantity or study.errors[0].quantity
    rivals = item.among or sorted({method_label(f, i) for f, i in zip(runs["formulation"], runs["integrator"])}
                                  - set(item.methods))
    costs = {}
    for method in [*item.methods, *rivals]:
        cost = _column(runs, errors, item.column, method, study)
        error = _column(runs, errors, f"error:{quantity}", method, study)
        hs = [h for h in cost if h in error and not math.isnan(cost[h]) and not math.isnan(error[h])]
        costs[method] = cost_or_bound(hs, [error[h] for h in hs], [cost[h] for h in hs], item.at_error)
    group = [(c, bound, m) for m, (c, bound) in costs.items() if m in item.methods and not math.isnan(c)]
    others = [(c, bound, m) for m, (c, bound) in costs.items() if m not in item.methods and not math.isnan(c)]
    if not group and not others:
        return _result(item, _describe(item), f"no method reaches {item.at_error:g}", None)
    if not group:
        ratio, observed = 0.0, f"none of the group reaches {item.at_error:g}; {min(others)[2]} does"
    elif not others:
        ratio, observed = math.inf, f"no other method reaches {item.at_error:g}"
    else:
        (best, bound, name), (rival, rival_bound, rival_name) = min(group), min(others)
        ratio = rival / best
        observed = (f"{ratio:.3g} ({rival_name} {'<= ' if rival_bound else ''}{_fmt(rival)} / "
                    f"{name} {'<= ' if bound else ''}{_fmt(best)})")
    return _result(item, _describe(item), observed, (ratio, ratio))


def series_statistic(t, x, statistic: str) -> float:
    """``statistic`` (``SERIES_STATISTICS``) of the samples ``x`` at times ``t``; NaN where it is undefined
    (a period needs two zero crossings of x less its mean, found by linear interpolation)."""
    t, x = np.asarray(t, dtype=float), np.asarray(x, dtype=float)
    if x.size == 0 or not np.all(np.isfinite(x)):
        return math.nan
    if statistic == "max_abs":
        return float(np.max(np.abs(x)))
    if statistic == "range":
        return float(np.max(x) - np.min(x))
    y = x - np.mean(x)
    k = np.nonzero(np.signbit(y[:-1]) != np.signbit(y[1:]))[0]
    if k.size < 2:
        return math.nan
    crossings = t[k] - y[k] * (t[k + 1] - t[k]) / (y[k + 1] - y[k])
    period = 2.0 * float(np.mean(np.diff(crossings)))
    return period if statistic == "period" else 1.0 / period


def _series_value(runs, series, method: str, h: float, output: str, statistic: str,
                  t_range) -> tuple[float, str]:
    """The statistic of one output of the ok run of ``method`` at ``h``, and why it is NaN."""
    rows = _method_rows(runs, method)
    rows = rows[[math.isclose(float(x), h, rel_tol=1e-9) for x in rows["h"]]]
    ok = rows[rows["status"] == "ok"]
    if ok.empty:
        return math.nan, f"{method} has no ok run at h = {h:g}"
    frame = series(str(ok["run_id"].iloc[-1]))
    if frame is None or output not in frame.columns:
        return math.nan, f"{method} at h = {h:g}: no series of {output}"
    t, x = frame["t"].to_numpy(dtype=float), frame[output].to_numpy(dtype=float)
    if t_range is not None:
        inside = (t >= t_range[0]) & (t <= t_range[1])
        t, x = t[inside], x[inside]
    value = series_statistic(t, x, statistic)
    return value, "" if math.isfinite(value) else f"{method} at h = {h:g}: no {statistic} of {output}"


def _series(item, runs, series) -> CheckResult:
    if series is None:
        return replace(_result(item, _describe(item), "series not read", None), complete=False)
    value, why = _series_value(runs, series, item.method, item.h, item.output, item.statistic, item.t_range)
    if item.than is not None and not why:
        than = item.than
        divisor, why = _series_value(runs, series, than.method or item.method, than.h or item.h,
                                     than.output or item.output, item.statistic, item.t_range)
        value = value / divisor if not why and divisor != 0 else math.nan
        why = why or ("" if math.isfinite(value) else "division by zero")
    if why:
        return _result(item, _describe(item), why, None)
    return _result(item, _describe(item), _fmt(value), (value, value))


def parameter_fit(parameters, values, powers) -> tuple[np.ndarray, float]:
    """Least-squares coefficients of sum_k c_k p^powers[k] through (parameters, values), and the largest
    residual relative to the largest |value|."""
    p = np.asarray(parameters, dtype=float)
    y = np.asarray(values, dtype=float)
    basis = np.stack([p ** k for k in powers], axis=1)
    coefficients = np.linalg.lstsq(basis, y, rcond=None)[0]
    return coefficients, float(np.max(np.abs(basis @ coefficients - y)) / np.max(np.abs(y)))


def _describe_fit(item, quantity: str) -> str:
    terms = " + ".join(f"c{k} p^{k}" if k > 1 else ("c1 p" if k == 1 else "c0") for k in item.powers)
    return f"{quantity} at h = {item.h:g} as {terms} over {len(item.methods)} methods"


def _parameter_fit(item, study, runs, errors) -> CheckResult:
    quantity = item.quantity or study.errors[0].quantity
    description = _describe_fit(item, quantity)
    points = []
    for method, parameter in item.methods.items():
        match = [v for h, v in _column(runs, errors, f"error:{quantity}", method, study).items()
                 if math.isclose(h, item.h, rel_tol=1e-9) and not math.isnan(v)]
        if match:
            points.append((parameter, match[0]))
    bounds = [f"residual {window(item).text}"]
    bounds += [f"c{k} in [{low:g}, {high:g}]" for k, (low, high) in sorted(item.coefficients.items())]
    expected = " and ".join(bounds)
    if len(points) <= len(item.powers):
        return _result(item, description, f"{len(points)} methods ran ok at h = {item.h:g}", None,
                       expected=expected)
    coefficients, residual = parameter_fit(*zip(*points), item.powers)
    fitted = dict(zip(item.powers, (float(c) for c in coefficients)))
    within = all(low <= fitted[k] <= high for k, (low, high) in item.coefficients.items())
    terms = ", ".join(f"c{k} = {c:.3g}" for k, c in fitted.items())
    return _result(item, description, f"{terms}; residual {residual:.2g} ({len(points)} methods)",
                   (residual, residual), within, expected)


_EVALUATORS = {"order": _order, "fails": _status, "succeeds": _status, "value": _value, "less": _less,
               "bound": _bound, "cost_ratio": _cost_ratio, "cheapest": _cheapest,
               "parameter_fit": _parameter_fit}
