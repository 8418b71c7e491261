"""Tables of findings (``lgbench.analysis.findings``): the "At a glance" tables of
docs/REPRODUCTION.md, written from the study files, and the front page of a reproduction, where each
verdict is shown as it stands in the results.

In docs/REPRODUCTION.md the generated tables sit between the lines ``<!-- findings KEY -->`` and
``<!-- end findings KEY -->`` (KEY a paper number such as ``000``, ``studies`` or ``open``); everything
else in the document is written by hand.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lgbench.analysis.findings import Assessment, State, Verdict, item_order, verdict_counts
from lgbench.report.document import Image, Link, Marked, Table, Tone

STUDIES_KEY = "studies"
"""The marker key of the table of studies."""
OPEN_KEY = "open"
"""The marker key of the table of findings that differ or are not reproduced."""

_TONE = {State.HOLDS: Tone.GOOD, State.NONE: Tone.WARN, State.UNCHECKED: Tone.WARN, State.REGRESSED: Tone.BAD}


@dataclass(frozen=True)
class StudyEntry:
    """What the table of studies needs of one study file."""

    name: str
    paper: str
    file: str


def by_paper(assessments: Sequence[Assessment]) -> dict[str, list[Assessment]]:
    """The findings of every paper, papers in order, items in the paper's order (figures and tables by
    number)."""
    papers: dict[str, list[Assessment]] = {}
    for item in sorted(assessments, key=lambda a: (a.finding.paper, item_order(a.finding.item))):
        papers.setdefault(item.finding.paper, []).append(item)
    return papers


def _verdict_cell(item: Assessment) -> str:
    """``**verdict**: summary ([section])`` as docs/REPRODUCTION.md writes it."""
    finding = item.finding
    section = f" ([{finding.section}])" if finding.section else ""
    return f"**{finding.verdict.text}**: {finding.summary}{section}"


def document_table(items: list[Assessment]) -> Table:
    """One paper's "At a glance" table for docs/REPRODUCTION.md (the claimed verdicts)."""
    rows = [[a.finding.item, a.finding.shows, a.finding.counterpart or "none", _verdict_cell(a)] for a in items]
    return Table(["figure/table", "what it shows", "lgbench (study -> figure file or report table)", "verdict"],
                 rows, text=True)


def open_table(assessments: Sequence[Assessment]) -> Table:
    """The findings whose verdict is "differs" or "not reproduced", by paper, with their numbers."""
    rows = [[a.finding.paper, a.finding.item, a.study, _verdict_cell(a)]
            for items in by_paper(assessments).values() for a in items
            if a.finding.verdict in (Verdict.DIFFERS, Verdict.NOT_REPRODUCED)]
    return Table(["paper", "figure/table", "study", "verdict"], rows, text=True)


def document_tables(studies: list[StudyEntry], assessments: Sequence[Assessment]) -> dict[str, Table]:
    """Every generated table of docs/REPRODUCTION.md by marker key: one per paper, the studies, the
    findings that differ or are not reproduced."""
    tables = {paper: document_table(items) for paper, items in by_paper(assessments).items()}
    tables[STUDIES_KEY] = studies_table(studies, assessments)
    tables[OPEN_KEY] = open_table(assessments)
    return tables


def counts_text(items: Sequence[Assessment]) -> str:
    """``3 reproduced, 1 reproduced (trend)``: the verdicts a set of findings claim."""
    counts = verdict_counts(list(items))
    return ", ".join(f"{count} {verdict.text}" for verdict, count in counts.items() if count)


def studies_table(studies: list[StudyEntry], assessments: Sequence[Assessment]) -> Table:
    """Every study with its paper, command and the verdicts of its findings."""
    rows = []
    for study in studies:
        own = [a for a in assessments if a.study == study.name]
        rows.append([study.name, study.paper, f"`{study.file}`", f"`lgbench run {study.file}`",
                     counts_text(own) or "no finding of its own (an extra study)"])
    return Table(["study", "paper", "study file", "command", "findings"], rows, text=True)


def front_page_table(items: list[Assessment], folders: dict[str, Path]) -> Table:
    """One paper's findings as they stand in the result folders (study name -> folder): the verdict
    of a finding whose cited expectation fails is shown as regressed, and beside the numbers the
    study file states are the cited expectations' values observed in these results."""
    rows = []
    for item in items:
        folder = folders[item.study]
        figures = [name for name in item.finding.figures if (folder / "figures" / name).exists()]
        figure = Image(folder / "figures" / figures[0], figures[0]) if figures else "–"
        observed = "; ".join(f"{result.id}: {result.observed}" + ("" if result.passed else " (FAILED)")
                             for result in item.results) or "–"
        rows.append([item.finding.item, item.finding.shows, Link(item.study, folder / "report"), figure,
                     Marked(item.verdict_text, _TONE[item.state]), item.finding.summary, observed])
    return Table(["figure/table", "what it shows", "study", "figure", "verdict", "numbers (study file)",
                  "observed here (cited expectations)"], rows, text=True)


def state_counts(assessments: Sequence[Assessment]) -> str:
    """``68 hold, 2 not checked, 1 regressed``: how the cited expectations came out."""
    counts = {state: sum(a.state == state for a in assessments) for state in State}
    words = {State.HOLDS: "hold", State.REGRESSED: "regressed", State.UNCHECKED: "not checked here",
             State.NONE: "not reproduced (nothing to check)"}
    return ", ".join(f"{counts[state]} {words[state]}" for state in State if counts[state])


MARKER = re.compile(r"^<!-- findings (\w+)[^>]*-->\n(.*?)^<!-- end findings \1 -->$", re.M | re.S)


def replace_marked(text: str, tables: dict[str, list[str]]) -> tuple[str, list[str], list[str]]:
    """``text`` with the lines between each pair of markers replaced by ``tables[KEY]``; also the keys
    of ``tables`` that have no markers in ``text``, and the markers' keys that have no table."""
    found: list[str] = []

    def body(match: re.Match) -> str:
        key = match.group(1)
        found.append(key)
        if key not in tables:
            return match.group(0)
        first = match.group(0).splitlines()[0]
        return "\n".join([first, *tables[key], f"<!-- end findings {key} -->"])

    replaced = MARKER.sub(body, text)
    return replaced, [key for key in tables if key not in found], [key for key in found if key not in tables]
