"""Heavy top rotating about a fixed point, without kinematic constraints.

Paper 000 Sect. 4.1.1 and Table 3: m = 15 kg, J = diag(0.234375, 0.468750, 0.234375) kg m^2 about
the centre of mass, centre of mass at [0, 1, 0] m in the body frame (measured from the fixed
point), gravity [0, 0, -9.81] m/s^2, omega0 = [0, 150, -4.61538] rad/s (body frame), psi0 = 0.
The equations of motion are those of a body rotating about the fixed point,
J_O omega' + omega x J_O omega = com x R^T m g, with J_O = J + m(|c|^2 I - c c^T) (Steiner).
"""
from __future__ import annotations

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import exp_so3
from lgbench.mbs.codes import FIXED_POINT, GRAVITY
from lgbench.mbs.coordinates import rotation_coordinates
from lgbench.mbs.invariants import angular_momentum, kinetic_energy, potential_energy
from lgbench.mbs.pose import body_com, body_state
from lgbench.mbs.system import SystemBuilder
from lgbench.models.base import BuiltModel, Model, positive_scalar, vector3

DEFAULTS = {
    "mass": 15.0,
    "inertia": [0.234375, 0.468750, 0.234375],
    "com": [0.0, 1.0, 0.0],
    "gravity": [0.0, 0.0, -9.81],
    "omega0": [0.0, 150.0, -4.61538],
    "psi0": [0.0, 0.0, 0.0],
}

OUTPUTS = ("com_x", "com_y", "com_z", "vcom_x", "vcom_y", "vcom_z", "omega_x", "omega_y", "omega_z",
           "energy", "angular_momentum_z")


@kernel
def top_outputs(sys, q, v, out):
    """COM position and velocity, body angular velocity, energy and vertical angular momentum of
    body 0 (the top) into out[0:11]."""
    xc, vc = body_com(sys, 0, q, v)
    _, _, _, omega = body_state(sys, 0, q, v)
    out[0:3] = xc
    out[3:6] = vc
    out[6:9] = omega
    out[9] = kinetic_energy(sys, q, v) + potential_energy(sys, q, v)
    out[10] = angular_momentum(sys, q, v)[2]


@kernel
def heavy_top_outputs(sys, q, v, lam, t):
    out = np.empty(11)
    top_outputs(sys, q, v, out)
    return out


def initial_rotation_state(formulation: str, psi0: np.ndarray, omega0: np.ndarray):
    """Rotation coordinates and rotational velocity coordinates for orientation psi0, body rate omega0."""
    if formulation == "RV":
        return psi0.copy(), omega0.copy()
    return rotation_coordinates(formulation, exp_so3(psi0), omega0)


def build(formulation: str, params: dict) -> BuiltModel:
    m = positive_scalar(params, "mass")
    inertia = np.diag(vector3(params, "inertia"))
    com = vector3(params, "com")
    steiner = m * (com @ com * np.eye(3) - np.outer(com, com))
    builder = SystemBuilder()
    body = builder.add_body(FIXED_POINT, formulation, m, inertia + steiner, com=com, name="top")
    builder.add_force(GRAVITY, body, vector3(params, "gravity"))
    q0, v0 = initial_rotation_state(formulation, vector3(params, "psi0"), vector3(params, "omega0"))
    return BuiltModel(builder.build(), q0, v0, heavy_top_outputs, OUTPUTS)


MODEL = Model(
    name="heavy_top",
    description="heavy top about a fixed point without constraints (paper 000 Sect. 4.1.1, Table 3)",
    defaults=DEFAULTS,
    formulations=["RV", "Rxyz", "F1", "EP-F1", "EP"],
    outputs=list(OUTPUTS),
    output_groups={"com": ["com_x", "com_y", "com_z"], "vcom": ["vcom_x", "vcom_y", "vcom_z"],
                   "omega": ["omega_x", "omega_y", "omega_z"]},
    builder=build,
    conservative=True,
    sources="paper 000 Table 3",
)
