"""Runge-Kutta order conditions from rooted trees (Butcher 1963; Hairer, Norsett, Wanner I, Sect. II.2).

A rooted tree t is written t = [t_1, ..., t_m] with subtrees t_k (HNW I Def. 2.12); the single node
is ``τ``. Here a tree is the sorted tuple of its subtrees, the single node ``()``. Its order |t| is
the number of nodes, its density gamma(t) = |t| gamma(t_1) ... gamma(t_m) (HNW I Def. 2.10), and the
elementary weight of a tableau (A, b, c) is b^T Phi(t) with the stage vector
Phi(τ) = 1, Phi([t_1, ..., t_m]) = (A Phi(t_1)) * ... * (A Phi(t_m)) (componentwise product,
HNW I Def. 2.9). With the row-sum condition c = A 1, the method has order p if and only if

    b^T Phi(t) = 1 / gamma(t)   for every rooted tree with |t| <= p        (HNW I Thm. 2.13),

1, 1, 2, 4, 9, 20 conditions of orders 1..6 (37 up to order 6).

``check_order_conditions`` lists every violated condition of a tableau, built-in or user-supplied.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

Tree = tuple
"""A rooted tree: the sorted tuple of its subtrees; ``()`` is the single node."""

RTOL = 1e-12
"""Tolerance of a condition relative to its round-off scale sum_i |b_i| Phi_i(t) computed with |A|, |b|."""


@lru_cache(maxsize=None)
def trees(order: int) -> tuple[Tree, ...]:
    """All rooted trees with ``order`` nodes, each once: every tree with one node less, grown by a
    leaf at each of its nodes, in canonical (sorted) form."""
    if order < 1:
        return ()
    if order == 1:
        return ((),)
    return tuple(sorted({grown for t in trees(order - 1) for grown in _grow(t)}, key=_sort_key))


def _grow(t: Tree):
    """t with one leaf added at each of its nodes (root first), canonical."""
    yield tuple(sorted(t + ((),), key=_sort_key))
    for k, child in enumerate(t):
        for grown in _grow(child):
            yield tuple(sorted(t[:k] + (grown,) + t[k + 1:], key=_sort_key))


def _sort_key(t: Tree):
    return (size(t), tuple(_sort_key(c) for c in t))


def size(t: Tree) -> int:
    """|t|, the number of nodes."""
    return 1 + sum(size(c) for c in t)


def density(t: Tree) -> int:
    """gamma(t) = |t| prod_k gamma(t_k) (HNW I Def. 2.10)."""
    g = size(t)
    for c in t:
        g *= density(c)
    return g


def bracket(t: Tree) -> str:
    """HNW's bracket notation: ``τ``, ``[τ]``, ``[τ,τ]``, ``[[τ],τ]`` ..."""
    return "τ" if not t else "[" + ",".join(bracket(c) for c in t) + "]"


def stage_weights(A: np.ndarray, t: Tree) -> np.ndarray:
    """Phi(t) = prod_k (A Phi(t_k)) (componentwise; HNW I Def. 2.9), so that b^T Phi(t) is the
    elementary weight."""
    phi = np.ones(A.shape[0])
    for c in t:
        phi = phi * (A @ stage_weights(A, c))
    return phi


@dataclass(frozen=True)
class Violation:
    """One violated condition: what it states and its residual (left- minus right-hand side)."""

    condition: str
    residual: float

    def __str__(self) -> str:
        return f"{self.condition} violated, residual {self.residual:.3e}"


def check_order_conditions(A, b, c, order: int, rtol: float = RTOL) -> list[Violation]:
    """Every violated condition for order ``order``: first the row sums c_i = sum_j a_ij, then
    b^T Phi(t) = 1/gamma(t) for the trees with |t| <= order by increasing |t|. Empty: the order holds.

    A condition counts as met when its residual is at most ``rtol`` times its round-off scale
    (max(1, sum_j |a_ij|) for a row sum, max(1/gamma, |b|^T Phi_|A|(t)) for a tree)."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    c = np.asarray(c, dtype=float)
    violations = []
    for i, (row, ci) in enumerate(zip(A, c)):
        residual = float(ci - row.sum())
        if abs(residual) > rtol * max(1.0, float(np.abs(row).sum())):
            violations.append(Violation(f"row sum c_{i + 1} = sum_j a_{i + 1}j", residual))
    for n in range(1, order + 1):
        for t in trees(n):
            exact = 1.0 / density(t)
            residual = float(b @ stage_weights(A, t)) - exact
            scale = max(exact, float(np.abs(b) @ stage_weights(np.abs(A), t)))
            if abs(residual) > rtol * scale:
                violations.append(Violation(f"order condition b^T Phi(t) = 1/gamma(t) = 1/{density(t)} "
                                            f"of the tree t = {bracket(t)} (|t| = {n})", residual))
    return violations
