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
    assert entry.kind == "explicit" and entry.order == 5 and entry.formulations == ("RV", "Rxyz", "EP")
    assert entry.validate_options({})["projection"] is True
    with pytest.raises(InputError) as caught:
        entry.validate_options({"projektion": False})
    assert caught.value.field == "options.projektion"
    with pytest.raises(InputError) as caught:
        entry.validate_options({"dexpinv": "exact"})
    assert caught.value.field == "options.dexpinv"
