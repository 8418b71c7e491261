"""The IFToMM benchmark problems as mechanism files (studies/mechanisms/iftomm_*.yaml): each against what its
statement fixes - the simple pendulum's closed form, the N four-bar's files as their generator writes them and
their redundant rows, Andrews' mechanism against the Test Set's solution at t = 0.03 s and its energy balance,
Bricard's over-constrained loop and its conserved energy."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy.special import ellipj, ellipk

from benchmarks.peer_iftomm_four_bar import HEADER, four_bar_mechanism, mechanism_path
from lgbench.runner.mechanism_file import load_mechanism, mechanism_data
from lgbench.runner.single_run import RunSpec, run_single

MECHANISMS = Path(__file__).resolve().parent.parent / "studies" / "mechanisms"


def _data(name: str):
    return mechanism_data(load_mechanism(MECHANISMS / name))


def _run(name: str, formulation: str, integrator: str, h: float, t_end: float, samples: int | None = None,
         options=()):
    data = _data(name)
    result = run_single(RunSpec(data.model().name, formulation, integrator, h, t_end, options=tuple(options),
                                mechanism=data), n_samples=samples)
    assert result.status == "ok", result.message
    return result


def _rows(name: str, formulation: str = "RV") -> tuple[int, int]:
    """(written, independent) constraint rows of a file in ``formulation``."""
    built = _data(name).model().build(formulation)
    return int(built.all_rows.sizes[2]), int(built.system.sizes[2])


def pendulum_closed_form(t: float, g=9.81, length=1.0, mass=1.0, radius=0.01) -> np.ndarray:
    """P1 = (L sin theta, L - L cos theta) of the pendulum hinged at (0, L) and released at rest from the
    horizontal (theta = pi/2 from the downward vertical): theta = 2 asin(k sn(K(k) - omega t, k)),
    k = sin(pi/4), omega^2 = m g L / I_O."""
    omega = np.sqrt(mass * g * length / (mass * length**2 + 0.4 * mass * radius**2))
    m = np.sin(np.pi / 4) ** 2
    sn, _, _, _ = ellipj(ellipk(m) - omega * t, m)
    theta = 2.0 * np.arcsin(np.sqrt(m) * sn)
    return length * np.array([np.sin(theta), 1.0 - np.cos(theta)])


@pytest.mark.parametrize("formulation", ["RV", "SE3"])
def test_pendulum_follows_its_closed_form(formulation):
    """A01 over two periods: RK44 with projection at h = 1e-3 ends within 1e-9 of the elliptic-function
    solution (measured: 1.4e-11); a wrong mass distribution, length or release point moves P1 by far more."""
    result = _run("iftomm_a01_pendulum.yaml", formulation, "RK44-index1", 1e-3, 4.8)
    p1 = np.array([result.final_outputs["P1_x"], result.final_outputs["P1_y"]])
    assert np.abs(p1 - pendulum_closed_form(4.8)).max() < 1e-9


@pytest.mark.parametrize("n", [2, 10, 40])
def test_four_bar_files_are_their_generator_output(n):
    """The shipped A02 files are what ``benchmarks.peer_iftomm_four_bar`` writes (regenerate with `python -m
    benchmarks.peer_iftomm_four_bar write 2 10 40` after changing it)."""
    text = mechanism_path(n).read_text()
    body = text[len(HEADER.format(n=n, rods=2 * n + 1, joints=3 * n + 1, rows=5 * (3 * n + 1),
                                  independent=6 * (2 * n + 1) - 1)):]
    assert yaml.safe_load(body) == four_bar_mechanism(n)


@pytest.mark.parametrize("n", [2, 10, 40])
def test_four_bar_keeps_one_degree_of_freedom(n):
    """5 (3N + 1) revolute rows on 2N + 1 bodies, three redundant per loop: 6 (2N + 1) - 1 independent."""
    assert _rows(mechanism_path(n).name) == (5 * (3 * n + 1), 6 * (2 * n + 1) - 1)


def _initial_outputs(name: str, formulation: str = "RV") -> dict[str, float]:
    """The named outputs of a file's assembled initial state (multipliers zero)."""
    built = _data(name).model().build(formulation)
    values = built.outputs(built.system, built.q0, built.v0, np.zeros(int(built.system.sizes[2])), 0.0)
    return dict(zip(built.output_names, np.asarray(values, dtype=float)))


def test_four_bar_starts_as_the_statement_says():
    """B0, the first crank's tip, at (0, 1) moving at 1 m/s along +x; every crank upright at -1 rad/s; energy
    1.5 J kinetic (three cranks 1/6 J each, two couplers 1/2 J each) plus 34.335 J potential."""
    out = _initial_outputs("iftomm_a02_four_bar.yaml")
    assert np.allclose([out["B0_x"], out["B0_y"], out["B0_velocity_x"], out["B0_velocity_y"]], [0, 1, 1, 0],
                       atol=1e-14)
    assert out["energy"] == pytest.approx(1.5 + 9.81 * (3 * 0.5 + 2 * 1.0), abs=1e-12)


TEST_SET_ANDREWS = {  # Test Set for IVP Solvers, andrews.f: the solution at t = 0.03 less the initial angles
    "beta": 0.1581077119629904e2 + 0.0617138900142764496358948458001,
    "Theta": -0.1575637105984298e2,
    "gamma": 0.4082224013073101e-1 - 0.455279819163070380255912382449,
    "Phi": -0.5347301163226948 - 0.222668390165885884674473185609,
    "delta": 0.5244099658805304 - 0.487364979543842550225598953530,
    "Omega": 0.5347301163226948 + 0.222668390165885884674473185609,
    "epsilon": 0.1048080741042263e1 - 1.23054744454982119249735015568,
}


def test_andrews_mechanism_reaches_the_test_set_solution():
    """A03 over 0.03 s, RK44 with projection at h = 1e-5 (RV): the seven angles within 1e-8 rad of the Test
    Set's reference (measured: 1.3e-9 for beta and Theta, below 2e-11 for the others; beta has turned 2.5
    times, counted over 31 samples); the motor's work mom (beta - beta0) equals the change of kinetic and
    spring energy to 1e-9 J."""
    result = _run("iftomm_a03_andrews.yaml", "RV", "RK44-index1", 1e-5, 0.03, samples=31)
    out = result.final_outputs
    for name, value in TEST_SET_ANDREWS.items():
        assert out[name] == pytest.approx(value, abs=1e-8), name
    assert out["energy"] - _initial_outputs("iftomm_a03_andrews.yaml")["energy"] == pytest.approx(0.033 * TEST_SET_ANDREWS["beta"], abs=1e-9)


def test_andrews_mechanism_has_one_degree_of_freedom():
    """Ten revolute joints on seven bodies: 50 rows, 41 independent."""
    assert _rows("iftomm_a03_andrews.yaml") == (50, 41)


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_bricard_mechanism_is_overconstrained_and_conserves_energy(formulation):
    """A04: six revolute joints on five rods, 30 rows (35 with the EP norms) of rank 29 (34); released at rest
    it swings (joint O turns by 1.04 rad in 1 s) and RK44 with projection keeps its energy, -29.43 J, to
    1e-11 J over 1 s."""
    norms = 5 if formulation == "EP" else 0
    assert _rows("iftomm_a04_bricard.yaml", formulation) == (30 + norms, 29 + norms)
    result = _run("iftomm_a04_bricard.yaml", formulation, "RK44-index1", 1e-3, 1.0)
    assert result.final_outputs["O_angle"] == pytest.approx(1.035, abs=1e-3)
    assert result.final_outputs["energy"] == pytest.approx(-29.43, abs=1e-11)
