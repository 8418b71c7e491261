"""The integrator kind (explicit or implicit) of runs.csv rows, read from the results themselves.

``lgbench run`` records the kind in the ``integrator_kind`` column. Result folders written before
that column existed are classified by their Newton statistics: an integrator is implicit if any of
its rows (any variant ``integrator.label``) has a ``newton_per_step`` value, so a failed implicit run
keeps its kind as long as another run of the same integrator recorded Newton iterations.
"""
from __future__ import annotations

KIND_COLUMN = "integrator_kind"
EXPLICIT = "explicit"
IMPLICIT = "implicit"
NEWTON_COLUMN = "newton_per_step"


def integrator_kinds(runs) -> list[str]:
    """The kind of every row of ``runs``: the recorded ``integrator_kind``, else the inferred one."""
    recorded = (runs[KIND_COLUMN].astype("string").fillna("").astype(str).tolist()
                if KIND_COLUMN in runs.columns else [""] * len(runs))
    names = [_integrator(name) for name in runs["integrator"]]
    newton = runs[NEWTON_COLUMN].notna().tolist() if NEWTON_COLUMN in runs.columns else [False] * len(runs)
    with_newton = {name for name, has_newton in zip(names, newton) if has_newton}
    return [kind or (IMPLICIT if name in with_newton else EXPLICIT) for kind, name in zip(recorded, names)]


def _integrator(name) -> str:
    """The integrator of a runs.csv name, without a variant label (``generalized-alpha.modified``)."""
    return str(name).split(".")[0]


def implicit_runs(runs):
    """The rows of implicit integrators (they carry Newton statistics)."""
    return runs[[kind == IMPLICIT for kind in integrator_kinds(runs)]]
