"""The study copy of a result folder read back (``DIR/study.yaml``, written by
``execute.write_study_copy``): the runner validates it, then hands it to the report as plain data."""
from __future__ import annotations

from pathlib import Path

from lgbench.runner.execute import STUDY_COPY
from lgbench.runner.study import Study, load_study


def read_study_copy(results_dir: str | Path) -> Study | None:
    """The validated study of a result folder, or None if the folder keeps no study.yaml."""
    path = Path(results_dir) / STUDY_COPY
    return load_study(path, copy=True) if path.exists() else None
