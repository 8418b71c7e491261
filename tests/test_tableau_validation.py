"""A Butcher tableau checks itself when it is defined (lgbench/integrators/tableaus.py, order_conditions.py).

Claims: the rooted trees are generated completely (1, 1, 2, 4, 9, 20 trees of orders 1..6, 37 in all);
every built-in tableau satisfies the order conditions of its ``order`` (and E those of
``embedded_order``), so defining it raises nothing; a tableau with a wrong coefficient, inconsistent
shapes or a non-explicit A cannot be defined, and the InputError names the tableau and the first
violated condition (a tree in HNW's bracket notation and its residual).
"""
from __future__ import annotations

import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.integrators.order_conditions import bracket, check_order_conditions, density, trees
from lgbench.integrators.tableaus import DOPRI5, RK44, TABLEAUS, ButcherTableau

KUTTA_38 = dict(A=[[0, 0, 0, 0], [1 / 3, 0, 0, 0], [-1 / 3, 1, 0, 0], [1, -1, 1, 0]],
                b=[1 / 8, 3 / 8, 3 / 8, 1 / 8], c=[0, 1 / 3, 2 / 3, 1])


def tableau(name="test", order=4, A=RK44.A, B=RK44.B, C=RK44.C, **kwargs) -> ButcherTableau:
    return ButcherTableau(name, order, np.array(A, float), np.array(B, float), np.array(C, float), "test", **kwargs)


def test_rooted_trees_are_counted_like_the_known_sequence():
    # OEIS A000081; up to order 6: 37 order conditions (HNW I Table 2.3)
    assert [len(trees(n)) for n in range(1, 8)] == [1, 1, 2, 4, 9, 20, 48]
    assert sum(len(trees(n)) for n in range(1, 7)) == 37
    assert [bracket(t) for t in trees(3)] == ["[τ,τ]", "[[τ]]"]
    assert [density(t) for t in trees(3)] == [3, 6]


@pytest.mark.parametrize("name", list(TABLEAUS))
def test_every_built_in_tableau_satisfies_its_order_conditions(name):
    tab = TABLEAUS[name]
    assert check_order_conditions(tab.A, tab.B, tab.C, tab.order) == []
    if tab.E is not None:
        assert check_order_conditions(tab.A, tab.E, tab.C, tab.embedded_order) == []
    tableau(name, tab.order, tab.A, tab.B, tab.C, E=tab.E, embedded_order=tab.embedded_order)


def test_kuttas_three_eighths_rule_has_order_four_not_five():
    assert check_order_conditions(KUTTA_38["A"], KUTTA_38["b"], KUTTA_38["c"], 4) == []
    violations = check_order_conditions(KUTTA_38["A"], KUTTA_38["b"], KUTTA_38["c"], 5)
    assert violations and all("|t| = 5" in v.condition for v in violations)
    tableau("3/8", 4, KUTTA_38["A"], KUTTA_38["b"], KUTTA_38["c"])
    with pytest.raises(InputError, match="3/8.*order 5"):
        tableau("3/8", 5, KUTTA_38["A"], KUTTA_38["b"], KUTTA_38["c"])


def test_dopri5_embedded_weights_have_order_four_not_five():
    assert check_order_conditions(DOPRI5.A, DOPRI5.E, DOPRI5.C, 4) == []
    assert check_order_conditions(DOPRI5.A, DOPRI5.E, DOPRI5.C, 5)
    with pytest.raises(InputError, match="weights E do not have order 5"):
        tableau("DOPRI5", 5, DOPRI5.A, DOPRI5.B, DOPRI5.C, E=DOPRI5.E, embedded_order=5)


def test_a_perturbed_rk44_weight_fails_naming_the_tree_and_residual():
    b = RK44.B.copy()
    b[0] += 1e-6
    b[1] -= 1e-6                                    # sum b = 1 still holds: order 1 is met, b.c = 1/2 is not
    with pytest.raises(InputError) as error:
        tableau("RK44-perturbed", 4, B=b)
    message = str(error.value)
    assert "RK44-perturbed" in message and "tree t = [τ]" in message and "residual -5.000e-07" in message


def test_a_perturbed_rk44_stage_coefficient_fails_a_higher_tree():
    A = RK44.A.copy()
    A[3, 1], A[3, 2] = 0.1, 0.9                     # row sum kept: orders 1-2 hold, a tree of order 3 or 4 fails
    violations = check_order_conditions(A, RK44.B, RK44.C, 4)
    assert violations and "|t| = 1" not in violations[0].condition and "|t| = 2" not in violations[0].condition
    with pytest.raises(InputError, match=r"tree t = \["):
        tableau(A=A)


def test_row_sums_and_structure_are_checked_before_the_trees():
    with pytest.raises(InputError, match="row sum c_2"):
        tableau(C=[0, 0.4, 0.5, 1])
    with pytest.raises(InputError, match="A must be 4 x 4"):
        tableau(A=RK44.A[:3, :3])
    with pytest.raises(InputError, match="C must have length 4"):
        tableau(C=RK44.C[:3])
    with pytest.raises(InputError, match="strictly lower triangular"):
        tableau(A=RK44.A + np.diag([0, 0, 0, 1e-3]))
    with pytest.raises(InputError, match="E and embedded_order go together"):
        tableau(E=RK44.B)
    with pytest.raises(InputError, match="E must have length 4"):
        tableau(E=RK44.B[:3], embedded_order=3)
