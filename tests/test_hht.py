"""Claims of paper 004 about the classical and the modified HHT method with Euler parameters."""
import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.integrators import INTEGRATORS
from lgbench.integrators import hht
from lgbench.models import MODELS

HHT = INTEGRATORS["hht"]
I_X, M_X, OMEGA0 = 1.0, 2.0, 10.0       # spin rate / moment ratio large enough to see the h^2, h^3 terms
TIGHT = {"newton_rtol": 1e-15, "newton_atol": 1e-13, "max_iterations": 50}
STEPS = (2e-3, 1e-3, 5e-4, 2.5e-4)


def spinning_body(formulation="EP", **params):
    return MODELS["spinning_body"].build(formulation, {"I_x": I_X, "M_x": M_X, "omega0": OMEGA0, **params})


def run(built, h, t_end, **options):
    result = HHT.integrate(built.system, built.q0, built.v0, HHT.validate_options({**TIGHT, **options}), h,
                           t_end, np.zeros(0))
    assert result.code == 0
    return result, built.outputs(built.system, result.q, result.v, result.lam, t_end)


def slope(hs, values):
    return np.polyfit(np.log(hs), np.log(np.abs(values)), 1)[0]


def eq28(alpha, h):
    """omega after one classical HHT step from phi = 0, paper 004 eq. (28) without its O(h^4)."""
    h3 = (10 * alpha ** 4 + 3 * alpha ** 3 - 12 * alpha ** 2 + 11 * alpha - 4) / (16 * (alpha - 1) ** 2)
    return (OMEGA0 + M_X / I_X * h + alpha / 4 * OMEGA0 ** 3 * h ** 2
            + M_X / I_X * h3 * OMEGA0 ** 2 * h ** 3)


@pytest.mark.parametrize("alpha", [0.0, -0.1, -0.3])
def test_classical_hht_one_step_damps_spin_as_eq28(alpha):
    """Paper 004 eq. (28): omega = omega' + M/I h + alpha/4 omega'^3 h^2 + c(alpha) M/I omega'^2 h^3 + O(h^4)."""
    built = spinning_body()
    residual = [run(built, h, h, alpha=alpha)[1][0] - eq28(alpha, h) for h in STEPS]
    assert slope(STEPS, residual) >= 3.8
    assert abs(residual[-2] / residual[-1]) >= 14.0
    # the h^2 and h^3 terms are really there: dropping the h^3 term leaves an O(h^3) residual
    h = STEPS[-1]
    assert abs(run(built, h, h, alpha=alpha)[1][0] - OMEGA0 - M_X / I_X * h) > 100 * abs(residual[-1])


def test_classical_hht_h3_term_depends_on_the_form_of_the_ep_equations():
    """Without the e.e' term of paper 004 eq. (9) the velocity term of eq. (27) vanishes and the h^3
    coefficient of eq. (28) becomes (alpha - 2 alpha^2 - 2) / 16 (lgbench's own expansion, as eq. 41-42)."""
    alpha = -0.1
    built = spinning_body(eq9_form=False)

    def expansion(h):
        return (OMEGA0 + M_X / I_X * h + alpha / 4 * OMEGA0 ** 3 * h ** 2
                + (alpha - 2 * alpha ** 2 - 2) / 16 * M_X / I_X * OMEGA0 ** 2 * h ** 3)

    residual = [run(built, h, h, alpha=alpha)[1][0] - expansion(h) for h in STEPS]
    assert slope(STEPS, residual) >= 3.8
    with_eq9 = [run(spinning_body(), h, h, alpha=alpha)[1][0] - expansion(h) for h in STEPS]
    assert slope(STEPS, with_eq9) < 3.2


@pytest.mark.parametrize("alpha", [-0.1, -1.0 / 3.0])
def test_modified_hht_removes_h2_damping_eq42(alpha):
    """Paper 004 eq. (42): omega = omega' + M/I h + M/I h gamma alpha (1 - e_0), exactly; with eq. (41)
    the damping is O(h^3) (no h^2 term)."""
    built = spinning_body()
    gamma = hht.hht_parameters(alpha)[1]
    damping = []
    for h in STEPS:
        result, out = run(built, h, h, alpha=alpha, variant="modified")
        e0 = result.q[0]
        assert out[0] == pytest.approx(OMEGA0 + M_X / I_X * h * (1 + gamma * alpha * (1 - e0)), abs=1e-12)
        damping.append(out[0] - OMEGA0 - M_X / I_X * h)
    assert 2.8 <= slope(STEPS, damping) <= 3.2
    assert damping[-1] == pytest.approx(M_X / I_X * gamma * alpha * OMEGA0 ** 2 * STEPS[-1] ** 3 / 8, rel=1e-2)


def test_modified_hht_with_alpha_zero_does_not_damp_at_all():
    """Paper 004 Sect. 7: for alpha = 0 the modified method accelerates the spin exactly (round-off),
    also over many steps, while the classical one loses the h^3 term of eq. (28) in every step."""
    built = spinning_body()
    t_end, h = 0.5, 1e-3
    exact = OMEGA0 + M_X / I_X * t_end
    modified, out = run(built, h, t_end, alpha=0.0, variant="modified")
    assert abs(out[0] - exact) < 1e-11
    assert modified.statistics["max_velocity_constraint_residual"] < 1e-12   # e.e' = 0 (eq. 6, 34)
    classical, out_classical = run(built, h, t_end, alpha=0.0, variant="classical")
    assert exact - out_classical[0] > 1e-6
    assert classical.statistics["max_velocity_constraint_residual"] > 1e-6


def test_classical_hht_does_not_damp_tait_bryan_spin():
    """Paper 004 abstract: the spurious damping does not appear for Euler angles (phi'' = M/I is linear)."""
    built = spinning_body("Rxyz")
    _, out = run(built, 1e-3, 0.5, alpha=-0.3)
    assert out[0] == pytest.approx(OMEGA0 + M_X / I_X * 0.5, abs=1e-11)


def test_ep_velocity_derivative_eq69_matches_finite_differences():
    """Paper 004 eq. (69)-(70): de'_{n+1}/de''_{n+1} of the modified update (33)-(34)."""
    rng = np.random.default_rng(4)
    e = rng.normal(size=4)
    e /= np.linalg.norm(e)
    e_rate, e_acc, a1 = rng.normal(size=4), rng.normal(size=4), rng.normal(size=4)
    h, beta, gamma = 0.05, *hht.hht_parameters(-0.2)

    def velocity(acc):
        e1 = e + h * e_rate + h * h * (0.5 - beta) * e_acc + h * h * beta * acc
        system = spinning_body().system
        v1 = np.zeros(4)
        hht.newmark_velocities(system, np.array([-0.2, beta, gamma, hht.MODIFIED]), e, e_rate, e_acc, e1, acc,
                               h, v1)
        return e1, v1

    e1, _ = velocity(a1)
    analytic = hht.ep_velocity_derivative(e, e_rate, e_acc, e1, a1, h, beta, gamma)
    numeric = np.column_stack([(velocity(a1 + 1e-6 * d)[1] - velocity(a1 - 1e-6 * d)[1]) / 2e-6
                               for d in np.eye(4)])
    np.testing.assert_allclose(analytic, numeric, atol=1e-9)


def test_ep_norm_rate_torque_gives_the_gyroscopic_term_of_eq9():
    """With EP_NORM_RATE_TORQUE the generalized forces of an EP body are -8 L^T L L'^T J L e' (paper 004
    eq. 9) also off the hidden constraint e.e' = 0; without it -2 L^T (omega x J omega)."""
    from lgbench.lie.euler_parameters import body_ep_matrix
    from lgbench.mbs.residual import generalized_forces

    rng = np.random.default_rng(9)
    e = rng.normal(size=4)
    e /= np.linalg.norm(e)
    e_rate = rng.normal(size=4)
    J = np.diag([1.0, 2.0, 3.0])
    L, L_rate = body_ep_matrix(e), body_ep_matrix(e_rate)
    omega = 2 * L @ e_rate

    def forces(eq9_form):
        system = spinning_body(I_y=2.0, I_z=3.0, M_x=0.0, eq9_form=eq9_form).system
        g = np.zeros(4)
        generalized_forces(system, e, e_rate, 0.0, np.zeros((1, 3)), np.zeros((1, 3)), g)
        return g

    np.testing.assert_allclose(forces(True), -8 * L.T @ L @ L_rate.T @ J @ L @ e_rate, atol=1e-12)
    np.testing.assert_allclose(forces(False), -2 * L.T @ np.cross(omega, J @ omega), atol=1e-12)


def test_modified_hht_orders_on_the_heavy_top():
    """Heavy top, EP (paper 004 Sect. 10.1): the modified HHT method converges with order 2 for alpha = 0
    and with order 1 in omega for alpha = -0.2 (the slope +1 of paper 004 Fig. 2; Sect. 8 shows local
    velocity errors O(h^2) only), 5-10x more accurately than the classical method."""
    top = MODELS["heavy_top"]
    t_end, steps = 0.05, (4e-4, 2e-4, 1e-4)
    reference_run = top.build("RV")
    generalized_alpha = INTEGRATORS["generalized-alpha"]
    result = generalized_alpha.integrate(reference_run.system, reference_run.q0, reference_run.v0,
                                         generalized_alpha.validate_options({"newton_rtol": 1e-12}), 1e-5, t_end,
                                         np.zeros(0))
    reference = reference_run.outputs(reference_run.system, result.q, result.v, result.lam, t_end)[6:9]
    built = top.build("EP")

    def errors(**options):
        return [np.linalg.norm(run(built, h, t_end, newton_rtol=1e-12, **options)[1][6:9] - reference)
                for h in steps]

    assert 1.9 <= slope(steps, errors(alpha=0.0, variant="modified")) <= 2.1
    modified = errors(alpha=-0.2, variant="modified")
    assert 0.9 <= slope(steps, modified) <= 1.1
    classical = errors(alpha=-0.2, variant="classical")
    assert all(5 * m < c for m, c in zip(modified, classical))


def test_hht_options_are_checked():
    assert HHT.validate_options({"alpha": -0.2, "variant": "modified"})["alpha"] == -0.2
    with pytest.raises(InputError) as caught:
        HHT.validate_options({"alpha": -0.5})
    assert caught.value.field == "options.alpha"
    with pytest.raises(InputError) as caught:
        HHT.validate_options({"variant": "lie"})
    assert caught.value.field == "options.variant" and "modified" in caught.value.allowed
    with pytest.raises(InputError) as caught:
        HHT.validate_options({"rho_inf": 0.9})
    assert caught.value.field == "options.rho_inf"


def test_modified_newton_reuses_the_iteration_matrix():
    """Newton option as in the generalized-alpha entry: modified Newton reaches the same solution
    with far fewer factorizations (heavy top, modified HHT, alpha = -0.2)."""
    built = MODELS["heavy_top"].build("EP")
    options = {"alpha": -0.2, "variant": "modified", "newton_rtol": 1e-12}
    full, out_full = run(built, 1e-4, 0.02, **options)
    modified, out_modified = run(built, 1e-4, 0.02, newton="modified", **options)
    np.testing.assert_allclose(out_modified, out_full, rtol=1e-8)
    assert 3 * modified.statistics["factorizations"] < full.statistics["factorizations"]
