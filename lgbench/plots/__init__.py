"""Figures (layer 6), drawn from result CSV files only."""
from lgbench.plots.convergence import draw_figures

__all__ = ["draw_figures"]
