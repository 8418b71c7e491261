"""A result folder as the report reads it: runs.csv (required), errors.csv, study.yaml and
metadata.json (each optional), and the expectation verdicts when the study is there."""
from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from lgbench.exceptions import InputError
from lgbench.runner.convergence import method_label, with_variants
from lgbench.runner.provenance import METADATA, read_metadata
from lgbench.store import ResultStore

REQUIRED_COLUMNS = ["run_id", "formulation", "integrator", "h", "status"]
"""The runs.csv columns a report needs; the others (model, t_end, cpu_s, statistics) are optional."""


class ResultFolder:
    """The CSV tables and, where present, the study and provenance of one result folder."""

    def __init__(self, path: str | Path):
        from lgbench.runner.execute import STUDY_COPY
        from lgbench.runner.study import load_study

        self.path = Path(path)
        store = ResultStore(self.path)
        self.raw_runs = store.runs_frame()
        missing = [column for column in REQUIRED_COLUMNS if column not in self.raw_runs.columns]
        if missing:
            raise InputError(f"runs.csv lacks the column(s) {', '.join(missing)}", file=str(store.runs_path),
                             allowed=REQUIRED_COLUMNS)
        self.runs = with_variants(self.raw_runs)
        self.runs = self.runs.assign(method=[method_label(f, i) for f, i in
                                             zip(self.runs["formulation"], self.runs["integrator"])])
        self.errors = store.errors_frame()
        study_path = self.path / STUDY_COPY
        self.study = load_study(study_path) if study_path.exists() else None
        self.metadata = _metadata(self.path / METADATA)

    @property
    def name(self) -> str:
        if self.study is not None:
            return self.study.name
        return (self.metadata or {}).get("study") or self.path.resolve().name

    @property
    def failures(self):
        """The runs whose status is not ok."""
        return self.runs[self.runs["status"] != "ok"]

    @property
    def published(self):
        return self.study.published if self.study is not None else None

    @cached_property
    def expectation_results(self) -> list | None:
        """Verdicts of the study's expectations (``lgbench check``); None without study.yaml."""
        from lgbench.runner.expectations import check

        if self.study is None:
            return None
        return check(self.study, self.raw_runs, self.errors)

    def error_pairs(self) -> list[tuple[str, str]]:
        """(quantity, measure) of errors.csv in order of appearance."""
        return list(dict.fromkeys(zip(self.errors["quantity"], self.errors["measure"])))


def _metadata(path: Path) -> dict[str, Any] | None:
    return read_metadata(path) if path.exists() else None
