"""What a paper states, quoted, with the precision it is stated to, and the expectations that test it.

A claim is one sentence or table cell of a paper. Its precision is an interval of the statistic its
expectations observe (``lgbench.analysis.expectations``): "about 40 times" is 32-48 (``about``: +-20 %),
a table value printed as 1.96 is 1.955-1.965 (``printed``), "RV needs fewer iterations than EP" is a
ratio above 1 (``ranking``), "order 2" a fitted slope of 1.7-2.3 (``order``), "fails for h >= 1.25e-4"
every run of that range (``every_run``). An expectation tests the claim only if its window lies inside
that interval, so that it fails whenever the claim fails; a study file citing any other is refused.

A ``number`` claim that misses its precision leaves the ranking, slope and shape standing (the finding
is a trend); a ``finding`` claim that does not come out makes the finding differ.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lgbench.analysis.expectations import ID_PATTERN, CheckResult, window
from lgbench.analysis.window import Interval

ABOUT = 0.2
"""How far an "about X" may be from X, relative: the grading rule of docs/REPRODUCTION.md."""
ORDER_PRECISION = 0.3
"""How far a fitted slope may be from a stated order of convergence."""

PRECISIONS = ("about", "printed", "within", "at_least", "at_most", "ranking", "order", "every_run")
"""The ways a claim states its precision; a claim gives exactly one."""

ExpectationId = Annotated[str, Field(pattern=ID_PATTERN, max_length=60)]


class ClaimKind(str, Enum):
    NUMBER = "number"       # a published number: missing its precision makes the finding a trend
    FINDING = "finding"     # a stated ranking, slope, shape or failure: not coming out makes it differ


class Claim(BaseModel):
    """One statement of a paper and the expectations that test it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    quote: Annotated[str, Field(min_length=1)]           # the paper's words (or table cell), verbatim
    source: Annotated[str, Field(min_length=1)]          # where: "Sect. 5.1.1", "Table 4, row h = 1e-4"
    kind: ClaimKind
    about: float | None = None
    printed: str | None = None
    within: tuple[float, float] | None = None
    at_least: float | None = None
    at_most: float | None = None
    ranking: bool = False
    order: float | None = None
    every_run: bool = False
    h_range: tuple[float, float] | None = None           # the step sizes the paper states it for
    expectations: list[ExpectationId] = []
    note: str = ""                                       # lgbench's side, where it needs words

    @model_validator(mode="after")
    def _one_precision(self):
        given = [name for name in PRECISIONS if getattr(self, name) not in (None, False)]
        if len(given) != 1:
            raise ValueError(f"a claim states its precision in exactly one of {', '.join(PRECISIONS)} "
                             f"({'none' if not given else ', '.join(given)} given)")
        if self.printed is not None:
            _printed_value(self.printed)
        if self.within is not None and self.within[0] > self.within[1]:
            raise ValueError(f"within: {self.within[0]:g} is above {self.within[1]:g}")
        return self

    @property
    def precision(self) -> Interval:
        """The values of the cited expectations' statistic that agree with the claim."""
        if self.about is not None:
            low, high = sorted((self.about * (1 - ABOUT), self.about * (1 + ABOUT)))
            return Interval(low, high)
        if self.printed is not None:
            return Interval(*_printed_value(self.printed))
        if self.within is not None:
            return Interval(*self.within)
        if self.at_least is not None:
            return Interval(self.at_least)
        if self.at_most is not None:
            return Interval(high=self.at_most)
        if self.order is not None:
            return Interval(self.order - ORDER_PRECISION, self.order + ORDER_PRECISION)
        if self.ranking:
            return Interval(1.0, low_open=True)
        return Interval(1.0, 1.0)

    @property
    def precision_text(self) -> str:
        if self.about is not None:
            return f"about {self.about:g} (+-{ABOUT:.0%}): {self.precision.text}"
        if self.printed is not None:
            return f"printed {self.printed}: {self.precision.text}"
        if self.order is not None:
            return f"order {self.order:g} (+-{ORDER_PRECISION:g}): {self.precision.text}"
        if self.ranking:
            return "ranking: ratio > 1"
        if self.every_run:
            return "every run"
        return self.precision.text


def _printed_value(text: str) -> tuple[float, float]:
    """The numbers that print as ``text``: half a unit of its last printed digit either side, computed in
    decimal so that the ends are the decimal numbers a study file writes (1.155 and 1.165 for 1.16)."""
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"printed: '{text}' is not a number as printed (e.g. 1.96, 2.0, 3.7e-6)") from None
    if not number.is_finite():
        raise ValueError(f"printed: '{text}' is not a finite number")
    half_unit = Decimal(5).scaleb(number.as_tuple().exponent - 1)
    return float(number - half_unit), float(number + half_unit)


def unable_to_test(expectation, claim: Claim) -> str:
    """Why ``expectation`` cannot test ``claim`` ("" if it can): its window must lie inside the claim's
    precision, and its step range must cover the claim's."""
    allowed = window(expectation)
    if not allowed.inside(claim.precision):
        return (f"its window {allowed.text} is wider than the claim's precision "
                f"{claim.precision.text}")
    covered = getattr(expectation, "h_range", None)
    if claim.h_range is not None and covered is not None:
        if not (covered[0] <= claim.h_range[0] * (1 + 1e-9) and claim.h_range[1] <= covered[1] * (1 + 1e-9)):
            return (f"its h range [{covered[0]:g}, {covered[1]:g}] does not cover the claim's "
                    f"[{claim.h_range[0]:g}, {claim.h_range[1]:g}]")
    return ""


class ClaimState(str, Enum):
    HOLDS = "holds"            # every cited expectation evaluated passes
    FAILS = "fails"            # a cited expectation fails
    UNTESTED = "untested"      # the claim cites no expectation: lgbench does not check it
    UNCHECKED = "not checked"  # its expectations were not evaluated in these results


def claim_state(claim: Claim, results: dict[str, CheckResult]) -> ClaimState:
    """How ``claim`` comes out, given the check results of a study's expectations by id."""
    if not claim.expectations:
        return ClaimState.UNTESTED
    evaluated = [results[key] for key in claim.expectations if key in results and results[key].complete]
    if not evaluated:
        return ClaimState.UNCHECKED
    if not all(result.passed for result in evaluated):
        return ClaimState.FAILS
    return ClaimState.HOLDS if len(evaluated) == len(claim.expectations) else ClaimState.UNCHECKED


def observed_text(claim: Claim, results: dict[str, CheckResult]) -> str:
    """The observed values of the claim's expectations: ``id: observed`` joined."""
    return "; ".join(f"{key}: {results[key].observed}" for key in claim.expectations if key in results)
