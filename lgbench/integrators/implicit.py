"""Registry entries for implicit second-order methods and their user options."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lgbench.exceptions import InputError
from lgbench.integrators import generalized_alpha as ga


@dataclass(frozen=True)
class ImplicitIntegrator:
    name: str
    description: str
    order: int = 2
    kind: str = "implicit"
    defaults: dict[str, Any] = field(default_factory=dict)

    def method(self, options: dict[str, Any]) -> ga.SecondOrderMethod:
        return ga.generalized_alpha(float(options["rho_inf"]))


NEWTON_DEFAULTS: dict[str, Any] = {
    "rho_inf": 0.9,            # paper 000 Sect. 4: rho_inf = 0.9 for all examples
    "newton": "full",          # "full" or "modified" (paper 000 Sect. 3.4)
    "texp": False,             # T_exp in the iteration matrix (paper 000 eq. 40; neglected in its Sect. 4)
    "tangent": "forces",       # K_t from the forces (eq. 42) or the "full" residual (eq. 41)
    "newton_rtol": 1e-8,       # relative tolerance on ||[r; Phi]|| (paper 000's code default)
    "newton_atol": 1e-10,      # absolute tolerance on ||[r; Phi]||
    "max_iterations": 25,
    "max_modified_iterations": 8,
    "contractivity": 0.5,
    "scaling": True,           # paper 002 eq. (57)
    "fd_relative_step": 1e-7,  # forward differences: step = rel * max(floor, |x|)
    "fd_step_floor": 1e-2,
}

GENERALIZED_ALPHA = ImplicitIntegrator(
    "generalized-alpha",
    "generalized-alpha (paper 000 Alg. 4; Lie group Alg. 5 for RV nodes), Newton with options",
    defaults=NEWTON_DEFAULTS,
)

IMPLICIT_INTEGRATORS = {GENERALIZED_ALPHA.name: GENERALIZED_ALPHA}

_CHOICES = {"newton": ("full", "modified"), "tangent": ("forces", "full")}


def option_vector(integrator: ImplicitIntegrator, options: dict[str, Any]) -> tuple[np.ndarray, dict]:
    """Validate user options and pack them for the compiled stepper."""
    merged = dict(integrator.defaults)
    for key, value in options.items():
        if key not in merged:
            raise InputError(f"unknown option '{key}' of integrator '{integrator.name}'",
                             field=f"options.{key}", allowed=sorted(merged))
        merged[key] = value
    for key, allowed in _CHOICES.items():
        if merged[key] not in allowed:
            raise InputError(f"invalid value {merged[key]!r}", field=f"options.{key}", allowed=list(allowed))
    for key in ("rho_inf", "newton_rtol", "newton_atol", "contractivity", "fd_relative_step", "fd_step_floor"):
        try:
            merged[key] = float(merged[key])
        except (TypeError, ValueError):
            raise InputError(f"must be a number, got {merged[key]!r}", field=f"options.{key}") from None
    if not 0.0 <= merged["rho_inf"] <= 1.0:
        raise InputError(f"must lie in [0, 1], got {merged['rho_inf']}", field="options.rho_inf")
    for key in ("max_iterations", "max_modified_iterations"):
        if not isinstance(merged[key], (int, np.integer)) or merged[key] < 1:
            raise InputError(f"must be a positive integer, got {merged[key]!r}", field=f"options.{key}")
    for key in ("texp", "scaling"):
        if not isinstance(merged[key], (bool, np.bool_)):
            raise InputError(f"must be true or false, got {merged[key]!r}", field=f"options.{key}")
    opts = np.zeros(ga.N_OPTIONS)
    opts[ga.O_MODIFIED] = merged["newton"] == "modified"
    opts[ga.O_TEXP] = merged["texp"]
    opts[ga.O_TANGENT] = merged["tangent"] == "full"
    opts[ga.O_RTOL] = merged["newton_rtol"]
    opts[ga.O_ATOL] = merged["newton_atol"]
    opts[ga.O_MAX_ITERATIONS] = merged["max_iterations"]
    opts[ga.O_MAX_MODIFIED] = merged["max_modified_iterations"]
    opts[ga.O_CONTRACTIVITY] = merged["contractivity"]
    opts[ga.O_FD_REL] = merged["fd_relative_step"]
    opts[ga.O_FD_MIN] = merged["fd_step_floor"]
    opts[ga.O_SCALING] = merged["scaling"]
    return opts, merged
