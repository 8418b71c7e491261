"""The report of one result folder as a Document: what was run, the observed orders and errors,
Newton iterations, failures and expectation verdicts, next to the published numbers, and the
figures."""
from __future__ import annotations

import math
from collections.abc import Callable

from lgbench.analysis.convergence import error_table, fitted_orders, format_step
from lgbench.analysis.kinds import NEWTON_COLUMN, implicit_runs
from lgbench.analysis.published import FAILED, MethodValues, published_cell
from lgbench.report.accuracy_bands import EXPLANATION, band_table
from lgbench.report.document import Document, Figure, Heading, Paragraph, Table
from lgbench.analysis.findings import check_verdict, claim_tests
from lgbench.report.findings import claim_counts, counts_text, front_page_table
from lgbench.report.results import ResultFolder

MISSING = "–"


def report_document(results: ResultFolder) -> Document:
    """Every section of the report of ``results``."""
    document = Document(f"lgbench report: {results.name}")
    for section in (_introduction, _findings, _run_summary, _orders, _errors, _accuracy_bands, _newton,
                    _published_columns, _failures, _expectations, _published_values, _figures):
        section(document, results)
    return document


def _number(value: float) -> str:
    return f"{value:g}"


def _with_published(own: str, published) -> str:
    """A cell ``lgbench / published`` where a published value exists."""
    if published is None:
        return own
    return f"{own} / {MISSING if published == FAILED else _number(published)}"


def _step_table(frame, fmt: Callable[[float], str], published: MethodValues, caption: str) -> Table:
    """A table h (rows) x method (columns) of a DataFrame shaped like ``error_table``."""
    rows = []
    for h, values in frame.iterrows():
        cells = [format_step(h)]
        for method, value in values.items():
            own = MISSING if math.isnan(value) else fmt(value)
            cells.append(_with_published(own, published_cell(published.get(method, {}), h)))
        rows.append(cells)
    return Table(["h", *frame.columns], rows, caption)


def _column_frame(runs, column: str):
    """A runs.csv column as h (rows, largest first) x method; NaN where the run is not ok."""
    values = runs[column].where(runs["status"] == "ok").astype(float)
    frame = runs.assign(value=values).pivot_table(index="h", columns="method", values="value", aggfunc="last",
                                                  dropna=False, sort=False)
    methods = [m for m in dict.fromkeys(runs["method"]) if m in frame.columns]
    return frame[methods].sort_index(ascending=False).rename_axis(columns=None)


def _introduction(document: Document, results: ResultFolder) -> None:
    study = results.study
    if study is not None and study.description:
        document.add(Paragraph(study.description))
    runs = results.runs
    facts = []
    if "model" in runs.columns:
        facts.append(f"model {', '.join(map(str, dict.fromkeys(runs['model'])))}")
    if "t_end" in runs.columns:
        facts.append(f"t_end = {', '.join(_number(t) for t in dict.fromkeys(runs['t_end']))} s")
    if study is not None and study.paper:
        facts.append(f"paper {study.paper}")
    if results.published is not None and results.published.source:
        facts.append(f"published numbers from {results.published.source}")
    if facts:
        document.add(Paragraph("; ".join(facts) + "."))
    if study is None:
        document.add(Paragraph("No study.yaml in this folder: no expectations and no published numbers."))


def _run_summary(document: Document, results: ResultFolder) -> None:
    runs = results.runs
    failed = len(results.failures)
    cpu = float(runs["cpu_s"].fillna(0).sum()) if "cpu_s" in runs.columns else math.nan
    document.add(Heading("Runs"), Table(["runs", "ok", "not ok", "total CPU [s]"],
                                        [[str(len(runs)), str(len(runs) - failed), str(failed), f"{cpu:.3g}"]]))
    sessions = (results.metadata or {}).get("sessions") or []
    if sessions:
        last = sessions[-1]
        document.add(Paragraph(
            f"Provenance ({len(sessions)} session{'s' if len(sessions) > 1 else ''}, last started "
            f"{last.get('started', '?')}): lgbench {last.get('lgbench', '?')} (git {last.get('git_commit') or '?'}), "
            f"Python {last.get('python', '?')}, numpy {last.get('numpy', '?')}, numba {last.get('numba', '?')}, "
            f"scipy {last.get('scipy', '?')}; {last.get('cpu', '?')} x {last.get('cpu_count', '?')}, "
            f"{last.get('platform', '?')}; executor {last.get('executor', '?')} with "
            f"{last.get('workers', '?')} worker(s)."))


def _orders(document: Document, results: ResultFolder) -> None:
    pairs = results.error_pairs()
    if not pairs:
        return
    published = results.published
    rows = []
    for quantity, measure in pairs:
        fits = fitted_orders(error_table(results.runs, results.errors, quantity, measure))
        for method, fit in fits.items():
            expected = published.order(method, quantity, measure) if published is not None else None
            fitted_range = (f"{format_step(fit.h_min)} … {format_step(fit.h_max)}" if not math.isnan(fit.slope)
                            else fit.note)
            rows.append([method, f"{quantity} ({measure})", fit.label(), fitted_range, str(fit.points),
                         MISSING if expected is None else _number(expected)])
    document.add(Heading("Observed convergence order"),
                 Paragraph("Least-squares slope of log(error) over log(h) in the asymptotic range (round-off "
                           "plateau and pre-asymptotic large h left out; see lgbench/analysis/convergence.py)."),
                 Table(["method", "error", "order", "fitted h range", "points", "published"], rows))


def _errors(document: Document, results: ResultFolder) -> None:
    pairs = results.error_pairs()
    if not pairs:
        return
    document.add(Heading("Errors"))
    published = results.published
    for quantity, measure in pairs:
        table = error_table(results.runs, results.errors, quantity, measure)
        values = published.error_values(quantity, measure) if published is not None else {}
        caption = "lgbench / published" if values else ""
        document.add(Heading(f"{quantity} ({measure})", 3),
                     _step_table(table, lambda v: f"{v:.3e}", values, caption))


def _accuracy_bands(document: Document, results: ResultFolder) -> None:
    """The cheapest method per target error."""
    bands = results.accuracy_bands
    if bands is None:
        return
    error, table = bands
    document.add(Heading("Cheapest method per accuracy band"), Paragraph(EXPLANATION), band_table(table, error))


def _newton(document: Document, results: ResultFolder) -> None:
    runs = results.runs
    if NEWTON_COLUMN not in runs.columns or not runs[NEWTON_COLUMN].notna().any():
        return
    published = results.published.columns.get(NEWTON_COLUMN, {}) if results.published is not None else {}
    caption = ("average Newton iterations per step, lgbench / published" if published
               else "average Newton iterations per step")
    document.add(Heading("Newton iterations per step"),
                 _step_table(_column_frame(implicit_runs(runs), NEWTON_COLUMN), lambda v: f"{v:.2f}", published,
                             caption + f"; '{MISSING}' = failed or missing run"))


def _published_columns(document: Document, results: ResultFolder) -> None:
    if results.published is None:
        return
    for column, values in results.published.columns.items():
        if column == NEWTON_COLUMN:
            continue
        document.add(Heading(f"{column} (lgbench / published)"))
        if column not in results.runs.columns:
            document.add(Paragraph(f"runs.csv has no column '{column}'."))
            continue
        runs = results.runs[results.runs["method"].isin(list(values))]
        document.add(_step_table(_column_frame(runs, column), lambda v: f"{v:.3g}", values, ""))


def _failures(document: Document, results: ResultFolder) -> None:
    failures = results.failures
    document.add(Heading("Failures"))
    if failures.empty:
        document.add(Paragraph("Every run ended ok."))
        return
    messages = failures["message"].fillna("") if "message" in failures.columns else [""] * len(failures)
    rows = [[str(run_id), method, format_step(h), str(status), str(message)]
            for run_id, method, h, status, message in zip(failures["run_id"], failures["method"], failures["h"],
                                                          failures["status"], messages)]
    document.add(Table(["run", "method", "h", "status", "message"], rows))


def _findings(document: Document, results: ResultFolder) -> None:
    """The published figures and tables this study reproduces, each verdict as it stands here."""
    assessed = results.findings
    if not assessed:
        return
    document.add(Heading("Findings"),
                 Paragraph(f"What this study shows of the papers, each verdict computed from the paper's claims "
                           f"and the expectations that test them here: {counts_text(assessed)}; "
                           f"{claim_counts(assessed)}."),
                 front_page_table(assessed, {results.name: results.path}))


def _expectations(document: Document, results: ResultFolder) -> None:
    verdicts = results.expectation_results
    if verdicts is None:
        return
    document.add(Heading("Expectations"))
    if not verdicts:
        document.add(Paragraph("The study states no expectations."))
        return
    tests = claim_tests(results.study)
    guards = [result for result in verdicts if result.id not in tests]
    claims = len(verdicts) - len(guards)
    of_claims = (f"; {sum(r.passed for r in verdicts if r.id in tests)} of the {claims} tests of the papers' "
                 "claims hold" if claims else "")
    document.add(Paragraph(f"{sum(r.passed for r in guards)} of {len(guards)} regression checks passed (lgbench "
                           f"check){of_claims}."),
                 Table(["expectation", "expected", "observed", "verdict"],
                       [[f"{r.id}: {r.expectation}" if r.id else r.expectation, r.expected, r.observed,
                         check_verdict(r, tests)]
                        for r in verdicts]))


def _published_values(document: Document, results: ResultFolder) -> None:
    if results.published is None or not results.published.values:
        return
    document.add(Heading("Published values"),
                 Table(["what", "published", "note"],
                       [[fact.name, fact.published if isinstance(fact.published, str) else _number(fact.published),
                         fact.note] for fact in results.published.values]))


def _figures(document: Document, results: ResultFolder) -> None:
    from lgbench.plots import draw_figures

    folder = results.path / "figures"
    if not sorted(folder.glob("*.png")):
        draw_figures(results.path)
    figures = sorted(folder.glob("*.png"))
    if figures:
        document.add(Heading("Figures"), *(Figure(path, path.stem.replace("_", " ")) for path in figures))
