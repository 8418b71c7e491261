"""Data-oriented description of a rigid multibody system: flat arrays with type codes.

A ``SystemArrays`` tuple is what the compiled kernels see; ``SystemBuilder`` is the Python-side
way to fill it. Bodies carry their own formulation (paper 000 Alg. 1 mixes Lie group and
conventional nodes freely).

Body kinds:
- FREE: 6 degrees of freedom, reference point = centre of mass; q = [x, rotation], v = [u, w].
- FIXED_POINT: rotation about a point fixed in space at the origin; q = [rotation], v = [w];
  the inertia is taken about the fixed point and the centre of mass sits at ``com`` in the body frame.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from lgbench.exceptions import InputError
from lgbench.mbs.formulations import (
    FORMULATION_CODES,
    ROTATION_COORDINATES,
    ROTATION_VELOCITIES,
)

FREE = 0
FIXED_POINT = 1

# body_int columns
B_KIND, B_FORM, B_QSTART, B_VSTART, B_NQ, B_NV = range(6)
# body_real columns: mass, inertia (row-major 3x3, about the reference point), inverse inertia,
# centre of mass in the body frame
B_MASS = 0
B_INERTIA = 1
B_INERTIA_INV = 10
B_COM = 19
BODY_REAL_WIDTH = 22

# force types and force_real layout
GRAVITY = 0          # force_real[0:3] = gravity acceleration vector (global)
BODY_TORQUE = 1      # force_real[0:3] = constant torque in the body frame (follower torque)
GLOBAL_TORQUE = 2    # force_real[0:3] = constant torque in the global frame
F_TYPE, F_BODY = range(2)
FORCE_REAL_WIDTH = 6


class SystemArrays(NamedTuple):
    body_int: np.ndarray    # (n_bodies, 6) int64
    body_real: np.ndarray   # (n_bodies, BODY_REAL_WIDTH) float64
    force_int: np.ndarray   # (n_forces, 2) int64
    force_real: np.ndarray  # (n_forces, FORCE_REAL_WIDTH) float64


class SystemBuilder:
    """Collects bodies and forces, then freezes them into ``SystemArrays``."""

    def __init__(self) -> None:
        self._bodies: list[tuple[list[int], np.ndarray]] = []
        self._forces: list[tuple[list[int], np.ndarray]] = []
        self.nq = 0
        self.nv = 0

    def add_body(self, kind: int, formulation: str, mass: float, inertia, com=(0.0, 0.0, 0.0),
                 name: str = "body") -> int:
        if formulation not in FORMULATION_CODES:
            raise InputError(f"unknown formulation '{formulation}' for {name}", field="formulation",
                             allowed=list(FORMULATION_CODES))
        inertia = np.asarray(inertia, dtype=float)
        if inertia.shape == (3,):
            inertia = np.diag(inertia)
        if not np.isfinite(mass) or mass <= 0.0:
            raise InputError(f"mass of {name} must be positive, got {mass}", field="mass")
        if inertia.shape != (3, 3) or not np.allclose(inertia, inertia.T, rtol=0, atol=1e-14 * np.abs(inertia).max()):
            raise InputError(f"inertia of {name} must be a symmetric 3x3 matrix", field="inertia")
        if np.linalg.eigvalsh(inertia).min() <= 0.0:
            raise InputError(f"inertia of {name} must be positive definite", field="inertia")
        if kind == FREE and np.any(np.asarray(com, dtype=float) != 0.0):
            raise InputError(f"a free body's reference point is its centre of mass; {name} has com={com}",
                             field="com")
        code = FORMULATION_CODES[formulation]
        nrot = ROTATION_COORDINATES[code]
        nw = ROTATION_VELOCITIES[code]
        nq = nrot + (3 if kind == FREE else 0)
        nv = nw + (3 if kind == FREE else 0)
        real = np.zeros(BODY_REAL_WIDTH)
        real[B_MASS] = mass
        real[B_INERTIA:B_INERTIA + 9] = inertia.ravel()
        real[B_INERTIA_INV:B_INERTIA_INV + 9] = np.linalg.inv(inertia).ravel()
        real[B_COM:B_COM + 3] = np.asarray(com, dtype=float)
        self._bodies.append(([kind, code, self.nq, self.nv, nq, nv], real))
        self.nq += nq
        self.nv += nv
        return len(self._bodies) - 1

    def add_force(self, force_type: int, body: int, values) -> int:
        if not 0 <= body < len(self._bodies):
            raise InputError(f"force on unknown body {body}", field="body",
                             allowed=[str(i) for i in range(len(self._bodies))])
        real = np.zeros(FORCE_REAL_WIDTH)
        values = np.asarray(values, dtype=float)
        real[: values.size] = values
        self._forces.append(([force_type, body], real))
        return len(self._forces) - 1

    def build(self) -> SystemArrays:
        body_int = np.array([b[0] for b in self._bodies], dtype=np.int64).reshape(-1, 6)
        body_real = np.array([b[1] for b in self._bodies], dtype=np.float64).reshape(-1, BODY_REAL_WIDTH)
        force_int = np.array([f[0] for f in self._forces], dtype=np.int64).reshape(-1, 2)
        force_real = np.array([f[1] for f in self._forces], dtype=np.float64).reshape(-1, FORCE_REAL_WIDTH)
        return SystemArrays(body_int, body_real, force_int, force_real)
