"""What every integrator offers the runner: option validation, allowed formulations, ``integrate``.

An integrator (a Butcher tableau, a generalized-alpha/HHT parameter set, an intrinsic scheme ...)
is registered in ``lgbench.integrators.INTEGRATORS`` as an object with

- ``name``, ``description``, ``kind`` ("explicit" or "implicit"), ``order``;
- ``formulations``: the node formulations it can integrate (see ``lgbench.mbs.formulations``);
- ``validate_options(options) -> dict``: the merged, checked options (raises ``InputError``);
- ``integrate(system, q0, v0, options, h, t_end, sample_times) -> Integration``: warm-up
  (compilation) first, then one timed run. ``options`` are the validated ones.

Numerical failure is a status code in ``Integration.code``, never an exception.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

# Status codes shared by all integrators (the compiled kernels use the same numbers).
OK = 0
DIVERGED = 1
SINGULAR_PARAMETERISATION = 2
NEWTON_FAILED = 3
SINGULAR_MATRIX = 4
PROJECTION_FAILED = 5
UNRESOLVED_ROTATION = 6
STATUS_NAMES = {OK: "ok", DIVERGED: "diverged", SINGULAR_PARAMETERISATION: "singular",
                NEWTON_FAILED: "failed", SINGULAR_MATRIX: "failed",
                PROJECTION_FAILED: "failed", UNRESOLVED_ROTATION: "diverged"}
STATUS_MESSAGES = {
    DIVERGED: "non-finite state (NaN/Inf): the integration diverged",
    SINGULAR_PARAMETERISATION: "rotation parameterisation singular (Tait-Bryan pitch at +-pi/2: "
                               "G(theta) not invertible)",
    NEWTON_FAILED: "Newton iteration did not converge within the iteration limit",
    SINGULAR_MATRIX: "singular iteration matrix",
    PROJECTION_FAILED: "projection onto the position constraints Phi = 0 did not converge",
    UNRESOLVED_ROTATION: "a step rotated a body by more than pi: the step size no longer resolves the "
                         "motion (the rotation-vector update is aliased); the integration diverged",
}


@dataclass
class Integration:
    """Outcome of one integration: final state, samples at ``sample_times``, statistics."""

    code: int                      # one of the status codes above
    steps: int                     # accepted steps
    t_reached: float               # time of the last accepted state
    cpu_s: float                   # process time of the timed region
    q: np.ndarray                  # state at t_reached
    v: np.ndarray
    lam: np.ndarray                # multipliers at t_reached (empty without constraints)
    q_samples: np.ndarray          # (n_samples, nq); rows after t_reached are undefined
    v_samples: np.ndarray
    lam_samples: np.ndarray        # (n_samples, nc)
    statistics: dict[str, Any] = field(default_factory=dict)


class Integrator(Protocol):
    name: str
    description: str
    kind: str
    order: int
    formulations: tuple[str, ...]

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]: ...

    def integrate(self, system, q0: np.ndarray, v0: np.ndarray, options: dict[str, Any], h: float,
                  t_end: float, sample_times: np.ndarray) -> Integration: ...
