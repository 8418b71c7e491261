"""``lgbench plot``: every figure kind of a result folder, drawn from its CSV files only."""
from __future__ import annotations

from pathlib import Path

from lgbench.analysis.convergence import error_table, with_variants
from lgbench.analysis.kinds import implicit_runs
from lgbench.exceptions import InputError
from lgbench.plots import convergence as figures_of
from lgbench.plots.animation import motion_sequence
from lgbench.plots.style import FORMATS, Styles
from lgbench.plots.time_series import draw_reference_series, draw_series_plots, study_copy
from lgbench.store import ResultStore, atomic
from lgbench.store.motion import MOTION_FILE, read_motion

KINDS = ("convergence", "work_precision", "cpu_time", "newton_iterations", "reference", "series", "trajectory",
         "motion")
"""Figure kinds: error vs h with slopes; error vs CPU; CPU vs h; Newton iterations per step vs h; the
reference run's outputs over time; the study's series plots over time; its trajectory plots; the poses of
its motion figure (``motion.npz``)."""


def draw_figures(results_dir: str | Path, kinds: list[str] | None = None, fmt: str = "png") -> list[Path]:
    """Draw the figures of ``kinds`` (default: all) into ``results_dir/figures``; return their paths."""
    results_dir = Path(results_dir)
    kinds = list(kinds or KINDS)
    for kind in kinds:
        if kind not in KINDS:
            raise InputError(f"unknown figure kind '{kind}'", field="--kind", allowed=list(KINDS))
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}'", field="--format", allowed=list(FORMATS))
    store = ResultStore(results_dir)
    runs = with_variants(store.runs_frame())
    errors = store.errors_frame()
    figures = results_dir / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    atomic.clean_leftovers(figures)     # parts of figures whose plot process was killed
    styles = Styles(list(dict.fromkeys(runs["formulation"])), list(dict.fromkeys(runs["integrator"])))
    paths = []
    if not errors.empty and {"convergence", "work_precision"} & set(kinds):
        pairs = list(dict.fromkeys(zip(errors["quantity"], errors["measure"])))
        for quantity, measure in pairs:
            several = sum(q == quantity for q, _ in pairs) > 1
            suffix = f"{quantity}_{measure}" if several else quantity
            table = error_table(runs, errors, quantity, measure)
            if "convergence" in kinds:
                paths.append(figures_of.convergence(runs, table, quantity, measure, styles,
                                                    figures / f"convergence_{suffix}", fmt))
            if "work_precision" in kinds:
                paths.append(figures_of.work_precision(runs, table, quantity, measure, styles,
                                                       figures / f"work_precision_{suffix}", fmt))
    if "cpu_time" in kinds:
        paths.append(figures_of.cpu_time(runs, styles, figures / "cpu_time", fmt))
    implicit = implicit_runs(runs)
    if "newton_iterations" in kinds and "newton_per_step" in runs.columns \
            and implicit["newton_per_step"].notna().any():
        paths.append(figures_of.newton_iterations(implicit, styles, figures / "newton_iterations", fmt))
    if "reference" in kinds:
        reference = draw_reference_series(results_dir, figures, fmt)
        if reference is not None:
            paths.append(reference)
    if "series" in kinds:
        paths.extend(draw_series_plots(results_dir, figures, fmt, trajectories=False))
    if "trajectory" in kinds:
        paths.extend(draw_series_plots(results_dir, figures, fmt, trajectories=True))
    if "motion" in kinds and (results_dir / MOTION_FILE).exists():
        paths.append(motion_sequence(read_motion(results_dir / MOTION_FILE), figures / "motion_sequence", fmt,
                                     _motion_view(results_dir)))
    return paths


def _motion_view(results_dir: Path) -> str:
    """The view of the study copy's motion figure (default "iso")."""
    motion = study_copy(results_dir).get("motion") or {}
    return motion.get("view", "iso") if isinstance(motion, dict) else "iso"
