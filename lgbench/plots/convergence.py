"""Convergence, CPU-time and work-precision figures, drawn from a result folder's CSV files only.

Colour encodes the formulation, marker and line style the integrator. Failed runs appear as
hollow markers on the lower edge of the axes at their step size.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from lgbench.exceptions import InputError
from lgbench.runner.convergence import error_table, fitted_orders, implicit_runs, method_label, with_variants
from lgbench.store import read_frame

FORMULATION_COLOURS = {"RV": "tab:blue", "Rxyz": "tab:orange", "EP": "tab:green", "EP-F1": "tab:cyan",
                       "F1": "tab:red", "SE3": "tab:purple", "Min": "tab:brown"}
INTEGRATOR_STYLES = {"RK44": ("o", "-"), "DOPRI5": ("s", "--"), "ODE23": ("v", ":"), "RK67": ("^", "-.")}
_SPARE_COLOURS = ["tab:pink", "tab:olive", "tab:gray"]
_NO_RESULT = "no successful run"
_SPARE_STYLES = [("D", "-"), ("P", "--"), ("X", "-."), ("*", ":"), ("h", "-"), ("<", "--")]


class _Styles:
    """Colour per formulation and (marker, line style) per integrator, stable within a figure set."""

    def __init__(self, formulations: list[str], integrators: list[str]):
        spare = itertools.cycle(_SPARE_COLOURS)
        self.colours = {name: FORMULATION_COLOURS.get(name) or next(spare) for name in formulations}
        spare_styles = itertools.cycle(_SPARE_STYLES)
        self.styles = {name: INTEGRATOR_STYLES.get(name) or next(spare_styles) for name in integrators}

    def line(self, formulation: str, integrator: str) -> dict:
        marker, linestyle = self.styles[integrator]
        return {"color": self.colours[formulation], "marker": marker, "linestyle": linestyle}


def draw_figures(results_dir: str | Path) -> list[Path]:
    """Draw every figure of a result folder into ``results_dir/figures``; return their paths."""
    results_dir = Path(results_dir)
    runs_path = results_dir / "runs.csv"
    if not runs_path.exists():
        raise InputError("no runs.csv here: not a result folder (run 'lgbench run STUDY.yaml' first)",
                         file=str(results_dir))
    runs = read_frame(runs_path)
    if runs.empty:
        raise InputError("runs.csv has no complete rows yet", file=str(runs_path))
    runs = with_variants(runs.drop_duplicates("run_id", keep="last"))
    errors_path = results_dir / "errors.csv"
    errors = read_frame(errors_path) if errors_path.exists() else None
    figures = results_dir / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    styles = _Styles(list(dict.fromkeys(runs["formulation"])), list(dict.fromkeys(runs["integrator"])))
    paths = []
    if errors is not None and not errors.empty:
        pairs = list(dict.fromkeys(zip(errors["quantity"], errors["measure"])))
        for quantity, measure in pairs:
            several = sum(q == quantity for q, _ in pairs) > 1
            suffix = f"{quantity}_{measure}" if several else quantity
            table = error_table(runs, errors, quantity, measure)
            paths.append(_convergence(runs, table, quantity, measure, styles,
                                      figures / f"convergence_{suffix}.png"))
            paths.append(_work_precision(runs, table, quantity, measure, styles,
                                         figures / f"work_precision_{suffix}.png"))
    paths.append(_cpu_time(runs, styles, figures / "cpu_time.png"))
    if "newton_per_step" in runs.columns and runs["newton_per_step"].notna().any():
        paths.append(_newton_iterations(implicit_runs(runs), styles, figures / "newton_iterations.png"))
    from lgbench.plots.time_series import draw_reference_series, draw_series_plots

    series_figure = draw_reference_series(results_dir, figures)
    if series_figure is not None:
        paths.append(series_figure)
    paths.extend(draw_series_plots(results_dir, figures))
    return paths


def _methods(runs):
    """(formulation, integrator, rows) per method, in order of appearance."""
    for (formulation, integrator), rows in runs.groupby(["formulation", "integrator"], sort=False):
        yield formulation, integrator, rows.sort_values("h")


def _title(runs, what: str) -> str:
    model = ", ".join(dict.fromkeys(runs["model"].astype(str)))
    t_end = ", ".join(f"{value:g}" for value in dict.fromkeys(runs["t_end"]))
    return f"{what} — {model}, t_end = {t_end}"


def _axes(xlabel: str, ylabel: str, title: str):
    figure = Figure(figsize=(7.5, 5.5), layout="constrained")
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=10)
    axes.grid(True, which="major", alpha=0.3)
    return figure, axes


def _mark_failures(axes, failures: list[tuple[list[float], dict]]) -> list[Line2D]:
    """Hollow markers on the lower axes edge (one row per method); a legend entry if any.

    The y range is first extended downwards so that the markers' band holds no data.
    """
    if failures:
        low, high = axes.get_ylim()
        band = 0.03 + 0.035 * len(failures)
        axes.set_ylim(low * (low / high) ** (band / (1 - band)), high)
    transform = axes.get_xaxis_transform()
    for row, (steps, style) in enumerate(failures):
        axes.plot(steps, [0.03 + 0.035 * row] * len(steps), transform=transform, linestyle="none",
                  marker=style["marker"], markerfacecolor="none", markeredgecolor=style["color"],
                  markersize=7, clip_on=False)
    if not failures:
        return []
    return [Line2D([], [], linestyle="none", marker="o", markerfacecolor="none", markeredgecolor="gray",
                   label="failed run (at its h, lower edge)")]


def _finish(figure: Figure, axes, extra_handles: list[Line2D], path: Path) -> Path:
    handles, _ = axes.get_legend_handles_labels()
    axes.legend(handles=handles + extra_handles, fontsize=8, loc="best", ncol=2 if len(handles) > 8 else 1)
    figure.savefig(path, dpi=130)
    return path


def _failed(rows) -> list[float]:
    return list(rows.loc[rows["status"] != "ok", "h"])


def _convergence(runs, table, quantity, measure, styles, path: Path) -> Path:
    figure, axes = _axes("step size h", f"error in {quantity} ({measure})",
                         _title(runs, f"Convergence of {quantity}"))
    fits = fitted_orders(table)
    failures = []
    for formulation, integrator, rows in _methods(runs):
        label = method_label(formulation, integrator)
        values = table[label].dropna()
        values = values[values > 0]
        style = styles.line(formulation, integrator)
        note = f"slope {fits[label].label()}" if len(values) else _NO_RESULT
        axes.plot(values.index, values.to_numpy(), **style, label=f"{formulation} {integrator} ({note})")
        if _failed(rows):
            failures.append((_failed(rows), style))
    return _finish(figure, axes, _mark_failures(axes, failures), path)


def _per_run_quantity(runs, styles, column: str, ylabel: str, title: str, path: Path,
                      log_y: bool = True) -> Path:
    """A runs.csv column against h, one line per method, failed runs marked."""
    figure, axes = _axes("step size h", ylabel, _title(runs, title))
    if not log_y:
        axes.set_yscale("linear")
    failures = []
    for formulation, integrator, rows in _methods(runs):
        style = styles.line(formulation, integrator)
        done = rows[(rows["status"] == "ok") & (rows[column] > 0)]
        note = "" if len(done) else f" ({_NO_RESULT})"
        axes.plot(done["h"], done[column], **style, label=f"{formulation} {integrator}{note}")
        if _failed(rows):
            failures.append((_failed(rows), style))
    return _finish(figure, axes, _mark_failures(axes, failures), path)


def _cpu_time(runs, styles, path: Path) -> Path:
    return _per_run_quantity(runs, styles, "cpu_s", "CPU time [s]", "CPU time", path)


def _newton_iterations(runs, styles, path: Path) -> Path:
    return _per_run_quantity(runs, styles, "newton_per_step", "Newton iterations per step",
                             "Average Newton iterations per step", path, log_y=False)


def _work_precision(runs, table, quantity, measure, styles, path: Path) -> Path:
    figure, axes = _axes("CPU time [s]", f"error in {quantity} ({measure})",
                         _title(runs, f"Work-precision, {quantity}"))
    for formulation, integrator, rows in _methods(runs):
        values = table[method_label(formulation, integrator)]
        done = rows[rows["status"] == "ok"]
        points = [(cpu, values.get(h, math.nan)) for h, cpu in zip(done["h"], done["cpu_s"])]
        points = [(cpu, error) for cpu, error in points if cpu > 0 and error > 0]
        cpu, error = zip(*sorted(points)) if points else ((), ())
        note = "" if points else f" ({_NO_RESULT})"
        axes.plot(cpu, error, **styles.line(formulation, integrator),
                  label=f"{formulation} {integrator}{note}")
    return _finish(figure, axes, [], path)
