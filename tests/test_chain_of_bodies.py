"""Chain of rigid links (scaling benchmark model): consistent start, energy, joints."""
import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.mbs.assembly import constraint_state
from lgbench.models import MODELS
from lgbench.runner.single_run import RunSpec, run_single

TIGHT = (("newton_atol", 1e-13), ("newton_rtol", 1e-12))


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_initial_state_satisfies_position_and_velocity_constraints(formulation):
    built = MODELS["chain_of_bodies"].build(formulation, {"n_bodies": 5})
    phi, B = constraint_state(built.system, built.q0)
    assert built.system.sizes[2] == 15 + (5 if formulation == "EP" else 0)
    assert np.max(np.abs(phi)) < 1e-15 and np.max(np.abs(B @ built.v0)) < 1e-14


def test_n_bodies_must_be_a_positive_integer():
    with pytest.raises(InputError):
        MODELS["chain_of_bodies"].build("RV", {"n_bodies": 0})


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_three_links_conserve_energy_to_the_integration_error_and_keep_their_joints(formulation):
    drifts = []
    for h in (2e-3, 1e-3):
        run = run_single(RunSpec("chain_of_bodies", formulation, "generalized-alpha", h, 1.0,
                                 params={"n_bodies": 3}, options=TIGHT + (("rho_inf", 1.0),)), n_samples=101)
        assert run.status == "ok", run.message
        energy = run.series["energy"]
        drifts.append(np.max(np.abs(energy - energy[0])) / abs(energy[0]))
        assert np.max(run.series["joint_gap"]) < 1e-10
        assert run.statistics["max_constraint_residual"] < 1e-10
        assert np.ptp(run.series["tip_z"]) > 0.1            # the chain really falls and swings
    assert drifts[1] < 1e-3 and drifts[0] / drifts[1] > 3.0
