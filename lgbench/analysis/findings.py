"""What a study shows of a paper (``findings:`` in a study file), graded from its claims.

A finding is one row of the "At a glance" tables of docs/REPRODUCTION.md: a published figure or table,
lgbench's counterpart, and the paper's claims about it (``lgbench.analysis.claims``), each quoted with
its precision and the expectations that test it. Its verdict is computed from how the claims come out
in a set of results (``grade``), never written by hand:

- *reproduced*: every claim holds: each published number within its precision, each stated ranking,
  slope, shape or failure comes out;
- *trend*: every stated finding that lgbench tests comes out, but a published number misses its
  precision, or a stated finding is not tested;
- *differs*: a stated finding does not come out;
- *drawn*: lgbench computes and draws it, but nothing published can be compared (the published curve
  is lost from the text copy and the paper states nothing about it that lgbench tests);
- *not reproduced*: lgbench does not compute it.

Findings of ``paper: lgbench`` (``OWN``) are lgbench's own comparisons beyond the papers, the statements
of docs/findings.md, graded by the same rule: their claims quote that document.

The results are those of a result folder (``lgbench check``, the front page of ``lgbench reproduce``) or
the record of the last full reproduction (``docs/evidence.json``, for docs/REPRODUCTION.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from lgbench.analysis.claims import Claim, ClaimKind, ClaimState, claim_state
from lgbench.analysis.expectations import CheckResult


OWN = "lgbench"
"""The ``paper`` of a finding that is one of lgbench's own comparisons (docs/findings.md), not a paper's."""


class Verdict(str, Enum):
    """The verdicts of docs/REPRODUCTION.md, "At a glance"."""

    REPRODUCED = "reproduced"
    TREND = "trend"
    DIFFERS = "differs"
    DRAWN = "drawn"
    NOT_REPRODUCED = "not-reproduced"

    @property
    def text(self) -> str:
        return VERDICT_TEXT[self]


VERDICT_TEXT = {Verdict.REPRODUCED: "reproduced", Verdict.TREND: "reproduced (trend)",
                Verdict.DIFFERS: "differs", Verdict.DRAWN: "drawn (nothing published to compare)",
                Verdict.NOT_REPRODUCED: "not reproduced"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Finding(_Strict):
    """One published figure or table, what the study shows of it, and the paper's claims about it."""

    paper: Annotated[str, Field(pattern=rf"^(\d{{3}}|{OWN})$")]   # as in ../shared/papers/README.md, or OWN
    item: Annotated[str, Field(min_length=1, max_length=80)]   # "Fig. 3 left", "Table 4, RV column"
    shows: Annotated[str, Field(min_length=1)]           # what the paper's item shows
    counterpart: str = ""                                # lgbench's figure file or report table
    figures: list[Annotated[str, Field(pattern=r"^[^/\\]+\.png$")]] = []   # in RESULTS/figures
    computed: bool = True                                # False: lgbench does not compute it
    summary: Annotated[str, Field(min_length=1)]         # lgbench's side in words
    claims: list[Claim] = []
    peer: str = ""                                       # what the paper's own code (Exudyn) gives, and how
    section: Annotated[str, Field(pattern=r"^[a-z0-9]*$")] = ""   # link key of the detailed section

    @property
    def evidence(self) -> list[str]:
        """The ids of every expectation its claims cite, in order, once each."""
        return list(dict.fromkeys(key for claim in self.claims for key in claim.expectations))


@dataclass(frozen=True)
class Assessment:
    """A finding of a study with the check results of its cited expectations in one set of results
    (None: the finding was not checked against any results)."""

    study: str
    finding: Finding
    results: dict[str, CheckResult] | None = None

    @property
    def claim_states(self) -> list[ClaimState]:
        return [claim_state(claim, self.results or {}) for claim in self.finding.claims]

    @property
    def verdict(self) -> Verdict | None:
        """The computed verdict; None where a claim's expectations were not evaluated."""
        return grade(self.finding, self.claim_states)

    @property
    def verdict_text(self) -> str:
        verdict = self.verdict
        return "not checked here" if verdict is None else verdict.text

    @property
    def failed(self) -> tuple[str, ...]:
        """The ids of the cited expectations that fail."""
        return tuple(key for key in self.finding.evidence
                     if self.results and key in self.results and not self.results[key].passed)


def published(assessments: list[Assessment]) -> list[Assessment]:
    """The findings of the papers, without lgbench's own comparisons (``OWN``): what the papers' counts count."""
    return [item for item in assessments if item.finding.paper != OWN]


def grade(finding: Finding, states: list[ClaimState]) -> Verdict | None:
    """The verdict of ``finding`` from the states of its claims (in order); None if one is unchecked."""
    if not finding.computed:
        return Verdict.NOT_REPRODUCED
    kinds = [claim.kind for claim in finding.claims]
    if any(state == ClaimState.FAILS and kind == ClaimKind.FINDING for state, kind in zip(states, kinds)):
        return Verdict.DIFFERS
    if ClaimState.UNCHECKED in states:
        return None
    if not any(state in (ClaimState.HOLDS, ClaimState.FAILS) for state in states):
        return Verdict.DRAWN
    return Verdict.REPRODUCED if all(state == ClaimState.HOLDS for state in states) else Verdict.TREND


def assess(study: str, findings: list[Finding], results: list[CheckResult] | None) -> list[Assessment]:
    """Every finding with the check ``results`` of the expectations it cites (None: not checked)."""
    by_id = None if results is None else {result.id: result for result in results if result.id is not None}
    return [Assessment(study, finding, by_id) for finding in findings]


def claim_tests(study) -> set[str]:
    """The ids of the expectations that test the paper's claims in ``study`` checked on its full grid: their
    outcome grades a finding (a claim that does not come out is a result, not a regression). In a profile
    (``study.profile`` set) every expectation is a regression check."""
    if getattr(study, "profile", None) is not None:
        return set()
    return {key for finding in study.findings for key in finding.evidence}


def check_verdict(result: CheckResult, tests: set[str]) -> str:
    """The verdict word of a check result: a claim's test holds or is not met; any other passes ("ok")
    or is a regression."""
    if result.id in tests:
        return "claim holds" if result.passed else "claim not met"
    return "ok" if result.passed else "REGRESSION"


def missing_evidence(findings: list[Finding], expectation_ids: list[str | None]) -> list[tuple[int, int, str]]:
    """(finding index, claim index, id) of every cited id that is no expectation of the study."""
    known = set(expectation_ids)
    return [(index, number, key) for index, finding in enumerate(findings)
            for number, claim in enumerate(finding.claims) for key in claim.expectations if key not in known]


_ITEM_KINDS = {"eq": 0, "eqs": 0, "fig": 1, "figs": 1, "table": 1, "tables": 1}


def item_order(item: str) -> tuple:
    """Sort key of an item within its paper: equations first, then figures and tables by number
    (a table between the figures of the same number and the next), then the text."""
    words = re.findall(r"[a-z]+|\d+", item.lower())
    kind = _ITEM_KINDS.get(words[0], 2) if words else 2
    number = next((int(word) for word in words if word.isdigit()), 10 ** 6)
    table_last = 1 if words and words[0].startswith("table") else 0
    return kind, number, table_last, item


def verdict_counts(assessments: list[Assessment]) -> dict[Verdict | None, int]:
    """How many findings have each verdict (None: not checked)."""
    counts: dict[Verdict | None, int] = {verdict: 0 for verdict in Verdict}
    for item in assessments:
        verdict = item.verdict
        counts[verdict] = counts.get(verdict, 0) + 1
    return counts
