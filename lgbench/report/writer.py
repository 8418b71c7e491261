"""Writes reports and index pages in both formats: PATH.md (figures linked) and PATH.html
(self-contained)."""
from __future__ import annotations

from pathlib import Path

from lgbench.report.build import report_document
from lgbench.store import atomic
from lgbench.report.document import Document
from lgbench.report.html import SUFFIX as HTML, render_html
from lgbench.report.index import ReportSummary, index_document, summary
from lgbench.report.markdown import SUFFIX as MARKDOWN, render_markdown
from lgbench.report.results import ResultFolder

REPORT = "report"


def _write(document: Document, path: Path) -> list[Path]:
    """``path`` without suffix -> [path.md, path.html]."""
    path.parent.mkdir(parents=True, exist_ok=True)
    markdown, html = path.with_suffix(MARKDOWN), path.with_suffix(HTML)
    atomic.write_text(markdown, render_markdown(document, path.parent))
    atomic.write_text(html, render_html(document, path.parent))
    return [markdown, html]


def write_report(results: ResultFolder) -> tuple[list[Path], ReportSummary]:
    """RESULTS_DIR/report.md and report.html; the written paths and the study's summary line."""
    path = results.path / REPORT
    return _write(report_document(results), path), summary(results, path)


def write_index(path: Path, summaries: list[ReportSummary], preamble: list[str] = ()) -> list[Path]:
    """PATH.md and PATH.html (PATH's own suffix, if any, is replaced) linking every report, with the
    findings of the studies (``index_document``)."""
    return _write(index_document(summaries, preamble), Path(path).with_suffix(""))
