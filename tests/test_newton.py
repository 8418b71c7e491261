"""One Newton policy for every implicit family (lgbench/integrators/newton.py, paper 000 Sect. 3.4)."""
import math
from typing import NamedTuple

from numba import njit
import numpy as np
import pytest

from lgbench.integrators.implicit import GENERALIZED_ALPHA, implicit_options
from lgbench.integrators.newton import (
    CONTRACTION_CHECK_FROM, FULL_NEWTON_AFTER, N_STATISTICS, RESTART_GROWTH, ROUND_OFF_ULPS, ST_NEWTON,
    ST_ROUND_OFF_STEPS, STALL_ITERATIONS, at_round_off, has_converged, modified_newton_policy, newton_solve,
    reference_residual,
)
from lgbench.mbs.codes import NEWTON_FAILED, OK
from lgbench.runner.single_run import RunSpec, run_single

NEWTON, _ = implicit_options(GENERALIZED_ALPHA, {"newton": "modified"})


def test_modified_newton_keeps_its_matrix_while_the_residual_contracts():
    for k in range(1, NEWTON.max_modified_iterations + 1):
        assert modified_newton_policy(k, 0.1, 1.0, False, NEWTON) == (False, False, False)


def test_modified_newton_refreshes_after_max_modified_iterations_or_on_slow_contraction():
    assert modified_newton_policy(NEWTON.max_modified_iterations + 1, 0.1, 1.0, False, NEWTON)[0]
    slow = NEWTON.contractivity * 1.5
    assert modified_newton_policy(CONTRACTION_CHECK_FROM, slow, 1.0, False, NEWTON) == (True, False, False)
    assert modified_newton_policy(CONTRACTION_CHECK_FROM - 1, slow, 1.0, False, NEWTON) == (False, False, False)


def test_modified_newton_restarts_on_growth_and_falls_back_to_full_newton_on_a_second_failure():
    grown = RESTART_GROWTH * 1.1
    assert modified_newton_policy(CONTRACTION_CHECK_FROM, grown, 1.0, False, NEWTON) == (True, False, True)
    assert modified_newton_policy(1, math.inf, 1.0, False, NEWTON) == (True, False, True)
    assert modified_newton_policy(CONTRACTION_CHECK_FROM, grown, 1.0, True, NEWTON) == (True, True, True)
    late = NEWTON.max_modified_iterations + FULL_NEWTON_AFTER + 1
    assert modified_newton_policy(late, 0.1, 1.0, False, NEWTON) == (True, True, True)


def test_convergence_is_relative_to_the_predictor_or_absolute():
    res0 = reference_residual(1.0, NEWTON)
    assert has_converged(NEWTON.rtol * 0.5, res0, NEWTON)
    assert not has_converged(NEWTON.rtol * 2.0, res0, NEWTON)
    assert reference_residual(NEWTON.atol * 0.1, NEWTON) == 2.0 * NEWTON.atol
    assert has_converged(NEWTON.atol, 1e300, NEWTON)


@pytest.mark.parametrize("integrator, h", [("generalized-alpha", 1e-2), ("hht", 2e-2)])
def test_modified_newton_restarts_falls_back_to_full_newton_and_reaches_its_solution(integrator, h):
    """With a new iteration matrix after at most 2 modified iterations, the EP slider-crank at these steps
    contracts too slowly, restarts from the predictor and, failing again, continues with full Newton;
    the solution is that of full Newton to the Newton tolerance, in both implicit families."""
    spec = dict(model="slider_crank", formulation="EP", integrator=integrator, h=h, t_end=1.0)
    modified = run_single(RunSpec(**spec, options=(("max_modified_iterations", 2), ("newton", "modified"))))
    full = run_single(RunSpec(**spec, options=(("newton", "full"),)))
    assert modified.status == "ok" and full.status == "ok"
    assert modified.statistics["full_newton_fallbacks"] >= 1
    assert modified.statistics["jacobians"] < modified.statistics["newton_iterations"]
    for key in ("slider_position", "crank_angle", "crank_rate", "energy"):
        assert modified.final_outputs[key] == pytest.approx(full.final_outputs[key], abs=2e-5)


class ScriptedIterate(NamedTuple):
    """A step context whose residuals follow a script (one entry per evaluation); an iterate is at the
    round-off level when its residual is at most ``level`` (the family's test in units of the coordinates)."""

    residuals: np.ndarray
    level: float
    evaluations: np.ndarray


@njit(inline="always")
def _scripted_start(it):
    pass


@njit(inline="always")
def _scripted_residual(it, algebra):
    k = min(it.evaluations[0], it.residuals.shape[0] - 1)
    it.evaluations[0] += 1
    return it.residuals[k]


@njit(inline="always")
def _scripted_factor(it, algebra):
    return True


@njit(inline="always")
def _scripted_correct(it, algebra):
    return False


@njit(inline="always")
def _scripted_round_off(it):
    return it.residuals[min(it.evaluations[0], it.residuals.shape[0]) - 1] <= it.level


@njit
def _scripted_solve(it, newton, stats):
    return newton_solve(_scripted_start, _scripted_residual, _scripted_factor, _scripted_correct,
                        _scripted_round_off, None, it, newton, np.zeros(1, dtype=np.bool_), stats)


TIGHT, _ = implicit_options(GENERALIZED_ALPHA, {"newton_rtol": 1e-12, "newton_atol": 1e-13})
STALLED = [1.0, 1e-3, 1e-9, 3e-11, 7e-11, 5e-11, 6e-11, 4e-11, 8e-11]
"""A predictor residual of 1, quadratic convergence, then a floor at 3e-11 above rtol = 1e-12."""
LEVEL = 1e-10
"""The round-off level of the scripted iterations."""


def _scripted(residuals, level=LEVEL, newton=TIGHT):
    stats = np.zeros(N_STATISTICS)
    it = ScriptedIterate(np.array(residuals, dtype=float), level, np.zeros(1, dtype=np.int64))
    return int(_scripted_solve(it, newton, stats)), stats


def test_a_residual_stalled_at_the_round_off_level_is_accepted_and_counted():
    status, stats = _scripted(STALLED)
    assert status == OK
    assert stats[ST_ROUND_OFF_STEPS] == 1
    assert stats[ST_NEWTON] == 3 + STALL_ITERATIONS          # three new minima, then the stall


def test_a_stall_above_the_round_off_level_fails_the_step():
    status, stats = _scripted(STALLED, level=1e-11)
    assert status == NEWTON_FAILED
    assert stats[ST_ROUND_OFF_STEPS] == 0


def test_a_slowly_converging_iteration_is_not_taken_for_a_stall():
    """Contraction 0.9 per iteration below the round-off level: every iterate is a new minimum, so the step
    fails at the iteration limit."""
    status, stats = _scripted([1e-11 * 0.9 ** k for k in range(40)])
    assert status == NEWTON_FAILED
    assert stats[ST_ROUND_OFF_STEPS] == 0


def test_a_diverging_iteration_is_not_taken_for_a_stall():
    """Quadratic convergence to 1e-9, then growth by 10 per iteration: no new minimum, and no iterate at
    the round-off level."""
    status, stats = _scripted([1.0, 1e-3, 1e-9] + [1e-9 * 10.0 ** k for k in range(1, 30)])
    assert status == NEWTON_FAILED
    assert stats[ST_ROUND_OFF_STEPS] == 0


def test_the_round_off_level_is_ulps_of_the_largest_coordinate():
    q = np.array([0.5, -2.0, 1.0])
    level = ROUND_OFF_ULPS * 2.0 ** -52 * 2.0
    assert at_round_off(level, q)
    assert not at_round_off(1.01 * level, q)
    assert at_round_off(ROUND_OFF_ULPS * 2.0 ** -52, np.array([1e-3]))     # coordinates below 1 count as 1
