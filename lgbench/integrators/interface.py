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

@dataclass
class Integration:
    """Outcome of one integration: final state, samples at ``sample_times``, statistics."""

    code: int                      # a ``lgbench.mbs.codes.Status``
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
