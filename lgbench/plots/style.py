"""One look for every figure: colour per formulation, marker and line style per integrator, log axes,
failed runs as hollow markers, reference slope triangles."""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from lgbench.store import atomic

FORMULATION_COLOURS = {"RV": "tab:blue", "Rxyz": "tab:orange", "EP": "tab:green", "EP-F1": "tab:cyan",
                       "F1": "tab:red", "SE3": "tab:purple", "Min": "tab:brown"}
INTEGRATOR_STYLES = {"RK44": ("o", "-"), "DOPRI5": ("s", "--"), "ODE23": ("v", ":"), "RK67": ("^", "-.")}
_SPARE_COLOURS = ["tab:pink", "tab:olive", "tab:gray", "tab:red", "tab:cyan"]
_SPARE_STYLES = [("D", "-"), ("P", "--"), ("X", "-."), ("*", ":"), ("h", "-"), ("<", "--"), (">", "-."),
                 ("p", ":")]
FORMATS = ("png", "pdf", "svg")
LEGEND_CHARACTERS_PER_COLUMN = 52
"""Legends below the axes use two columns while their longest label fits half the figure width."""
DPI = 130


_INTEGRATOR_COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                       "tab:gray", "tab:olive", "tab:cyan", "black", "gold"]


class Styles:
    """Colour per formulation and (marker, line style) per integrator, stable within a figure set.

    With a single formulation the colour tells the integrators (and their variants) apart instead.
    """

    def __init__(self, formulations: list[str], integrators: list[str]):
        spare = itertools.cycle(_SPARE_COLOURS)
        self.colours = {name: FORMULATION_COLOURS.get(name) or next(spare) for name in formulations}
        spare_styles = itertools.cycle(_SPARE_STYLES)
        self.styles = {name: INTEGRATOR_STYLES.get(name) or next(spare_styles) for name in integrators}
        self.by_integrator = len(formulations) == 1 and len(integrators) > 1
        colours = itertools.cycle(_INTEGRATOR_COLOURS)
        self.integrator_colours = {name: next(colours) for name in integrators}

    def line(self, formulation: str, integrator: str) -> dict:
        marker, linestyle = self.styles[integrator]
        colour = self.integrator_colours[integrator] if self.by_integrator else self.colours[formulation]
        return {"color": colour, "marker": marker, "linestyle": linestyle}


def literal_text(text: str) -> str:
    """``text`` drawn as written: its dollar signs escaped, so that matplotlib reads no math text in a
    folder or file name."""
    return text.replace("$", r"\$")


def log_axes(xlabel: str, ylabel: str, title: str, log_y: bool = True):
    """A figure with one log-log (or log-x) axes, grid and title."""
    figure = Figure(figsize=(7.5, 5.5), layout="constrained")
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log" if log_y else "linear")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=10)
    axes.grid(True, which="major", alpha=0.3)
    return figure, axes


def mark_failures(axes, failures: list[tuple[list[float], dict]]) -> list[Line2D]:
    """Hollow markers on the lower axes edge (one row per method) at the h of each failed run; a legend
    entry if any. The y range is first extended downwards so that the markers' band holds no data."""
    if not failures:
        return []
    low, high = axes.get_ylim()
    band = 0.03 + 0.035 * len(failures)
    if axes.get_yscale() == "log":
        axes.set_ylim(low * (low / high) ** (band / (1 - band)), high)
    else:
        axes.set_ylim(low - (high - low) * band / (1 - band), high)
    transform = axes.get_xaxis_transform()
    for row, (steps, style) in enumerate(failures):
        axes.plot(steps, [0.03 + 0.035 * row] * len(steps), transform=transform, linestyle="none",
                  marker=style["marker"], markerfacecolor="none", markeredgecolor=style["color"],
                  markersize=7, clip_on=False)
    return [Line2D([], [], linestyle="none", marker="o", markerfacecolor="none", markeredgecolor="gray",
                   label="failed run (at its h, lower edge)")]


TRIANGLE_DECADES = 1.5
"""Height of a slope triangle in decades of error (its width follows from the order)."""


def slope_triangle(axes, order: int, h: float, error: float) -> None:
    """A reference triangle of slope ``order`` ending a decade below the point (h, error), its height
    TRIANGLE_DECADES (width at most a factor 4 in h), the order written beside the vertical leg."""
    span = min(4.0, 10.0 ** (TRIANGLE_DECADES / order))
    x0, x1 = h / span, h
    y1 = error / 10.0
    y0 = y1 / span ** order
    axes.plot([x0, x1, x1, x0], [y0, y1, y0, y0], color="0.35", linewidth=0.9, zorder=1)
    axes.annotate(str(order), (x1, np.sqrt(y0 * y1)), xytext=(3, 0), textcoords="offset points",
                  fontsize=8, color="0.25", va="center")


def finish(figure: Figure, axes, extra_handles: list[Line2D], path: Path, fmt: str) -> Path:
    """Legend (two columns when long), then save as ``path`` with the suffix of ``fmt``."""
    handles, _ = axes.get_legend_handles_labels()
    handles = handles + extra_handles
    if len(handles) > 4:
        longest = max(len(handle.get_label()) for handle in handles)
        columns = 2 if longest <= LEGEND_CHARACTERS_PER_COLUMN else 1
        figure.set_figheight(figure.get_figheight() + 0.2 * math.ceil(len(handles) / columns))
        figure.legend(handles=handles, fontsize=7.5, loc="outside lower center", ncol=columns, frameon=False)
    elif handles:
        axes.legend(handles=handles, fontsize=7.5, loc="best", framealpha=0.85)
    return save(figure, path, fmt)


def save(figure: Figure, path: Path, fmt: str) -> Path:
    """Save as ``path`` + ``.fmt`` (the stem may contain dots, e.g. a window '@0.5-1')."""
    target = path.parent / f"{path.name}.{fmt}"
    with atomic.atomic_path(target) as temporary:
        figure.savefig(temporary, dpi=DPI, format=fmt)
    return target
