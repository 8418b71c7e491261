"""Heavy top without constraints (paper 000 Sect. 4.1.1, Table 3): physics and cross-formulation checks.

The engine is used exactly as studies use it (``run_single`` with ``RunSpec``). The reference is an
*independent* solution written here from the physics, not from lgbench's kernels: a rigid body
rotating about a fixed point O, with

    J_O = J_c + m (|c|^2 I - c c^T)                      (Steiner)
    J_O omega' = c x R^T (m g) - omega x J_O omega        (Euler's equations in the body frame)
    e' = 1/2 e * (0, omega)                              (unit-quaternion kinematics, body rate)
    x_com = R(e) c,  v_com = R(e) (omega x c)

integrated with scipy's DOP853 at rtol = atol = 1e-13. Its own error at t = 1 s is ~1e-12 (it
agrees with lgbench RV/RK67 at h = 1e-5 to 6e-13).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lgbench.runner.single_run import RunSpec, run_single

# paper 000, Table 3
MASS = 15.0
J_C = np.diag([0.234375, 0.468750, 0.234375])
COM = np.array([0.0, 1.0, 0.0])
GRAVITY = np.array([0.0, 0.0, -9.81])
OMEGA0 = np.array([0.0, 150.0, -4.61538])
T_END = 1.0
H = 1e-5
N_SAMPLES = 101
COM_KEYS = ("com_x", "com_y", "com_z")
VCOM_KEYS = ("vcom_x", "vcom_y", "vcom_z")
OMEGA_KEYS = ("omega_x", "omega_y", "omega_z")


# ----------------------------------------------------------------------------------------------
# independent reference (no lgbench code)
# ----------------------------------------------------------------------------------------------

J_O = J_C + MASS * (COM @ COM * np.eye(3) - np.outer(COM, COM))
J_O_INV = np.linalg.inv(J_O)


def quat_to_matrix(e):
    e0, e1, e2, e3 = e / np.linalg.norm(e)
    return np.array([
        [e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3],
    ])


def top_rhs(t, y):
    e, w = y[:4], y[4:]
    R = quat_to_matrix(e)
    torque = np.cross(COM, R.T @ (MASS * GRAVITY))
    wdot = J_O_INV @ (torque - np.cross(w, J_O @ w))
    edot = 0.5 * np.concatenate([[-e[1:] @ w], e[0] * w + np.cross(e[1:], w)])
    return np.concatenate([edot, wdot])


def independent_outputs(y):
    R = quat_to_matrix(y[:4])
    w = y[4:]
    com = R @ COM
    vcom = R @ np.cross(w, COM)
    energy = 0.5 * w @ J_O @ w - MASS * GRAVITY @ com
    lz = (R @ J_O @ w)[2]
    return {"com": com, "vcom": vcom, "omega": w, "energy": energy, "angular_momentum_z": lz}


@pytest.fixture(scope="module")
def reference():
    """Dense independent solution on [0, 1] s."""
    y0 = np.concatenate([[1.0, 0.0, 0.0, 0.0], OMEGA0])
    sol = solve_ivp(top_rhs, (0.0, T_END), y0, method="DOP853", rtol=1e-13, atol=1e-13, dense_output=True)
    assert sol.success
    return sol


# ----------------------------------------------------------------------------------------------
# engine runs (each computed once per session)
# ----------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def run(formulation: str, integrator: str = "RK44", h: float = H, n_samples: int | None = N_SAMPLES):
    result = run_single(RunSpec("heavy_top", formulation, integrator, h, T_END), n_samples=n_samples)
    assert result.status == "ok", result.message
    assert result.t_final == pytest.approx(T_END, abs=1e-12)
    return result


def final(result, keys):
    return np.array([result.final_outputs[k] for k in keys])


def series(result, keys):
    return np.column_stack([result.series[k] for k in keys])


# ----------------------------------------------------------------------------------------------
# the independent model is the paper's model
# ----------------------------------------------------------------------------------------------

def test_initial_outputs_match_the_independent_model():
    """At t = 0 (psi0 = 0) every output follows from Table 3 directly."""
    r = run("RV")
    ref = independent_outputs(np.concatenate([[1.0, 0, 0, 0], OMEGA0]))
    s = r.series
    assert s["t"][0] == 0.0
    np.testing.assert_allclose([s[k][0] for k in COM_KEYS], ref["com"], rtol=0, atol=1e-15)
    np.testing.assert_allclose([s[k][0] for k in VCOM_KEYS], ref["vcom"], rtol=0, atol=1e-12)
    np.testing.assert_allclose([s[k][0] for k in OMEGA_KEYS], ref["omega"], rtol=0, atol=0)
    assert s["energy"][0] == pytest.approx(ref["energy"], rel=1e-14)
    assert s["angular_momentum_z"][0] == pytest.approx(ref["angular_momentum_z"], rel=1e-14)


def test_rv_rk44_matches_the_independent_solution(reference):
    """RV (Lie group RKMK) with RK44 at h = 1e-5 agrees with the independent quaternion solution
    at t = 1. Measured: 1e-12 in com at t = 1 (the RK44 truncation error
    is ~4e-12, the reference's ~1e-12); the bound 1e-10 leaves room for round-off changes only."""
    r = run("RV")
    ref_end = independent_outputs(reference.sol(T_END))
    assert np.linalg.norm(final(r, COM_KEYS) - ref_end["com"]) <= 1e-10
    # velocities: |v_com| ~ 150 m/s, so the same relative accuracy is ~1e-8 absolute
    assert np.linalg.norm(final(r, VCOM_KEYS) - ref_end["vcom"]) <= 1e-8
    assert np.linalg.norm(final(r, OMEGA_KEYS) - ref_end["omega"]) <= 1e-8


@pytest.mark.parametrize("formulation", ["EP-F1", "F1"])
def test_classical_formulations_match_the_independent_solution(reference, formulation):
    """Measured at t = 1: EP-F1 1e-12, F1 7e-10 (Tait-Bryan angles pass near gimbal lock)."""
    r = run(formulation)
    com_ref = independent_outputs(reference.sol(T_END))["com"]
    assert np.linalg.norm(final(r, COM_KEYS) - com_ref) <= 1e-8


# ----------------------------------------------------------------------------------------------
# invariants
# ----------------------------------------------------------------------------------------------
# Gravity does no work on a top about a fixed point and its moment about O is horizontal, so the
# total energy and the vertical (global z) angular momentum about O are first integrals.
# Measured relative drifts over 1 s at h = 1e-5 (RK44):
#   RV      energy 1.3e-15, L_z 1.3e-12
#   EP-F1   energy 8.4e-16, L_z 1.2e-12
#   F1      energy 2.2e-12, L_z 1.4e-9   (orientation in Tait-Bryan angles; L_z = (R J_O omega)_z
#                                          picks up their error near gimbal lock)
#   Rxyz    energy 1.7e-7,  L_z 3.6e-6   (formulation 2: also the velocities are angle rates)
INVARIANT_BOUNDS = {  # formulation: (energy, L_z)
    "RV": (1e-9, 1e-9),
    "EP-F1": (1e-9, 1e-9),
    "F1": (1e-9, 1e-8),
}


def _relative_drift(values):
    return float(np.max(np.abs(values - values[0])) / abs(values[0]))


@pytest.mark.parametrize("formulation", list(INVARIANT_BOUNDS))
def test_energy_and_vertical_angular_momentum_are_conserved(formulation):
    r = run(formulation)
    e_bound, l_bound = INVARIANT_BOUNDS[formulation]
    de = _relative_drift(r.series["energy"])
    dl = _relative_drift(r.series["angular_momentum_z"])
    print(f"{formulation}: relative drift energy {de:.2e}, L_z {dl:.2e}")
    assert de <= e_bound
    assert dl <= l_bound


def test_rxyz_invariant_drift_is_much_larger_than_rv():
    """Paper 000's finding in invariant form: at equal h the Tait-Bryan formulation 2 drifts
    orders of magnitude more (measured: energy 1.7e-7 vs 1.3e-15)."""
    de_rxyz = _relative_drift(run("Rxyz").series["energy"])
    de_rv = _relative_drift(run("RV").series["energy"])
    assert de_rxyz > 1e-9
    assert de_rxyz > 1e4 * max(de_rv, 1e-16)


# ----------------------------------------------------------------------------------------------
# formulations agree
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("formulation", ["F1", "EP-F1"])
def test_formulations_agree_with_rv_at_t_end(formulation):
    """RV, F1 and EP-F1 (RK44, h = 1e-5) describe the same motion: com at t = 1 within 1e-8
    (measured: EP-F1 1e-13, F1 7e-10)."""
    diff = np.linalg.norm(final(run(formulation), COM_KEYS) - final(run("RV"), COM_KEYS))
    assert diff <= 1e-8


def test_rxyz_agrees_with_rv_at_a_smaller_step(reference):
    """Rxyz (Tait-Bryan, classical formulation 2) also converges to the same motion, but it needs a
    smaller step: around t = 0.918 s the top passes within cos(pitch) = 0.022 of gimbal lock, where
    the angle rates G^-1 omega reach ~150/0.022 ~ 7e3 rad/s and the RK44 error constant explodes.
    Its error at t = 1 is 1.7e-6 at h = 1e-5, 6e-9 at h = 2.5e-6 and 2.7e-9 at h = 2e-6 (order 4), so
    h = 2e-6 is the first round step with a safe margin under 1e-8."""
    r = run("Rxyz", "RK44", 2e-6, None)
    com = final(r, COM_KEYS)
    assert np.linalg.norm(com - final(run("RV"), COM_KEYS)) <= 1e-8
    assert np.linalg.norm(com - independent_outputs(reference.sol(T_END))["com"]) <= 1e-8


def test_rxyz_is_much_less_accurate_than_rv_at_equal_step(reference):
    """Paper 000 Sect. 4.1.1 / Fig. 3: with the same explicit method and step, the Lie group
    formulation is far more accurate than Tait-Bryan angles. Measured at h = 1e-5, RK44:
    RV 1e-12, Rxyz 1.7e-6 (factor ~1e6)."""
    com_ref = independent_outputs(reference.sol(T_END))["com"]
    err_rv = np.linalg.norm(final(run("RV"), COM_KEYS) - com_ref)
    err_rxyz = np.linalg.norm(final(run("Rxyz"), COM_KEYS) - com_ref)
    print(f"h = 1e-5, RK44: error RV {err_rv:.2e}, Rxyz {err_rxyz:.2e}, ratio {err_rxyz / err_rv:.1e}")
    assert err_rxyz > 1e-7
    assert err_rxyz > 1e4 * err_rv


# ----------------------------------------------------------------------------------------------
# sampling
# ----------------------------------------------------------------------------------------------

def test_sampled_trajectory_matches_the_independent_solution_at_every_sample_time(reference):
    """The series are labelled with the requested sample times; the state stored with t_k must be
    the state at t_k. With h = 1e-5 every t_k = k/100 is a step boundary, so the sampled com must
    match the reference to the same 1e-10 as at t_end. (Regression test: with a sampling tolerance
    of 1e-12*h, below one ulp of t, linspace's 0.5700000000000001 was taken one step late -- the
    state of t = 0.57001, com off by 4.1e-5 m.)"""
    r = run("RV")
    t = r.series["t"]
    assert t.shape == (N_SAMPLES,) and t[-1] == pytest.approx(T_END)
    ref = np.array([independent_outputs(reference.sol(tk))["com"] for tk in t])
    np.testing.assert_allclose(series(r, COM_KEYS), ref, rtol=0, atol=1e-10)


@pytest.mark.parametrize("h", [
    1e-5,
    2e-6,   # regression: t accumulated to 0.9999999999999999 and the t_end sample was dropped
])
def test_series_has_every_requested_sample_including_t_end(h):
    r = run_single(RunSpec("heavy_top", "EP-F1", "RK44", h, T_END), n_samples=N_SAMPLES)
    t = r.series["t"]
    assert t.shape == (N_SAMPLES,)
    np.testing.assert_allclose(t, np.linspace(0.0, T_END, N_SAMPLES), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(series(r, COM_KEYS)[-1], final(r, COM_KEYS))
