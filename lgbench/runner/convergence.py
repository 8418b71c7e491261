"""Convergence: observed order of accuracy and error tables (step size x method)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ROUND_OFF_FLOOR = 1e-12
"""Errors at or below this are treated as round-off and left out of order fits."""


@dataclass(frozen=True)
class OrderFit:
    slope: float       # least-squares slope of log(error) over log(h); NaN if not fitted
    h_min: float       # smallest step size used (NaN if none)
    h_max: float       # largest step size used (NaN if none)
    points: int        # number of (h, error) points used
    note: str = ""     # why there is no slope, if there is none

    def label(self) -> str:
        return "–" if math.isnan(self.slope) else f"{self.slope:.2f}"


def fit_order(h, err, floor: float = ROUND_OFF_FLOOR) -> OrderFit:
    """Slope of log(err) over log(h) using the finite points with err > floor and h > 0."""
    h = np.asarray(h, dtype=float)
    err = np.asarray(err, dtype=float)
    used = np.isfinite(h) & np.isfinite(err) & (h > 0) & (err > floor)
    count = int(used.sum())
    if count < 2 or np.unique(h[used]).size < 2:
        note = (f"only {count} point(s) above the round-off floor {floor:g}"
                if count < 2 else "all usable points share one step size")
        return OrderFit(math.nan, math.nan, math.nan, count, note)
    slope = np.polyfit(np.log(h[used]), np.log(err[used]), 1)[0]
    return OrderFit(float(slope), float(h[used].min()), float(h[used].max()), count)


def with_variants(runs):
    """runs.csv rows with each integrator variant shown as ``integrator.label`` (tables, figures)."""
    if "variant" not in runs.columns:
        return runs
    runs = runs.copy()
    variant = runs["variant"].astype("string").fillna("").astype(str)
    labelled = variant != ""
    runs.loc[labelled, "integrator"] = runs.loc[labelled, "integrator"].astype(str) + "." + variant[labelled]
    return runs


def implicit_runs(runs):
    """The rows of implicit integrators (they carry Newton statistics); ``integrator.label`` allowed."""
    from lgbench.integrators import INTEGRATORS

    def implicit(name: str) -> bool:
        entry = INTEGRATORS.get(name) or INTEGRATORS.get(name.split(".")[0])
        return entry is not None and entry.kind == "implicit"

    return runs[[implicit(str(name)) for name in runs["integrator"]]]


def method_label(formulation: str, integrator: str) -> str:
    return f"{formulation}-{integrator}"


def error_table(runs, errors, quantity: str, measure: str):
    """Errors of one quantity/measure as a DataFrame: rows h (largest first), columns methods.

    ``runs`` and ``errors`` are the DataFrames of runs.csv and errors.csv. Runs without an error
    value (failed, or not yet done) are NaN cells. Methods keep their order of appearance.
    """
    import pandas as pd

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
