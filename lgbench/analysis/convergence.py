"""Convergence: observed order of accuracy, error tables (step size x method) and their labels."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ROUND_OFF_FLOOR = 1e-13
"""Errors at or below this never enter an order fit: for quantities of order one, about 450 unit
round-offs, where double precision results stop converging (heavy top, spinning body: 2e-14 to 1.2e-13).
A backstop only: the round-off plateau itself is found from the errors (``round_off_plateau``)."""


@dataclass(frozen=True)
class OrderFit:
    slope: float       # least-squares slope of log(error) over log(h); NaN if not fitted
    h_min: float       # smallest step size used (NaN if none)
    h_max: float       # largest step size used (NaN if none)
    points: int        # number of (h, error) points used
    note: str = ""     # why there is no slope, if there is none

    def label(self) -> str:
        return "–" if math.isnan(self.slope) else f"{self.slope:.2f}"


PLATEAU_SLOPE = 0.5
"""A segment at the small-h end whose slope is below this is a plateau (the error stops decreasing as h
decreases: round-off, or a solver tolerance), not convergence."""

PLATEAU_MARGIN = 5.0
"""A point above a plateau enters the fit only if its error exceeds the plateau's largest error this many
times: the plateau's noise then changes its error by at most 20 %, the slope between neighbouring
steps (h ratio 2) by at most about 0.3, a fit over more points by less."""

WINDOW_TOLERANCE = 0.5
"""A larger-h segment joins the fit while its slope is within this of the fit so far."""


def round_off_plateau(h, err) -> float:
    """The level of the plateau at the small-h end of ``err`` (sorted by increasing ``h``): the largest
    error of the leading points whose segment slopes stay below PLATEAU_SLOPE. 0 if the error already
    decreases between the two smallest steps, or if it decreases nowhere (no plateau then, but a method
    that does not converge, whose slope the fit shows)."""
    log_h, log_e = np.log(h), np.log(err)
    slopes = np.diff(log_e) / np.diff(log_h)
    end = 0
    while end < slopes.size and slopes[end] < PLATEAU_SLOPE - 1e-9:    # an order of exactly 0.5 converges
        end += 1
    return float(np.max(err[: end + 1])) if 0 < end < len(h) - 1 else 0.0


def fit_order(h, err, floor: float = ROUND_OFF_FLOOR, h_range: tuple[float, float] | None = None,
              window: bool = True) -> OrderFit:
    """Observed order: slope of log(err) over log(h), fitted where it means something.

    Points must be finite, positive, above ``floor`` and inside ``h_range``. With ``window`` a plateau
    at the smallest step sizes (``round_off_plateau``) is left out together with every point within
    PLATEAU_MARGIN of its level; the fit then starts at the smallest remaining step and extends towards
    larger h while each new segment's slope stays within WINDOW_TOLERANCE of the fit so far, so that a
    pre-asymptotic range at large h is left out. The h range actually used is reported.
    """
    h = np.asarray(h, dtype=float)
    err = np.asarray(err, dtype=float)
    used = np.isfinite(h) & np.isfinite(err) & (h > 0) & (err > 0)
    if h_range is not None:
        used &= (h >= h_range[0] * (1 - 1e-9)) & (h <= h_range[1] * (1 + 1e-9))
    order = np.argsort(h[used])
    hs, es = h[used][order], err[used][order]
    level = round_off_plateau(hs, es) if window and np.unique(hs).size == hs.size else 0.0
    above = es > max(floor, PLATEAU_MARGIN * level)
    hs, es = hs[above], es[above]
    count = hs.size
    if count < 2 or np.unique(hs).size < 2:
        limit = (f"{PLATEAU_MARGIN:g} x the plateau at {level:.2g}" if PLATEAU_MARGIN * level > floor
                 else f"the round-off floor {floor:g}")
        note = f"only {count} point(s) above {limit}" if count < 2 else "all usable points share one step size"
        return OrderFit(math.nan, math.nan, math.nan, count, note)
    if window:
        hs, es = _asymptotic_window(np.log(hs), np.log(es), hs, es)
    slope = np.polyfit(np.log(hs), np.log(es), 1)[0]
    return OrderFit(float(slope), float(hs.min()), float(hs.max()), int(hs.size))


def _asymptotic_window(log_h, log_e, hs, es):
    """The contiguous range of the points (sorted by h) that behaves like one power law: the first
    start from the small-h end, past any round-off plateau, whose window holds at least three points
    (else the first two-point window), so that a kink in a plateau does not pass for convergence."""
    def segment(k: int) -> float:
        return (log_e[k + 1] - log_e[k]) / (log_h[k + 1] - log_h[k])

    def window_end(start: int) -> int:
        end = start + 2
        while end < hs.size:
            fit = np.polyfit(log_h[start:end], log_e[start:end], 1)[0]
            if abs(segment(end - 1) - fit) > WINDOW_TOLERANCE:
                break
            end += 1
        return end

    first = None
    for start in range(hs.size - 1):
        if segment(start) < PLATEAU_SLOPE and hs.size - start > 2:
            continue
        end = window_end(start)
        if end - start >= 3:
            return hs[start:end], es[start:end]
        first = first or (start, end)
    start, end = first or (hs.size - 2, hs.size)
    return hs[start:end], es[start:end]


def with_variants(runs):
    """runs.csv rows with each integrator variant shown as ``integrator.label`` (tables, figures)."""
    if "variant" not in runs.columns:
        return runs
    runs = runs.copy()
    variant = runs["variant"].astype("string").fillna("").astype(str)
    labelled = variant != ""
    runs.loc[labelled, "integrator"] = runs.loc[labelled, "integrator"].astype(str) + "." + variant[labelled]
    return runs


def method_label(formulation: str, integrator: str) -> str:
    """The column name of a method in tables and figures: ``formulation-integrator[.label]``."""
    return f"{formulation}-{integrator}"


def format_step(h: float) -> str:
    """A step size as short scientific text: 1e-04, 2.5e-05, 3.90625e-06."""
    mantissa, exponent = f"{h:.10e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{exponent}"


def error_table(runs, errors, quantity: str, measure: str):
    """Errors of one quantity/measure as a DataFrame: rows h (largest first), columns methods.

    ``runs`` and ``errors`` are the DataFrames of runs.csv and errors.csv. Runs without an error
    value (failed, or not yet done) are NaN cells. Methods keep their order of appearance.
    """
    runs = runs.drop_duplicates("run_id", keep="last")
    selected = errors[(errors["quantity"] == quantity) & (errors["measure"] == measure)]
    selected = selected.drop_duplicates("run_id", keep="last")[["run_id", "value"]]
    merged = runs.merge(selected, on="run_id", how="left")
    merged.loc[merged["status"] != "ok", "value"] = math.nan
    merged["method"] = [method_label(f, i) for f, i in zip(merged["formulation"], merged["integrator"])]
    table = merged.pivot_table(index="h", columns="method", values="value", aggfunc="last", dropna=False)
    methods = list(dict.fromkeys(merged["method"]))
    return table.reindex(columns=methods).sort_index(ascending=False).rename_axis(columns=None)


def fitted_orders(table, floor: float = ROUND_OFF_FLOOR) -> dict[str, OrderFit]:
    """One order fit per column of an ``error_table``."""
    return {method: fit_order(table.index.to_numpy(), table[method].to_numpy(), floor)
            for method in table.columns}
