"""Puma 560 in minimal coordinates (paper 000 Sect. 4.4): model data, dynamics, tracking, convergence.

Independent checks of the dynamics: P. Corke's Robotics Toolbox publishes, in its unit tests of the
Puma560 model at qn = [0, pi/4, pi, 0, pi/4, 0], the gravity load, the joint-space inertia and the
Coriolis matrix to 4 decimals. The toolbox's inertia includes the motor inertias Jm G^2 on the
diagonal (Jm = 200e-6 for joints 1-3 and 33e-6 for 4-6, gear ratios G = -62.6111, 107.815,
-53.7063, 76.0364, 71.923, 76.686); lgbench's model drops motor data, so these are subtracted. The
off-diagonal entries, the gravity load and the Coriolis terms do not depend on them.

Measured (generalized-alpha, rho_inf = 0.9, full Newton, defaults of the model):
* phi(1 s) - phi_goal = [-4.0e-4, 1.3e-5, -1.3e-4, 1.3e-4, 3.1e-4, -2.2e-5] rad (PD lag without
  gravity compensation or feed-forward); ||phi - phi_d(1 s)|| = 5.38e-4 rad for every h <= 1.25e-2.
* error at t = 1 s against h = 1e-5: 1.58e-10, 3.96e-11, 9.85e-12, 2.42e-12 at h = 6.25e-3 ... 7.8e-4
  (order 2.00-2.02); 2.0 Newton iterations per step; ~46 us CPU per step (one RNEA with the PD
  torques ~1.1 us, one CRBA ~0.85 us; full Newton evaluates ~15 of them per iteration).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.integrators import generalized_alpha as ga, INTEGRATORS
from lgbench.integrators.implicit import implicit_options
from lgbench.integrators.newton import N_STATISTICS, ST_NEWTON, ST_STEPS
from lgbench.integrators.starting_values import consistent_accelerations
from lgbench.mbs.chain import (
    chain_inverse_dynamics, chain_kinetic_energy, chain_link_frame, chain_mass_matrix_rows, chain_potential_energy,
    chain_setpoint,
)
from lgbench.models import MODELS
from lgbench.models.puma560 import (
    DEFAULTS, dh_links, goal_angles, initial_angles, joint_axes, link_frames, link_inertial, OUTPUTS,
    PHI_GOAL_EQ45_DEG, TABLE9_ACCELERATION,
)

MODEL = MODELS["puma560"]
QN = np.array([0.0, np.pi / 4, np.pi, 0.0, np.pi / 4, 0.0])
# roboticstoolbox-python, tests of the Puma560 model (values at qn, 4 decimals)
RTB_GRAVLOAD_QN = np.array([0.0, 31.6399, 6.0351, 0.0, 0.0283, 0.0])
RTB_INERTIA_QN = np.array([
    [3.6594, -0.4044, 0.1006, -0.0025, 0.0000, -0.0000],
    [-0.4044, 4.4137, 0.3509, 0.0000, 0.0024, 0.0000],
    [0.1006, 0.3509, 0.9378, 0.0000, 0.0015, 0.0000],
    [-0.0025, 0.0000, 0.0000, 0.1925, 0.0000, 0.0000],
    [0.0000, 0.0024, 0.0015, 0.0000, 0.1713, 0.0000],
    [-0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.1941]])
RTB_CORIOLIS_QN = np.array([       # C(qn, qd) for qd = [1, 2, 3, 1, 2, 3]
    [-0.1735, -2.0494, -0.1178, -0.0002, -0.0045, 0.0001],
    [0.6274, 1.1572, 1.9287, -0.0015, -0.0003, -0.0000],
    [-0.3608, -0.7734, -0.0018, -0.0009, -0.0064, -0.0000],
    [0.0011, 0.0005, -0.0001, 0.0002, 0.0002, -0.0001],
    [-0.0002, 0.0028, 0.0046, -0.0002, -0.0000, -0.0000],
    [0.0001, 0.0000, 0.0000, 0.0000, 0.0000, 0]])
RTB_JM = np.array([200e-6, 200e-6, 200e-6, 33e-6, 33e-6, 33e-6])
RTB_G = np.array([-62.6111, 107.815, -53.7063, 76.0364, 71.923, 76.686])

H_REF = 1e-5          # reference of the tests (study: 1e-6; they differ by 8e-14 at t = 1 s)
ORDER_GRID = [6.25e-3, 3.125e-3, 1.5625e-3, 7.8125e-4]


@pytest.fixture(scope="module")
def built():
    return MODEL.build("Min")


def integrate(h, t_end=1.0, params=None, options=None, sample_times=None):
    """Generalized-alpha run of the Min model (the compiled stepper, as the runner's implicit path).

    Returns (status, t_reached, q, v, statistics, named outputs at t_reached, q at ``sample_times``).
    """
    model = MODEL.build("Min", params)
    sys = model.system
    nq, nv, nc = (int(x) for x in sys.sizes)
    integrator = INTEGRATORS["generalized-alpha"]
    opts, merged = implicit_options(integrator, options or {})
    q, v = model.q0.copy(), model.v0.copy()
    vd, lam = np.zeros(nv), np.zeros(nc)
    assert consistent_accelerations(sys, q, v, 0.0, vd, lam)
    stats = np.zeros(N_STATISTICS)
    times = np.zeros(0) if sample_times is None else np.asarray(sample_times, dtype=float)
    q_samples = np.zeros((times.size, nq))
    code, steps, t = ga.integrate_implicit(
        sys, integrator.method(merged).as_array(), opts, q, v, vd, vd.copy(), lam, 0.0, t_end, h,
        times, q_samples, np.zeros((times.size, nv)), np.zeros((times.size, nc)),
        ga.make_workspace(sys), stats, np.zeros(1, dtype=bool))
    outputs = dict(zip(model.output_names, model.outputs(sys, q, v, lam, t)))
    return code, t, q, v, stats, outputs, q_samples


@lru_cache(maxsize=None)
def final_angles(h):
    code, t, q, _, stats, _, _ = integrate(h)
    assert code == 0 and t == pytest.approx(1.0, abs=1e-12)
    return q.copy(), stats[ST_NEWTON] / stats[ST_STEPS]


# ----------------------------------------------------------------------------------------------
# data and kinematics
# ----------------------------------------------------------------------------------------------

def test_motion_data_follow_eq45_and_table9():
    phi0 = initial_angles(DEFAULTS)
    np.testing.assert_allclose(np.degrees(phi0), [0.0, 22.5, 90.0, 0.0, 22.5, 0.0])
    acc = np.asarray(DEFAULTS["acceleration"])
    np.testing.assert_allclose(acc, TABLE9_ACCELERATION, atol=5e-5)           # Table 9, 4 decimals
    t_s = DEFAULTS["t_switch"]
    # the accelerations move each joint by eq. (45)'s phi^Goal vector in 2 t_switch ...
    np.testing.assert_allclose(np.degrees(acc * t_s ** 2), PHI_GOAL_EQ45_DEG, atol=1e-12)
    # ... so the rest angles are phi_init + phi^Goal: eq. (45) itself only for joints 1, 4, 6
    goal = np.degrees(goal_angles(DEFAULTS))
    np.testing.assert_allclose(goal, [-120.0, 82.5, -110.0, 90.0, 112.5, 45.0], atol=1e-12)
    same = np.isclose(goal, PHI_GOAL_EQ45_DEG)
    assert list(same) == [True, False, False, True, False, True]


def test_set_point_reaches_the_goal_at_rest(built):
    goal = goal_angles(DEFAULTS)
    for row in range(6):
        phi, rate, acc = chain_setpoint(built.system, row, 1.0)
        assert phi == pytest.approx(goal[row], abs=1e-14) and rate == pytest.approx(0.0, abs=1e-14)
        phi0, rate0, acc0 = chain_setpoint(built.system, row, 0.0)
        assert phi0 == initial_angles(DEFAULTS)[row] and rate0 == 0.0
        assert acc0 == DEFAULTS["acceleration"][row]


def test_initial_state(built):
    np.testing.assert_array_equal(built.q0, initial_angles(DEFAULTS))
    np.testing.assert_array_equal(built.v0, np.zeros(6))
    assert built.output_names == OUTPUTS


def test_python_link_helpers_match_the_compiled_kinematics(built):
    links = dh_links(DEFAULTS)
    theta = built.q0
    frames = link_frames(links, theta)
    for row, (R, origin) in enumerate(frames):
        Rk, ok = chain_link_frame(built.system, theta, row)
        np.testing.assert_allclose(Rk, R, atol=1e-14)
        np.testing.assert_allclose(ok, origin, atol=1e-14)
    axes = joint_axes(links, theta)
    np.testing.assert_allclose(axes[0][1], [0, 0, 1])
    for i in range(1, 6):
        np.testing.assert_allclose(axes[i][0], frames[i - 1][1])
        np.testing.assert_allclose(axes[i][1], frames[i - 1][0][:, 2])
    # potential energy from the helpers' global centres of mass
    g = np.asarray(DEFAULTS["gravity"])
    potential = -sum(m * g @ c for m, c, _ in link_inertial(links, theta))
    assert chain_potential_energy(built.system, theta, built.v0) == pytest.approx(potential, rel=1e-14)
    local = link_inertial(links)
    np.testing.assert_allclose(local[1][1], [-0.3638, 0.006, 0.2275])
    np.testing.assert_allclose(local[0][2], np.diag([0.0, 0.35, 0.0]))


def test_link1_inertia_acts_about_joint_axis_1(built):
    """Link 1 (m = 0, I = diag(0, 0.35, 0)): its link-frame y axis is joint axis 1, so M_11 gets
    0.35 from it; nothing of link 1 enters any other entry."""
    links = dh_links(DEFAULTS)
    R1, _ = link_frames(links, built.q0)[0]
    np.testing.assert_allclose(R1[:, 1], [0.0, 0.0, 1.0], atol=1e-15)
    without = MODEL.build("Min", {"inertia_yy": [0.0] + DEFAULTS["inertia_yy"][1:]})
    diff = chain_mass_matrix_rows(built.system, QN) - chain_mass_matrix_rows(without.system, QN)
    expected = np.zeros((6, 6))
    expected[0, 0] = 0.35
    np.testing.assert_allclose(diff, expected, atol=1e-14)


# ----------------------------------------------------------------------------------------------
# dynamics against Corke's Robotics Toolbox
# ----------------------------------------------------------------------------------------------

def test_gravity_load_matches_robotics_toolbox(built):
    zero = np.zeros(6)
    np.testing.assert_allclose(chain_inverse_dynamics(built.system, QN, zero, zero, True), RTB_GRAVLOAD_QN,
                               atol=5e-5)


def test_inertia_matches_robotics_toolbox_without_motor_inertia(built):
    M = chain_mass_matrix_rows(built.system, QN)
    np.testing.assert_allclose(M, RTB_INERTIA_QN - np.diag(RTB_JM * RTB_G ** 2), atol=1e-4)
    off = ~np.eye(6, dtype=bool)
    np.testing.assert_allclose(M[off], RTB_INERTIA_QN[off], atol=5e-5)


def test_coriolis_matches_robotics_toolbox(built):
    qd = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0])
    coriolis = chain_inverse_dynamics(built.system, QN, qd, np.zeros(6), False)
    # each C entry is rounded to 5e-5 and multiplied by |qd| <= 3, six per row
    np.testing.assert_allclose(coriolis, RTB_CORIOLIS_QN @ qd, atol=6 * 3 * 5e-5)


def test_energy_output(built):
    rng = np.random.default_rng(0)
    q, v = rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6)
    out = dict(zip(OUTPUTS, built.outputs(built.system, q, v, np.zeros(0), 0.3)))
    M = chain_mass_matrix_rows(built.system, q)
    assert out["energy"] == pytest.approx(0.5 * v @ M @ v + chain_potential_energy(built.system, q, v), rel=1e-13)
    assert chain_kinetic_energy(built.system, q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-13)
    _, origin = chain_link_frame(built.system, q, 5)
    np.testing.assert_allclose([out["ee_x"], out["ee_y"], out["ee_z"]], origin)
    phi_d = np.array([chain_setpoint(built.system, i, 0.3)[0] for i in range(6)])
    assert out["tracking_error"] == pytest.approx(np.linalg.norm(q - phi_d), rel=1e-14)


# ----------------------------------------------------------------------------------------------
# simulation
# ----------------------------------------------------------------------------------------------

def test_robot_reaches_the_goal_within_the_pd_tracking_error():
    """At t = 1 s the set-point rests at phi_goal; the PD lag (no gravity compensation) leaves
    |phi - phi_goal| <= 4.0e-4 rad per joint (measured), ||phi - phi_goal|| = 5.4e-4 rad."""
    code, t, q, v, stats, out, _ = integrate(1e-3)
    assert code == 0 and t == pytest.approx(1.0)
    deviation = q - goal_angles(DEFAULTS)
    assert np.abs(deviation).max() < 5e-4, deviation
    assert out["tracking_error"] == pytest.approx(np.linalg.norm(deviation), rel=1e-12)
    assert 4e-4 < out["tracking_error"] < 6e-4
    assert np.abs(v).max() < 0.05            # nearly at rest
    # without the controllers' stiffness the robot would fall: the PD gains matter
    code, _, q_soft, _, _, _, _ = integrate(1e-3, params={"kp": [4.0e2, 4.0e2, 4.0e2, 1.0, 1.0, 0.1]})
    assert code == 0 and np.abs(q_soft - goal_angles(DEFAULTS)).max() > 1e-2


def test_tracking_error_is_small_along_the_motion():
    """Sampled every 0.05 s, the joints lag the set-point by at most 8.5e-4 rad (measured, at
    t = 0.05 s while the set-point starts to accelerate)."""
    times = np.linspace(0.0, 1.0, 21)
    code, _, _, _, _, _, q_samples = integrate(2e-3, sample_times=times)
    assert code == 0
    system = MODEL.build("Min").system
    lags = [np.abs(q - [chain_setpoint(system, i, t)[0] for i in range(6)]).max() for t, q in zip(times, q_samples)]
    print("largest lag", max(lags), "at t =", times[int(np.argmax(lags))])
    assert max(lags) < 1.5e-3, lags


def test_generalized_alpha_converges_with_order_two():
    reference, _ = final_angles(H_REF)
    errors = [np.linalg.norm(final_angles(h)[0] - reference) for h in ORDER_GRID]
    slope = np.polyfit(np.log(ORDER_GRID), np.log(errors), 1)[0]
    print("errors", " ".join(f"{e:.3e}" for e in errors), f"order {slope:.3f}")
    assert abs(slope - 2.0) < 0.1, (errors, slope)
    assert errors[0] < 1e-9 and errors[-1] > 1e-12          # far above the reference error (~1e-13)
    for h in ORDER_GRID:
        assert final_angles(h)[1] == pytest.approx(2.0, abs=0.05)   # Newton iterations per step


def test_largest_step_of_the_grid_runs():
    """Paper 000 Fig. 20: Min runs at h = 0.1 (10 steps); it ends within 4e-4 rad of the reference."""
    q, newton = final_angles(0.1)
    reference, _ = final_angles(H_REF)
    assert np.linalg.norm(q - reference) < 5e-4
    assert newton < 3.0


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("params,field", [
    ({"mass": [0.0, -17.4, 4.8, 0.82, 0.34, 0.09]}, "params.mass"),
    ({"kp": [1.0, 2.0]}, "params.kp"),
    ({"kd": [400.0, 400.0, 100.0, 1.0, 1.0, -0.1]}, "params.kd"),
    ({"inertia_xx": [0.0, 0.13, 0.066, 0.0018, 0.0003, "x"]}, "params.inertia_xx"),
    ({"dh_a": [0.0, 0.4318, math.nan, 0.0, 0.0, 0.0]}, "params.dh_a"),
    ({"t_switch": 0.0}, "params.t_switch"),
    ({"gravity": [0.0, -9.81]}, "params.gravity"),
    ({"phi_init_deg": 22.5}, "params.phi_init_deg"),
    ({"inertia_yy": [0.0] * 6, "inertia_zz": [0.0] * 6, "inertia_xx": [0.0] * 6, "mass": [0.0] * 6},
     "params.mass"),
    ({"no_such_parameter": 1.0}, "params.no_such_parameter"),
])
def test_bad_parameters_raise_input_error(params, field):
    with pytest.raises(InputError) as error:
        MODEL.build("Min", params)
    assert error.value.field == field, str(error.value)


def test_unknown_formulation_raises_input_error():
    with pytest.raises(InputError) as error:
        MODEL.build("Quaternion")
    assert "Min" in str(error.value)


def test_study_file_loads():
    from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
    if "Min" not in IMPLICIT_FORMULATIONS:
        pytest.skip("formulation 'Min' is not registered in lgbench/mbs/formulations.py yet")
    from lgbench.runner.study import load_study
    study = load_study("studies/puma560.yaml")
    assert study.model == "puma560" and study.reference.h == 1e-6
    assert [round(h, 12) for h in study.steps.sizes()] == [round(0.1 * 2.0 ** (1 - n), 12) for n in range(1, 12)]
    quick = load_study("studies/puma560.yaml", "quick")
    assert quick.expectations
