"""The table of the cheapest method per accuracy band (``lgbench.analysis.accuracy_bands``), shared by
a study's report and the campaign's index page."""
from __future__ import annotations

import math

from lgbench.analysis.accuracy_bands import Band
from lgbench.report.document import Table

NONE = "–"

EXPLANATION = ("For each target error, the formulation x integrator that reached it for the least CPU time "
               "(log CPU time interpolated in log error between the two step sizes whose errors bracket the "
               "target; '≤' where the coarsest run already beats it), and what the runner-up costs. "
               "'within spread': the runner-up's fastest timed repeat is no slower than the best's slowest, "
               "so the two are not told apart by these timings.")


def band_table(bands: list[Band], error: str) -> Table:
    """One row per target: cheapest method and its CPU time, runner-up and its cost ratio, and how many
    of the study's methods reached the target."""
    rows = []
    for band in bands:
        methods = len(band.reached) + len(band.missed)
        best, runner_up = band.best, band.runner_up
        ratio = band.runner_up_ratio()
        ratio_text = NONE if math.isnan(ratio) else f"{ratio:.2f}" + (" (within spread)"
                                                                      if band.within_timing_spread() else "")
        rows.append([f"{band.target:g}",
                     NONE if best is None else best.method, NONE if best is None else best.text(),
                     NONE if runner_up is None else runner_up.method,
                     NONE if runner_up is None else runner_up.text(), ratio_text,
                     f"{len(band.reached)} of {methods}"])
    return Table(["target error", "cheapest", "CPU time", "runner-up", "its CPU time", "runner-up / cheapest",
                  "methods that reached it"], rows, f"error: {error}")
