"""Claims of paper 001: RKMK on the index-1 DAE with the dexpinv series truncated at the RK order,
and projection onto Phi = 0 and B v = 0 after each step (``lgbench.integrators.index1_rk``)."""
import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.integrators import INTEGRATORS
from lgbench.lie.dexpinv import dexpinv_so3_series, dexpinv_so3_series_matrix
from lgbench.lie.so3 import tangent_operator_inverse_so3
from lgbench.mbs.index1 import constraint_norm, make_saddle_point_workspace, velocity_constraint_norm
from lgbench.models import MODELS

T_END = 0.2


def integrate(integrator, model="heavy_top_constrained", formulation="RV", h=1e-3, t_end=T_END,
              sample_times=None, **options):
    built = MODELS[model].build(formulation)
    entry = INTEGRATORS[integrator]
    times = np.array([t_end]) if sample_times is None else np.asarray(sample_times, dtype=float)
    run = entry.integrate(built.system, built.q0, built.v0, entry.validate_options(options), h, t_end, times)
    assert run.code == 0 and run.t_reached == pytest.approx(t_end)
    return built, run


def com(built, run):
    return built.outputs(built.system, run.q, run.v, run.lam, run.t_reached)[0:3]


def test_dexpinv_series_converges_to_the_closed_form_tangent_inverse():
    rng = np.random.default_rng(1)
    for _ in range(5):
        u = rng.normal(size=3)
        u *= 0.4 / np.linalg.norm(u)
        np.testing.assert_allclose(dexpinv_so3_series_matrix(u, 12), tangent_operator_inverse_so3(u),
                                   rtol=0, atol=1e-13)
        k = rng.normal(size=3)
        np.testing.assert_allclose(dexpinv_so3_series(u, k, 2), k + 0.5 * np.cross(u, k), rtol=0, atol=1e-15)


@pytest.mark.parametrize("order, first_missing_power", [(2, 2), (3, 4), (4, 4), (5, 6), (6, 6)])
def test_dexpinv_truncation_error_is_of_the_first_omitted_bernoulli_term(order, first_missing_power):
    """sum_{p <= n-1} B_p/p! ad_u^p: the error is O(|u|^p) for the first nonzero omitted B_p (B_3 = B_5 = 0)."""
    direction = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    errors = [np.linalg.norm(dexpinv_so3_series_matrix(s * direction, order)
                             - tangent_operator_inverse_so3(s * direction)) for s in (0.2, 0.1)]
    assert np.log2(errors[0] / errors[1]) == pytest.approx(first_missing_power, abs=0.1)


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_projection_keeps_position_and_velocity_constraints_at_round_off(formulation):
    _, run = integrate("RK44-index1", formulation=formulation)
    stats = run.statistics
    assert stats["max_constraint_residual"] < 1e-12
    assert stats["max_velocity_constraint_residual"] < 1e-12
    # the projection had work to do: each step leaves the manifold by its local error
    assert stats["max_constraint_residual_before_projection"] > 1e-9
    assert stats["max_velocity_constraint_residual_before_projection"] > 1e-8
    # Gauss-Newton converges quadratically from an O(h^5) residual: one iteration per step
    assert 1 <= stats["max_projection_in_step"] <= 2


def test_without_projection_the_constraint_residuals_drift_with_time():
    times = np.array([0.05, 0.1, 0.2, 0.4])
    built, run = integrate("RK44-index1", t_end=0.4, sample_times=times, projection=False)
    nq, nv, nc = built.system.sizes
    w = make_saddle_point_workspace(nq, nv, nc, built.system.body_int.shape[0])
    phi = [constraint_norm(built.system, q, w) for q in run.q_samples]
    bv = [velocity_constraint_norm(built.system, q, v, w) for q, v in zip(run.q_samples, run.v_samples)]
    assert all(np.diff(phi) > 0) and phi[-1] > 5 * phi[0] and phi[-1] > 1e-5
    assert bv[-1] > 1e-4
    _, projected = integrate("RK44-index1", t_end=0.4)
    assert projected.statistics["max_constraint_residual"] < 1e-8 * phi[-1]


@pytest.fixture(scope="module")
def reference_com():
    built, run = integrate("RK67-index1", h=2.5e-5)
    return com(built, run)


@pytest.mark.parametrize("integrator, order, steps", [
    ("RK44-index1", 4, (1e-3, 5e-4, 2.5e-4)), ("ODE23-index1", 3, (5e-4, 2.5e-4, 1.25e-4))])
@pytest.mark.parametrize("projection", [True, False])
def test_runge_kutta_order_is_preserved_in_the_com_position(reference_com, integrator, order, steps, projection):
    errors = [np.linalg.norm(com(*integrate(integrator, h=h, projection=projection)) - reference_com)
              for h in steps]
    slopes = np.diff(np.log(errors)) / np.diff(np.log(steps))
    assert slopes == pytest.approx([order, order], abs=0.25)


def test_series_and_closed_form_dexpinv_give_the_same_solution_to_the_integration_error(reference_com):
    series = com(*integrate("RK44-index1", h=5e-4))
    closed = com(*integrate("RK44-index1", h=5e-4, dexpinv="closed"))
    error = np.linalg.norm(series - reference_com)
    assert np.linalg.norm(series - closed) < 0.2 * error


def test_constrained_top_agrees_with_the_fixed_point_top():
    """Free body + spherical joint (index-1, projected) and the rotation about the fixed point
    (unconstrained ODE, Steiner inertia) are the same motion."""
    constrained = com(*integrate("RK67-index1", h=1e-4))
    fixed_point = com(*integrate("RK67", model="heavy_top", h=1e-4))
    assert np.linalg.norm(constrained - fixed_point) < 1e-9
    # and RK44 on the index-1 form is within its own integration error of it
    rk44 = com(*integrate("RK44-index1", h=5e-4))
    assert 1e-12 < np.linalg.norm(rk44 - fixed_point) < 1e-6


def test_registry_entries_and_option_errors():
    entry = INTEGRATORS["DOPRI5-index1"]
    assert entry.kind == "explicit" and entry.order == 5 and entry.formulations == ("RV", "Rxyz", "EP", "SE3")
    assert entry.validate_options({})["projection"] is True
    with pytest.raises(InputError) as caught:
        entry.validate_options({"projektion": False})
    assert caught.value.field == "options.projektion"
    with pytest.raises(InputError) as caught:
        entry.validate_options({"dexpinv": "exact"})
    assert caught.value.field == "options.dexpinv"


def test_se3_nodes_run_rkmk_with_projection_at_fourth_order():
    """SE3 nodes in the explicit index-1 family: K = T_SE3^{-1}(u) V (paper 002 eq. 13) in the RKMK
    stages; order 4 kept, the constraints at round-off, and the same motion as the R3 x SO(3) nodes."""
    reference = com(*integrate("RK67-index1", formulation="SE3", h=2.5e-5))
    steps = (1e-3, 5e-4, 2.5e-4)
    runs = [integrate("RK44-index1", formulation="SE3", h=h) for h in steps]
    errors = [np.linalg.norm(com(*run) - reference) for run in runs]
    assert np.diff(np.log(errors)) / np.diff(np.log(steps)) == pytest.approx([4, 4], abs=0.25)
    assert max(run.statistics["max_constraint_residual"] for _, run in runs) < 1e-12
    assert max(run.statistics["max_velocity_constraint_residual"] for _, run in runs) < 1e-12
    rotation_vector = com(*integrate("RK67-index1", formulation="RV", h=2.5e-5))
    assert np.linalg.norm(reference - rotation_vector) < 1e-10


@pytest.mark.parametrize("formulation", ["RV", "SE3", "EP"])
def test_adaptive_steps_with_projection_follow_the_tolerance(reference_com, formulation):
    """DOPRI5 on the index-1 DAE with the step-size control of paper 000 App. B: the error falls with the
    tolerance, the controller rejects steps, and the projection keeps Phi and B v at round-off."""
    runs = [integrate("DOPRI5-index1", formulation=formulation, h=0.02, step_control="adaptive", rtol=rtol)
            for rtol in (1e-6, 1e-8, 1e-10)]
    errors = [np.linalg.norm(com(*run) - reference_com) for run in runs]
    assert errors[0] > 10 * errors[1] > 100 * errors[2] and errors[0] < 1e-4
    stats = [run.statistics for _, run in runs]
    assert all(s["max_constraint_residual"] < 1e-12 and s["max_velocity_constraint_residual"] < 1e-12 for s in stats)
    assert stats[0]["rejected_steps"] >= 1 and stats[0]["max_step"] <= 0.02
    assert [run.steps for _, run in runs] == sorted(run.steps for _, run in runs)
    assert all(s["min_step"] < s["max_step"] for s in stats) and stats[2]["rtol"] == 1e-10


def test_adaptive_projection_needs_an_embedded_pair():
    with pytest.raises(InputError) as caught:
        INTEGRATORS["RK44-index1"].validate_options({"step_control": "adaptive"})
    assert caught.value.field == "options.step_control"
    with pytest.raises(InputError) as caught:
        INTEGRATORS["DOPRI5-index1"].validate_options({"rtol": 1e-6})
    assert caught.value.field == "options.rtol" and "adaptive steps only" in str(caught.value)
