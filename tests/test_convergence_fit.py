"""Observed order of accuracy and the step-size x method error table."""
import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lgbench.analysis.convergence import error_table, fit_order, fitted_orders


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
