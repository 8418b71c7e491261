"""What a study shows of a paper (``findings:`` in a study file), and whether it still holds.

A finding is one row of the "At a glance" tables of docs/REPRODUCTION.md: a published figure or table,
lgbench's counterpart and a verdict. It cites the study's expectations that back the verdict by their
``id``; the verdict holds only while every cited expectation that was evaluated passes, so a
regression turns it into ``regressed`` instead of leaving a stale "reproduced". The same data
writes the tables of docs/REPRODUCTION.md (``lgbench findings``) and the front page of a reproduction
(``results/index.html``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lgbench.analysis.expectations import ID_PATTERN, CheckResult


class Verdict(str, Enum):
    """The verdicts of docs/REPRODUCTION.md, "At a glance"."""

    REPRODUCED = "reproduced"          # agrees with every published number and stated finding it covers
    TREND = "trend"                    # ranking, slope or shape agrees; a number differs or a curve is lost
    DIFFERS = "differs"                # computed, and a published number or finding does not come out
    NOT_REPRODUCED = "not-reproduced"  # not computed, drawn or compared

    @property
    def text(self) -> str:
        return VERDICT_TEXT[self]


VERDICT_TEXT = {Verdict.REPRODUCED: "reproduced", Verdict.TREND: "reproduced (trend)",
                Verdict.DIFFERS: "differs", Verdict.NOT_REPRODUCED: "not reproduced"}


class State(str, Enum):
    """Whether a finding's verdict holds in a result folder."""

    HOLDS = "holds"            # every cited expectation evaluated there passes
    REGRESSED = "regressed"    # a cited expectation fails
    UNCHECKED = "unchecked"    # none of the cited expectations was evaluated (e.g. a profile without them)
    NONE = "none"              # the finding cites nothing (not reproduced)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


ExpectationId = Annotated[str, Field(pattern=ID_PATTERN, max_length=60)]


class Finding(_Strict):
    """One published figure or table and what the study shows of it."""

    paper: Annotated[str, Field(pattern=r"^\d{3}$")]     # as in ../shared/papers/README.md, e.g. "000"
    item: Annotated[str, Field(min_length=1, max_length=80)]   # "Fig. 3 left", "Table 4, RV column"
    shows: Annotated[str, Field(min_length=1)]           # what the paper's item shows
    counterpart: str = ""                                # lgbench's figure file or report table
    figures: list[Annotated[str, Field(pattern=r"^[^/\\]+\.png$")]] = []   # in RESULTS/figures
    verdict: Verdict
    summary: Annotated[str, Field(min_length=1)]         # the numbers behind the verdict
    evidence: list[ExpectationId] = []                   # ids of the expectations that back it
    section: Annotated[str, Field(pattern=r"^[a-z0-9]*$")] = ""   # link key of the detailed section

    @model_validator(mode="after")
    def _backed(self):
        if self.verdict != Verdict.NOT_REPRODUCED and not self.evidence:
            raise ValueError(f"a '{self.verdict.value}' finding cites the expectations that back it "
                             "(evidence: [id, ...])")
        if self.verdict == Verdict.NOT_REPRODUCED and self.evidence:
            raise ValueError("a 'not-reproduced' finding has no evidence; give it a verdict")
        return self


@dataclass(frozen=True)
class Assessment:
    """A finding of a study and the check results of the expectations it cites in one result folder."""

    study: str
    finding: Finding
    results: tuple[CheckResult, ...] = ()   # the cited expectations evaluated, in the order cited

    @property
    def failed(self) -> tuple[str, ...]:
        """The ids of the cited expectations that fail."""
        return tuple(result.id for result in self.results if not result.passed)

    @property
    def checked(self) -> int:
        """How many of the cited expectations were evaluated."""
        return len(self.results)

    @property
    def state(self) -> State:
        if not self.finding.evidence:
            return State.NONE
        return State.REGRESSED if self.failed else State.HOLDS if self.results else State.UNCHECKED

    @property
    def verdict_text(self) -> str:
        """The claimed verdict, or what became of it."""
        if self.state == State.REGRESSED:
            return f"regressed (was {self.finding.verdict.text}): {', '.join(self.failed)} failed"
        if self.state == State.UNCHECKED:
            return f"{self.finding.verdict.text} (not checked here)"
        return self.finding.verdict.text


def assess(study: str, findings: list[Finding], results: list[CheckResult] | None) -> list[Assessment]:
    """Every finding with the check ``results`` of the expectations it cites (None: not checked, e.g. the
    documentation written from the study files alone)."""
    outcome = {result.id: result for result in results or [] if result.id is not None}
    return [Assessment(study, finding, tuple(outcome[key] for key in finding.evidence if key in outcome))
            for finding in findings]


def missing_evidence(findings: list[Finding], expectation_ids: list[str | None]) -> list[tuple[int, str]]:
    """(finding index, id) of every cited id that is no expectation of the study."""
    known = set(expectation_ids)
    return [(index, key) for index, finding in enumerate(findings) for key in finding.evidence
            if key not in known]


_ITEM_KINDS = {"eq": 0, "eqs": 0, "fig": 1, "figs": 1, "table": 1, "tables": 1}


def item_order(item: str) -> tuple:
    """Sort key of an item within its paper: equations first, then figures and tables by number
    (a table between the figures of the same number and the next), then the text."""
    words = re.findall(r"[a-z]+|\d+", item.lower())
    kind = _ITEM_KINDS.get(words[0], 2) if words else 2
    number = next((int(word) for word in words if word.isdigit()), 10 ** 6)
    table_last = 1 if words and words[0].startswith("table") else 0
    return kind, number, table_last, item


def verdict_counts(assessments: list[Assessment]) -> dict[Verdict, int]:
    """How many findings claim each verdict."""
    counts = {verdict: 0 for verdict in Verdict}
    for item in assessments:
        counts[item.finding.verdict] += 1
    return counts
