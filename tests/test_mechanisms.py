"""Benchmark mechanisms of paper 000 Sect. 4.3-4.4 and paper 004 Sect. 10.2 (issue 5 claims)."""
import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.mbs.assembly import constraint_state
from lgbench.models import MODELS
from lgbench.runner.single_run import RunSpec, run_single

TIGHT = (("newton_atol", 1e-13), ("newton_rtol", 1e-12))


def test_v8_with_euler_parameters_has_119_coordinates_and_118_independent_constraints():
    model = MODELS["v8_crank"].build("EP")
    nq, nv, nc = (int(x) for x in model.system.sizes)
    assert (nq, nc) == (119, 118)
    phi, B = constraint_state(model.system, model.q0)
    assert np.linalg.matrix_rank(B) == 118
    assert np.max(np.abs(phi)) < 1e-13 and np.max(np.abs(B @ model.v0)) < 1e-12


def test_v8_crankshaft_speeds_up_under_the_drive_torque():
    result = run_single(RunSpec("v8_crank", "EP", "generalized-alpha", 2e-4, 0.1), n_samples=6)
    assert result.status == "ok", result.message
    rate = result.series["crank_rate"]
    assert np.all(np.diff(rate) > 0) and rate[-1] > 150.0
    assert result.statistics["max_constraint_residual"] < 1e-10


def test_v8_energy_gain_equals_the_work_of_the_drive_torque():
    runs = [run_single(RunSpec("v8_crank", "RV", "generalized-alpha", h, 0.05, options=TIGHT), n_samples=2001)
            for h in (1e-4, 5e-5)]
    gaps = []
    for r in runs:
        t, power, energy = r.series["t"], r.series["drive_power"], r.series["energy"]
        work = np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(t))
        gaps.append(abs((energy[-1] - energy[0]) - work) / work)
    # closes to the integration error (numerical dissipation of generalized-alpha, O(h^2))
    assert gaps[1] < 1e-3 and gaps[0] / gaps[1] > 3


def test_slider_crank_energy_is_the_paper_code_value_with_a_mid_crank_centre_of_mass():
    model = MODELS["slider_crank"].build("RV", {"crank_com_offset": 0.04})
    energy = model.outputs(model.system, model.q0, model.v0, np.zeros(17), 0.0)[2]
    assert energy == pytest.approx(0.76643568, abs=1e-8)


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP"])
def test_slider_crank_holds_its_joints_and_conserves_energy_to_the_integration_error(formulation):
    coarse = run_single(RunSpec("slider_crank", formulation, "generalized-alpha", 1e-3, 1.0, options=TIGHT),
                        n_samples=101)
    fine = run_single(RunSpec("slider_crank", formulation, "generalized-alpha", 5e-4, 1.0, options=TIGHT),
                      n_samples=101)
    drifts = []
    for r in (coarse, fine):
        assert r.status == "ok", r.message
        assert r.statistics["max_constraint_residual"] < 1e-10
        energy = r.series["energy"]
        drifts.append(np.max(np.abs(energy - energy[0])) / abs(energy[0]))
    # numerical dissipation of generalized-alpha (rho_inf = 0.9) shrinks like h^2 (measured: 4.4e-4
    # relative over 1 s at h = 1e-3, 1.1e-4 at 5e-4)
    assert 3.5 < drifts[0] / drifts[1] < 4.5 and drifts[1] < 2e-4


def test_slider_crank_formulations_agree_at_small_h():
    finals = [run_single(RunSpec("slider_crank", f, "generalized-alpha", 2.5e-4, 1.0, options=TIGHT))
              .final_outputs["slider_position"] for f in ("RV", "Rxyz", "EP")]
    assert max(finals) - min(finals) < 1e-6


def test_puma_absolute_coordinates_agree_with_minimal_coordinates():
    P = lambda r: np.array([r.final_outputs[f"phi_{i}"] for i in range(1, 7)])
    minimal = run_single(RunSpec("puma560", "Min", "generalized-alpha", 1e-3, 1.0))
    for formulation in ("RV", "EP", "Rxyz"):
        absolute = run_single(RunSpec("puma560", formulation, "generalized-alpha", 1e-3, 1.0))
        assert absolute.status == "ok", absolute.message
        assert np.max(np.abs(P(absolute) - P(minimal))) < 1e-6
        assert absolute.statistics["max_constraint_residual"] < 1e-9


@pytest.mark.parametrize("model, params, field", [
    ("slider_crank", {"rod_mass": -0.5}, "params.rod_mass"),
    ("v8_crank", {"crank_radius": "large"}, "params.crank_radius"),
    ("v8_crank", {"rod_inertia": [1.0, -1.0, 1.0]}, "inertia"),
    ("puma560", {"wheels": 4}, "params.wheels"),
])
def test_bad_model_parameters_give_one_clear_message(model, params, field):
    with pytest.raises(InputError) as error:
        MODELS[model].build("RV", params)
    assert field in str(error.value)
