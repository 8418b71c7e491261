"""Spinning body: one rigid body turning about its first principal axis under a constant moment.

Paper 004 Sect. 3, 5 and 7: J = diag(I_x, I_y, I_z) in principal axes, body moment m = [M_x, 0, 0],
rotation about the body (= global) x axis from phi(0) = 0 with phi'(0) = omega0. Exact solution
(paper 004 eq. 16 and below): omega(t) = omega0 + M_x / I_x t, phi(t) = omega0 t + M_x t^2 / (2 I_x),
e_0 = cos(phi / 2), e_1 = sin(phi / 2). The paper gives no numbers; lgbench's defaults are
I_x = 1 kg m^2, I_y = I_z = 2 kg m^2, M_x = 1 N m, omega0 = 10 rad/s.

The body rotates about a fixed point at its centre of mass (no translation, no gravity).
``eq9_form`` (default true) writes the EP equations as paper 004 eq. (9) (gyroscopic term
8 L^T L L'^T J L e', see ``EP_NORM_RATE_TORQUE``); its one-step analyses (eq. 27-28) rely on that
form. It changes nothing on the exact solution or for the other formulations.

Outputs: omega_x (body angular velocity about x), energy (kinetic, 1/2 omega^T J omega) and angle
(the rotation angle about x from R, wrapped to (-pi, pi]).
"""
from __future__ import annotations

import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.mbs.codes import BODY_TORQUE, EP_NORM_RATE_TORQUE, FIXED_POINT
from lgbench.mbs.coordinates import rotation_coordinates
from lgbench.mbs.invariants import kinetic_energy
from lgbench.mbs.pose import body_state
from lgbench.mbs.system import SystemBuilder
from lgbench.models.base import BuiltModel, Model, positive_scalar

DEFAULTS = {
    "I_x": 1.0,
    "I_y": 2.0,
    "I_z": 2.0,
    "M_x": 1.0,
    "omega0": 10.0,
    "eq9_form": True,
}

OUTPUTS = ("omega_x", "energy", "angle")


@kernel
def spinning_body_outputs(sys, q, v, lam, t):
    R, _, _, omega = body_state(sys, 0, q, v)
    out = np.empty(3)
    out[0] = omega[0]
    out[1] = kinetic_energy(sys, q, v)
    out[2] = math.atan2(R[2, 1], R[1, 1])
    return out


def _number(params: dict, key: str) -> float:
    try:
        value = float(params[key])
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {params[key]!r}", field=f"params.{key}") from None
    if not np.isfinite(value):
        raise InputError(f"must be finite, got {value}", field=f"params.{key}")
    return value


def build(formulation: str, params: dict) -> BuiltModel:
    inertia = [positive_scalar(params, key) for key in ("I_x", "I_y", "I_z")]
    if not isinstance(params["eq9_form"], bool):
        raise InputError(f"must be true or false, got {params['eq9_form']!r}", field="params.eq9_form")
    builder = SystemBuilder()
    body = builder.add_body(FIXED_POINT, formulation, 1.0, inertia, name="spinning body")
    builder.add_force(BODY_TORQUE, body, [_number(params, "M_x"), 0.0, 0.0])
    if params["eq9_form"]:
        builder.add_force(EP_NORM_RATE_TORQUE, body, [])
    omega = np.array([_number(params, "omega0"), 0.0, 0.0])
    q0, v0 = rotation_coordinates(formulation, np.eye(3), omega)
    return BuiltModel(builder.build(), q0, v0, spinning_body_outputs, OUTPUTS)


def exact(params: dict, times: np.ndarray) -> np.ndarray:
    """omega_x, energy and wrapped angle of the uniformly accelerated rotation (paper 004 Sect. 3)."""
    rate = float(params["M_x"]) / float(params["I_x"])
    omega = float(params["omega0"]) + rate * times
    angle = float(params["omega0"]) * times + 0.5 * rate * times ** 2
    wrapped = np.arctan2(np.sin(angle), np.cos(angle))
    return np.column_stack([omega, 0.5 * float(params["I_x"]) * omega ** 2, wrapped])


MODEL = Model(
    name="spinning_body",
    description="rigid body spun up about its first principal axis by a constant moment (paper 004 Sect. 3, 5, 7)",
    defaults=DEFAULTS,
    formulations=["EP", "RV", "Rxyz", "EP-F1", "F1"],
    outputs=list(OUTPUTS),
    output_groups={"omega": ["omega_x"]},
    builder=build,
    conservative=False,
    sources="paper 004 Sect. 3 (problem and exact solution); numbers chosen by lgbench (docstring)",
    exact=exact,
)
