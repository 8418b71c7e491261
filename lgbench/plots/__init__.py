"""Figures (layer 6), drawn from result CSV files only."""
from lgbench.plots.figures import KINDS, draw_figures
from lgbench.plots.style import FORMATS

__all__ = ["FORMATS", "KINDS", "draw_figures"]
