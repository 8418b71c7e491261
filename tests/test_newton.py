"""One Newton policy for every implicit family (lgbench/integrators/newton.py, paper 000 Sect. 3.4)."""
import math

import pytest

from lgbench.integrators.implicit import GENERALIZED_ALPHA, implicit_options
from lgbench.integrators.newton import (
    CONTRACTION_CHECK_FROM, FULL_NEWTON_AFTER, RESTART_GROWTH, has_converged, modified_newton_policy,
    reference_residual,
)
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
