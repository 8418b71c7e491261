"""Time histories and trajectories of model outputs, from runs.csv, series/*.csv and the study copy only.

- the reference run's outputs over time (e.g. paper 000 Figs. 15, 19);
- the study's ``series_plots``: outputs of chosen methods over time, their difference to the
  reference, residuals on a log axis (paper 002 Figs. 7, 9, 10; paper 004 Figs. 5, 8), or one output
  against another (``against``: a trajectory, e.g. the rotor's p1 in the y-z plane, paper 000 Fig. 10).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lgbench.plots.style import literal_text, save

from lgbench.store import read_frame

ANGLE_HINTS = ("angle", "phi")
"""Outputs whose names contain these are angles: drawn unwrapped (continuous through +-pi)."""


def draw_reference_series(results_dir: Path, figures: Path, fmt: str = "png", max_panels: int = 6) -> Path | None:
    """One panel per output of series/reference.csv (the first ``max_panels``); None without series."""
    path = results_dir / "series" / "reference.csv"
    if not path.exists():
        return None
    series = read_frame(path)
    columns = [c for c in series.columns if c != "t"][:max_panels]
    if series.empty or not columns:
        return None
    rows = math.ceil(len(columns) / 2)
    figure = Figure(figsize=(10, 2.6 * rows), layout="constrained")
    axes = figure.subplots(rows, 2, squeeze=False).ravel()
    t = series["t"].to_numpy()
    for ax, name in zip(axes, columns):
        values = series[name].to_numpy()
        if any(hint in name for hint in ANGLE_HINTS):
            values = np.unwrap(values)
        ax.plot(t, values, color="tab:blue")
        ax.set_xlabel("t [s]")
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    for ax in axes[len(columns):]:
        ax.set_visible(False)
    figure.suptitle(f"Reference run: time histories ({literal_text(results_dir.name)})")
    return save(figure, figures / "reference_time_series", fmt)


def _method_names(runs) -> list[str]:
    return [f"{f}-{i}" + (f".{v}" if isinstance(v, str) and v else "")
            for f, i, v in zip(runs["formulation"], runs["integrator"], runs["variant"].astype(object).fillna(""))]


def study_copy(results_dir: Path) -> dict:
    """The study as ``lgbench run`` kept it in the result folder (``study.yaml``); {} without one."""
    import yaml

    path = results_dir / "study.yaml"
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.exists() else {}


def draw_series_plots(results_dir: Path, figures: Path, fmt: str = "png",
                      trajectories: bool | None = None) -> list[Path]:
    """The ``series_plots`` of the study copy in ``results_dir``: outputs over time (or against another
    output), one line per method at one step size. ``trajectories`` True/False draws only the plots
    with/without ``against``; None draws all."""
    runs_path = results_dir / "runs.csv"
    if not runs_path.exists():
        return []
    requests = study_copy(results_dir).get("series_plots") or []
    if not requests:
        return []
    runs = read_frame(runs_path).drop_duplicates("run_id", keep="last")
    if "variant" not in runs.columns:
        runs["variant"] = ""
    runs = runs.assign(method=_method_names(runs))
    reference_path = results_dir / "series" / "reference.csv"
    reference = read_frame(reference_path) if reference_path.exists() else None
    paths = []
    for number, request in enumerate(requests, start=1):
        if trajectories is not None and bool(request.get("against")) != trajectories:
            continue
        path = _series_plot(results_dir, figures, runs, reference, request, number, fmt)
        if path is not None:
            paths.append(path)
    return paths


def _abscissa(frame, against: str | None):
    return frame[against].to_numpy() if against else frame["t"].to_numpy()


def _series_plot(results_dir: Path, figures: Path, runs, reference, request: dict, number: int,
                 fmt: str) -> Path | None:
    outputs = list(request["outputs"])
    h = request.get("h") or float(runs["h"].max())
    chosen = runs[(abs(runs["h"] - h) <= 1e-9 * h)]
    if request.get("methods"):
        chosen = chosen[chosen["method"].isin(request["methods"])]
    difference = bool(request.get("difference"))
    logarithmic = bool(request.get("log"))
    against = request.get("against") or None
    if difference and reference is None:
        return None
    rows = math.ceil(len(outputs) / 2) if len(outputs) > 1 else 1
    columns = 2 if len(outputs) > 1 else 1
    width, height = (5.0, 5.0) if against else (5.5, 3.0)
    figure = Figure(figsize=(width * columns, height * rows + 0.4), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    drawn = False
    for ax, name in zip(axes, outputs):
        if logarithmic:
            ax.set_yscale("log")
        if reference is not None and not difference and name in reference.columns:
            values = reference[name].to_numpy()
            if logarithmic:
                values = np.where(np.abs(values) > 0.0, np.abs(values), np.nan)   # log axis: zeros are gaps
            if against:     # samples as dots: a fast oscillation between samples is not drawn as lines
                ax.plot(_abscissa(reference, against), values, ".", color="black", markersize=4, alpha=0.3,
                        label="reference")
            else:
                ax.plot(_abscissa(reference, against), values, color="black", linewidth=2.2, alpha=0.35,
                        label="reference")
        for _, run in chosen.iterrows():
            path = results_dir / "series" / f"{run['run_id']}.csv"
            if not path.exists():
                continue
            series = read_frame(path)
            if name not in series.columns or (against and against not in series.columns):
                continue
            values = series[name].to_numpy()
            x = _abscissa(series, against)
            if difference:
                n = min(len(values), len(reference))
                values = values[:n] - reference[name].to_numpy()[:n]
                x = x[:n]
            suffix = "" if run["status"] == "ok" else f" ({run['status']})"
            if logarithmic:
                values = np.where(np.abs(values) > 0.0, np.abs(values), np.nan)   # log axis: zeros are gaps
            style = {"linestyle": "none", "marker": ".", "markersize": 1.5} if against else {"linewidth": 1.2}
            ax.plot(x, values, **style, label=f"{run['method']}{suffix}")
            drawn = True
        ax.set_xlabel(against or "t [s]")
        label = f"{name} - reference" if difference else name
        ax.set_ylabel(f"|{label}|" if logarithmic else label)
        if against:
            ax.set_aspect("equal", adjustable="datalim")
        ax.grid(True, alpha=0.3)
    for ax in axes[len(outputs):]:
        ax.set_visible(False)
    if not drawn:
        return None
    axes[0].legend(fontsize=8, markerscale=4 if against else 1)
    what = f"against {against}" if against else "over time"
    title = request.get("title") or f"{', '.join(outputs)} {what}"
    figure.suptitle(f"{title}\n(h = {h:g}; {literal_text(results_dir.name)})", fontsize=10)
    kind = "trajectory" if against else ("difference" if difference else "series")
    return save(figure, figures / f"{kind}_{number}_{'_'.join(outputs)[:60]}", fmt)
