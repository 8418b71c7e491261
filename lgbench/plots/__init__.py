"""Figures (layer 7), drawn from result CSV files only, through the analysis and the store."""
from lgbench.plots.figures import KINDS, draw_figures
from lgbench.plots.style import FORMATS

__all__ = ["FORMATS", "KINDS", "draw_figures"]
