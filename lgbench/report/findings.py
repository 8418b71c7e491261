"""Tables of findings (``lgbench.analysis.findings``): the "At a glance" tables of
docs/REPRODUCTION.md, written from the study files, and the front page of a reproduction, where each
verdict is shown as it stands in the results.

In docs/REPRODUCTION.md the generated tables sit between the lines ``<!-- findings KEY -->`` and
``<!-- end findings KEY -->`` (KEY a paper number such as ``000``, ``studies`` or ``open``); everything
else in the document is written by hand. lgbench's own comparisons (``paper: lgbench``) have their
tables in docs/findings.md (keys ``lgbench`` and ``lgbench_claims``) and are not counted with the papers'.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lgbench.analysis.claims import ClaimState, observed_text
from lgbench.analysis.findings import OWN, Assessment, Verdict, item_order, published, verdict_counts
from lgbench.report.document import Image, Link, Marked, Table, Tone

STUDIES_KEY = "studies"
"""The marker key of the table of studies."""
OPEN_KEY = "open"
"""The marker key of the table of findings that differ or are not reproduced."""
CLAIMS_KEY = "claims"
"""The marker key of the table of every claim: quote, precision, observed value, outcome."""
COUNTS_KEY = "counts"
"""The marker key of the verdicts counted by paper (the README's)."""
OWN_CLAIMS_KEY = f"{OWN}_claims"
"""The marker key of the table of every claim of lgbench's own comparisons (docs/findings.md)."""

_TONE = {Verdict.REPRODUCED: Tone.GOOD, Verdict.TREND: Tone.WARN, Verdict.DRAWN: Tone.WARN,
         Verdict.DIFFERS: Tone.BAD, Verdict.NOT_REPRODUCED: Tone.WARN, None: Tone.WARN}


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


def group_title(paper: str) -> str:
    """How a group of findings is headed: ``Paper 000``, or lgbench's own comparisons."""
    return "lgbench's own comparisons (docs/findings.md)" if paper == OWN else f"Paper {paper}"


def claims_text(item: Assessment) -> str:
    """``2 of 3 claims hold; 1 not met`` for a finding."""
    states = item.claim_states
    if not states:
        return "no published claim to test"
    return f"{len(states)} claim{'s' if len(states) > 1 else ''}: {_states_text(states)}"


def _verdict_cell(item: Assessment) -> str:
    """``**verdict**: summary (claims) ([section])`` as docs/REPRODUCTION.md writes it."""
    finding = item.finding
    section = f" ([{finding.section}])" if finding.section else ""
    peer = f" The paper's code: {finding.peer}" if finding.peer else ""
    return f"**{item.verdict_text}**: {finding.summary} ({claims_text(item)}).{peer}{section}"


def document_table(items: list[Assessment]) -> Table:
    """One paper's "At a glance" table for docs/REPRODUCTION.md (the computed verdicts)."""
    rows = [[a.finding.item, a.finding.shows, a.finding.counterpart or "none", _verdict_cell(a)] for a in items]
    return Table(["figure/table", "what it shows", "lgbench (study -> figure file or report table)", "verdict"],
                 rows, text=True)


def open_table(assessments: Sequence[Assessment]) -> Table:
    """The findings whose verdict is "differs" or "not reproduced", by paper, with their numbers."""
    rows = [[a.finding.paper, a.finding.item, a.study, _verdict_cell(a)]
            for items in by_paper(assessments).values() for a in items
            if a.verdict in (Verdict.DIFFERS, Verdict.NOT_REPRODUCED)]
    return Table(["paper", "figure/table", "study", "verdict"], rows, text=True)


def own_table(items: list[Assessment]) -> Table:
    """docs/findings.md's table of its statements: section, the statement, the study, the computed verdict."""
    rows = [[a.finding.item, a.finding.shows, f"`{a.study}`", _verdict_cell(a)] for a in items]
    return Table(["section", "statement", "study", "verdict"], rows, text=True)


def claims_table(assessments: Sequence[Assessment], says: str = "the paper says") -> Table:
    """Every claim of every finding: where, the quote, its kind and precision, the expectations that test
    it with their windows and observed values, and the outcome."""
    rows = []
    for items in by_paper(assessments).values():
        for item in items:
            for claim, state in zip(item.finding.claims, item.claim_states):
                tests = ", ".join(f"`{key}`" for key in claim.expectations) or "none"
                observed = observed_text(claim, item.results or {}) or "–"
                rows.append([f"{item.finding.paper} {item.finding.item}", claim.source, f"\"{claim.quote}\"",
                             claim.kind.value, claim.precision_text, tests, observed, state.value])
    return Table(["finding", "where", says, "kind", "precision", "tested by", "observed",
                  "outcome"], rows, text=True)


def document_tables(studies: list[StudyEntry], assessments: Sequence[Assessment]) -> dict[str, Table]:
    """Every generated table by marker key: of docs/REPRODUCTION.md one per paper, the studies, the findings
    that differ or are not reproduced, every claim and the counts; of docs/findings.md lgbench's own
    comparisons and their claims."""
    papers = published(list(assessments))
    own = by_paper(assessments).get(OWN, [])
    tables = {paper: document_table(items) for paper, items in by_paper(papers).items()}
    tables[STUDIES_KEY] = studies_table(studies, assessments)
    tables[OPEN_KEY] = open_table(papers)
    tables[CLAIMS_KEY] = claims_table(papers)
    tables[COUNTS_KEY] = counts_table(papers)
    if own:
        tables[OWN] = own_table(own)
        tables[OWN_CLAIMS_KEY] = claims_table(own, "docs/findings.md says")
    return tables


def counts_table(assessments: Sequence[Assessment]) -> Table:
    """The computed verdicts counted by paper, and their claims."""
    verdicts = list(Verdict)
    rows = []
    for paper, items in [*by_paper(assessments).items(), ("all", list(assessments))]:
        counts = verdict_counts(items)
        states = [state for item in items for state in item.claim_states]
        rows.append([paper, *(str(counts[verdict]) for verdict in verdicts), str(counts.get(None, 0)),
                     f"{states.count(ClaimState.HOLDS)} of {len(states)}"])
    return Table(["paper", *(verdict.text for verdict in verdicts), "not checked", "claims that hold"], rows,
                 text=True)


def claim_counts(assessments: Sequence[Assessment]) -> str:
    """``120 claims: 80 hold, 30 not met, 10 not tested``: how the claims of a set of findings came out."""
    states = [state for item in assessments for state in item.claim_states]
    return f"{len(states)} claims: {_states_text(states)}" if states else "no claims"


_CLAIM_WORDS = {ClaimState.HOLDS: "hold", ClaimState.FAILS: "not met", ClaimState.UNTESTED: "not tested",
                ClaimState.UNCHECKED: "not checked"}


def _states_text(states: list[ClaimState]) -> str:
    """``2 hold, 1 not met``: how many claims came out each way."""
    return ", ".join(f"{states.count(state)} {_CLAIM_WORDS[state]}" for state in ClaimState if states.count(state))


def counts_text(items: Sequence[Assessment]) -> str:
    """``3 reproduced, 1 reproduced (trend)``: the computed verdicts of a set of findings."""
    counts = verdict_counts(list(items))
    return ", ".join(f"{count} {'not checked' if verdict is None else verdict.text}"
                     for verdict, count in counts.items() if count)


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
    computed from the claims' expectations in these results, and the values they observed."""
    rows = []
    for item in items:
        folder = folders[item.study]
        figures = [name for name in item.finding.figures if (folder / "figures" / name).exists()]
        figure = Image(folder / "figures" / figures[0], figures[0]) if figures else "–"
        observed = "; ".join(f"{key}: {item.results[key].observed}"
                             + ("" if item.results[key].passed else " (not met)")
                             for key in item.finding.evidence if item.results and key in item.results) or "–"
        rows.append([item.finding.item, item.finding.shows, Link(item.study, folder / "report"), figure,
                     Marked(item.verdict_text, _TONE[item.verdict]), claims_text(item), item.finding.summary,
                     observed])
    return Table(["figure/table", "what it shows", "study", "figure", "verdict", "claims", "lgbench (study file)",
                  "observed here (the claims' expectations)"], rows, text=True)


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
