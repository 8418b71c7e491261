"""Intervals of an observed statistic: an expectation's window (the values it passes) and a claim's
precision (the values that agree with the paper).

An expectation can test a claim only if its window lies inside the claim's precision: then every value
the claim rejects, the expectation rejects too (``Interval.inside``). ``just_outside`` gives the values
a mutation test moves an observation to.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

SAME_DECIMAL = 1e-12
"""Ends closer than this (relative) are the same number written in decimal: an expectation's window
(expected +- tolerance) and a claim's precision are computed in binary from decimals a study file writes."""
MUTATION_STEP = 1e-6
"""How far beyond a finite end ``just_outside`` steps, relative to the end (absolute at 0)."""


@dataclass(frozen=True)
class Interval:
    """The real numbers between ``low`` and ``high`` (infinite ends allowed), each end open or closed."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def __post_init__(self):
        if math.isnan(self.low) or math.isnan(self.high) or self.low > self.high:
            raise ValueError(f"not an interval: [{self.low}, {self.high}]")

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval; NaN never does."""
        if math.isnan(value):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def inside(self, other: Interval) -> bool:
        """Whether every value of this interval lies in ``other``."""
        low_same, high_same = _same(self.low, other.low), _same(self.high, other.high)
        low_ok = (self.low > other.low and not low_same) or (low_same and (self.low_open or not other.low_open))
        high_ok = (self.high < other.high and not high_same) or (high_same and (self.high_open or not other.high_open))
        return low_ok and high_ok

    def just_outside(self) -> list[float]:
        """A value just beyond each finite end: the smallest moves an observation can make out of it."""
        values = []
        if math.isfinite(self.low):
            values.append(self.low - _step(self.low) if not self.low_open else self.low)
        if math.isfinite(self.high):
            values.append(self.high + _step(self.high) if not self.high_open else self.high)
        return values

    @property
    def text(self) -> str:
        """``[1.7, 2.3]``, ``> 1``, ``<= 1e-10``, ``= 1``."""
        if self.low == self.high:
            return f"= {self.low:.6g}"
        if math.isinf(self.low) and math.isinf(self.high):
            return "any value"
        if math.isinf(self.high):
            return f"{'>' if self.low_open else '>='} {self.low:.6g}"
        if math.isinf(self.low):
            return f"{'<' if self.high_open else '<='} {self.high:.6g}"
        return f"{'(' if self.low_open else '['}{self.low:.6g}, {self.high:.6g}{')' if self.high_open else ']'}"


def _same(a: float, b: float) -> bool:
    """Whether two ends are the same decimal number (``SAME_DECIMAL``); infinite ends only if equal."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= SAME_DECIMAL * max(abs(a), abs(b))


def _step(value: float) -> float:
    return MUTATION_STEP * abs(value) if value != 0 else MUTATION_STEP


EVERYTHING = Interval()
