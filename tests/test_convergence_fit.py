"""Observed order of accuracy and the step-size x method error table."""
import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lgbench.analysis.convergence import PLATEAU_MARGIN, error_table, fit_order, fitted_orders, round_off_plateau


def test_fit_recovers_order_four_above_the_round_off_floor():
    h = 1e-4 * 2.0 ** -np.arange(8)
    err = 1e8 * h ** 4
    err[-3:] = [2e-15, 5e-16, 3e-15]          # round-off plateau
    fit = fit_order(h, err, floor=1e-13)
    assert math.isclose(fit.slope, 4.0, rel_tol=1e-12)
    assert fit.points == 5
    assert (fit.h_min, fit.h_max) == (h[4], h[0])


def test_fit_ignores_nan_and_infinite_errors():
    h = np.array([1e-2, 5e-3, 2.5e-3, 1.25e-3])
    err = np.array([np.nan, np.inf, 1e-4, 2.5e-5])
    fit = fit_order(h, err)
    assert math.isclose(fit.slope, 2.0, rel_tol=1e-12) and fit.points == 2


def test_fewer_than_two_points_give_nan_and_say_why():
    fit = fit_order([1e-3, 5e-4], [1e-6, 1e-16], floor=1e-12)
    assert math.isnan(fit.slope) and fit.points == 1
    assert "only 1 point" in fit.note and fit.label() == "–"


@settings(max_examples=50, deadline=None)
@given(order=st.floats(0.5, 8.0), constant=st.floats(1e-3, 1e3))
def test_fit_recovers_any_power_law(order, constant):
    h = 0.1 * 2.0 ** -np.arange(6)
    fit = fit_order(h, constant * h ** order, floor=0.0)
    assert math.isclose(fit.slope, order, rel_tol=1e-9)


def test_error_table_has_steps_as_rows_methods_as_columns_and_failed_runs_as_nan():
    runs = pd.DataFrame({
        "run_id": ["a1", "a2", "b1", "b2"], "formulation": ["RV", "RV", "Rxyz", "Rxyz"],
        "integrator": ["RK44"] * 4, "h": [1e-3, 5e-4, 1e-3, 5e-4],
        "status": ["ok", "ok", "diverged", "ok"]})
    errors = pd.DataFrame({"run_id": ["a1", "a2", "b2", "a2"], "quantity": ["com", "com", "com", "omega"],
                           "measure": ["norm_at_t_end"] * 4, "value": [16e-12, 1e-12, 3e-8, 9.0]})
    table = error_table(runs, errors, "com", "norm_at_t_end")
    assert list(table.columns) == ["RV-RK44", "Rxyz-RK44"]
    assert list(table.index) == [1e-3, 5e-4]
    assert math.isnan(table.loc[1e-3, "Rxyz-RK44"])
    assert table.loc[5e-4, "RV-RK44"] == 1e-12
    assert math.isclose(fitted_orders(table, floor=1e-13)["RV-RK44"].slope, 4.0)


def test_a_kink_in_the_round_off_plateau_is_not_taken_for_the_order():
    """Paper 000 Fig. 3, Rxyz RK67: a plateau near 5e-12 with a small rise, then order 6 above it."""
    h = np.array([7.8125e-7, 1.5625e-6, 3.125e-6, 6.25e-6, 1.25e-5, 2.5e-5, 5e-5])
    err = np.concatenate([[3.3e-12, 3.5e-12, 5.5e-12], 5.5e-12 * 2.0 ** (6 * np.arange(1, 5)) * 7.0])
    fit = fit_order(h, err)
    assert abs(fit.slope - 6.0) < 0.05 and fit.h_min == 6.25e-6 and fit.points == 4


FLAGSHIP_H = np.array([1e-4, 5e-5, 2.5e-5, 1.25e-5, 6.25e-6])
"""The flagship study's grid (studies/heavy_top.yaml): COM errors at t = 1 s measured on it."""


def test_a_clean_power_law_just_under_1e_12_still_gives_its_order():
    """Flagship RV-DOPRI5: 3.05e-11 -> 9.99e-13 is order 4.93; below it the errors reach round-off."""
    err = np.array([3.0496e-11, 9.9947e-13, 1.1222e-13, 5.8767e-14, 5.5910e-14])
    fit = fit_order(FLAGSHIP_H, err)
    assert abs(fit.slope - 5.0) < 0.1 and fit.points == 2
    assert (fit.h_min, fit.h_max) == (5e-5, 1e-4)


def test_a_round_off_plateau_is_excluded_from_the_fit():
    """Flagship EP-F1-DOPRI5: the plateau (2.4e-14 ... 5.8e-14) and the point just above it (7.7e-14,
    a slope of 1.65 from the plateau and 3.7 to the next) are left out; 9.9e-13 stays in."""
    err = np.array([3.0413e-11, 9.9086e-13, 7.6575e-14, 2.4355e-14, 5.7685e-14])
    assert round_off_plateau(np.sort(FLAGSHIP_H), err[::-1]) == 5.7685e-14
    fit = fit_order(FLAGSHIP_H, err, floor=0.0)
    assert abs(fit.slope - 5.0) < 0.1 and (fit.h_min, fit.h_max) == (5e-5, 1e-4)


def test_a_plateau_far_above_round_off_is_left_out_too():
    """A solver tolerance stops the error near 3e-6; the order is fitted above it, not through it."""
    h = 1e-2 * 2.0 ** -np.arange(8)
    clean = 1e-2 * (h / 1e-2) ** 2
    err = np.where(clean > 3e-6, clean, 3e-6 * (1 + 0.3 * np.sin(np.arange(8))))
    assert err[5] < PLATEAU_MARGIN * round_off_plateau(h[::-1], err[::-1]) < err[4]
    fit = fit_order(h, err)
    assert math.isclose(fit.slope, 2.0) and fit.h_min == h[4] and fit.points == 5


def test_errors_within_the_plateau_margin_are_left_out():
    """A point only PLATEAU_MARGIN / 2 above the plateau carries too much round-off to enter."""
    h = 1e-3 * 2.0 ** -np.arange(6)
    err = np.array([3.2e-8, 1e-9, 3.1e-11, 0.5 * PLATEAU_MARGIN * 1e-12, 1e-12, 0.8e-12])
    fit = fit_order(h, err, floor=0.0)
    assert fit.points == 3 and fit.h_min == h[2]


def test_a_method_at_round_off_at_every_step_has_no_order():
    """Spinning body, modified HHT with alpha = 0 (exact spin): every error is round-off and none
    decreases like a power law over two steps, so there is no order, not 0.94."""
    fit = fit_order([1e-2, 5e-3, 2.5e-3], [2.530e-12, 8.171e-14, 4.263e-14])
    assert math.isnan(fit.slope) and fit.label() == "–" and "round-off floor" in fit.note


def test_without_a_plateau_the_smallest_steps_enter_the_fit():
    """Puma 560 minimal coordinates, generalized-alpha: no plateau, every error above the floor."""
    h = 6.25e-3 * 2.0 ** -np.arange(4)
    fit = fit_order(h, [8.181e-12, 2.050e-12, 5.278e-13, 1.503e-13])
    assert fit.points == 4 and abs(fit.slope - 2.0) < 0.1


def test_an_error_that_decreases_nowhere_is_shown_as_its_slope_not_as_a_plateau():
    fit = fit_order([1e-2, 5e-3, 2.5e-3, 1.25e-3], [2e-3, 1.9e-3, 2.1e-3, 2e-3])
    assert fit.points >= 2 and abs(fit.slope) < 0.2
