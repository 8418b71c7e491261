"""Convergence, CPU-time, Newton-iteration and work-precision figures, from runs.csv and errors.csv only.

Colour encodes the formulation, marker and line style the integrator (``plots.style``). Failed runs
appear as hollow markers on the lower edge of the axes at their step size.
"""
from __future__ import annotations

import math
from pathlib import Path

from lgbench.analysis.convergence import OrderFit, fitted_orders, method_label
from lgbench.plots.style import Styles, finish, log_axes, mark_failures, slope_triangle

NO_RESULT = "no successful run"
MAX_TRIANGLES = 4
TRIANGLE_TOLERANCE = 0.35
"""A fitted slope within this of an integer order gets a reference triangle of that order."""


def methods(runs):
    """(formulation, integrator, rows sorted by h) per method, in order of appearance."""
    for (formulation, integrator), rows in runs.groupby(["formulation", "integrator"], sort=False):
        yield formulation, integrator, rows.sort_values("h")


def title(runs, what: str) -> str:
    model = ", ".join(dict.fromkeys(runs["model"].astype(str)))
    t_end = ", ".join(f"{value:g}" for value in dict.fromkeys(runs["t_end"]))
    return f"{what} — {model}, t_end = {t_end}"


def failed_steps(rows) -> list[float]:
    return list(rows.loc[rows["status"] != "ok", "h"])


def slope_note(fit: OrderFit) -> str:
    """'slope 3.98, h 1.6e-06…0.0001' or why there is none."""
    if math.isnan(fit.slope):
        return f"no slope: {fit.points} point(s) above round-off" if fit.points < 2 else "no slope"
    return f"slope {fit.slope:.2f}, h {fit.h_min:.2g}…{fit.h_max:.2g}"


def convergence(runs, table, quantity: str, measure: str, styles: Styles, path: Path, fmt: str) -> Path:
    """Error against h, one line per method, fitted slopes and their h range in the legend, reference
    triangles for the integer orders observed (paper 000 Figs. 3, 6, 11, 16, 20)."""
    figure, axes = log_axes("step size h", f"error in {quantity} ({measure})",
                            title(runs, f"Convergence of {quantity}"))
    fits = fitted_orders(table)
    failures = []
    anchors: dict[int, tuple[float, float]] = {}
    for formulation, integrator, rows in methods(runs):
        label = method_label(formulation, integrator)
        values = table[label].dropna()
        values = values[values > 0]
        style = styles.line(formulation, integrator)
        fit = fits[label]
        note = slope_note(fit) if len(values) else NO_RESULT
        axes.plot(values.index, values.to_numpy(), **style, label=f"{formulation} {integrator} ({note})")
        if failed_steps(rows):
            failures.append((failed_steps(rows), style))
        order = round(fit.slope) if not math.isnan(fit.slope) else 0
        if order >= 1 and fit.points >= 3 and abs(fit.slope - order) <= TRIANGLE_TOLERANCE \
                and order not in anchors and len(anchors) < MAX_TRIANGLES:
            anchors[order] = (fit.h_max, float(values.get(fit.h_max, math.nan)))
    for order, (h, error) in sorted(anchors.items()):
        if math.isfinite(error) and error > 0:
            slope_triangle(axes, order, h, error)
    return finish(figure, axes, mark_failures(axes, failures), path, fmt)


def per_run_quantity(runs, styles: Styles, column: str, ylabel: str, what: str, path: Path, fmt: str,
                     log_y: bool = True, spread: str | None = None) -> Path:
    """A runs.csv column against h, one line per method, failed runs marked; with ``spread`` (a column
    of relative spreads) a bar from each value up to value x (1 + spread)."""
    figure, axes = log_axes("step size h", ylabel, title(runs, what), log_y=log_y)
    failures = []
    for formulation, integrator, rows in methods(runs):
        style = styles.line(formulation, integrator)
        done = rows[(rows["status"] == "ok") & (rows[column] > 0)]
        note = "" if len(done) else f" ({NO_RESULT})"
        line, = axes.plot(done["h"], done[column], **style, label=f"{formulation} {integrator}{note}")
        extent = _spread(done, spread)
        if extent is not None:
            values = done[column].to_numpy()
            axes.errorbar(done["h"], values, yerr=[0 * values, values * extent], fmt="none",
                          ecolor=line.get_color(), elinewidth=0.8, capsize=2)
        if failed_steps(rows):
            failures.append((failed_steps(rows), style))
    return finish(figure, axes, mark_failures(axes, failures), path, fmt)


def cpu_time(runs, styles: Styles, path: Path, fmt: str) -> Path:
    """CPU time of each run against h (paper 000 Figs. 4, 8, 12, 17, 21); a bar up to the slowest of a
    run's timed repeats (``cpu_spread``)."""
    return per_run_quantity(runs, styles, "cpu_s", "CPU time [s]", "CPU time", path, fmt, spread="cpu_spread")


def _spread(rows, spread: str | None):
    """Upward extent of the bars (value times the recorded relative spread), or None without one."""
    if spread is None or spread not in rows.columns or not (rows[spread].fillna(0) > 0).any():
        return None
    return rows[spread].fillna(0.0).to_numpy()


def newton_iterations(runs, styles: Styles, path: Path, fmt: str) -> Path:
    """Average Newton iterations per step against h (paper 000 Tables 4, 5, 7, Figs. 7, 17, 21)."""
    return per_run_quantity(runs, styles, "newton_per_step", "Newton iterations per step",
                            "Average Newton iterations per step", path, fmt, log_y=False)


def work_precision(runs, table, quantity: str, measure: str, styles: Styles, path: Path, fmt: str) -> Path:
    """Error against CPU time (paper 000 Figs. 5, 13); a bar to the slowest of a run's timed repeats."""
    figure, axes = log_axes("CPU time [s]", f"error in {quantity} ({measure})",
                            title(runs, f"Work-precision, {quantity}"))
    for formulation, integrator, rows in methods(runs):
        values = table[method_label(formulation, integrator)]
        done = rows[rows["status"] == "ok"]
        spreads = _spread(done, "cpu_spread")
        spreads = [0.0] * len(done) if spreads is None else list(spreads)
        points = [(cpu, values.get(h, math.nan), extent)
                  for h, cpu, extent in zip(done["h"], done["cpu_s"], spreads)]
        points = sorted((cpu, error, extent) for cpu, error, extent in points if cpu > 0 and error > 0)
        cpu, error, extent = zip(*points) if points else ((), (), ())
        note = "" if points else f" ({NO_RESULT})"
        line, = axes.plot(cpu, error, **styles.line(formulation, integrator),
                          label=f"{formulation} {integrator}{note}")
        if any(extent):
            axes.errorbar(cpu, error, xerr=[[0.0] * len(cpu), [c * e for c, e in zip(cpu, extent)]], fmt="none",
                          ecolor=line.get_color(), elinewidth=0.8, capsize=2)
    return finish(figure, axes, [], path, fmt)
