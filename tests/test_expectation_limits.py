"""Every expectation kind passes just inside and fails just outside each of its limits, on a hand-made
result (``test_check._fixture_frames``: RV's COM error 1e6 h^4, Rxyz's 1e9 h^4 with its run at h = 4e-4
failed; Rxyz's Newton count 2.53 at h = 5e-5; constraint residuals 1e-12 ... 4e-12; Rxyz costs 3x RV's
CPU time at every h). A planted bug in one comparison of ``lgbench.analysis.expectations`` fails here."""
import math

import numpy as np
import pandas as pd
import pytest
from test_check import _fixture_frames, _fixture_study

from lgbench.analysis.convergence import error_table
from lgbench.analysis.expectations import check, series_statistic
from lgbench.integrators.adaptive import ADAPTIVE_DEFAULTS
from lgbench.integrators.adaptive_steps import next_step_size, step_control

NEWTON = {"kind": "value", "method": "Rxyz-RK44", "column": "newton_per_step", "h": 5e-5}
ACCURACY = {"kind": "less", "column": "error:com", "lower": "RV-RK44", "than": "Rxyz-RK44"}
RESIDUAL = {"kind": "bound", "column": "max_constraint_residual"}
MEAN_COST = {"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44"}
RV_CHEAPEST = {"kind": "cheapest", "methods": ["RV-RK44"]}


@pytest.mark.parametrize("expectation, passes", [
    # order: the fitted slope of RV is 4
    ({"kind": "order", "method": "RV-RK44", "expected": 4.29}, True),
    ({"kind": "order", "method": "RV-RK44", "expected": 4.31}, False),          # below the window
    ({"kind": "order", "method": "RV-RK44", "expected": 3.71}, True),
    ({"kind": "order", "method": "RV-RK44", "expected": 3.69}, False),          # above the window
    ({"kind": "order", "method": "RV-RK44", "expected": 4.29, "at_least": True}, True),
    ({"kind": "order", "method": "RV-RK44", "expected": 4.31, "at_least": True}, False),
    ({"kind": "order", "method": "RV-RK44", "expected": 2, "at_least": True}, True),   # no upper limit
    # value: 2.53
    ({**NEWTON, "expected": 2.52, "tolerance": 0.011}, True),
    ({**NEWTON, "expected": 2.52, "tolerance": 0.009}, False),                  # above expected + tolerance
    ({**NEWTON, "expected": 2.54, "tolerance": 0.011}, True),
    ({**NEWTON, "expected": 2.54, "tolerance": 0.009}, False),                  # below expected - tolerance
    # less: Rxyz's error is 1000 x RV's at every common h
    ({**ACCURACY, "factor": 999}, True),
    ({**ACCURACY, "factor": 1001}, False),
    ({**ACCURACY, "max_factor": 1001}, True),
    ({**ACCURACY, "max_factor": 999}, False),
    # bound: 1e-12 ... 4e-12 over the ok runs
    ({**RESIDUAL, "min": 1e-12}, True),
    ({**RESIDUAL, "min": 1.1e-12}, False),                                       # the smallest is below min
    ({**RESIDUAL, "max": 4e-12}, True),
    ({**RESIDUAL, "max": 3.9e-12}, False),                                       # the largest is above max
    ({**RESIDUAL, "min": 1e-12, "max": 4e-12}, True),
    # cost_ratio: 3 at every h (geometric mean 3)
    ({**MEAN_COST, "min": 2.99}, True),
    ({**MEAN_COST, "min": 3.01}, False),
    ({**MEAN_COST, "max": 3.01}, True),
    ({**MEAN_COST, "max": 2.99}, False),
    # cheapest: at error 1e-8 Rxyz costs 3 * 1000**(1/4) = 16.87x RV; at 1e-6 RV's coarsest run already
    # beats the target (its cost there, 0.1 s, is an upper bound) and Rxyz's reading is 0.675 s: 6.75x
    ({**RV_CHEAPEST, "at_error": 1e-8, "min": 16.8}, True),
    ({**RV_CHEAPEST, "at_error": 1e-8, "min": 16.9}, False),
    ({**RV_CHEAPEST, "at_error": 1e-8, "max": 16.9}, True),
    ({**RV_CHEAPEST, "at_error": 1e-8, "max": 16.8}, False),
    ({"kind": "cheapest", "methods": ["Rxyz-RK44"], "at_error": 1e-8, "min": 1}, False),
    ({**RV_CHEAPEST, "at_error": 1e-6, "min": 6.7, "max": 6.8}, True),
    ({**RV_CHEAPEST, "at_error": 1e-6, "min": 6.8}, False),
    ({**RV_CHEAPEST, "at_error": 1e-10, "min": 1e6}, True),     # only RV reaches it: no rival at all
    ({"kind": "cheapest", "methods": ["Rxyz-RK44"], "at_error": 1e-10, "min": 1e-6}, False),  # the group misses
    ({**RV_CHEAPEST, "at_error": 1e-13, "min": 1e-6}, False),   # nobody reaches it: nothing observed
    # fails / succeeds: Rxyz fails at 4e-4 only
    ({"kind": "succeeds", "method": "Rxyz-RK44", "h_range": [5e-5, 2e-4]}, True),
    ({"kind": "succeeds", "method": "Rxyz-RK44", "h_range": [5e-5, 4e-4]}, False),
    ({"kind": "fails", "method": "Rxyz-RK44", "h_range": [4e-4, 4e-4]}, True),
    ({"kind": "fails", "method": "Rxyz-RK44", "h_range": [2e-4, 4e-4]}, False),
])
def test_each_kind_passes_inside_and_fails_outside_each_limit(tmp_path, expectation, passes):
    study = _fixture_study(tmp_path, [expectation])
    runs, errors = _fixture_frames()
    (result,) = check(study, runs, errors)
    assert result.passed is passes, result


def _with_error_of_the_failed_run(value: float):
    """The fixture with an error row for Rxyz's failed run at h = 4e-4 (as a crashed run might leave)."""
    runs, errors = _fixture_frames()
    stray = {"run_id": "Rxyz-0.0004", "quantity": "com", "measure": "norm_at_t_end", "value": value}
    return runs, pd.concat([errors, pd.DataFrame([stray])], ignore_index=True)


def test_a_failed_run_has_no_error_in_the_error_table():
    runs, errors = _with_error_of_the_failed_run(1.0)
    table = error_table(runs, errors, "com", "norm_at_t_end")
    assert math.isnan(table.loc[4e-4, "Rxyz-RK44"])
    assert table.loc[2e-4, "Rxyz-RK44"] == pytest.approx(1e9 * 2e-4 ** 4)


def test_a_failed_run_does_not_enter_the_order_fit(tmp_path):
    """A stray error of 1.0 at the failed h would pull the fitted slope far from 4."""
    study = _fixture_study(tmp_path, [{"kind": "order", "method": "Rxyz-RK44", "expected": 4, "tolerance": 0.05}])
    (result,) = check(study, *_with_error_of_the_failed_run(1.0))
    assert result.passed, result


def test_a_failed_run_is_no_point_of_a_ranking(tmp_path):
    """At the failed h a stray error below RV's would break the ranking if it counted."""
    study = _fixture_study(tmp_path, [{**ACCURACY, "factor": 999}])
    (result,) = check(study, *_with_error_of_the_failed_run(1e-30))
    assert result.passed, result


CONTROL = step_control(ADAPTIVE_DEFAULTS, 1e-2, 4)       # DOPRI5's embedded method: order 4


def test_the_step_size_exponent_is_one_over_the_embedded_order_plus_one():
    assert CONTROL.exponent == pytest.approx(1 / 5)


@pytest.mark.parametrize("err, expected", [
    (32.0, 0.9 * 1e-3 / 2),          # h_opt = step (1/32)^(1/5) = step / 2, times f_sfty (eq. B20)
    (1 / 32, 0.9 * 2 * 1e-3),        # h_opt = 2 step
    (1e-12, 2 * 1e-3),               # growth capped at f_maxInc step
    (0.0, 0.9 * 2 * 1e-3),           # no error: h_opt = f_maxInc step
    (1e80, 1e-12),                   # at least h_min
])
def test_the_controller_proposes_the_step_of_eqs_b19_to_b21(err, expected):
    assert next_step_size.py_func(CONTROL, 1e-3, err, 1e-2) == pytest.approx(expected, rel=1e-12)


def test_the_controller_never_proposes_more_than_h_max():
    assert next_step_size.py_func(CONTROL, 8e-3, 1e-6, 1e-2) == pytest.approx(1e-2)


def _series(run_id):
    """Time series of the fixture's runs: com_x = sin(2 pi f t) with f = 5 Hz for RV, 20 Hz for Rxyz, over
    1 s at 1001 samples, plus 0.3 (a mean the period ignores); omega_x = 2 cos(2 pi t) for both."""
    t = np.linspace(0.0, 1.0, 1001)
    frequency = 5.0 if run_id.startswith("RV") else 20.0
    return pd.DataFrame({"t": t, "com_x": 0.3 + np.sin(2 * np.pi * frequency * t), "omega_x": 2 * np.cos(2 * np.pi * t)})


SERIES = {"kind": "series", "method": "RV-RK44", "h": 1e-4, "output": "com_x"}


@pytest.mark.parametrize("expectation, passes", [
    ({**SERIES, "statistic": "period", "min": 0.199, "max": 0.201}, True),
    ({**SERIES, "statistic": "period", "min": 0.201}, False),
    ({**SERIES, "statistic": "period", "max": 0.199}, False),
    ({**SERIES, "statistic": "frequency", "min": 4.99, "max": 5.01}, True),
    ({**SERIES, "statistic": "max_abs", "min": 1.299, "max": 1.301}, True),
    ({**SERIES, "statistic": "range", "min": 1.999, "max": 2.001}, True),
    ({**SERIES, "statistic": "range", "max": 1.99}, False),
    # against another run (Rxyz: 4x the frequency) and another output (omega_x: 1 Hz)
    ({**SERIES, "statistic": "frequency", "than": {"method": "Rxyz-RK44"}, "min": 0.249, "max": 0.251}, True),
    ({**SERIES, "statistic": "frequency", "than": {"output": "omega_x"}, "min": 4.99, "max": 5.01}, True),
    ({**SERIES, "statistic": "frequency", "than": {"output": "omega_x"}, "max": 4.9}, False),
    # omega_x has one period over the second: two zero crossings, one half-period apart
    ({**SERIES, "output": "omega_x", "statistic": "period", "min": 0.99, "max": 1.01}, True),
    ({**SERIES, "h": 4e-4, "method": "Rxyz-RK44", "statistic": "max_abs", "min": 0}, False),   # a failed run
    ({**SERIES, "output": "no_such_output", "statistic": "max_abs", "min": 0}, False),
])
def test_the_series_kind_passes_inside_and_fails_outside_each_limit(tmp_path, expectation, passes):
    study = _fixture_study(tmp_path, [expectation])
    runs, errors = _fixture_frames()
    (result,) = check(study, runs, errors, _series)
    assert result.passed is passes, result


def test_a_series_expectation_is_not_checked_without_the_series(tmp_path):
    study = _fixture_study(tmp_path, [{**SERIES, "statistic": "period", "min": 0.1}])
    runs, errors = _fixture_frames()
    (result,) = check(study, runs, errors)
    assert not result.complete and result.statistic is None


def test_a_series_with_fewer_than_two_zero_crossings_has_no_period():
    t = np.linspace(0.0, 1.0, 101)
    assert math.isnan(series_statistic(t, t ** 2, "period"))
    assert math.isnan(series_statistic(t, np.full(101, math.nan), "max_abs"))
