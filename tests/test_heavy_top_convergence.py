"""Observed convergence orders of the explicit methods on the heavy top (paper 000 Sect. 4.1.1, Fig. 3).

Error measure as in the paper: ||x_ref - x|| of the centre-of-mass position at t = 1 s, reference
from the Lie group formulation (RV) with the order-6 method RK67.

Default tests use short step grids, chosen per method so that the errors lie in the asymptotic range
and far above round-off (measured pairwise slopes are quoted next to each grid). The full grid of
the paper, h_n = 1e-4 * 2^(1-n), n = 1..8, runs under ``-m slow``.

What was measured (t = 1 s, reference RV/RK67 with h = 3.90625e-6):

* RV: every method shows its classical order cleanly (ODE23 3.00, RK44 3.98, DOPRI5 5.00,
  RK67 5.85-5.92) until the error reaches the 1e-13 floor.
* Rxyz: RK44 (3.96-4.00) and RK67 (5.96-5.99) show their order once h <= 5e-5. ODE23 and DOPRI5 do
  not show a clean slope on the paper's grid: DOPRI5 converges with slope ~6.05-6.1 and ODE23
  with slopes between 3.3 and 5.2. Cause (checked with an independent Python RK implementation of
  the Rxyz equations, which reproduces lgbench's Rxyz errors to 1e-13): near t = 0.918 s the top
  passes within cos(pitch) = 0.022 of gimbal lock, where the angle rates reach ~7e3 rad/s, so the
  higher-order error terms dominate down to h ~ 1e-6 (pre-asymptotic range). For these two the
  tests require "converges at least with the method's order" (slope >= order - 0.3).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from lgbench.integrators.tableaus import TABLEAUS
from lgbench.runner.single_run import RunSpec, run_single

T_END = 1.0
COM_KEYS = ("com_x", "com_y", "com_z")
ORDERS = {name: tab.order for name, tab in TABLEAUS.items()}
METHODS = ["ODE23", "RK44", "DOPRI5", "RK67"]
TOL = 0.3

# Default grids (t = 1 s). Measured pairwise slopes in brackets.
FAST_GRIDS = {
    ("RV", "ODE23"): [1e-4, 5e-5, 2.5e-5],        # [3.00, 3.00], errors 2e-5 .. 3e-7
    ("RV", "RK44"): [2e-4, 1e-4, 5e-5],           # [3.96, 3.98], errors 3e-7 .. 1e-9
    ("RV", "DOPRI5"): [4e-4, 2e-4, 1e-4],         # [5.01, 5.00], errors 3e-8 .. 3e-11
    ("RV", "RK67"): [4e-4, 3e-4, 2e-4],           # [5.89, 5.92], errors 1e-9 .. 2e-11
    ("Rxyz", "ODE23"): [2.5e-5, 1.25e-5, 6.25e-6],   # [3.98, 4.32]  (pre-asymptotic, see above)
    ("Rxyz", "RK44"): [2.5e-5, 1.25e-5, 6.25e-6],    # [3.96, 3.99], errors 6e-5 .. 3e-7
    ("Rxyz", "DOPRI5"): [2.5e-5, 1.25e-5, 6.25e-6],  # [6.11, 6.05]  (pre-asymptotic, see above)
    ("Rxyz", "RK67"): [2.5e-5, 1.25e-5, 6.25e-6],    # [5.96, 5.99], errors 1e-6 .. 4e-10
}
# (formulation, method) whose observed slope on the tested range is not the classical order
PRE_ASYMPTOTIC = {("Rxyz", "ODE23"), ("Rxyz", "DOPRI5")}

PAPER_GRID = [1e-4 * 2.0 ** (1 - n) for n in range(1, 9)]
H_REF_FAST = 1e-5            # RV/RK67: differs from the paper's h_ref = 3.90625e-6 by 5.5e-14
H_REF_PAPER = 3.90625e-6
ROUND_OFF_FLOOR = {"RV": 1e-12, "Rxyz": 1e-10}   # slow test: errors below are not fitted


@lru_cache(maxsize=None)
def com_at_t_end(formulation: str, method: str, h: float) -> np.ndarray | None:
    r = run_single(RunSpec("heavy_top", formulation, method, h, T_END))
    if r.status != "ok":
        return None
    assert r.t_final == pytest.approx(T_END, abs=1e-12)
    return np.array([r.final_outputs[k] for k in COM_KEYS])


@pytest.fixture(scope="module")
def reference():
    return com_at_t_end("RV", "RK67", H_REF_FAST)


def error(formulation: str, method: str, h: float, ref: np.ndarray) -> float:
    com = com_at_t_end(formulation, method, h)
    return float("nan") if com is None else float(np.linalg.norm(com - ref))


def fitted_order(hs, errors) -> float:
    slope, _ = np.polyfit(np.log(hs), np.log(errors), 1)
    return float(slope)


def check_order(formulation: str, method: str, hs, errors) -> float:
    p = fitted_order(hs, errors)
    expected = ORDERS[method]
    print(f"{formulation:5s} {method:7s} h {hs[0]:.3g}..{hs[-1]:.3g}: errors "
          + " ".join(f"{e:.2e}" for e in errors) + f"  -> observed order {p:.2f} (expected {expected})")
    if (formulation, method) in PRE_ASYMPTOTIC:
        assert p >= expected - TOL, f"{formulation}/{method}: observed order {p:.2f} < {expected} - {TOL}"
    else:
        assert abs(p - expected) <= TOL, f"{formulation}/{method}: observed order {p:.2f}, expected {expected}"
    return p


@pytest.mark.parametrize("formulation,method", list(FAST_GRIDS), ids=lambda x: str(x))
def test_observed_convergence_order(reference, formulation, method):
    hs = FAST_GRIDS[(formulation, method)]
    errors = [error(formulation, method, h, reference) for h in hs]
    assert all(np.isfinite(errors)), f"a run failed: {errors}"
    # far above the reference's own error (~1e-13) and decreasing
    assert min(errors) > 1e-11, errors
    assert all(a > b for a, b in zip(errors, errors[1:])), errors
    check_order(formulation, method, hs, errors)


def test_order_check_can_fail(reference):
    """A method of order 3 cannot pass as order 4 on the same grid."""
    hs = FAST_GRIDS[("RV", "ODE23")]
    p = fitted_order(hs, [error("RV", "ODE23", h, reference) for h in hs])
    assert abs(p - 4) > TOL


@pytest.mark.parametrize("method", METHODS)
def test_rv_is_more_accurate_than_rxyz_at_the_same_step(reference, method):
    """Paper 000 Fig. 3 (left): with explicit methods the Lie group formulation (RV) is more accurate
    than Tait-Bryan angles (Rxyz) at the same h. Measured at h = 5e-5, t = 1 s: ratio Rxyz/RV =
    143 (ODE23), 8.8e5 (RK44), 3e8 (DOPRI5), > 1e8 (RK67, RV at the 1e-13 floor)."""
    h = 5e-5
    e_rv = error("RV", method, h, reference)
    e_rxyz = error("Rxyz", method, h, reference)
    ratio = e_rxyz / max(e_rv, 1e-16)
    print(f"{method}: h = {h:g}: error RV {e_rv:.2e}, Rxyz {e_rxyz:.2e}, Rxyz/RV = {ratio:.3g}")
    assert ratio >= 100.0


# ----------------------------------------------------------------------------------------------
# the paper's grid (slow)
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def paper_reference():
    return com_at_t_end("RV", "RK67", H_REF_PAPER)


@pytest.mark.slow
@pytest.mark.parametrize("formulation", ["RV", "Rxyz"])
@pytest.mark.parametrize("method", METHODS)
def test_observed_order_on_the_papers_grid(paper_reference, formulation, method):
    """h_n = 1e-4 * 2^(1-n), n = 1..8, extended upward by 8e-4, 4e-4, 2e-4 so that every method has
    at least three errors above round-off (RV/RK67 reaches 3e-13 already at h = 5e-5). The order is
    fitted over the errors in (floor, 1e-2): above 1e-2 the runs are not yet in the convergent
    range (Rxyz diverges or is O(1) off for h >= 1e-4); the floor is 1e-12 for RV (round-off and the
    reference's own error, ~1e-13) and 1e-10 for Rxyz, whose errors flatten at 4-5e-12 for
    h <= 3e-6 (measured with DOPRI5 and RK67: round-off amplified near gimbal lock over ~1e6 steps).
    Failed runs (the '-' cells of the paper) are allowed only at the largest steps."""
    hs = [8e-4, 4e-4, 2e-4] + PAPER_GRID
    errors = [error(formulation, method, h, paper_reference) for h in hs]
    print(f"{formulation} {method}: " + " ".join(f"{h:.3g}:{e:.2e}" for h, e in zip(hs, errors)))
    failed = [h for h, e in zip(hs, errors) if not np.isfinite(e)]
    assert all(h >= 2e-4 for h in failed), f"runs failed at small steps: {failed}"
    floor = ROUND_OFF_FLOOR[formulation]
    use = [(h, e) for h, e in zip(hs, errors) if np.isfinite(e) and floor < e < 1e-2]
    assert len(use) >= 3, use
    check_order(formulation, method, [h for h, _ in use], [e for _, e in use])
