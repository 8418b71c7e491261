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
from lgbench.mbs.codes import (
    BODY_FRAME_COINCIDENT, BODY_FRAME_POINT, COINCIDENT, DISTANCE, FORCE_IN_BODY_FRAME, FORCE_INT_WIDTH,
    FORCE_POINT, FORCE_REAL_WIDTH, FORCE_SCHEDULE, FORCE_VECTOR, FREE, JOINT_PD, LINE_DAMPING, LINE_POINT1,
    LINE_POINT2, LINE_REST_LENGTH, LINE_SPRING_DAMPER, LINE_STIFFNESS, POINT_FORCE, JointPrimitive, PD_AXIS, PD_KD,
    PD_KP, PD_REFERENCE1, PD_REFERENCE2, PD_SETPOINT, PD_SETPOINT_KIND, PERPENDICULAR, POINT_ON_LINE,
    POINT_SPRING_DAMPER, SCHEDULE_RAMP_TIME, SCHEDULE_TABLE_POINTS, TABLE_POINTS_PER_ROW, TIME_TABLE, TIMED_TORQUE,
    TORQUE, TORQUE_IN_BODY_FRAME, TORQUE_SCHEDULE,
)
from lgbench.mbs.formulations import FORMULATION_CODES, ROTATION_COORDINATES, ROTATION_VELOCITIES

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

# joint_int = [primitive, body1, body2 (-1 = ground), first constraint row, rows]; joint_real columns of the
# ``JointPrimitive`` rows (body-frame data are global for ground)
J_TYPE, J_BODY1, J_BODY2, J_ROW, J_NROWS = range(5)
JOINT_INT_WIDTH = 5
JOINT_REAL_WIDTH = 12
J_FIRST = 0        # [0:3] point (COINCIDENT, POINT_ON_LINE, DISTANCE, BODY_FRAME_POINT) or vector (PERPENDICULAR)
J_SECOND = 3       # of body 1; [3:6] its partner on body 2 (BODY_FRAME_POINT: the ground point)
J_NORMALS = 6      # POINT_ON_LINE: [6:9], [9:12] two normals of the line in body 1
J_LENGTH = 6       # DISTANCE: [6] the distance L
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
    force_groups: np.ndarray  # (n_groups, max_group_size) int64: velocity indices, -1 padded
    force_colors: np.ndarray  # (n_groups, max_group_size) int64: finite-difference evaluation of each member
    force_pattern: np.ndarray  # (n_groups, max_group_size, max_group_size) bool: row member m depends on member j


def time_table(table) -> tuple[np.ndarray, np.ndarray]:
    """(times, factors) of a time table given as a pair of sequences: at least two points, finite, the times
    strictly increasing (``lgbench.mbs.loads.table_factor`` interpolates linearly between them)."""
    times, factors = (np.asarray(column, dtype=float).ravel() for column in table)
    if times.size < 2 or times.size != factors.size:
        raise InputError(f"a time table needs two or more points and a factor for each time ({times.size} times, "
                         f"{factors.size} factors)", field="table")
    if not (np.all(np.isfinite(times)) and np.all(np.isfinite(factors))):
        raise InputError("a time table's times and factors must be finite", field="table")
    if np.any(np.diff(times) <= 0.0):
        k = int(np.argmax(np.diff(times) <= 0.0))
        raise InputError(f"a time table's times must increase strictly: time[{k + 1}] = {times[k + 1]:g} follows "
                         f"{times[k]:g}", field="table.time")
    return times, factors


CONSTRAINT_FORMS = ("global", "body")
"""How spherical, revolute and universal joints hold their points together: p1 - p2 = 0 in global
components (COINCIDENT, paper 000), or R1^T (p2 - p1) = 0 in body 1's frame (BODY_FRAME_COINCIDENT,
paper 002's SE(3) form)."""


class SystemBuilder:
    """Collects bodies and forces, then freezes them into ``SystemArrays``; ``constraint_form`` is one of
    ``CONSTRAINT_FORMS`` for the point rows of every spherical, revolute and universal joint."""

    def __init__(self, constraint_form: str = "global") -> None:
        if constraint_form not in CONSTRAINT_FORMS:
            raise InputError(f"unknown constraint form '{constraint_form}'", field="constraint_form",
                             allowed=list(CONSTRAINT_FORMS))
        self._coincident = COINCIDENT if constraint_form == "global" else BODY_FRAME_COINCIDENT
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
        if formulation == "SE3" and kind != FREE:
            raise InputError(f"the SE3 formulation needs a free body; {name} is not", field="formulation",
                             allowed=[f for f in FORMULATION_CODES if f != "SE3"])
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

    def _primitive(self, kind: int, body1: int, body2: int, *vectors) -> int:
        real = np.zeros(JOINT_REAL_WIDTH)
        for k, vector in enumerate(vectors):
            real[3 * k:3 * k + 3] = np.asarray(vector, dtype=float)
        rows = JointPrimitive(kind).rows
        self._joints.append(([kind, body1, body2, self.nc, rows], real))
        self.nc += rows
        return self.nc - rows

    def _check_pair(self, body1: int, body2: int) -> None:
        self._check_body(body1, "body1")
        self._check_body(body2, "body2")
        if body1 == body2:
            raise InputError("a joint needs two different bodies", field="body2")

    def add_spherical_joint(self, body1: int, point1, body2: int = GROUND, point2=(0.0, 0.0, 0.0)) -> int:
        """Spherical joint: point1 (body1 frame) coincides with point2 (body2 frame, global for ground).
        Returns the first constraint row (3 rows; lambda = force on body2 ... see outputs)."""
        self._check_pair(body1, body2)
        return self._primitive(self._coincident, body1, body2, point1, point2)

    def add_spherical_joint_body_frame(self, body: int, point, ground_point=(0.0, 0.0, 0.0)) -> int:
        """Spherical joint to ground written in the body frame, R^T (ground_point - x) - point = 0
        (paper 002 eqs. 21c, 22c: X - R^T x = 0 with point = -X). Returns the first of its 3 rows;
        its multipliers are body-frame forces, lambda_global = -R lambda (see constraints.py)."""
        self._check_body(body, "body1")
        if body == GROUND:
            raise InputError("the body-frame spherical joint needs a body", field="body1")
        return self._primitive(BODY_FRAME_POINT, body, GROUND, point, ground_point)

    def add_distance_constraint(self, body1: int, point1, length: float, body2: int = GROUND,
                                point2=(0.0, 0.0, 0.0)) -> int:
        """Point1 (body1) stays at distance ``length`` from point2 (body2, global for ground):
        (|p1 - p2|^2 - L^2)/2 = 0, one row (the pendulum rod of paper 002 Example 3.2)."""
        self._check_pair(body1, body2)
        if not np.isfinite(length) or length <= 0.0:
            raise InputError(f"the distance must be positive, got {length}", field="length")
        first = self._primitive(DISTANCE, body1, body2, point1, point2)
        self._joints[-1][1][J_LENGTH] = length
        return first

    def add_revolute_joint(self, body1: int, point1, axis1, body2: int = GROUND, point2=(0.0, 0.0, 0.0),
                           axis2=(0.0, 0.0, 1.0)) -> int:
        """Revolute joint: coincident points and axis1 (body1) parallel to axis2 (body2); 5 rows."""
        self._check_pair(body1, body2)
        a1 = _unit(axis1, "axis1")
        u2, w2 = axis_normals(_unit(axis2, "axis2"))
        first = self._primitive(self._coincident, body1, body2, point1, point2)
        self._primitive(PERPENDICULAR, body1, body2, a1, u2)
        self._primitive(PERPENDICULAR, body1, body2, a1, w2)
        return first

    def add_universal_joint(self, body1: int, point1, axis1, body2: int, point2, axis2) -> int:
        """Universal (Cardan) joint: coincident points, axis1 (body1) perpendicular to axis2 (body2); 4 rows."""
        self._check_pair(body1, body2)
        a1, a2 = _unit(axis1, "axis1"), _unit(axis2, "axis2")
        first = self._primitive(self._coincident, body1, body2, point1, point2)
        self._primitive(PERPENDICULAR, body1, body2, a1, a2)
        return first

    def add_cylindrical_joint(self, body1: int, point1, axis1, body2: int, point2, axis2) -> int:
        """Cylindrical joint: point2 (body2) stays on the line through point1 along axis1 (body1), and
        axis2 (body2) stays parallel to axis1; 4 rows (2 on the line, 2 keeping the axes parallel)."""
        self._check_pair(body1, body2)
        a1 = _unit(axis1, "axis1")
        t1, t2 = axis_normals(a1)
        first = self._primitive(POINT_ON_LINE, body1, body2, point1, point2, t1, t2)
        u2, w2 = axis_normals(_unit(axis2, "axis2"))
        self._primitive(PERPENDICULAR, body1, body2, a1, u2)
        self._primitive(PERPENDICULAR, body1, body2, a1, w2)
        return first

    def add_prismatic_joint(self, body1: int, point1, axis1, body2: int, point2,
                            relative_rotation=np.eye(3)) -> int:
        """Prismatic joint along axis1 (body1 frame): point2 (body2) stays on the line through point1
        along axis1, and the relative rotation stays at ``relative_rotation`` = R1^T R2 (at assembly);
        5 rows (2 on the line, 3 locking the rotation)."""
        self._check_pair(body1, body2)
        a = _unit(axis1, "axis1")
        t1, t2 = axis_normals(a)
        first = self._primitive(POINT_ON_LINE, body1, body2, point1, point2, t1, t2)
        relative = np.asarray(relative_rotation, dtype=float)
        frame = (a, t1, t2)
        for k in range(3):
            # body1 vector frame[k] stays perpendicular to the body2 image of frame[k+1]
            self._primitive(PERPENDICULAR, body1, body2, frame[k], relative.T @ frame[(k + 1) % 3])
        return first

    def add_force(self, force_type: int, body: int, values, other: int = GROUND) -> int:
        """A force element on ``body`` (and on ``other`` for two-body elements)."""
        if not 0 <= body < len(self._bodies):
            raise InputError(f"force on unknown body {body}", field="body",
                             allowed=[str(i) for i in range(len(self._bodies))])
        self._check_body(other, "other")
        real = np.zeros(FORCE_REAL_WIDTH)
        values = np.asarray(values, dtype=float)
        real[: values.size] = values
        self._forces.append(([force_type, body, other], real))
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

    def add_line_spring_damper(self, body: int, point, other: int, other_point, stiffness: float, damping: float,
                               rest_length: float) -> int:
        """Spring-damper along the line between ``point`` (body frame of ``body``) and ``other_point`` (body
        frame of ``other``; global for ground): force -(k (l - L0) + d l') e on the body's point, e the unit
        vector from the other point, and its opposite on the other's."""
        if not all(np.isfinite(x) and x >= 0.0 for x in (stiffness, damping, rest_length)):
            raise InputError("stiffness, damping and rest length must be non-negative", field="stiffness")
        if body == other:
            raise InputError("a spring-damper connects two different bodies", field="other")
        values = np.zeros(FORCE_REAL_WIDTH)
        values[LINE_POINT1:LINE_POINT1 + 3] = np.asarray(point, dtype=float)
        values[LINE_POINT2:LINE_POINT2 + 3] = np.asarray(other_point, dtype=float)
        values[LINE_STIFFNESS], values[LINE_DAMPING], values[LINE_REST_LENGTH] = stiffness, damping, rest_length
        return self.add_force(LINE_SPRING_DAMPER, body, values, other=other)

    def add_point_force(self, body: int, force, point=(0.0, 0.0, 0.0), body_frame: bool = False,
                        ramp_time: float = 0.0, table=None) -> int:
        """A force at ``point`` (body frame) of ``body``: global, or a follower force given in the body frame;
        ramped linearly from 0 over ``ramp_time`` (0: at once), or scaled by the time ``table``
        (``add_time_table``)."""
        values = np.zeros(FORCE_REAL_WIDTH)
        values[FORCE_VECTOR:FORCE_VECTOR + 3] = np.asarray(force, dtype=float)
        values[FORCE_POINT:FORCE_POINT + 3] = np.asarray(point, dtype=float)
        values[FORCE_IN_BODY_FRAME] = float(body_frame)
        return self._timed(POINT_FORCE, body, values, FORCE_SCHEDULE, ramp_time, table)

    def add_timed_torque(self, body: int, torque, body_frame: bool = True, ramp_time: float = 0.0,
                         table=None) -> int:
        """A torque on ``body``, in its body frame (a follower torque) or global, ramped linearly from 0 over
        ``ramp_time`` (0: at once) or scaled by the time ``table`` (``add_time_table``)."""
        values = np.zeros(FORCE_REAL_WIDTH)
        values[TORQUE:TORQUE + 3] = np.asarray(torque, dtype=float)
        values[TORQUE_IN_BODY_FRAME] = float(body_frame)
        return self._timed(TIMED_TORQUE, body, values, TORQUE_SCHEDULE, ramp_time, table)

    def _timed(self, force_type: int, body: int, values: np.ndarray, schedule: int, ramp_time: float,
               table) -> int:
        if not np.isfinite(ramp_time) or ramp_time < 0.0:
            raise InputError(f"the ramp time must be finite and non-negative, got {ramp_time}", field="ramp_time")
        values[schedule + SCHEDULE_RAMP_TIME] = ramp_time
        if table is None:
            return self.add_force(force_type, body, values)
        times, factors = time_table(table)
        values[schedule + SCHEDULE_TABLE_POINTS] = times.size
        element = self.add_force(force_type, body, values)
        for first in range(0, times.size, TABLE_POINTS_PER_ROW):
            row = np.zeros(FORCE_REAL_WIDTH)
            pairs = np.column_stack([times[first:first + TABLE_POINTS_PER_ROW],
                                     factors[first:first + TABLE_POINTS_PER_ROW]])
            row[:pairs.size] = pairs.ravel()
            self.add_force(TIME_TABLE, body, row)
        return element

    @property
    def n_chain_rows(self) -> int:
        """Minimal-coordinate joints added so far (rows of chain_int)."""
        return len(self._chain)

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

    def add_joint_pd_controller(self, body1: int, axis1, reference1, body2: int, reference2, kp: float,
                                kd: float, setpoint_kind: int, setpoint_params) -> int:
        """Torque Kp (phi_d - phi) + Kd (phi_d' - phi') about a revolute joint axis on body2 (and its
        reaction on body1); phi is the angle from reference1 (body1) to reference2 (body2)."""
        if kp < 0 or kd < 0:
            raise InputError("controller gains must be non-negative", field="kp")
        axis = _unit(axis1, "axis1")
        values = np.zeros(FORCE_REAL_WIDTH)
        values[PD_AXIS:PD_AXIS + 3] = axis
        values[PD_REFERENCE1:PD_REFERENCE1 + 3] = _unit(reference1, "reference1")
        values[PD_REFERENCE2:PD_REFERENCE2 + 3] = _unit(reference2, "reference2")
        values[PD_KP], values[PD_KD], values[PD_SETPOINT_KIND] = kp, kd, setpoint_kind
        params = np.asarray(setpoint_params, dtype=float)
        values[PD_SETPOINT:PD_SETPOINT + params.size] = params
        return self.add_force(JOINT_PD, body2, values, other=body1)

    def build(self) -> SystemArrays:
        body_int = np.array([b[0] for b in self._bodies], dtype=np.int64).reshape(-1, BODY_INT_WIDTH)
        body_real = np.array([b[1] for b in self._bodies], dtype=np.float64).reshape(-1, BODY_REAL_WIDTH)
        force_int = np.array([f[0] for f in self._forces], dtype=np.int64).reshape(-1, FORCE_INT_WIDTH)
        force_real = np.array([f[1] for f in self._forces], dtype=np.float64).reshape(-1, FORCE_REAL_WIDTH)
        joint_int = np.array([j[0] for j in self._joints], dtype=np.int64).reshape(-1, JOINT_INT_WIDTH)
        joint_real = np.array([j[1] for j in self._joints], dtype=np.float64).reshape(-1, JOINT_REAL_WIDTH)
        chain_int = np.array([c[0] for c in self._chain], dtype=np.int64).reshape(-1, CHAIN_INT_WIDTH)
        chain_real = np.array([c[1] for c in self._chain], dtype=np.float64).reshape(-1, CHAIN_REAL_WIDTH)
        sizes = np.array([self.nq, self.nv, self.nc], dtype=np.int64)
        groups = self._force_groups(force_int)
        colors, pattern = self._force_colors(force_int, groups)
        return SystemArrays(sizes, body_int, body_real, force_int, force_real, joint_int, joint_real,
                            chain_int, chain_real, groups, colors, pattern)

    def _force_groups(self, force_int: np.ndarray) -> np.ndarray:
        """Velocity indices of the groups of bodies coupled by force elements (and of the chain), each
        body's coordinates contiguous.

        The generalized forces of one group do not depend on another group's coordinates, so
        finite-difference Jacobians perturb coordinates of every group at once (``_force_colors``).
        """
        parent = list(range(len(self._bodies)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for _, body, other in force_int:
            if other != GROUND:
                parent[root(body)] = root(other)
        groups: dict[int, list[int]] = {}
        for i, (row, _) in enumerate(self._bodies):
            groups.setdefault(root(i), []).extend(range(row[B_VSTART], row[B_VSTART] + row[B_NV]))
        members = list(groups.values())
        if self._chain:
            members.append([int(c[0][C_COORDINATE]) for c in self._chain])
        width = max((len(m) for m in members), default=0)
        table = -np.ones((len(members), width), dtype=np.int64)
        for k, m in enumerate(members):
            table[k, : len(m)] = m
        return table

    def _force_colors(self, force_int: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(colors, pattern) of the grouped forward differences of the forces (Curtis, Powell and Reid).

        pattern[g, m, j]: the forces on member m of group g depend on member j, i.e. their bodies are one
        body or share a force element (the chain's coordinates all depend on each other). colors[g, j]:
        the evaluation that perturbs member j. Bodies get a distance-2 colouring of the force-coupling
        graph (greedy, in body order): no body shares an element with two bodies of one colour, so one
        evaluation perturbs coordinate l of every body of a colour and each force still sees one
        perturbed coordinate. Evaluations are (colour, l) pairs, numbered over all groups at once. A
        chain of bodies coupled to their neighbours needs 3 colours whatever its length.
        """
        n_bodies = len(self._bodies)
        body_of = -np.ones(self.nv, dtype=np.int64)
        for i, (row, _) in enumerate(self._bodies):
            body_of[row[B_VSTART]:row[B_VSTART] + row[B_NV]] = i
        local = np.zeros(self.nv, dtype=np.int64)
        for row, _ in self._bodies:
            local[row[B_VSTART]:row[B_VSTART] + row[B_NV]] = np.arange(row[B_NV])
        neighbours: list[set[int]] = [{i} for i in range(n_bodies)]
        for _, body, other in force_int:
            if other != GROUND:
                neighbours[body].add(int(other))
                neighbours[other].add(int(body))
        body_color: list[int] = []
        for i in range(n_bodies):
            near = set().union(*(neighbours[b] for b in neighbours[i]))
            taken = {body_color[b] for b in near if b < i}
            body_color.append(min(c for c in range(len(taken) + 1) if c not in taken))
        ng, width = groups.shape
        colors = -np.ones((ng, width), dtype=np.int64)
        pattern = np.zeros((ng, width, width), dtype=np.bool_)
        numbers: dict[tuple[int, int], int] = {}
        for g in range(ng):
            members = groups[g][groups[g] >= 0]
            chain = bool(members.size) and body_of[members[0]] < 0
            for j, k in enumerate(members):
                key = (0, j) if chain else (body_color[body_of[k]], int(local[k]))
                colors[g, j] = numbers.setdefault(key, len(numbers))
                for m, r in enumerate(members):
                    pattern[g, m, j] = chain or body_of[r] in neighbours[body_of[k]]
        return colors, pattern


def _unit(vector, field: str) -> np.ndarray:
    vector = np.asarray(vector, dtype=float)
    norm = np.linalg.norm(vector)
    if vector.shape != (3,) or not np.isfinite(norm) or norm == 0.0:
        raise InputError(f"must be a non-zero 3-vector, got {vector.tolist()}", field=field)
    return vector / norm


def axis_normals(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors that complete the unit vector ``axis`` to a right-handed orthonormal frame, the
    first along the cross product with the coordinate axis of its smallest component."""
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    first = np.cross(axis, helper)
    first /= np.linalg.norm(first)
    return first, np.cross(axis, first)


def tait_bryan_pitch_cosines(system: SystemArrays, q: np.ndarray) -> list[float]:
    """|cos(pitch)| of every Tait-Bryan body (Rxyz, F1) at state q: 0 is gimbal lock."""
    codes = (FORMULATION_CODES["Rxyz"], FORMULATION_CODES["F1"])
    result = []
    for row in system.body_int:
        if row[B_FORM] in codes:
            start = row[B_QSTART] + (3 if row[B_KIND] == FREE else 0)
            result.append(abs(float(np.cos(q[start + 1]))))
    return result
