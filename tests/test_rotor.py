"""High-speed rotor on flexible supports (paper 000 Sect. 4.2, Table 6, eq. 44): physics checks.

The engine is used as studies use it (``run_single`` with ``RunSpec``). Claims:
- the rotor precesses: p1 = [-L_L, 0, 0] circles in the y-z plane with a period of about 2.5 s (Fig. 10),
  and the measured period matches the conical backward-whirl estimate k_theta / (J_xx omega);
- the Lie group (RV) and the classical Tait-Bryan (Rxyz) formulations give the same motion;
- the work balance closes: energy(t) - energy(0) = integral of (torque_power - damping_power);
- impossible parameters end in an InputError naming the parameter.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.models import MODELS
from lgbench.runner.single_run import RunSpec, run_single

P1 = ("p1_x", "p1_y", "p1_z")


@lru_cache(maxsize=None)
def simulate(formulation: str, integrator: str, h: float, t_end: float, samples: int | None = None):
    result = run_single(RunSpec("rotor", formulation, integrator, h, t_end), n_samples=samples)
    assert result.status == "ok", result.message
    return result


def fitted_circle(y: np.ndarray, z: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle through the points (y, z): centre and radius (Kasa fit)."""
    A = np.column_stack([2.0 * y, 2.0 * z, np.ones_like(y)])
    (a, b, c), *_ = np.linalg.lstsq(A, y**2 + z**2, rcond=None)
    return float(a), float(b), float(math.sqrt(c + a * a + b * b))


def precession_period(t: np.ndarray, y: np.ndarray, z: np.ndarray, t_start: float) -> float:
    """Period of the circular motion of (y, z): slope of the unwrapped phase angle about the fitted
    centre, by least squares, after the translational transient (t >= t_start)."""
    keep = t >= t_start
    a, b, _ = fitted_circle(y[keep], z[keep])
    angle = np.unwrap(np.arctan2(z[keep] - b, y[keep] - a))
    rate = np.polyfit(t[keep], angle, 1)[0]
    return 2.0 * math.pi / abs(rate)


def zero_crossing_period(t: np.ndarray, s: np.ndarray, t_start: float) -> float:
    """Twice the mean spacing of the mean-level crossings of s after t_start."""
    keep = t >= t_start
    s = s[keep] - s[keep].mean()
    t = t[keep]
    idx = np.where(np.sign(s[:-1]) != np.sign(s[1:]))[0]
    crossings = t[idx] - s[idx] * (t[idx + 1] - t[idx]) / (s[idx + 1] - s[idx])
    assert crossings.size >= 2, "fewer than two crossings"
    return 2.0 * float(np.mean(np.diff(crossings)))


def test_p1_precesses_with_a_period_of_2_5_s():
    result = simulate("RV", "RK44", 2.0e-5, 4.0, 2001)
    s = result.series
    t, y, z = s["t"], s["p1_y"], s["p1_z"]
    period = precession_period(t, y, z, t_start=0.6)
    assert period == pytest.approx(2.5, rel=0.10)
    # the same from the zero crossings of p1_z (about three of them in 4 s)
    assert zero_crossing_period(t, z, t_start=0.6) == pytest.approx(period, rel=0.05)
    # p1 circles: after the transient its distance from the fitted centre stays within 10 % of the
    # fitted radius (about 0.3 mm)
    keep = t >= 0.6
    a, b, r = fitted_circle(y[keep], z[keep])
    distance = np.hypot(y[keep] - a, z[keep] - b)
    assert 1e-4 < r < 1e-3
    assert np.max(np.abs(distance / r - 1.0)) < 0.10
    # and the period is the gyroscopic estimate omega_p = k_theta / (J_xx omega) within 5 %
    p = MODELS["rotor"].defaults
    k_l, k_r, L_L, L_R = p["stiffness_left"][1], p["stiffness_right"][1], p["L_L"], p["L_R"]
    k_theta = k_l * L_L**2 + k_r * L_R**2 - (k_r * L_R - k_l * L_L) ** 2 / (k_l + k_r)
    spin = 2.0 * math.pi * p["spin_rpm"] / 60.0
    estimate = 2.0 * math.pi * p["inertia"][0] * spin / k_theta
    assert period == pytest.approx(estimate, rel=0.05)


def test_p1_stays_on_the_rotor_axis_and_the_spin_is_kept():
    result = simulate("RV", "RK44", 2.0e-5, 4.0, 2001)
    s = result.series
    spin = 2.0 * math.pi * 200000.0 / 60.0
    # the left support holds the rotor axially: p1_x moves by far less than the transverse motion
    assert np.max(np.abs(s["p1_x"] + 0.11)) < 1e-6 < np.max(np.abs(s["p1_y"]))
    assert np.max(np.abs(s["omega_x"] / spin - 1.0)) < 1e-4


def test_rv_and_rxyz_agree_at_small_step_sizes():
    rv = simulate("RV", "RK67", 1.0e-5, 0.2).final_outputs
    rxyz = simulate("Rxyz", "RK67", 2.5e-6, 0.2).final_outputs
    difference = np.linalg.norm([rv[k] - rxyz[k] for k in P1])
    motion = np.linalg.norm([rv[k] - v for k, v in zip(P1, (-0.11, 0.0, 0.0))])
    assert motion > 1e-3
    assert difference < 1e-9 * 1e3 * motion      # ~1e-9 m on a ~2 mm motion
    for k in ("omega_x", "omega_y", "omega_z"):
        assert rv[k] == pytest.approx(rxyz[k], rel=1e-9, abs=1e-6)


def _work_balance(integrator: str, h: float) -> tuple[float, float, float]:
    """Over t in [0, 0.2] s: max |energy(t) - energy(0) - int_0^t (torque_power - damping_power)|
    (Simpson's rule on every step), the largest |energy(t) - energy(0)|, and energy(0)."""
    t_end = 0.2
    n = int(round(t_end / h))
    s = simulate("RV", integrator, h, t_end, n + 1).series
    assert s["t"].size == n + 1
    power = s["torque_power"] - s["damping_power"]
    work = np.zeros(n // 2 + 1)                     # Simpson on pairs of steps
    work[1:] = np.cumsum(h / 3.0 * (power[0:-2:2] + 4.0 * power[1:-1:2] + power[2::2]))
    change = s["energy"][::2] - s["energy"][0]
    return float(np.max(np.abs(change - work))), float(np.max(np.abs(change))), float(s["energy"][0])


def test_energy_balance_closes_to_the_integration_error():
    coarse, scale, energy = _work_balance("RK44", 5.0e-5)
    fine, _, _ = _work_balance("RK44", 2.5e-5)
    best, _, _ = _work_balance("RK67", 2.5e-5)
    # the energy changes by about 0.36 J (the torque feeds the spin whenever the axis tilts out of
    # the x-y plane; the rotor sinks onto its supports) on top of 3.4e5 J of spin energy ...
    assert scale > 0.1 and energy > 3e5
    # ... the balance misses by the integration error: fourth order for RK44 (ratio 16 per halving) ...
    assert 1e-8 < coarse < 1e-6 * scale
    assert coarse / fine > 8.0
    # ... down to the round-off of the spin energy (~1e-14 relative) for RK67
    assert best < 1e-13 * energy


@pytest.mark.parametrize("key, value", [
    ("mass", -1.2331),
    ("mass", 0.0),
    ("stiffness_left", [4000.0, -4000.0, 4000.0]),
    ("stiffness_right", [0.0, 4000.0, -1.0]),
    ("damping_left", [-5.0, 5.0, 5.0]),
    ("inertia", [0.001541, -0.000812, 0.000812]),
    ("spin_rpm", -200000.0),
    ("L_L", 0.0),
    ("torque", "gravity"),
])
def test_impossible_parameters_give_input_error(key, value):
    with pytest.raises(InputError) as error:
        MODELS["rotor"].build("RV", {key: value})
    assert key in str(error.value.field)
    with pytest.raises(InputError):
        run_single(RunSpec("rotor", "RV", "RK44", 1e-4, 0.01, ((key, value),)))


def test_rotor_studies_load_with_the_paper_grids():
    from lgbench.runner.grid import expand
    from lgbench.runner.study import load_study

    explicit = load_study("studies/rotor.yaml")
    assert explicit.t_end == 4.0 and explicit.reference.h == 1e-6
    assert explicit.steps.sizes() == pytest.approx([1e-4 * 2.0 ** (1 - n) for n in range(1, 7)], rel=1e-15)
    assert len(expand(explicit)) == 91     # 66 runs, the paper-code generalized-alpha (18), the paper's n = 7 (7)
    table7 = load_study("studies/rotor_implicit.yaml").steps.sizes()
    assert table7 == pytest.approx([5e-5 * 2.0 ** (1 - n) for n in range(1, 11)], rel=1e-15)
    assert table7[-1] == pytest.approx(9.765625e-8)


def test_rkmk_step_beyond_its_rotation_resolution_is_reported_as_diverged():
    """ODE23 at h = 1e-4 is beyond its stability limit on the rotor (h * 18800 rad/s = 1.9 > sqrt(3)):
    the body rates grow until one step rotates the rotor by more than pi, which the rotation-vector
    update cannot represent; the run ends there as diverged instead of carrying a meaningless state."""
    run = run_single(RunSpec("rotor", "RV", "ODE23", 1e-4, 0.5))
    assert run.status == "diverged"
    assert "more than pi" in run.message
    assert run_single(RunSpec("rotor", "RV", "RK44", 1e-4, 0.5)).status == "ok"
