"""The record of a full reproduction: what each expectation of each study observed, so that the
verdicts of docs/REPRODUCTION.md are computed from results without the result folders at hand.

An entry keeps the expectation's statistic and its ``observation_key``; the check result is decided
again on the expectation's window as the study file states it now (``recorded_results``), so a window
moved after the reproduction moves the verdict with it, and an expectation that now observes something
else (another method, h or error) counts as not checked until the next reproduction.
"""
from __future__ import annotations

from typing import Any

from lgbench.analysis.expectations import CheckResult, decide, observation_key, window


def record_entries(expectations, results: list[CheckResult]) -> dict[str, dict[str, Any]]:
    """Entries of the record for the expectations with an id, from their check results in order."""
    entries = {}
    for item, result in zip(expectations, results):
        if item.id is None or not result.complete:
            continue
        statistic = None if result.statistic is None else [float(value) for value in result.statistic]
        entries[item.id] = {"key": result.key, "statistic": statistic, "observed": result.observed,
                            "expectation": result.expectation,
                            "extra": bool(result.passed or not decide(item, result.statistic))}
    return entries


def recorded_results(expectations, entries: dict[str, dict[str, Any]]) -> list[CheckResult]:
    """Check results of the expectations with an id from recorded ``entries``, decided on the windows of
    ``expectations``; those not recorded, or recorded for another observation, are left out."""
    results = []
    for item in expectations:
        entry = entries.get(item.id) if item.id is not None else None
        key = observation_key(item)
        if not isinstance(entry, dict) or entry.get("key") != key:
            continue
        statistic = entry.get("statistic")
        statistic = None if statistic is None else (float(statistic[0]), float(statistic[1]))
        passed = decide(item, statistic) and bool(entry.get("extra", True))
        results.append(CheckResult(str(entry.get("expectation", "")), window(item).text,
                                   str(entry.get("observed", "")), passed, item.id, statistic, key))
    return results
