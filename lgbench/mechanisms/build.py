"""A mechanism file as a model: its system for a formulation, its consistent initial state, its outputs.

``mechanism_model`` gives the same ``Model`` a built-in mechanism module gives (parameters with
defaults, formulations, outputs, a builder), so studies, single runs, references and plots treat both
alike. The builder calls the ``SystemBuilder`` of ``lgbench/mbs/system.py`` with every point and axis in
its body's frame: a global point p of body i at the initial configuration becomes R_i^T (p - x_i), as the
built-in models compute them, and the initial state is assembled onto the constraints with
``lgbench/mbs/assembly.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from lgbench.exceptions import InputError
from lgbench.lie.euler_parameters import rotation_matrix_ep
from lgbench.lie.so3 import exp_so3
from lgbench.lie.tait_bryan import rotation_matrix_rxyz
from lgbench.mbs.assembly import assemble_positions, project_velocities
from lgbench.mbs.codes import (
    BANG_BANG, BODY_FRAME_COINCIDENT, BODY_FRAME_POINT, BODY_TORQUE, COINCIDENT, CONSTANT, DISTANCE, FREE,
    GLOBAL_TORQUE, GRAVITY, PERPENDICULAR, POINT_ON_LINE,
)
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.redundancy import Reduction, independent_rows
from lgbench.mbs.system import B_NV, B_VSTART, GROUND as GROUND_INDEX, J_ROW, SystemBuilder, axis_normals
from lgbench.mechanisms import expressions
from lgbench.mechanisms.outputs import JointFrame, output_evaluator
from lgbench.mechanisms.schema import (
    GROUND, Gravity, JointOutput, JointSpringDamper, Mechanism, PDController, PointForce, PointSpringDamper,
    SpringDamper, Torque, force_name, joint_name, output_names,
)
from lgbench.models.base import BuiltModel, Model


@dataclass(frozen=True)
class Pose:
    """A body's initial pose: orientation R and centre of mass x (ground: identity at the origin)."""

    R: np.ndarray
    x: np.ndarray

    def local_point(self, point: np.ndarray) -> np.ndarray:
        return self.R.T @ (point - self.x)

    def local_vector(self, vector: np.ndarray) -> np.ndarray:
        return self.R.T @ vector


GROUND_POSE = Pose(np.eye(3), np.zeros(3))


class Values:
    """The numbers of a mechanism with one set of parameter values; errors name the field."""

    def __init__(self, parameters: Mapping[str, Any]):
        self.parameters = parameters

    def scalar(self, value: Any, field: str) -> float:
        try:
            return expressions.evaluate(value, self.parameters)
        except ValueError as error:
            raise InputError(str(error), field=field) from None

    def vector(self, value: Any, field: str, size: int = 3) -> np.ndarray:
        if isinstance(value, str):
            found = self.parameters.get(value)
            if not isinstance(found, list | tuple) or len(found) != size:
                raise InputError(f"'{value}' is not a parameter with {size} numbers", field=field)
            value = found
        return np.array([self.scalar(item, f"{field}[{k}]") for k, item in enumerate(value)])

    def matrix(self, rows: Any, field: str) -> np.ndarray:
        return np.array([self.vector(row, f"{field}[{r}]") for r, row in enumerate(rows)])

    def positive(self, value: Any, field: str) -> float:
        number = self.scalar(value, field)
        if number <= 0.0:
            raise InputError(f"must be positive, got {number:g}", field=field)
        return number

    def non_negative(self, value: Any, field: str) -> float:
        """A stiffness, a damping, a rest length or a gain: no element of a mechanism has a negative one."""
        number = self.scalar(value, field)
        if number < 0.0:
            raise InputError(f"must be zero or positive, got {number:g}", field=field)
        return number

    def non_negative_vector(self, value: Any, field: str) -> np.ndarray:
        vector = self.vector(value, field)
        for k, number in enumerate(vector):
            if number < 0.0:
                raise InputError(f"must be zero or positive, got {number:g}", field=f"{field}[{k}]")
        return vector


def orientation_matrix(orientation: Any, values: Values, field: str) -> np.ndarray:
    """R of one of the four forms; a rotation matrix must be orthonormal with det +1 (to 1e-9) and a
    quaternion a unit one (to 1e-9), so that no form silently rescales what was meant."""
    if orientation.rotation_matrix is not None:
        R = values.matrix(orientation.rotation_matrix, f"{field}.rotation_matrix")
        if np.abs(R.T @ R - np.eye(3)).max() > 1e-9 or np.linalg.det(R) < 0:
            raise InputError("not a rotation matrix (orthonormal with determinant +1, to 1e-9)",
                             field=f"{field}.rotation_matrix")
        return R
    if orientation.tait_bryan is not None:
        return rotation_matrix_rxyz(values.vector(orientation.tait_bryan, f"{field}.tait_bryan"))
    if orientation.rotation_vector is not None:
        return exp_so3(values.vector(orientation.rotation_vector, f"{field}.rotation_vector"))
    e = values.vector(orientation.quaternion, f"{field}.quaternion", size=4)
    if abs(np.linalg.norm(e) - 1.0) > 1e-9:
        raise InputError(f"not a unit quaternion (|e| = {np.linalg.norm(e):.12g})", field=f"{field}.quaternion")
    return rotation_matrix_ep(e)


def inertia_matrix(inertia: Any, values: Values, field: str) -> np.ndarray:
    if isinstance(inertia, str) or not isinstance(inertia[0], list):
        return np.diag(values.vector(inertia, field))
    return values.matrix(inertia, field)


def build_mechanism(mechanism: Mechanism, formulation: str, parameters: Mapping[str, Any]) -> BuiltModel:
    """The system of ``mechanism`` in ``formulation`` with ``parameters``, assembled onto its constraints."""
    values = Values(parameters)
    builder = SystemBuilder(mechanism.constraint_form)
    index: dict[str, int] = {GROUND: GROUND_INDEX}
    poses: dict[str, Pose] = {GROUND: GROUND_POSE}
    blocks = []
    for k, body in enumerate(mechanism.bodies):
        field = f"bodies[{k}]"
        R = orientation_matrix(body.orientation, values, f"{field}.orientation")
        x = values.vector(body.position, f"{field}.position")
        try:
            index[body.name] = builder.add_body(FREE, formulation, values.positive(body.mass, f"{field}.mass"),
                                                inertia_matrix(body.inertia, values, f"{field}.inertia"),
                                                name=body.name)
        except InputError as error:
            raise _under(field, error) from None
        poses[body.name] = Pose(R, x)
        omega = values.vector(body.angular_velocity, f"{field}.angular_velocity")
        omega_body = R.T @ omega if body.angular_velocity_frame == "global" else omega
        blocks.append(free_body_coordinates(formulation, x, R, values.vector(body.velocity, f"{field}.velocity"),
                                            omega_body))
    frames = [_add_joint(builder, mechanism, k, index, poses, values) for k in range(len(mechanism.joints))]
    torques = {}
    for k, force in enumerate(mechanism.forces):
        element = _add_force(builder, mechanism, k, index, poses, frames, values)
        if isinstance(force, Torque):
            torques[force_name(mechanism, k)] = element
    system = builder.build()
    q0 = np.concatenate([block[0] for block in blocks])
    v0 = np.concatenate([block[1] for block in blocks])
    keep_q = _coordinates(system, index, mechanism.initial_state.keep_positions)
    keep_v = _coordinates(system, index, mechanism.initial_state.keep_velocities)
    q0 = assemble_positions(system, q0, keep=keep_q or None)
    v0 = project_velocities(system, q0, v0, keep=keep_v or None)
    reduction = independent_rows(system, q0)
    notes = redundant_rows(mechanism, frames, reduction)
    system = reduction.system
    frames = [replace(frame, **dict(zip(("first_row", "rows"), reduction.rows_of(frame.first_row, frame.rows))))
              for frame in frames]
    outputs = output_evaluator(mechanism, system, index, frames, torques, values)
    return BuiltModel(system, q0, v0, outputs, tuple(name for output in mechanism.outputs
                                                      for name in output_names(output)),
                      reduction if reduction.redundant else None, notes)


PRIMITIVE_ROWS = {COINCIDENT: "point", BODY_FRAME_COINCIDENT: "point", BODY_FRAME_POINT: "point",
                  POINT_ON_LINE: "line", PERPENDICULAR: "axis", DISTANCE: "distance"}
"""What a joint's rows of each primitive hold, as ``redundant_rows`` names them."""


def redundant_rows(mechanism: Mechanism, frames: list[JointFrame], reduction: Reduction) -> tuple[str, ...]:
    """The rows ``reduction`` removed, one entry per joint: its name and type, and how many of its point,
    line, axis or distance rows were removed (``lgbench/mbs/redundancy.py``)."""
    removed: dict[int, dict[str, int]] = {}
    written = reduction.all_rows.joint_int
    for change in reduction.changes:
        row = int(written[change.primitive, J_ROW])
        k = next(k for k, frame in enumerate(frames) if frame.first_row <= row < frame.first_row + frame.rows)
        label = PRIMITIVE_ROWS[change.kind]
        removed.setdefault(k, {}).setdefault(label, 0)
        removed[k][label] += change.rows - change.kept
    return tuple(f"{joint_name(mechanism, k)} ({mechanism.joints[k].type}): "
                 + ", ".join(f"{count} {label} row{'s' if count > 1 else ''}" for label, count in parts.items())
                 for k, parts in sorted(removed.items()))


def _coordinates(system, index: Mapping[str, int], bodies: list[str]) -> list[int]:
    """The velocity (update) coordinates of ``bodies``."""
    found = []
    for name in bodies:
        start, count = (int(system.body_int[index[name], column]) for column in (B_VSTART, B_NV))
        found.extend(range(start, start + count))
    return found


def _add_joint(builder: SystemBuilder, mechanism: Mechanism, k: int, index, poses, values: Values) -> JointFrame:
    """Add joint k; its frame (bodies, axes, references) for the joint outputs and PD controllers."""
    joint = mechanism.joints[k]
    field = f"joints[{k}]"
    pose1, pose2 = poses[joint.body1], poses[joint.body2]
    body1, body2 = index[joint.body1], index[joint.body2]

    def point(name: str, pose: Pose) -> np.ndarray:
        """A point of the joint in a body's frame: the global ``point`` (a distance joint's own global
        ``point1``/``point2``) converted, or its own body-frame point."""
        if joint.frame == "global":
            source = name if joint.type == "distance" else "point"
            return pose.local_point(values.vector(getattr(joint, source), f"{field}.{source}"))
        return values.vector(getattr(joint, name), f"{field}.{name}")

    def axis(name: str, pose: Pose, shared: bool = True) -> np.ndarray:
        """An axis of the joint in a body's frame (``axis`` converted when ``shared`` and global)."""
        if joint.frame == "global":
            source = "axis" if shared else name
            return pose.local_vector(_direction(values.vector(getattr(joint, source), f"{field}.{source}"),
                                                f"{field}.{source}"))
        return _direction(values.vector(getattr(joint, name), f"{field}.{name}"), f"{field}.{name}")

    p1, p2 = point("point1", pose1), point("point2", pose2)
    a1 = a2 = None
    first = builder.nc
    try:
        if joint.type == "spherical":
            builder.add_spherical_joint(body1, p1, body2, p2)
        elif joint.type == "revolute":
            a1, a2 = axis("axis1", pose1), axis("axis2", pose2)
            builder.add_revolute_joint(body1, p1, a1, body2, p2, a2)
        elif joint.type == "universal":
            a1, a2 = axis("axis1", pose1, shared=False), axis("axis2", pose2, shared=False)
            builder.add_universal_joint(body1, p1, a1, body2, p2, a2)
        elif joint.type == "prismatic":
            a1 = axis("axis1", pose1)
            builder.add_prismatic_joint(body1, p1, a1, body2, p2, pose1.R.T @ pose2.R)
        elif joint.type == "cylindrical":
            a1, a2 = axis("axis1", pose1), axis("axis2", pose2)
            builder.add_cylindrical_joint(body1, p1, a1, body2, p2, a2)
        else:
            length = (values.positive(joint.length, f"{field}.length") if joint.length is not None
                      else float(np.linalg.norm(pose1.R @ p1 + pose1.x - pose2.R @ p2 - pose2.x)))
            builder.add_distance_constraint(body1, p1, length, body2, p2)
    except InputError as error:
        raise _under(field, error) from None
    rows = builder.nc - first
    if a1 is None:
        return JointFrame(joint.type, body1, body2, p1, p2, None, None, None, None, first, rows)
    a1 = a1 / np.linalg.norm(a1)
    a2 = pose2.R.T @ (pose1.R @ a1)
    # zero-angle references: a normal of the axis in body 1 and the same global vector in body 2
    reference1 = axis_normals(a1)[0]
    reference2 = pose2.R.T @ (pose1.R @ reference1)
    return JointFrame(joint.type, body1, body2, p1, p2, a1, a2, reference1, reference2, first, rows)


def _under(field: str, error: InputError) -> InputError:
    """``error`` with its field within the element at ``field``: the builder names the element's own field
    (``mass``), the numbers of the file (``Values``) the whole path already (``bodies[0].mass``)."""
    inner = error.field
    if inner is None:
        inner = field
    elif not (inner == field or inner.startswith((f"{field}.", f"{field}["))):
        inner = f"{field}.{inner}"
    return InputError(error.args[0], field=inner, allowed=error.allowed)


def _direction(vector: np.ndarray, field: str) -> np.ndarray:
    if not np.linalg.norm(vector) > 0.0:
        raise InputError("an axis must be a non-zero vector", field=field)
    return vector


def _timed(field: str, force: Any, values: Values, add: Callable[[float, Any], int]) -> int:
    """A timed load's element: ``add(ramp_time, table)`` with the numbers of the file (errors name the field)."""
    ramp = values.scalar(force.ramp_time, f"{field}.ramp_time") if force.ramp_time is not None else 0.0
    table = None
    if force.table is not None:
        table = ([values.scalar(x, f"{field}.table.time[{j}]") for j, x in enumerate(force.table.time)],
                 [values.scalar(x, f"{field}.table.factor[{j}]") for j, x in enumerate(force.table.factor)])
    try:
        return add(ramp, table)
    except InputError as error:
        raise _under(field, error) from None


def _add_force(builder: SystemBuilder, mechanism: Mechanism, k: int, index, poses, frames, values: Values) -> int:
    force = mechanism.forces[k]
    field = f"forces[{k}]"
    if isinstance(force, Gravity):
        acceleration = values.vector(force.acceleration, f"{field}.acceleration")
        first = -1
        for name in force.bodies or [body.name for body in mechanism.bodies]:
            element = builder.add_force(GRAVITY, index[name], acceleration)
            first = element if first < 0 else first
        return first
    if isinstance(force, Torque):
        torque = values.vector(force.torque, f"{field}.torque")
        if force.ramp_time is None and force.table is None:
            return builder.add_force(BODY_TORQUE if force.frame == "body" else GLOBAL_TORQUE, index[force.body],
                                     torque)
        return _timed(field, force, values, lambda ramp, table: builder.add_timed_torque(
            index[force.body], torque, force.frame == "body", ramp, table))
    if isinstance(force, SpringDamper):
        ends = [(force.body1, "point1"), (force.body2, "point2")]
        if force.body1 == GROUND:      # the builder's first body is a body
            ends.reverse()
        (body, _), (other, _) = ends
        points, written = [], []       # each end in its body's frame, and at the written configuration
        for name, point_field in ends:
            point = values.vector(getattr(force, point_field), f"{field}.{point_field}")
            points.append(poses[name].local_point(point) if force.frame == "global" else point)
            written.append(poses[name].R @ points[-1] + poses[name].x)
        rest = (values.non_negative(force.rest_length, f"{field}.rest_length") if force.rest_length is not None
                else float(np.linalg.norm(written[0] - written[1])))
        try:
            return builder.add_line_spring_damper(index[body], points[0], index[other], points[1],
                                                  values.non_negative(force.stiffness, f"{field}.stiffness"),
                                                  values.non_negative(force.damping, f"{field}.damping"), rest)
        except InputError as error:
            raise _under(field, error) from None
    if isinstance(force, PointForce):
        pose = poses[force.body]
        point = values.vector(force.point, f"{field}.point") if force.point is not None else pose.x.copy()
        vector = values.vector(force.force, f"{field}.force")
        return _timed(field, force, values, lambda ramp, table: builder.add_point_force(
            index[force.body], vector, pose.local_point(point), force.frame == "body", ramp, table))
    if isinstance(force, PointSpringDamper):
        pose = poses[force.body]
        if force.point is None:          # the centre of mass
            point = np.zeros(3)
        else:
            point = values.vector(force.point, f"{field}.point")
            point = pose.local_point(point) if force.frame == "global" else point
        stiffness, damping = (values.non_negative_vector(getattr(force, name), f"{field}.{name}")
                              for name in ("stiffness", "damping"))
        try:
            return builder.add_point_spring_damper(index[force.body], stiffness, damping, point,
                                                   values.vector(force.ground_point, f"{field}.ground_point"))
        except InputError as error:
            raise _under(field, error) from None
    frame = frames[[joint_name(mechanism, j) for j in range(len(mechanism.joints))].index(force.joint)]
    if isinstance(force, JointSpringDamper):
        kind, parameters = CONSTANT, [values.scalar(force.rest_angle, f"{field}.rest_angle")]
        kp = values.non_negative(force.stiffness, f"{field}.stiffness")
        kd = values.non_negative(force.damping, f"{field}.damping")
    else:
        assert isinstance(force, PDController)
        setpoint = force.setpoint
        if setpoint.kind == "constant":
            kind, parameters = CONSTANT, [values.scalar(setpoint.value, f"{field}.setpoint.value")]
        else:
            kind, parameters = BANG_BANG, [values.scalar(getattr(setpoint, name), f"{field}.setpoint.{name}")
                                           for name in ("initial", "acceleration", "switch_time")]
        kp, kd = values.non_negative(force.kp, f"{field}.kp"), values.non_negative(force.kd, f"{field}.kd")
    # the builder's angle is body2's rotation relative to body1 and its torque acts on body2: the joint
    # angle (body1 relative to body2) with the joint's body2 as the builder's body1, unless body1 is
    # ground; then the builder's angle is minus the joint angle, and so is the set point
    try:
        if frame.body1 != GROUND_INDEX:
            return builder.add_joint_pd_controller(frame.body2, frame.axis2, frame.reference2, frame.body1,
                                                   frame.reference1, kp, kd, kind, parameters)
        negated = [-parameters[0]] if kind == CONSTANT else [-parameters[0], -parameters[1], parameters[2]]
        return builder.add_joint_pd_controller(frame.body1, frame.axis1, frame.reference1, frame.body2,
                                               frame.reference2, kp, kd, kind, negated)
    except InputError as error:
        raise _under(field, error) from None


def conservative(mechanism: Mechanism) -> bool:
    """Gravity and undamped springs only (damping written as zeros): the total energy is then an invariant
    (``Model.conservative``)."""
    return all(isinstance(force, Gravity)
               or isinstance(force, PointSpringDamper) and force.damping == [0.0, 0.0, 0.0]
               or isinstance(force, SpringDamper | JointSpringDamper) and force.damping == 0.0
               for force in mechanism.forces)


def mechanism_model(mechanism: Mechanism, source: str = "") -> Model:
    """The ``Model`` of a mechanism file: its parameters as defaults, its formulations and outputs."""
    names = [name for output in mechanism.outputs for name in output_names(output)]
    groups = {output.name: output_names(output) for output in mechanism.outputs if len(output_names(output)) > 1}
    defaults = {name: (list(value) if isinstance(value, list) else value)
                for name, value in mechanism.parameters.items()}
    return Model(name=mechanism.name, description=mechanism.description or f"mechanism file {source}".strip(),
                 defaults=defaults, formulations=list(mechanism.formulations), outputs=names, output_groups=groups,
                 builder=lambda formulation, parameters: build_mechanism(mechanism, formulation, parameters),
                 conservative=conservative(mechanism), sources=source or "mechanism file",
                 continuous=tuple(output.name for output in mechanism.outputs
                                  if isinstance(output, JointOutput) and output.continuous))
