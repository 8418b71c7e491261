"""Butcher tableaus as data (scipy ``rk.py`` style): A, B, C, optional embedded weights E, order.

The same tableau drives the classical RK step (paper 000 Alg. 2) and the RKMK step (Alg. 3);
which one runs is decided per node by its formulation, not by the tableau.

A tableau checks itself when it is defined (``ButcherTableau.__post_init__``): shapes, explicitness,
the row sums c = A 1 and the rooted-tree order conditions of its ``order`` (weights B) and
``embedded_order`` (weights E), see ``lgbench.integrators.order_conditions``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbench.exceptions import InputError
from lgbench.integrators.order_conditions import check_order_conditions
from lgbench.mbs.formulations import EXPLICIT_FORMULATIONS


@dataclass(frozen=True)
class ButcherTableau:
    name: str
    order: int
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    description: str
    E: np.ndarray | None = None          # embedded weights of order ``embedded_order``
    embedded_order: int | None = None
    kind: str = "explicit"
    formulations: tuple[str, ...] = EXPLICIT_FORMULATIONS

    def __post_init__(self):
        """Raise ``InputError`` naming the tableau and its first inconsistency or violated order condition."""
        problem = self._structure_problem()
        if problem is None:
            for weights, order, label in ((self.B, self.order, "B"), (self.E, self.embedded_order, "E")):
                if weights is not None:
                    violations = check_order_conditions(self.A, weights, self.C, order)
                    if violations:
                        problem = f"weights {label} do not have order {order}: {violations[0]}"
                        break
        if problem is not None:
            raise InputError(f"Butcher tableau '{self.name}': {problem}", field="tableau")

    def _structure_problem(self) -> str | None:
        """Shapes (A s x s; B, C, E of length s), orders, explicitness (A strictly lower triangular)."""
        s = np.shape(self.B)[0] if np.ndim(self.B) == 1 else 0
        if s == 0:
            return f"B must be a non-empty vector, got shape {np.shape(self.B)}"
        if np.shape(self.A) != (s, s):
            return f"A must be {s} x {s} (s = len(B)), got shape {np.shape(self.A)}"
        if np.shape(self.C) != (s,):
            return f"C must have length {s}, got shape {np.shape(self.C)}"
        if (self.E is None) != (self.embedded_order is None):
            return "embedded weights E and embedded_order go together"
        if self.E is not None and np.shape(self.E) != (s,):
            return f"E must have length {s}, got shape {np.shape(self.E)}"
        for label, order in (("order", self.order), ("embedded_order", self.embedded_order)):
            if order is not None and (isinstance(order, bool) or not isinstance(order, int) or order < 1):
                return f"{label} must be a positive integer, got {order!r}"
        if self.kind == "explicit" and np.any(np.triu(self.A) != 0.0):
            return "an explicit tableau needs A strictly lower triangular"
        if not all(np.all(np.isfinite(x)) for x in (self.A, self.B, self.C) + (() if self.E is None else (self.E,))):
            return "coefficients must be finite"
        return None

    @property
    def stages(self) -> int:
        return self.B.shape[0]

    @property
    def defaults(self) -> dict[str, Any]:
        from lgbench.integrators.adaptive import ADAPTIVE_DEFAULTS

        return dict(ADAPTIVE_DEFAULTS)

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Fixed steps (no options) or ``step_control: adaptive`` with tolerances (paper 000 App. B)."""
        merged = self.defaults
        for key, value in options.items():
            if key not in merged:
                raise InputError(f"unknown option '{key}' of integrator '{self.name}'", field=f"options.{key}",
                                 allowed=sorted(merged))
            merged[key] = value
        self.check_step_control(merged, options)
        return merged

    def check_step_control(self, merged: dict[str, Any], given: dict[str, Any]) -> None:
        """The step-control options (``ADAPTIVE_DEFAULTS``) of ``merged``: adaptive ones only with
        ``step_control: adaptive`` (a ``given`` one that differs from its default), and only for a tableau
        with E."""
        from lgbench.integrators.adaptive import ADAPTIVE_DEFAULTS

        if merged["step_control"] not in ("fixed", "adaptive"):
            raise InputError(f"invalid value {merged['step_control']!r}", field="options.step_control",
                             allowed=["fixed", "adaptive"])
        if merged["step_control"] == "fixed":
            extra = sorted(key for key in set(given) & set(ADAPTIVE_DEFAULTS) - {"step_control"}
                           if given[key] != ADAPTIVE_DEFAULTS[key])
            if extra:
                raise InputError(f"'{extra[0]}' applies to adaptive steps only (step_control: adaptive)",
                                 field=f"options.{extra[0]}")
            return
        if self.E is None:
            raise InputError(f"'{self.name}' has no embedded error estimate", field="options.step_control",
                             allowed=["fixed (adaptive needs a tableau with E, e.g. DOPRI5, ODE23)"])
        for key in ("rtol", "atol", "max_increase", "safety", "h_min"):
            if key in ("rtol", "atol") and merged[key] == "rule":
                continue
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise InputError(f"must be a positive number{' or rule' if key in ('rtol', 'atol') else ''}, "
                                 f"got {value!r}", field=f"options.{key}")
        if not merged["max_increase"] > 1 or not merged["safety"] <= 1:
            raise InputError("need max_increase > 1 and safety <= 1", field="options")
        if isinstance(merged["max_steps"], bool) or not isinstance(merged["max_steps"], int) or merged["max_steps"] < 1:
            raise InputError(f"must be a positive integer, got {merged['max_steps']!r}", field="options.max_steps")

    def right_hand_side(self, system, options: dict[str, Any]) -> str:
        """"rigid-bodies" or "multibody": the right-hand side, and so the compiled entry point, of a run on
        ``system`` (``explicit.right_hand_side_of`` with fixed steps; the adaptive loop has one entry point)."""
        from lgbench.integrators.explicit import right_hand_side_of

        return right_hand_side_of(system) if options.get("step_control", "fixed") == "fixed" else "multibody"

    def integrate(self, system, q0, v0, options, h, t_end, sample_times):
        """Fixed-step RK/RKMK run (paper 000 Alg. 2/3), or adaptive (App. B) with h_max = h."""
        from lgbench.integrators.explicit import require_unconstrained, run_explicit

        require_unconstrained(system)
        if options.get("step_control", "fixed") == "adaptive":
            from lgbench.integrators.adaptive import run_adaptive

            return run_adaptive(system, self, q0, v0, options, h, t_end, sample_times)
        return run_explicit(system, self, q0, v0, h, t_end, sample_times)


def tableau_from_lists(name, order, A, B, C, description, E=None, embedded_order=None) -> ButcherTableau:
    """A tableau from nested lists or tuples of numbers (the built-in ones, and a study's ``tableaus:``)."""
    return ButcherTableau(name, order, np.array(A, dtype=float), np.array(B, dtype=float),
                          np.array(C, dtype=float), description,
                          None if E is None else np.array(E, dtype=float), embedded_order)


RK44 = tableau_from_lists(
    "RK44", 4,
    [[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0]],
    [1 / 6, 1 / 3, 1 / 3, 1 / 6],
    [0, 0.5, 0.5, 1],
    "classical 4-stage Runge-Kutta, order 4",
)

# Bogacki-Shampine 3(2) pair ("ODE23").
ODE23 = tableau_from_lists(
    "ODE23", 3,
    [[0, 0, 0, 0], [1 / 2, 0, 0, 0], [0, 3 / 4, 0, 0], [2 / 9, 1 / 3, 4 / 9, 0]],
    [2 / 9, 1 / 3, 4 / 9, 0],
    [0, 1 / 2, 3 / 4, 1],
    "Bogacki-Shampine 3(2) pair, order 3 (embedded order 2)",
    E=[7 / 24, 1 / 4, 1 / 3, 1 / 8], embedded_order=2,
)

# Dormand-Prince 5(4) pair (Hairer, Norsett, Wanner I, Table 5.2).
DOPRI5 = tableau_from_lists(
    "DOPRI5", 5,
    [[0, 0, 0, 0, 0, 0, 0],
     [1 / 5, 0, 0, 0, 0, 0, 0],
     [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
     [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
     [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
     [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
     [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
    [0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1],
    "Dormand-Prince 5(4) pair, order 5 (embedded order 4)",
    E=[5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40], embedded_order=4,
)

# Butcher's 7-stage method of order 6 (J. Austral. Math. Soc. 4, 1964), nodes (5 -+ sqrt 5)/10;
# the "RK67" of paper 000 and of its code.
_S5 = np.sqrt(5.0)
_A67 = np.zeros((7, 7))
_A67[1, 0] = 1 / 2 - _S5 / 10
_A67[2, 0:2] = [-_S5 / 10, 1 / 2 + _S5 / 5]
_A67[3, 0:3] = [7 * _S5 / 20 - 3 / 4, _S5 / 4 - 1 / 4, 3 / 2 - 7 * _S5 / 10]
_A67[4, 0:4] = [1 / 12 - _S5 / 60, 0, 1 / 6, 7 * _S5 / 60 + 1 / 4]
_A67[5, 0:5] = [_S5 / 60 + 1 / 12, 0, 3 / 4 - 5 * _S5 / 12, 1 / 6, -1 / 2 + 3 * _S5 / 10]
_A67[6, 0:6] = [1 / 6, 0, -55 / 12 + 25 * _S5 / 12, -7 * _S5 / 12 - 25 / 12, 5 - 2 * _S5, 5 / 2 + _S5 / 2]
RK67 = tableau_from_lists(
    "RK67", 6, _A67,
    [1 / 12, 0, 0, 0, 5 / 12, 5 / 12, 1 / 12],
    [0, 1 / 2 - _S5 / 10, 1 / 2 + _S5 / 10, 1 / 2 - _S5 / 10, 1 / 2 + _S5 / 10, 1 / 2 - _S5 / 10, 1],
    "Butcher's 7-stage Runge-Kutta method, order 6 (paper 000's RK67)",
)

TABLEAUS = {t.name: t for t in (RK44, ODE23, DOPRI5, RK67)}
