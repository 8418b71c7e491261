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

# body_int columns; B_CROW = row of the body's own constraint (Euler-parameter norm) or -1
B_KIND, B_FORM, B_QSTART, B_VSTART, B_NQ, B_NV, B_CROW = range(7)
BODY_INT_WIDTH = 7
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
POINT_SPRING_DAMPER = 3  # linear spring-damper per global axis between a body point and a ground point:
                         # [0:3] stiffness, [3:6] damping, [6:9] point in the body frame, [9:12] ground point
F_TYPE, F_BODY = range(2)
FORCE_REAL_WIDTH = 12

# joint types; joint_int = [type, body1, body2 (-1 = ground), first constraint row, rows]
SPHERICAL = 0        # joint_real[0:3] = point in body1 frame, [3:6] = point in body2 frame (global if ground)
JOINT_ROWS = {SPHERICAL: 3}
J_TYPE, J_BODY1, J_BODY2, J_ROW, J_NROWS = range(5)
JOINT_INT_WIDTH = 5
JOINT_REAL_WIDTH = 12
GROUND = -1

# minimal-coordinate chain rows (layout beyond C_COORDINATE defined in lgbench/mbs/chain.py)
C_COORDINATE = 0         # chain_int column 0: index of the joint's coordinate in q and v
CHAIN_INT_WIDTH = 8
CHAIN_REAL_WIDTH = 40

# sizes = [nq, nv, n_constraints]
S_NQ, S_NV, S_NC = range(3)


class SystemArrays(NamedTuple):
    sizes: np.ndarray       # (3,) int64: nq, nv, number of constraint rows
    body_int: np.ndarray    # (n_bodies, BODY_INT_WIDTH) int64
    body_real: np.ndarray   # (n_bodies, BODY_REAL_WIDTH) float64
    force_int: np.ndarray   # (n_forces, 2) int64
    force_real: np.ndarray  # (n_forces, FORCE_REAL_WIDTH) float64
    joint_int: np.ndarray   # (n_joints, JOINT_INT_WIDTH) int64
    joint_real: np.ndarray  # (n_joints, JOINT_REAL_WIDTH) float64
    chain_int: np.ndarray   # (n_chain_joints, CHAIN_INT_WIDTH) int64, see lgbench/mbs/chain.py
    chain_real: np.ndarray  # (n_chain_joints, CHAIN_REAL_WIDTH) float64


class SystemBuilder:
    """Collects bodies and forces, then freezes them into ``SystemArrays``."""

    def __init__(self) -> None:
        self._bodies: list[tuple[list[int], np.ndarray]] = []
        self._forces: list[tuple[list[int], np.ndarray]] = []
        self._joints: list[tuple[list[int], np.ndarray]] = []
        self._chain: list[tuple[np.ndarray, np.ndarray]] = []
        self.nq = 0
        self.nv = 0
        self.nc = 0

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
        crow = -1
        if code == FORMULATION_CODES["EP"]:
            crow = self.nc
            self.nc += 1
        self._bodies.append(([kind, code, self.nq, self.nv, nq, nv, crow], real))
        self.nq += nq
        self.nv += nv
        return len(self._bodies) - 1

    def _check_body(self, body: int, field: str) -> None:
        if not (body == GROUND or 0 <= body < len(self._bodies)):
            raise InputError(f"unknown body {body}", field=field,
                             allowed=["-1 (ground)"] + [str(i) for i in range(len(self._bodies))])

    def add_spherical_joint(self, body1: int, point1, body2: int = GROUND, point2=(0.0, 0.0, 0.0)) -> int:
        """Spherical joint: point1 (body1 frame) coincides with point2 (body2 frame, or global for ground)."""
        self._check_body(body1, "body1")
        self._check_body(body2, "body2")
        if body1 == body2:
            raise InputError("a joint needs two different bodies", field="body2")
        real = np.zeros(JOINT_REAL_WIDTH)
        real[0:3] = np.asarray(point1, dtype=float)
        real[3:6] = np.asarray(point2, dtype=float)
        rows = JOINT_ROWS[SPHERICAL]
        self._joints.append(([SPHERICAL, body1, body2, self.nc, rows], real))
        self.nc += rows
        return len(self._joints) - 1

    def add_force(self, force_type: int, body: int, values) -> int:
        if not 0 <= body < len(self._bodies):
            raise InputError(f"force on unknown body {body}", field="body",
                             allowed=[str(i) for i in range(len(self._bodies))])
        real = np.zeros(FORCE_REAL_WIDTH)
        values = np.asarray(values, dtype=float)
        real[: values.size] = values
        self._forces.append(([force_type, body], real))
        return len(self._forces) - 1

    def add_point_spring_damper(self, body: int, stiffness, damping, point=(0.0, 0.0, 0.0),
                                ground_point=(0.0, 0.0, 0.0)) -> int:
        """Linear spring-damper per global axis between body point ``point`` and ``ground_point``."""
        stiffness = np.asarray(stiffness, dtype=float)
        damping = np.asarray(damping, dtype=float)
        if np.any(stiffness < 0) or np.any(damping < 0):
            raise InputError("spring stiffness and damping must be non-negative", field="stiffness")
        values = np.concatenate([stiffness, damping, np.asarray(point, float), np.asarray(ground_point, float)])
        return self.add_force(POINT_SPRING_DAMPER, body, values)

    def add_chain_joint(self, int_row, real_row) -> int:
        """Reserve one coordinate (q and v) for a minimal-coordinate joint; returns its index.

        ``int_row``/``real_row`` follow the layout of lgbench/mbs/chain.py; column C_COORDINATE of
        ``int_row`` is set here.
        """
        int_row = np.array(int_row, dtype=np.int64).ravel()
        real_row = np.array(real_row, dtype=np.float64).ravel()
        if int_row.size > CHAIN_INT_WIDTH or real_row.size > CHAIN_REAL_WIDTH:
            raise ValueError("chain row wider than CHAIN_INT_WIDTH / CHAIN_REAL_WIDTH")
        ints = np.zeros(CHAIN_INT_WIDTH, dtype=np.int64)
        reals = np.zeros(CHAIN_REAL_WIDTH)
        ints[: int_row.size] = int_row
        reals[: real_row.size] = real_row
        index = self.nq
        if self.nq != self.nv:
            raise ValueError("chain coordinates need nq == nv so far (add them before EP-F1 bodies)")
        ints[C_COORDINATE] = index
        self._chain.append((ints, reals))
        self.nq += 1
        self.nv += 1
        return index

    def build(self) -> SystemArrays:
        body_int = np.array([b[0] for b in self._bodies], dtype=np.int64).reshape(-1, BODY_INT_WIDTH)
        body_real = np.array([b[1] for b in self._bodies], dtype=np.float64).reshape(-1, BODY_REAL_WIDTH)
        force_int = np.array([f[0] for f in self._forces], dtype=np.int64).reshape(-1, 2)
        force_real = np.array([f[1] for f in self._forces], dtype=np.float64).reshape(-1, FORCE_REAL_WIDTH)
        joint_int = np.array([j[0] for j in self._joints], dtype=np.int64).reshape(-1, JOINT_INT_WIDTH)
        joint_real = np.array([j[1] for j in self._joints], dtype=np.float64).reshape(-1, JOINT_REAL_WIDTH)
        chain_int = np.array([c[0] for c in self._chain], dtype=np.int64).reshape(-1, CHAIN_INT_WIDTH)
        chain_real = np.array([c[1] for c in self._chain], dtype=np.float64).reshape(-1, CHAIN_REAL_WIDTH)
        sizes = np.array([self.nq, self.nv, self.nc], dtype=np.int64)
        return SystemArrays(sizes, body_int, body_real, force_int, force_real, joint_int, joint_real,
                            chain_int, chain_real)


def tait_bryan_pitch_cosines(system: SystemArrays, q: np.ndarray) -> list[float]:
    """|cos(pitch)| of every Tait-Bryan body (Rxyz, F1) at state q: 0 is gimbal lock."""
    codes = (FORMULATION_CODES["Rxyz"], FORMULATION_CODES["F1"])
    result = []
    for row in system.body_int:
        if row[B_FORM] in codes:
            start = row[B_QSTART] + (3 if row[B_KIND] == FREE else 0)
            result.append(abs(float(np.cos(q[start + 1]))))
    return result
