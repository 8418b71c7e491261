"""Butcher tableaus (lgbench/integrators/tableaus.py): structure and order.

Order is checked twice, independently:

* algebraically, through Butcher's rooted-tree order conditions  b^T Phi(t) = 1/gamma(t)  for every
  rooted tree t with |t| <= order (37 trees up to order 6), generated here recursively;
* numerically, by the observed convergence order of the plain RK method on two nonlinear test
  problems with known solutions (a non-autonomous scalar ODE and Euler's rigid-body equations,
  whose solution is given by Jacobi elliptic functions).

The embedded weights E of a pair must satisfy the conditions of ``embedded_order`` and violate at
least one condition of ``order`` (otherwise the error estimate E - B would be of the wrong order).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from lgbench.integrators.tableaus import DOPRI5, ODE23, RK44, RK67, TABLEAUS, ButcherTableau

ALL = list(TABLEAUS.values())
IDS = [t.name for t in ALL]
# Round-off tolerance on the order conditions: the coefficients are double-precision decimals of
# rationals (and of sqrt(5) for RK67); the weights of order-6 trees are sums of up to ~7^6 products
# of O(1)-O(10) coefficients, so 1e-12 is generous for round-off yet ~1e9 below any real violation
# (the smallest nonzero defect |b.Phi(t) - 1/gamma(t)| of these methods is ~8e-6, DOPRI5).
TOL = 1e-12


# ----------------------------------------------------------------------------------------------
# rooted trees
# ----------------------------------------------------------------------------------------------
# A rooted tree is the sorted tuple of its children (each itself a tree); the single node is ().

@lru_cache(maxsize=None)
def trees_of_order(n: int) -> tuple:
    """All rooted trees with n nodes (unlabelled, each exactly once)."""
    if n == 1:
        return ((),)
    found = set()
    for children in _forests(n - 1, n - 1):
        found.add(tuple(sorted(children)))
    return tuple(sorted(found))


def _forests(n: int, max_part: int):
    """Multisets of trees with n nodes in total (as sorted lists), parts of size <= max_part."""
    if n == 0:
        yield []
        return
    for first in range(min(n, max_part), 0, -1):
        for t in trees_of_order(first):
            for rest in _forests(n - first, first):
                # keep the list non-increasing in (size, tree) to avoid duplicates of orderings
                if rest and (_order(rest[0]), rest[0]) > (first, t):
                    continue
                yield [t] + rest


def _order(t) -> int:
    return 1 + sum(_order(c) for c in t)


def _gamma(t) -> int:
    """Density gamma(t) = |t| * prod gamma(children)."""
    g = _order(t)
    for c in t:
        g *= _gamma(c)
    return g


def _stage_weights(A: np.ndarray, t) -> np.ndarray:
    """Phi_i(t) such that the elementary weight is b^T Phi(t): Phi(t) = prod_children (A Phi(c))."""
    out = np.ones(A.shape[0])
    for c in t:
        out = out * (A @ _stage_weights(A, c))
    return out


def order_defects(A: np.ndarray, b: np.ndarray, order: int) -> list[tuple[object, float]]:
    """(tree, b^T Phi(t) - 1/gamma(t)) for every tree with at most ``order`` nodes."""
    return [(t, float(b @ _stage_weights(A, t)) - 1.0 / _gamma(t))
            for n in range(1, order + 1) for t in trees_of_order(n)]


def satisfied_order(A: np.ndarray, b: np.ndarray, max_order: int = 7) -> int:
    """Largest p <= max_order such that all conditions of order <= p hold to TOL."""
    p = 0
    for n in range(1, max_order + 1):
        if all(abs(float(b @ _stage_weights(A, t)) - 1.0 / _gamma(t)) <= TOL for t in trees_of_order(n)):
            p = n
        else:
            break
    return p


def test_tree_counts_match_the_known_sequence():
    # number of rooted trees with n nodes: OEIS A000081
    assert [len(trees_of_order(n)) for n in range(1, 8)] == [1, 1, 2, 4, 9, 20, 48]


def test_tree_order_conditions_detect_a_wrong_coefficient():
    """The checker must be able to fail: perturbing one RK44 weight breaks order 1 already."""
    b = RK44.B.copy()
    b[1] += 1e-6
    assert satisfied_order(RK44.A, b) == 0
    A = RK44.A.copy()
    A[3, 2] = 0.9  # c4 stays unequal to the row sum -> conditions of order 2+ fail
    assert satisfied_order(A, RK44.B) < 4


# ----------------------------------------------------------------------------------------------
# structure
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tab", ALL, ids=IDS)
def test_shapes_are_consistent(tab: ButcherTableau):
    s = tab.stages
    assert tab.A.shape == (s, s)
    assert tab.B.shape == (s,)
    assert tab.C.shape == (s,)
    if tab.E is not None:
        assert tab.E.shape == (s,)
        assert tab.embedded_order is not None and tab.embedded_order < tab.order


@pytest.mark.parametrize("tab", ALL, ids=IDS)
def test_row_sum_condition_c_equals_A_times_ones(tab: ButcherTableau):
    np.testing.assert_allclose(tab.A.sum(axis=1), tab.C, rtol=0, atol=1e-14)


@pytest.mark.parametrize("tab", ALL, ids=IDS)
def test_tableau_is_explicit(tab: ButcherTableau):
    assert tab.kind == "explicit"
    assert np.all(np.triu(tab.A) == 0.0), "A must be strictly lower triangular"
    assert tab.C[0] == 0.0


@pytest.mark.parametrize("tab", ALL, ids=IDS)
def test_weights_satisfy_exactly_the_stated_order(tab: ButcherTableau):
    defects = order_defects(tab.A, tab.B, tab.order)
    bad = [(t, d) for t, d in defects if abs(d) > TOL]
    assert not bad, f"{tab.name}: violated order conditions {bad}"
    # ... and not one more: the stated order is the true order, not a lower bound
    higher = [abs(float(tab.B @ _stage_weights(tab.A, t)) - 1.0 / _gamma(t))
              for t in trees_of_order(tab.order + 1)]
    assert max(higher) > 1e-6, f"{tab.name} satisfies all order-{tab.order + 1} conditions"


@pytest.mark.parametrize("tab", [t for t in ALL if t.E is not None], ids=lambda t: t.name)
def test_embedded_weights_have_the_embedded_order_only(tab: ButcherTableau):
    assert satisfied_order(tab.A, tab.E) == tab.embedded_order
    # the error estimate B - E is then O(h^(embedded_order + 1)), not smaller
    assert np.max(np.abs(tab.B - tab.E)) > 1e-3


def test_fsal_pairs_reuse_the_last_stage():
    """ODE23 and DOPRI5 are FSAL: the last row of A equals B and c_s = 1."""
    for tab in (ODE23, DOPRI5):
        np.testing.assert_array_equal(tab.A[-1], tab.B)
        assert tab.C[-1] == 1.0


def test_rk67_nodes_are_butchers():
    s5 = math.sqrt(5.0)
    lo, hi = 0.5 - s5 / 10, 0.5 + s5 / 10
    np.testing.assert_allclose(RK67.C, [0, lo, hi, lo, hi, lo, 1], atol=1e-15)
    assert RK67.stages == 7


# ----------------------------------------------------------------------------------------------
# observed convergence on problems with known solutions
# ----------------------------------------------------------------------------------------------

def _rk_integrate(tab: ButcherTableau, f, t0: float, y0: np.ndarray, t_end: float, n: int) -> np.ndarray:
    h = (t_end - t0) / n
    y = np.array(y0, dtype=float)
    s = tab.stages
    K = np.zeros((s, y.size))
    t = t0
    for _ in range(n):
        for i in range(s):
            K[i] = f(t + tab.C[i] * h, y + h * (tab.A[i, :i] @ K[:i]))
        y = y + h * (tab.B @ K)
        t += h
    return y


def _scalar_rhs(t, y):
    return -2.0 * t * y * y            # y(0) = 1  ->  y(t) = 1 / (1 + t^2)  (non-autonomous: uses C)


def _euler_rigid_body_rhs(t, y):
    """Euler's equations of a free rigid body in the classical test form (Hairer-Norsett-Wanner I,
    problem B5 of Hull et al.): y(0) = (0, 1, 1) -> y(t) = (sn, cn, dn)(t | m = 0.51)."""
    return np.array([y[1] * y[2], -y[0] * y[2], -0.51 * y[0] * y[1]])


def _observed_order(errors, ns):
    slope, _ = np.polyfit(np.log(1.0 / np.asarray(ns, float)), np.log(errors), 1)
    return slope


# Step counts chosen so that the errors are in the asymptotic range and far above round-off
# (measured: every error used lies between 1e-12 and 1e-4; pairwise slopes within 0.1 of the order).
SCALAR_STEPS = {"RK44": [20, 40, 80], "ODE23": [40, 80, 160], "DOPRI5": [10, 20, 40], "RK67": [10, 20, 40]}
RIGID_BODY_STEPS = {"RK44": [20, 40, 80], "ODE23": [40, 80, 160], "DOPRI5": [40, 80, 160],
                    "RK67": [10, 20, 40]}


@pytest.mark.parametrize("tab", ALL, ids=IDS)
def test_observed_order_on_nonautonomous_scalar_ode(tab: ButcherTableau):
    t_end = 1.0
    exact = 1.0 / (1.0 + t_end ** 2)
    ns = SCALAR_STEPS[tab.name]
    errors = [abs(_rk_integrate(tab, _scalar_rhs, 0.0, np.array([1.0]), t_end, n)[0] - exact) for n in ns]
    assert min(errors) > 1e-13, errors
    p = _observed_order(errors, ns)
    assert abs(p - tab.order) <= 0.2, f"{tab.name}: observed order {p:.3f}, errors {errors}"


@pytest.mark.parametrize("tab", ALL, ids=IDS)
def test_observed_order_on_euler_rigid_body_equations(tab: ButcherTableau):
    from scipy.special import ellipj

    t_end = 4.0
    exact = np.array(ellipj(t_end, 0.51)[:3])
    ns = RIGID_BODY_STEPS[tab.name]
    errors = [np.linalg.norm(_rk_integrate(tab, _euler_rigid_body_rhs, 0.0, np.array([0.0, 1.0, 1.0]),
                                           t_end, n) - exact) for n in ns]
    assert min(errors) > 1e-13, errors
    p = _observed_order(errors, ns)
    assert abs(p - tab.order) <= 0.2, f"{tab.name}: observed order {p:.3f}, errors {errors}"
