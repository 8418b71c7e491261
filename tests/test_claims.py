"""Claims and computed verdicts: a claim's precision as the paper states it, expectations that can fail
when their claim fails (checked over every shipped study), and the grading rule of docs/REPRODUCTION.md."""
import json
import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from lgbench.analysis.claims import Claim, ClaimState, claim_state, unable_to_test
from lgbench.analysis.evidence import record_entries, recorded_results
from lgbench.analysis.expectations import CheckResult, CostRatioExpectation, LessExpectation, decide, window
from lgbench.analysis.findings import Finding, Verdict, grade
from lgbench.runner.study import load_study

ROOT = Path(__file__).resolve().parent.parent
STUDY_FILES = sorted((ROOT / "studies").glob("*.yaml"))
EVIDENCE = ROOT / "docs" / "evidence.json"


def _claim(**fields) -> Claim:
    return Claim(**{"quote": "q", "source": "Sect. 1", "kind": "number", **fields})


@pytest.mark.parametrize("fields, low, high", [
    ({"about": 40}, 32, 48),
    ({"printed": "1.96"}, 1.955, 1.965),
    ({"printed": "2.0"}, 1.95, 2.05),
    ({"printed": "3.7e-6"}, 3.65e-6, 3.75e-6),
    ({"printed": "40"}, 39.5, 40.5),
    ({"within": [0.8, 1.25]}, 0.8, 1.25),
    ({"order": 2}, 1.7, 2.3),
    ({"at_most": 1}, -math.inf, 1),
    ({"at_least": 1}, 1, math.inf),
    ({"every_run": True}, 1, 1),
])
def test_a_claims_precision_is_the_one_the_paper_states(fields, low, high):
    precision = _claim(**fields).precision
    assert precision.low == pytest.approx(low) and precision.high == pytest.approx(high)


def test_a_ranking_is_a_ratio_strictly_above_one():
    precision = _claim(kind="finding", ranking=True).precision
    assert not precision.contains(1.0) and precision.contains(1.0 + 1e-9)


@pytest.mark.parametrize("fields", [{}, {"about": 40, "order": 2}, {"printed": "abc"}, {"within": [2, 1]}])
def test_a_claim_states_exactly_one_precision(fields):
    with pytest.raises(ValidationError):
        _claim(**fields)


ABOUT_40 = _claim(about=40)


@pytest.mark.parametrize("bounds, can_test", [
    ({"min": 32, "max": 48}, True),
    ({"min": 35, "max": 45}, True),        # stricter than the claim
    ({"min": 15, "max": 150}, False),      # the window of 000 Fig. 5 left before it was tied to its claim
    ({"min": 32}, False),                  # no upper limit
])
def test_an_expectation_tests_a_claim_only_with_a_window_inside_its_precision(bounds, can_test):
    expectation = CostRatioExpectation(kind="cost_ratio", method="A", than="B", **bounds)
    assert (unable_to_test(expectation, ABOUT_40) == "") is can_test


def test_an_expectation_must_cover_the_step_sizes_of_its_claim():
    claim = _claim(kind="finding", ranking=True, h_range=(1e-5, 1e-3))
    narrow = LessExpectation(kind="less", column="newton_per_step", lower="A", than="B", h_range=(1e-4, 1e-3))
    whole = LessExpectation(kind="less", column="newton_per_step", lower="A", than="B")
    assert "does not cover" in unable_to_test(narrow, claim)
    assert unable_to_test(whole, claim) == ""


def _result(key: str, passed: bool, complete: bool = True) -> CheckResult:
    return CheckResult("e", "", "", passed, key, (1.0, 1.0), "", complete)


def _finding(*claims, computed=True) -> Finding:
    return Finding(paper="000", item="Fig. 1", shows="s", summary="x", claims=list(claims), computed=computed)


NUMBER = _claim(about=40, expectations=["n"])
RANKING = _claim(kind="finding", ranking=True, expectations=["r"])
UNTESTED = _claim(kind="finding", ranking=True)


@pytest.mark.parametrize("claims, results, verdict", [
    ((NUMBER, RANKING), {"n": True, "r": True}, Verdict.REPRODUCED),
    ((NUMBER, RANKING), {"n": False, "r": True}, Verdict.TREND),       # a number misses its precision
    ((NUMBER, RANKING), {"n": True, "r": False}, Verdict.DIFFERS),     # a stated finding does not come out
    ((NUMBER, RANKING), {"n": False, "r": False}, Verdict.DIFFERS),
    ((NUMBER, UNTESTED), {"n": True}, Verdict.TREND),                  # an untested claim earns nothing
    ((UNTESTED,), {}, Verdict.DRAWN),
    ((), {}, Verdict.DRAWN),
    ((NUMBER, RANKING), {"n": True}, None),                            # r not evaluated: not checked
])
def test_the_verdict_is_computed_from_the_claims(claims, results, verdict):
    states = [claim_state(claim, {key: _result(key, passed) for key, passed in results.items()})
              for claim in claims]
    assert grade(_finding(*claims), states) is verdict


def test_a_finding_lgbench_does_not_compute_is_not_reproduced():
    assert grade(_finding(computed=False), []) is Verdict.NOT_REPRODUCED


def test_an_expectation_of_a_method_without_runs_leaves_its_claim_unchecked():
    assert claim_state(RANKING, {"r": _result("r", False, complete=False)}) is ClaimState.UNCHECKED


def test_a_recorded_observation_is_decided_again_on_the_window_as_it_stands():
    before = CostRatioExpectation(kind="cost_ratio", id="c", method="A", than="B", min=15, max=150)
    result = CheckResult("e", "", "49.7", True, "c", (49.7, 49.7), _key(before))
    entries = json.loads(json.dumps(record_entries([before], [result])))
    now = before.model_copy(update={"min": 32, "max": 48})
    (decided,) = recorded_results([now], entries)
    assert not decided.passed and decided.statistic == (49.7, 49.7)
    other = before.model_copy(update={"than": "C"})        # observes something else: not recorded
    assert recorded_results([other], entries) == []


def _key(item) -> str:
    from lgbench.analysis.expectations import observation_key

    return observation_key(item)


def _cited():
    """(study, finding item, claim, expectation) of every claim's cited expectation in the shipped studies."""
    cases = []
    for path in STUDY_FILES:
        study = load_study(path)
        by_id = {item.id: item for item in study.expectations if item.id}
        for finding in study.findings:
            for claim in finding.claims:
                cases += [(study.name, finding.item, claim, by_id[key]) for key in claim.expectations]
    return cases


CITED = _cited()


def test_the_shipped_studies_cite_expectations():
    assert len(CITED) >= 100


@pytest.mark.parametrize("study, item, claim, expectation", CITED,
                         ids=[f"{case[0]}:{case[3].id}" for case in CITED])
def test_every_cited_expectation_fails_when_its_claim_fails(study, item, claim, expectation):
    """Move the observed statistic just outside the claim's precision, at each of its finite ends: the
    expectation fails. Also from the value recorded by the last full reproduction, moved by the least
    that takes it outside."""
    outside = claim.precision.just_outside()
    assert outside, f"{study} {item}: a claim whose precision has no finite end tests nothing"
    for value in outside:
        assert not decide(expectation, (value, value)), (study, item, claim.quote, window(expectation).text, value)
    recorded = _recorded_statistic(study, expectation)
    if recorded is not None:
        low, high = recorded
        for value in outside:
            moved = (min(low, value), high) if value <= claim.precision.low else (low, max(high, value))
            assert not decide(expectation, moved), (study, item, claim.quote, moved)


def _recorded_statistic(study: str, expectation):
    if not EVIDENCE.exists():
        return None
    entries = json.loads(EVIDENCE.read_text())["studies"].get(study, {}).get("expectations", {})
    (result,) = recorded_results([expectation], entries) or (None,)
    return None if result is None else result.statistic


def test_a_window_written_with_the_claims_own_decimals_can_test_it():
    """A claim printed as 1.16 covers [1.155, 1.165]: an expectation whose window a study file writes with
    those decimals tests it, although expected +- tolerance rounds differently in binary; a window wider by
    one digit further does not."""
    from lgbench.analysis.claims import Claim
    from lgbench.analysis.expectations import LessExpectation, OrderExpectation, window
    from lgbench.analysis.window import Interval

    printed = Claim(quote="1.16", source="table", kind="number", printed="1.16")
    assert printed.precision == Interval(1.155, 1.165)
    ratio = {"kind": "less", "column": "error:x", "lower": "A", "than": "B"}
    assert window(LessExpectation(**ratio, factor=1.155, max_factor=1.165)).inside(printed.precision)
    assert not window(LessExpectation(**ratio, factor=1.1549, max_factor=1.165)).inside(printed.precision)
    assert not window(LessExpectation(**ratio, factor=1.155, max_factor=1.1651)).inside(printed.precision)
    stated = Claim(quote="1.95-2.18", source="text", kind="finding", within=(1.945, 2.185))
    order = {"kind": "order", "method": "A"}
    assert window(OrderExpectation(**order, expected=2.065, tolerance=0.12)).inside(stated.precision)
    assert not window(OrderExpectation(**order, expected=2.065, tolerance=0.1201)).inside(stated.precision)
