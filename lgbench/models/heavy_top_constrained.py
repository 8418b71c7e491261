"""Heavy top as a free rigid body held by a spherical joint at the fixed point.

Paper 000 Sect. 4.1.2 with the Table 3 values: m = 15 kg, J = diag(0.234375, 0.468750, 0.234375)
kg m^2 about the centre of mass, centre of mass at [0, 1, 0] m from the fixed point in the body frame,
gravity [0, 0, -9.81], omega0 = [0, 150, -4.61538] rad/s (body frame), psi0 = 0. The initial
centre-of-mass velocity is made consistent with the joint, u0 = R0 (omega0 x com).

Formulations RV, Rxyz, EP (paper 000) and SE3 (paper 002 eq. 22: body-frame velocity U = R^T x').
Parameter ``constraint_form``: "global" writes the joint as x - R X = 0 (paper 000), "body" as
X - R^T x = 0 (paper 002 eqs. 21c, 22c; with SE3 its B is constant on the constraint manifold).
Both forms have the same solution q(t), v(t); lambda_x..z is always the multiplier of the global
form, lambda_global = -R lambda_body, so outputs are comparable across formulations and forms
(the reaction force on the top is -lambda_global), and lambda_body_x..z = -R^T lambda_global is the
multiplier of the body form, the lambda of paper 002's figures and numbers. Outputs R11..R33 are the
rotation matrix.
"""
from __future__ import annotations

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.so3 import exp_so3
from lgbench.mbs.codes import BODY_FRAME_POINT, FREE, GRAVITY
from lgbench.mbs.dense import mat3_vec
from lgbench.mbs.pose import body_pose
from lgbench.mbs.system import J_TYPE, SystemBuilder
from lgbench.models.base import BuiltModel, Model, constraint_form, positive_scalar, vector3
from lgbench.models.heavy_top import DEFAULTS, initial_rotation_state, top_outputs

ROTATION = ("R11", "R12", "R13", "R21", "R22", "R23", "R31", "R32", "R33")
BODY_VELOCITY = ("U_x", "U_y", "U_z")   # U = R^T x', SE(3)'s velocity coordinate (paper 002 Fig. 4 right)
BODY_MULTIPLIER = ("lambda_body_x", "lambda_body_y", "lambda_body_z")   # paper 002 eqs. (21c), (22c)
OUTPUTS = ("com_x", "com_y", "com_z", "vcom_x", "vcom_y", "vcom_z", "omega_x", "omega_y", "omega_z",
           "energy", "angular_momentum_z", "lambda_x", "lambda_y", "lambda_z") + ROTATION + BODY_VELOCITY \
    + BODY_MULTIPLIER
LAMBDA, ROTATION_START, BODY_VELOCITY_START, BODY_MULTIPLIER_START = 11, 14, 23, 26


@kernel
def heavy_top_constrained_outputs(sys, q, v, lam, t):
    out = np.empty(29)
    top_outputs(sys, q, v, out)
    n = lam.shape[0]
    R, _ = body_pose(sys, 0, q)
    joint = sys.joint_int.shape[0] - 1
    if sys.joint_int[joint, J_TYPE] == BODY_FRAME_POINT:
        out[LAMBDA:LAMBDA + 3] = -mat3_vec(R, lam[n - 3:n])
    else:
        out[LAMBDA:LAMBDA + 3] = lam[n - 3:n]
    for r in range(3):
        for c in range(3):
            out[ROTATION_START + 3 * r + c] = R[r, c]
    for c in range(3):
        out[BODY_VELOCITY_START + c] = R[0, c] * out[3] + R[1, c] * out[4] + R[2, c] * out[5]
        out[BODY_MULTIPLIER_START + c] = -(R[0, c] * out[LAMBDA] + R[1, c] * out[LAMBDA + 1]
                                           + R[2, c] * out[LAMBDA + 2])
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
    if constraint_form(params) == "body":
        builder.add_spherical_joint_body_frame(body, -com)
    else:
        builder.add_spherical_joint(body, -com)
    R0 = exp_so3(psi0)
    rotation, rates = initial_rotation_state("RV" if formulation == "SE3" else formulation, psi0, omega0)
    u0 = np.cross(omega0, com) if formulation == "SE3" else R0 @ np.cross(omega0, com)
    q0 = np.concatenate([R0 @ com, rotation])
    v0 = np.concatenate([u0, rates])
    return BuiltModel(builder.build(), q0, v0, heavy_top_constrained_outputs, OUTPUTS)


MODEL = Model(
    name="heavy_top_constrained",
    description="heavy top as a free body with a spherical joint at the fixed point (paper 000 Sect. 4.1.2)",
    defaults={**DEFAULTS, "constraint_form": "global"},
    formulations=["RV", "Rxyz", "EP", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={"com": ["com_x", "com_y", "com_z"], "vcom": ["vcom_x", "vcom_y", "vcom_z"],
                   "omega": ["omega_x", "omega_y", "omega_z"], "lambda": ["lambda_x", "lambda_y", "lambda_z"],
                   "lambda_body": list(BODY_MULTIPLIER), "rotation": list(ROTATION),
                   "body_velocity": list(BODY_VELOCITY),
                   # paper 002 Figs. 6, 8, 11: q = (R, x), v = (Omega, x') in the same physical quantities
                   # for R3 x SO(3) and SE(3)
                   "q": ["com_x", "com_y", "com_z", *ROTATION],
                   "v": ["omega_x", "omega_y", "omega_z", "vcom_x", "vcom_y", "vcom_z"]},
    builder=build,
    conservative=True,
    sources="paper 000 Table 3; paper 002 Sect. 2.4 (same data, constraint X - R^T x = 0)",
)
