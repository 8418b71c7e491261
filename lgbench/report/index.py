"""The index page of several reports: one line per study with its runs, failures and expectations."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lgbench.report.document import Document, Link, Table
from lgbench.report.results import ResultFolder


@dataclass(frozen=True)
class ReportSummary:
    name: str
    report: Path                   # the report's path without suffix
    runs: int
    failures: int
    expectations: tuple[int, int] | None      # (passed, total); None without study.yaml


def summary(results: ResultFolder, report: Path) -> ReportSummary:
    verdicts = results.expectation_results
    expectations = None if verdicts is None else (sum(r.passed for r in verdicts), len(verdicts))
    return ReportSummary(results.name, report, len(results.runs), len(results.failures), expectations)


def index_document(summaries: list[ReportSummary]) -> Document:
    rows = [[Link(item.name, item.report), str(item.runs), str(item.failures),
             "–" if item.expectations is None else f"{item.expectations[0]}/{item.expectations[1]}"]
            for item in summaries]
    return Document("lgbench reports", [Table(["study", "runs", "not ok", "expectations passed"], rows)])
