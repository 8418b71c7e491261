"""A result folder as the report reads it: runs.csv (required), errors.csv and metadata.json
(optional), the folder's study (given by the caller, who reads study.yaml) and the expectation
verdicts when the study is there."""
from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from lgbench.analysis.accuracy_bands import DEFAULT_TARGETS, Band, accuracy_bands, band_error
from lgbench.analysis.convergence import method_label, with_variants
from lgbench.analysis.expectations import check
from lgbench.analysis.findings import Assessment, assess
from lgbench.exceptions import InputError
from lgbench.store import METADATA, ResultStore, read_metadata

REQUIRED_COLUMNS = ["run_id", "formulation", "integrator", "h", "status"]
"""The runs.csv columns a report needs; the others (model, t_end, cpu_s, statistics) are optional."""


class ResultFolder:
    """The CSV tables and, where present, the study and provenance of one result folder.

    ``study`` is the folder's study as plain data (name, description, paper, errors, expectations,
    published), None if the folder keeps none; the CLI reads and validates it.
    """

    def __init__(self, path: str | Path, study: Any = None):
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
        self.study = study
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
        if self.study is None:
            return None
        return check(self.study, self.raw_runs, self.errors, ResultStore(self.path).series_frame)

    @cached_property
    def findings(self) -> list[Assessment]:
        """The study's findings, each with the check results of the expectations its claims cite (empty
        without study.yaml; not checked in a profile, whose grid is not the paper's)."""
        if self.study is None:
            return []
        graded = getattr(self.study, "profile", None) is None
        return assess(self.name, self.study.findings, self.expectation_results if graded else None)

    @cached_property
    def accuracy_bands(self) -> tuple[str, list[Band]] | None:
        """The error ("quantity (measure)") and the cheapest method per target error: the study's
        ``accuracy_bands``, else the default targets in the first error; None without CPU times or errors."""
        pairs = self.error_pairs()
        if "cpu_s" not in self.runs.columns or not pairs:
            return None
        if self.study is not None:
            quantity, measure = band_error(self.study)
            request = self.study.accuracy_bands
            targets = DEFAULT_TARGETS if request is None else request.targets
        else:
            (quantity, measure), targets = pairs[0], DEFAULT_TARGETS
        return f"{quantity} ({measure})", accuracy_bands(self.runs, self.errors, quantity, measure, targets)

    def error_pairs(self) -> list[tuple[str, str]]:
        """(quantity, measure) of errors.csv in order of appearance."""
        return list(dict.fromkeys(zip(self.errors["quantity"], self.errors["measure"])))


def _metadata(path: Path) -> dict[str, Any] | None:
    return read_metadata(path) if path.exists() else None
