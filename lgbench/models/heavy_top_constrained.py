"""Heavy top as a free rigid body held by a spherical joint at the fixed point.

Paper 000 Sect. 4.1.2 with the Table 3 values: m = 15 kg, J = diag(0.234375, 0.468750, 0.234375)
kg m^2 about the centre of mass, centre of mass at [0, 1, 0] m from the fixed point in the body frame,
gravity [0, 0, -9.81], omega0 = [0, 150, -4.61538] rad/s (body frame), psi0 = 0. The initial
centre-of-mass velocity is made consistent with the joint, u0 = R0 (omega0 x com).
Outputs include the joint's Lagrange multipliers (the reaction force on the top is -lambda).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lgbench.lie.so3 import exp_so3
from lgbench.mbs.system import FREE, GRAVITY, SystemBuilder
from lgbench.models.base import BuiltModel, Model, positive_scalar, vector3
from lgbench.models.heavy_top import DEFAULTS, initial_rotation_state, top_outputs

OUTPUTS = ("com_x", "com_y", "com_z", "vcom_x", "vcom_y", "vcom_z", "omega_x", "omega_y", "omega_z",
           "energy", "angular_momentum_z", "lambda_x", "lambda_y", "lambda_z")


@njit(cache=True)
def heavy_top_constrained_outputs(sys, q, v, lam, t):
    out = np.empty(14)
    top_outputs(sys, q, v, out)
    n = lam.shape[0]
    out[11:14] = lam[n - 3:n]
    return out


def build(formulation: str, params: dict) -> BuiltModel:
    m = positive_scalar(params, "mass")
    inertia = np.diag(vector3(params, "inertia"))
    com = vector3(params, "com")
    psi0 = vector3(params, "psi0")
    omega0 = vector3(params, "omega0")
    builder = SystemBuilder()
    body = builder.add_body(FREE, formulation, m, inertia, name="top")
    builder.add_force(GRAVITY, body, vector3(params, "gravity"))
    builder.add_spherical_joint(body, -com)
    R0 = exp_so3(psi0)
    rotation, rates = initial_rotation_state(formulation, psi0, omega0)
    q0 = np.concatenate([R0 @ com, rotation])
    v0 = np.concatenate([R0 @ np.cross(omega0, com), rates])
    return BuiltModel(builder.build(), q0, v0, heavy_top_constrained_outputs, OUTPUTS)


MODEL = Model(
    name="heavy_top_constrained",
    description="heavy top as a free body with a spherical joint at the fixed point (paper 000 Sect. 4.1.2)",
    defaults=dict(DEFAULTS),
    formulations=["RV", "Rxyz", "EP"],
    outputs=list(OUTPUTS),
    output_groups={"com": ["com_x", "com_y", "com_z"], "vcom": ["vcom_x", "vcom_y", "vcom_z"],
                   "omega": ["omega_x", "omega_y", "omega_z"], "lambda": ["lambda_x", "lambda_y", "lambda_z"]},
    builder=build,
    sources="paper 000 Table 3",
)
