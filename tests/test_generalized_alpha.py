"""Claims of paper 000 Sect. 3.3/3.4 and paper 002 Sect. 3.2 about generalized-alpha and Newton."""
import numpy as np
import pytest

from lgbench.integrators import generalized_alpha as ga
from lgbench.integrators.newton import N_STATISTICS
from lgbench.integrators.implicit import GENERALIZED_ALPHA, implicit_options
from lgbench.integrators.second_order_method import generalized_alpha
from lgbench.integrators.starting_values import consistent_accelerations
from lgbench.mbs.codes import FREE
from lgbench.mbs.system import SystemBuilder
from lgbench.runner.single_run import run_single, RunSpec


def oscillator(formulation, stiffness=(4.0, 0.0, 0.0), mass=1.0):
    builder = SystemBuilder()
    body = builder.add_body(FREE, formulation, mass, [1.0, 2.0, 3.0])
    builder.add_point_spring_damper(body, stiffness, (0.0, 0.0, 0.0))
    return builder.build()


def analytic_amplification(method, h_omega):
    """One step of paper 000 Alg. 4 for x'' = -omega^2 x in scaled variables (x, h v, h^2 a)."""
    am, af, beta, gamma = method.alpha_m, method.alpha_f, method.beta, method.gamma
    w2 = h_omega ** 2
    # unknowns (x1, hv1, h2a1); vd1 h^2 = -w2 x1; (1-am) a1 + am a = (1-af) vd1 + af vd
    L = np.array([[1.0, 0.0, -beta],
                  [0.0, 1.0, -gamma],
                  [(1.0 - af) * w2, 0.0, (1.0 - am)]])
    R = np.array([[1.0, 1.0, 0.5 - beta],
                  [0.0, 1.0, 1.0 - gamma],
                  [af * -w2, 0.0, -am]])
    return np.linalg.solve(L, R)


def lgbench_amplification(method, h, omega, formulation="RV"):
    """Columns: one compiled generalized-alpha step from unit states (x, h v, h^2 a_alg)."""
    sys = oscillator(formulation, stiffness=(omega ** 2, 0.0, 0.0))
    opts, _ = implicit_options(GENERALIZED_ALPHA, {"newton_rtol": 1e-14, "newton_atol": 1e-300})
    columns = []
    for unit in np.eye(3):
        x0, v0, a0 = unit[0], unit[1] / h, unit[2] / h ** 2
        q = np.zeros(6)
        v = np.zeros(6)
        q[0], v[0] = x0, v0
        vd = np.zeros(6)
        vd[0] = -omega ** 2 * x0
        a_alg = np.zeros(6)
        a_alg[0] = a0
        lam = np.zeros(0)
        w = ga.make_workspace(sys)
        stats = np.zeros(N_STATISTICS)
        # one step through the cached entry point (calling the inlined step from Python compiles it anew)
        status, steps, _ = ga.integrate_implicit(sys, method.as_array(), opts, q, v, vd, a_alg, lam, 0.0, h, h,
                                                 np.zeros(0), np.zeros((0, 6)), np.zeros((0, 6)), np.zeros((0, 0)),
                                                 w, stats, np.zeros(1, dtype=np.bool_))
        assert status == 0 and steps == 1
        columns.append([q[0], h * v[0], h ** 2 * a_alg[0]])
    return np.array(columns).T


@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.9, 1.0])
def test_parameters_from_rho_inf_follow_eq42(rho_inf):
    m = generalized_alpha(rho_inf)
    assert m.alpha_m == pytest.approx((2 * rho_inf - 1) / (rho_inf + 1))
    assert m.alpha_f == pytest.approx(rho_inf / (rho_inf + 1))
    assert m.gamma == pytest.approx(0.5 + m.alpha_f - m.alpha_m)
    assert m.beta == pytest.approx(0.25 * (m.gamma + 0.5) ** 2)


@pytest.mark.parametrize("rho_inf", [0.2, 0.6, 0.9])
def test_linear_oscillator_spectral_radius_tends_to_rho_inf(rho_inf):
    method = generalized_alpha(rho_inf)
    h, omega = 1.0, 1e4  # h * omega = 1e4
    A = lgbench_amplification(method, h, omega)
    np.testing.assert_allclose(A, analytic_amplification(method, h * omega), rtol=1e-7, atol=1e-9)
    assert max(abs(np.linalg.eigvals(A))) == pytest.approx(rho_inf, abs=2e-3)


@pytest.mark.parametrize("h_omega", [0.05, 0.5, 3.0])
def test_one_step_map_equals_the_analytic_amplification_matrix(h_omega):
    method = generalized_alpha(0.9)
    A = lgbench_amplification(method, h_omega / 2.0, 2.0)
    np.testing.assert_allclose(A, analytic_amplification(method, h_omega), rtol=1e-8, atol=1e-10)


def _translational_run(formulation):
    sys = oscillator(formulation, stiffness=(4.0, 9.0, 1.0))
    opts, merged = implicit_options(GENERALIZED_ALPHA, {"newton_rtol": 1e-13, "newton_atol": 1e-14})
    method = GENERALIZED_ALPHA.method(merged).as_array()
    nq = int(sys.sizes[0])
    q = np.zeros(nq)
    q[0:3] = [0.1, -0.2, 0.3]
    if formulation == "EP":
        q[3] = 1.0
    v = np.zeros(nq)
    v[0:3] = [1.0, 0.5, -0.25]
    vd = np.zeros(nq)
    lam = np.zeros(int(sys.sizes[2]))
    assert consistent_accelerations(sys, q, v, 0.0, vd, lam)
    w = ga.make_workspace(sys)
    stats = np.zeros(N_STATISTICS)
    a_alg = vd.copy()
    times = 0.01 * np.arange(1, 201)       # every step's end: 200 steps of 0.01
    q_samples = np.zeros((times.size, nq))
    status, steps, _ = ga.integrate_implicit(sys, method, opts, q, v, vd, a_alg, lam, 0.0, 2.0, 0.01, times, q_samples,
                                             np.zeros((times.size, nq)), np.zeros((times.size, lam.size)), w, stats,
                                             np.zeros(1, dtype=np.bool_))
    assert status == 0 and steps == 200
    return q_samples[:, 0:3], q


def test_lie_group_generalized_alpha_reduces_to_classical_without_rotation():
    """With no rotation the RV (Lie group, Alg. 5) and Rxyz/EP (classical, Alg. 4) steps coincide."""
    rv, q_rv = _translational_run("RV")
    rxyz, _ = _translational_run("Rxyz")
    ep, _ = _translational_run("EP")
    np.testing.assert_allclose(rv, rxyz, rtol=0, atol=1e-13)
    np.testing.assert_allclose(rv, ep, rtol=0, atol=1e-13)
    np.testing.assert_array_equal(q_rv[3:6], 0.0)
    # and both equal the classical linear recurrence of the analytic amplification matrix
    method = generalized_alpha(0.9)
    h = 0.01
    for axis, k in enumerate((4.0, 9.0, 1.0)):
        omega = np.sqrt(k)
        A = analytic_amplification(method, h * omega)
        x0, v0 = [0.1, -0.2, 0.3][axis], [1.0, 0.5, -0.25][axis]
        y = np.array([x0, h * v0, h ** 2 * (-k * x0)])
        for n in range(200):
            y = A @ y
        assert rv[-1, axis] == pytest.approx(y[0], abs=1e-12)


def test_modified_newton_reuses_factorizations():
    spec = RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 2.5e-4, 0.05,
                   options=(("newton", "modified"),))
    modified = run_single(spec)
    full = run_single(RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 2.5e-4, 0.05))
    assert modified.status == full.status == "ok"
    assert full.statistics["factorizations"] == full.statistics["newton_iterations"]
    assert modified.statistics["factorizations"] < modified.statistics["newton_iterations"] / 4
    assert modified.statistics["newton_iterations"] > full.statistics["newton_iterations"]


def test_too_large_step_on_rxyz_is_a_failed_row_not_an_exception():
    result = run_single(RunSpec("heavy_top", "Rxyz", "generalized-alpha", 1e-3, 1.0))
    assert result.status in ("failed", "diverged", "singular")
    assert "t = " in result.message
    assert result.final_outputs == {}


def test_spherical_joint_holds_at_newton_tolerance_and_velocity_constraint_drifts_with_h():
    coarse = run_single(RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 1e-3, 0.2))
    fine = run_single(RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 2.5e-4, 0.2))
    for r in (coarse, fine):
        assert r.status == "ok"
        assert r.statistics["max_constraint_residual"] < 1e-8
    # index-3 formulation: the hidden constraint B v = 0 is violated by O(h^2)
    ratio = coarse.statistics["max_velocity_constraint_residual"] / fine.statistics["max_velocity_constraint_residual"]
    assert 8.0 < ratio < 32.0


def _com(result):
    return np.array([result.final_outputs[k] for k in ("com_x", "com_y", "com_z")])


@pytest.mark.parametrize("model,formulation,steps", [
    ("heavy_top", "RV", [2e-4, 1e-4, 5e-5]),
    ("heavy_top", "EP", [2e-4, 1e-4, 5e-5]),
    ("heavy_top", "Rxyz", [4e-5, 2e-5, 1e-5]),
    ("heavy_top_constrained", "RV", [2e-4, 1e-4, 5e-5]),
    ("heavy_top_constrained", "EP", [2e-4, 1e-4, 5e-5]),
])
def test_generalized_alpha_converges_with_order_2(model, formulation, steps):
    t_end = 0.2
    tight = (("newton_atol", 1e-12), ("newton_rtol", 1e-12))
    reference = run_single(RunSpec(model, formulation, "generalized-alpha", steps[-1] / 8, t_end, options=tight))
    errors = []
    for h in steps:
        r = run_single(RunSpec(model, formulation, "generalized-alpha", h, t_end, options=tight))
        assert r.status == "ok", r.message
        errors.append(np.linalg.norm(_com(r) - _com(reference)))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2.0) < 0.3), (errors, orders)
