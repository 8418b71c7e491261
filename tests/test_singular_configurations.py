"""Generalized-alpha and HHT through the singular configurations of the IFToMM double four-bar (A02, N = 2)
at tight Newton tolerances: steps whose residual stalls at the round-off level are accepted and counted
(lgbench/integrators/newton.py, docs/notes/singular_configurations.md)."""
from pathlib import Path

import pytest

from lgbench.runner.mechanism_file import load_mechanism, mechanism_data
from lgbench.runner.single_run import RunSpec, run_single

FOUR_BAR = Path(__file__).parent / "data" / "four_bar_double_nonredundant.yaml"
TIGHT = (("newton_rtol", 1e-12), ("newton_atol", 1e-13))
FIRST_STALL = 1.3
"""Past the first step whose residual stalls above rtol (t = 1.228 s at h = 1e-3 in RV)."""


def _run(formulation, integrator, h, t_end, options=TIGHT):
    mechanism = mechanism_data(load_mechanism(FOUR_BAR))
    return run_single(RunSpec("four_bar_double_nonredundant", formulation, integrator, h, t_end, options=options,
                              mechanism=mechanism))


@pytest.mark.parametrize("integrator", ["generalized-alpha", "hht"])
def test_tight_tolerances_pass_the_singular_configuration_with_steps_at_round_off(integrator):
    run = _run("RV", integrator, 1e-3, FIRST_STALL)
    assert run.status == "ok", run.message
    assert run.statistics["steps_at_round_off"] >= 1
    assert run.statistics["max_constraint_residual"] < 1e-14


def test_default_tolerances_need_no_step_at_round_off():
    run = _run("RV", "generalized-alpha", 1e-3, FIRST_STALL, options=())
    assert run.status == "ok"
    assert run.statistics["steps_at_round_off"] == 0
