"""The named outputs of a mechanism file, evaluated from a state (q, v, t).

Outputs are evaluated outside the timed integration (at t_end and at the sample times), so the
evaluator is plain Python over the compiled pose kernels of ``lgbench/mbs``: ``body_state`` gives
(R, x, x', omega_body) of a body, ``kinetic_energy`` / ``potential_energy`` the energies, and
``index1_accelerations`` the multipliers of the joint reactions (``acceleration_multipliers``). Each
output entry becomes one small function returning its values; the evaluator concatenates them in the
order of ``output_names``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbench.mbs.codes import (
    BODY_TORQUE, F_BODY, F_TYPE, SE3, TIMED_TORQUE, TORQUE, TORQUE_IN_BODY_FRAME, TORQUE_SCHEDULE,
)
from lgbench.mbs.constraints import constraint_matrix
from lgbench.mbs.index1 import index1_accelerations, make_saddle_point_workspace, project_velocities
from lgbench.mbs.invariants import kinetic_energy, potential_energy
from lgbench.mbs.loads import time_factor
from lgbench.mbs.pose import body_pose, body_state, rotation_size, rotation_start, velocity_map
from lgbench.mbs.system import B_FORM, B_VSTART, S_NC, S_NV
from lgbench.mbs.system import GROUND as GROUND_INDEX
from lgbench.mechanisms.schema import (
    REACTION_KINDS, AngularVelocityOutput, EnergyOutput, JointOutput, PointOutput, PowerOutput, RotationOutput,
    joint_name,
)

AXES = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class JointFrame:
    """A joint as built: its bodies (-1: ground), its points in the bodies' frames, its unit axis in body 1
    and in body 2, the zero-angle references (normal to the axis, in body 1 and body 2: one global vector
    at the initial configuration), the first of its constraint rows and how many it has."""

    type: str
    body1: int
    body2: int
    point1: np.ndarray
    point2: np.ndarray
    axis1: np.ndarray | None
    axis2: np.ndarray | None
    reference1: np.ndarray | None
    reference2: np.ndarray | None
    first_row: int
    rows: int


def _state(system, body: int, q: np.ndarray, v: np.ndarray):
    """(R, x, x', omega_global) of a body; ground at rest at the origin."""
    if body == GROUND_INDEX:
        return np.eye(3), np.zeros(3), np.zeros(3), np.zeros(3)
    R, x, u, omega = body_state(system, body, q, v)
    return R, x, u, R @ omega


def _point(output: PointOutput, system, body: int, point: np.ndarray, direction: np.ndarray | None):
    picks = [AXES[c] for c in output.components]

    def evaluate(q, v, lam, t):
        R, x, u, omega = _state(system, body, q, v)
        r = R @ point
        value = x + r if output.kind == "position" else u + np.cross(omega, r)
        return [direction @ value] if direction is not None else value[picks]
    return evaluate


def _angular_velocity(output: AngularVelocityOutput, system, body: int):
    picks = [AXES[c] for c in output.components]

    def evaluate(q, v, lam, t):
        R, _, _, omega = _state(system, body, q, v)
        return (omega if output.frame == "global" else R.T @ omega)[picks]
    return evaluate


def _rotation(system, body: int):
    def evaluate(q, v, lam, t):
        return _state(system, body, q, v)[0].ravel()
    return evaluate


def acceleration_multipliers(system) -> Callable[[np.ndarray, np.ndarray, float], np.ndarray]:
    """f(q, v, t) -> lambda of the acceleration-level (index-1) system at the state (paper 001 eq. 10),
    [M B^T; B 0] [v'; lambda] = [g; -B'(q, v) v], solved by ``mbs.index1.index1_accelerations`` with v first
    moved onto the hidden constraint B(q) v = 0 (``project_velocities``, the mass-weighted projection of paper
    001 eq. 12; an index-3 integrator's v misses it by O(h^2) plus its Newton tolerance divided by h);
    NaN where the saddle-point matrix is singular. These multipliers are as accurate as the motion, whatever
    the integrator's own lambda (docs/notes/joint_forces.md)."""
    nq, nv, nc = (int(x) for x in system.sizes)
    workspace = make_saddle_point_workspace(nq, nv, nc, system.body_int.shape[0], system, "auto")
    accelerations = np.zeros(nv)

    def evaluate(q, v, t):
        q = np.ascontiguousarray(q, dtype=float)
        v = np.array(v, dtype=float)
        lam = np.zeros(nc)
        if not (project_velocities(system, q, v, workspace)
                and index1_accelerations(system, q, v, float(t), workspace, accelerations, lam)):
            lam[:] = np.nan
        return lam
    return evaluate


def joint_reaction(system, frame: JointFrame, q: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Resultant force and moment about the joint point (point1 of body1) of the joint's constraint forces on
    body1, global components. The generalized constraint force on a body is Q = -B^T lambda over the joint's
    rows and the body's velocity coordinates (M v' = g - B^T lambda): its translational part is the force
    (an SE3 node's in its body frame, turned by R); its rotational part is W^T tau for the body-frame torque
    tau about the body's reference point x, since omega = W w (``mbs.pose.velocity_map``: I for RV and SE3,
    G(theta) for Rxyz, 2 L(e) for EP), so tau = (W W^T)^{-1} W Q (for EP, whose W is 3x4 with W W^T = 4 I,
    this drops Q's part along e, which does no work); the moment about p is R tau + (x - p) x force. With
    body1 ground, minus the force and moment on body2 about the same point. The force is -lambda of the three
    point rows of a spherical, revolute or universal joint in the global form and -R1 lambda in the body form
    (``constraint_form: body``, lambda in body 1's frame); rows of a relative rotation add to the moment only."""
    nc, nv = int(system.sizes[S_NC]), int(system.sizes[S_NV])
    B = np.zeros((nc, nv))
    constraint_matrix(system, q, B)
    rows = slice(frame.first_row, frame.first_row + frame.rows)
    body, sign = (frame.body1, -1.0) if frame.body1 != GROUND_INDEX else (frame.body2, 1.0)
    generalized = sign * (B[rows].T @ lam[rows])
    form = int(system.body_int[body, B_FORM])
    start = int(system.body_int[body, B_VSTART])
    r_start, w_start = rotation_start.py_func(system.body_int, body)
    rho = q[r_start:r_start + rotation_size(form)]
    R, x = body_pose(system, body, q)
    force = generalized[start:start + 3]
    if form == SE3:
        force = R @ force
    W = velocity_map(form, rho)
    torque = R @ np.linalg.solve(W @ W.T, W @ generalized[w_start:w_start + W.shape[1]])
    if frame.body1 == GROUND_INDEX:
        point = frame.point1
    else:
        R1, x1 = body_pose(system, frame.body1, q)
        point = x1 + R1 @ frame.point1
    return force, torque + np.cross(x - point, force)


def _joint(output: JointOutput, system, frame: JointFrame):
    picks = [AXES[c] for c in output.components]

    def motion(q, v):
        """Position of point2 along the axis from point1, and its rate (global axis)."""
        R1, x1, u1, w1 = _state(system, frame.body1, q, v)
        R2, x2, u2, w2 = _state(system, frame.body2, q, v)
        axis = R1 @ frame.axis1
        r1, r2 = R1 @ frame.point1, R2 @ frame.point2
        separation = x2 + r2 - x1 - r1
        rate = u2 + np.cross(w2, r2) - u1 - np.cross(w1, r1)
        # d/dt (axis . separation) = (w1 x axis) . separation + axis . rate
        return axis @ separation, np.cross(w1, axis) @ separation + axis @ rate

    def evaluate(q, v, lam, t):
        if output.kind in REACTION_KINDS:
            return joint_reaction(system, frame, q, lam)[output.kind == "joint_torque"][picks]
        R1, _, _, w1 = _state(system, frame.body1, q, v)
        R2, _, _, w2 = _state(system, frame.body2, q, v)
        if output.kind == "joint_angle":    # body 1's rotation relative to body 2 about the axis
            axis, first, second = R1 @ frame.axis1, R1 @ frame.reference1, R2 @ frame.reference2
            return [np.arctan2(axis @ np.cross(second, first), second @ first)]
        if output.kind == "joint_rate":
            return [(R1 @ frame.axis1) @ (w1 - w2)]
        displacement, rate = motion(q, v)
        return [displacement] if output.kind == "joint_displacement" else [rate]
    return evaluate


def _energy(output: EnergyOutput, system):
    def evaluate(q, v, lam, t):
        kinetic = kinetic_energy(system, q, v) if output.part != "potential" else 0.0
        potential = potential_energy(system, q, v) if output.part != "kinetic" else 0.0
        return [kinetic + potential]
    return evaluate


def _power(system, element: int, body: int):
    """Power of a torque element: torque . omega (global), times the element's factor of time."""
    kind = int(system.force_int[element, F_TYPE])
    p = system.force_real[element]
    in_body_frame = kind == BODY_TORQUE or kind == TIMED_TORQUE and p[TORQUE_IN_BODY_FRAME] > 0.0

    def evaluate(q, v, lam, t):
        R, _, _, omega = _state(system, body, q, v)
        factor = time_factor(system.force_real, element, TORQUE_SCHEDULE, t) if kind == TIMED_TORQUE else 1.0
        torque = R @ p[TORQUE:TORQUE + 3] if in_body_frame else p[TORQUE:TORQUE + 3]
        return [factor * (torque @ omega)]
    return evaluate


def output_evaluator(mechanism: Any, system, index: Mapping[str, int], frames: list[JointFrame],
                     torques: Mapping[str, int], values: Any) -> Callable:
    """f(system, q, v, lam, t) -> the outputs of ``mechanism`` in order (the ``BuiltModel.outputs`` form). The
    reaction outputs read the multipliers of ``acceleration_multipliers`` at (q, v, t), not the integrator's
    ``lam``."""
    joints = {joint_name(mechanism, k): frames[k] for k in range(len(frames))}
    parts = []
    for k, output in enumerate(mechanism.outputs):
        field = f"outputs[{k}]"
        if isinstance(output, PointOutput):
            direction = None
            if output.direction is not None:
                direction = values.vector(output.direction, f"{field}.direction")
                direction = direction / np.linalg.norm(direction) if np.linalg.norm(direction) > 0 else direction
            parts.append(_point(output, system, index[output.body], values.vector(output.point, f"{field}.point"),
                                direction))
        elif isinstance(output, AngularVelocityOutput):
            parts.append(_angular_velocity(output, system, index[output.body]))
        elif isinstance(output, RotationOutput):
            parts.append(_rotation(system, index[output.body]))
        elif isinstance(output, JointOutput):
            parts.append(_joint(output, system, joints[output.joint]))
        elif isinstance(output, EnergyOutput):
            parts.append(_energy(output, system))
        elif isinstance(output, PowerOutput):
            element = torques[output.force]
            parts.append(_power(system, element, int(system.force_int[element, F_BODY])))

    reactions = [output for output in mechanism.outputs if isinstance(output, JointOutput)
                 and output.kind in REACTION_KINDS]
    multipliers = acceleration_multipliers(system) if reactions else None

    def outputs(sys, q, v, lam, t):
        if multipliers is not None:
            lam = multipliers(q, v, t)
        return np.concatenate([np.asarray(part(q, v, lam, t), dtype=float) for part in parts])
    return outputs
