"""The Exudyn models of the IFToMM N four-bar and Bricard mechanism (``benchmarks/peer_iftomm_*.py``) are the
mechanism files lgbench integrates (skipped without the extra ``peer``): generalized-alpha with the same h,
rho_inf and Newton tolerances in both codes gives the same motion to well within the integration error."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("exudyn")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import peer_iftomm_bricard, peer_iftomm_four_bar  # noqa: E402

NEWTON = (1e-10, 1e-12)
OPTIONS = (("newton_atol", NEWTON[1]), ("newton_rtol", NEWTON[0]), ("rho_inf", 0.9))


@pytest.mark.parametrize("n", [2, 10])
def test_exudyn_four_bar_moves_as_the_file(n):
    """Through the first horizontal pass (t = 0.714 s): B0 at t = 1 s, h = 1e-3, in both codes within 1e-8 m
    (measured: 1.1e-13 at N = 2, 4.9e-14 at N = 10), while their integration error is 2.3e-5 m (RK67 with
    projection at h = 2.5e-4 as the reference)."""
    h, t_end = 1e-3, 1.0
    _, exudyn_tip, _ = peer_iftomm_four_bar.run_exudyn(n, "RV", h, int(round(t_end / h)), NEWTON)
    lg = peer_iftomm_four_bar.measure_lgbench(n, "RV", h, t_end, 1, NEWTON)
    reference = peer_iftomm_four_bar.reference_tip(n, t_end, h / 4)
    assert np.abs(lg["B0"] - exudyn_tip).max() < 1e-8
    assert np.abs(lg["B0"] - reference).max() > 1e-6


def test_exudyn_bricard_moves_as_the_file():
    """Over 2 s at h = 1e-3: the point B (P3) in both codes within 1e-7 m (measured: 6.6e-9), against an
    integration error of 9.4e-7 m (RK44 with projection at h = 2.5e-4 as the reference)."""
    h, t_end = 1e-3, 2.0
    _, exudyn_b, _ = peer_iftomm_bricard.run_exudyn("RV", h, int(round(t_end / h)), NEWTON)
    run = peer_iftomm_bricard.lgbench_run("RV", "generalized-alpha", h, t_end, OPTIONS)
    reference = peer_iftomm_bricard.final_b(peer_iftomm_bricard.lgbench_run("RV", "RK44-index1", h / 4, t_end))
    lgbench_b = peer_iftomm_bricard.final_b(run)
    assert np.abs(lgbench_b - exudyn_b).max() < 1e-7
    assert np.abs(lgbench_b - reference).max() > 2e-7
