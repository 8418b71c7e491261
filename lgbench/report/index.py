"""The index page of several reports: one line per study with its runs, failures and expectations,
then, when the studies have findings (``findings:`` in their study files), the front page of a
reproduction: every published figure and table with lgbench's verdict as it stands in these results,
a thumbnail, and where and with what the results were computed."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lgbench.analysis.accuracy_bands import Band
from lgbench.analysis.findings import Assessment, published
from lgbench.report.accuracy_bands import EXPLANATION, band_table
from lgbench.report.document import Document, Heading, Link, Paragraph, Table
from lgbench.report.findings import by_paper, claim_counts, counts_text, front_page_table, group_title
from lgbench.report.results import ResultFolder


@dataclass(frozen=True)
class ReportSummary:
    name: str
    report: Path                   # the report's path without suffix
    runs: int
    failures: int
    expectations: tuple[int, int] | None      # (passed, total); None without study.yaml
    findings: tuple[Assessment, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    accuracy_bands: tuple[str, list[Band]] | None = None    # only for studies that ask (``accuracy_bands:``)


def summary(results: ResultFolder, report: Path) -> ReportSummary:
    verdicts = results.expectation_results
    expectations = None if verdicts is None else (sum(r.passed for r in verdicts), len(verdicts))
    asks = results.study is not None and results.study.accuracy_bands is not None
    return ReportSummary(results.name, report, len(results.runs), len(results.failures), expectations,
                         tuple(results.findings), results.metadata or {}, results.accuracy_bands if asks else None)


def index_document(summaries: list[ReportSummary], preamble: list[str] = ()) -> Document:
    """The index: ``preamble`` paragraphs (e.g. the campaign's wall time), the studies, the findings
    by paper and the provenance of the results."""
    document = Document("lgbench reports", [Paragraph(text) for text in preamble])
    rows = [[Link(item.name, item.report), str(item.runs), str(item.failures),
             "–" if item.expectations is None else f"{item.expectations[0]}/{item.expectations[1]}"]
            for item in summaries]
    document.add(Table(["study", "runs", "not ok", "expectations passed"], rows))
    findings = [finding for item in summaries for finding in item.findings]
    if findings:
        folders = {item.name: item.report.parent for item in summaries}
        papers = published(findings)
        document.add(Heading("The papers at a glance"),
                     Paragraph(f"{len(papers)} published figures and tables: {counts_text(papers)}; "
                               f"{claim_counts(papers)}. Each verdict is computed from the paper's claims "
                               "and the expectations that test them in these results (docs/REPRODUCTION.md, "
                               "the grading rule)."))
        for paper, items in by_paper(findings).items():
            document.add(Heading(group_title(paper), 3), front_page_table(items, folders))
    banded = [item for item in summaries if item.accuracy_bands is not None]
    if banded:
        document.add(Heading("Cheapest method per accuracy band"), Paragraph(EXPLANATION))
        for item in banded:
            error, bands = item.accuracy_bands
            document.add(Heading(item.name, 3), band_table(bands, error))
    provenance = _provenance(summaries)
    if provenance:
        document.add(Heading("Provenance"), Paragraph(provenance))
    return document


def _provenance(summaries: list[ReportSummary]) -> str:
    """Software and machine of the latest session of the result folders (the distinct values, if the
    folders differ)."""
    sessions = [item.metadata["sessions"][-1] for item in summaries
                if isinstance(item.metadata.get("sessions"), list) and item.metadata["sessions"]]
    if not sessions:
        return ""
    keys = [("lgbench", "lgbench"), ("git_commit", "commit"), ("python", "Python"), ("numpy", "NumPy"),
            ("numba", "numba"), ("cpu", "CPU"), ("cpu_count", "cores"), ("platform", "platform")]
    parts = []
    for key, label in keys:
        values = list(dict.fromkeys(str(session[key]) for session in sessions if key in session))
        if values:
            parts.append(f"{label} {', '.join(values)}")
    started = sorted(str(session["started"]) for session in sessions if "started" in session)
    when = f"The folders' latest sessions started between {started[0]} and {started[-1]}; " if started else ""
    return when + "; ".join(parts) + "."
