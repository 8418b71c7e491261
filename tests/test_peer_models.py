"""The Exudyn models of ``benchmarks/`` are the problems lgbench integrates (skipped without the extra
``peer``): the same method and step size give states that differ by less than either code's integration
error against an independent reference (the Lie group generalized-alpha variants of the two codes are
not identical, so the states agree to the error, not to round-off)."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("exudyn")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import peer_constrained_top, peer_exudyn, peer_puma, peer_rotor, peer_slider_crank  # noqa: E402


def assert_agree_within_the_error(lgbench, exudyn, reference):
    """Largest difference between the codes <= twice the larger of their errors."""
    difference = np.abs(lgbench - exudyn).max()
    error = max(np.abs(lgbench - reference).max(), np.abs(exudyn - reference).max())
    assert difference <= 2.0 * error + 1e-12, f"codes differ by {difference:.2e}, errors up to {error:.2e}"


@pytest.mark.parametrize("formulation", peer_puma.FORMULATIONS)
def test_exudyn_puma_560_agrees_with_lgbench_to_the_integration_error(formulation):
    """Paper 000 Sect. 4.4 in both codes, generalized-alpha h = 1e-3 over 0.1 s (the first, accelerating
    phase); reference: lgbench's minimal coordinates, RK44 at h = 1e-5."""
    h, t_end = 1e-3, 0.1
    lg = peer_puma.measure_lgbench(formulation, h, t_end, repeats=1)
    _, angles, _ = peer_puma.run_exudyn(formulation, h, int(round(t_end / h)))
    assert_agree_within_the_error(lg["angle"], angles, peer_puma.reference_angles(t_end, h / 100))


@pytest.mark.parametrize("case", [c for c in peer_exudyn.peer_cases() if c.newton == "full"], ids=lambda c: c.name)
def test_exudyn_heavy_top_agrees_with_lgbench_to_the_integration_error(case):
    """The heavy top of paper 000 Sect. 4.1.1 in both codes, generalized-alpha h = 2.5e-5 over 0.05 s;
    reference: lgbench RV RK67 at h / 10."""
    h, t_end = 2.5e-5, 0.05
    lg = peer_exudyn.measure_lgbench(case, h, t_end, repeats=1)
    _, com = peer_exudyn.run_exudyn(case, h, int(round(t_end / h)))
    assert_agree_within_the_error(lg["com"], com, peer_exudyn.reference_com(t_end, h / 10))


@pytest.mark.parametrize("formulation", peer_constrained_top.FORMULATIONS)
def test_exudyn_constrained_heavy_top_agrees_with_lgbench_to_the_integration_error(formulation):
    """Paper 000 Sect. 4.1.2 (spherical joint) in both codes, generalized-alpha h = 1e-4 with T_exp over
    0.05 s; reference: lgbench EP generalized-alpha at h / 10."""
    h, t_end = 1e-4, 0.05
    lg = peer_constrained_top.measure_lgbench(formulation, h, t_end, repeats=1)
    _, com, _ = peer_constrained_top.run_exudyn(formulation, h, int(round(t_end / h)))
    assert_agree_within_the_error(lg["com"], com, peer_constrained_top.reference_com(t_end, h / 10))


@pytest.mark.parametrize("formulation", peer_rotor.FORMULATIONS)
def test_exudyn_rotor_agrees_with_lgbench_to_the_integration_error(formulation):
    """Paper 000 Sect. 4.2 (two spring-damper supports, 200000 rpm) in both codes, generalized-alpha
    h = 6.25e-6 over 0.005 s; reference: lgbench RV RK44 at h / 10."""
    h, t_end = peer_rotor.STEP, 0.005
    lg = peer_rotor.measure_lgbench(formulation, h, t_end, repeats=1)
    _, p1, _ = peer_rotor.run_exudyn(formulation, h, int(round(t_end / h)))
    assert_agree_within_the_error(lg["p1"], p1, peer_rotor.reference_p1(t_end, h / 10))


@pytest.mark.parametrize("formulation", peer_slider_crank.FORMULATIONS)
def test_exudyn_slider_crank_agrees_with_lgbench_to_the_integration_error(formulation):
    """Paper 000 Sect. 4.3 (revolute, spherical, universal, prismatic joints) in both codes from the same
    initial state, generalized-alpha h = 1e-3 over 0.2 s; reference: lgbench EP generalized-alpha with
    Newton tolerance 1e-12 at h / 10."""
    h, t_end = peer_slider_crank.STEP, 0.2
    lg = peer_slider_crank.measure_lgbench(formulation, h, t_end, repeats=1)
    _, state, _ = peer_slider_crank.run_exudyn(formulation, h, int(round(t_end / h)))
    assert_agree_within_the_error(lg["state"], state, peer_slider_crank.reference_state(t_end, h / 10))
