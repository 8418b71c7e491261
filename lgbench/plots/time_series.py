"""Time histories of the reference run's outputs (e.g. paper 000 Fig. 15), from series/*.csv only."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lgbench.store import read_frame

ANGLE_HINTS = ("angle", "phi")
"""Outputs whose names contain these are angles: drawn unwrapped (continuous through +-pi)."""


def draw_reference_series(results_dir: Path, figures: Path, max_panels: int = 6) -> Path | None:
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
    figure.suptitle(f"Reference run: time histories ({results_dir.name})")
    target = figures / "reference_time_series.png"
    figure.savefig(target, dpi=110)
    return target
