"""IFToMM spatial slider-crank (paper 000 Sect. 4.3, Table 8).

Bodies (global frame = body frames of crank and slider at t = 0; all data about the centres of mass):
- crank: m = 0.12 kg, J = diag(1e-4, 1e-5, 1e-4) kg m^2, centre of mass at A = [0, 0.1, 0.12] m,
  revolute joint to ground at A about x; crank pin B = A + [0, 0, 0.08] (crank length 0.08 m);
  initial angular velocity [6, 0, 0] rad/s, crank angle theta = 0.
- connecting rod: m = 0.5 kg, J = diag(4e-4, 4e-3, 4e-3) kg m^2 (small inertia about the rod axis =
  body x), centre of mass [0.1, 0.05, 0.1] m = midpoint of B and C, orientation Rxyz
  [-0.46364761, 0.84106867, 0] (body x from B to C, length 0.3 m); velocity [0.12, -0.24, 0] m/s,
  angular velocity [1.92, -0.96, 0.48] rad/s in the global frame.
- slider: m = 2 kg, J = diag(1e-4, 1e-4, 1e-4) kg m^2, centre of mass C = [0.2, 0, 0] m, prismatic
  joint to ground along x; velocity [0.24, 0, 0] m/s.
- spherical joint at B (crank - rod), universal joint at C (slider - rod) with axes x (slider) and
  the rod-fixed axis (0, -2, 1)/sqrt(5) at t = 0, perpendicular to the rod: with these axes the
  Table 8 velocities satisfy all velocity constraints (with global-axis universal joints they
  violate them by 0.48 rad/s, ../shared/STUDIES.md); gravity 9.81 m/s^2 along -z.
Positions are assembled onto Phi = 0 and velocities projected onto B v = 0 (crank rate kept).

Reading of the problem: Table 8 puts the crank's centre of mass at A (on the axis). The total energy
0.76643568 J measured with the paper's code (../shared/STUDIES.md) is reproduced exactly when the
crank's centre of mass sits at the middle of the crank instead (0.04 m from A towards B): parameter
``crank_com_offset`` (default 0, Table 8 as printed, energy 0.71589168 J).
Outputs: slider position s (x of C), crank angle theta (about x, wrapped to (-pi, pi]), energy.
Parameter ``constraint_form``: the joints' point rows in global components ("global", paper 000) or in
body 1's frame ("body", paper 002; ``SystemBuilder``), the same motion.
"""
from __future__ import annotations

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.lie.tait_bryan import rotation_matrix_rxyz
from lgbench.mbs.assembly import assemble_positions, project_velocities
from lgbench.mbs.codes import FREE, GRAVITY
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.invariants import kinetic_energy, potential_energy
from lgbench.mbs.pose import body_pose, body_state
from lgbench.mbs.system import GROUND, SystemBuilder
from lgbench.models.base import BuiltModel, Model, constraint_form, positive_scalar, vector3

DEFAULTS = {
    "crank_mass": 0.12,
    "rod_mass": 0.5,
    "slider_mass": 2.0,
    "crank_inertia": [1e-4, 1e-5, 1e-4],
    "rod_inertia": [4e-4, 4e-3, 4e-3],
    "slider_inertia": [1e-4, 1e-4, 1e-4],
    "crank_rate": 6.0,
    "crank_com_offset": 0.0,
    "gravity": [0.0, 0.0, -9.81],
    "constraint_form": "global",
}

POINT_A = np.array([0.0, 0.1, 0.12])
POINT_B = np.array([0.0, 0.1, 0.2])
POINT_C = np.array([0.2, 0.0, 0.0])
ROD_ANGLES = np.array([-0.46364761, 0.84106867, 0.0])
ROD_VELOCITY = np.array([0.12, -0.24, 0.0])
ROD_OMEGA = np.array([1.92, -0.96, 0.48])
SLIDER_VELOCITY = np.array([0.24, 0.0, 0.0])
UNIVERSAL_ROD_AXIS = np.array([0.0, -2.0, 1.0]) / np.sqrt(5.0)

OUTPUTS = ("slider_position", "crank_angle", "energy", "crank_rate")


@kernel
def slider_crank_outputs(sys, q, v, lam, t):
    out = np.empty(4)
    _, x_slider = body_pose(sys, 2, q)
    R_crank, _ = body_pose(sys, 0, q)
    _, _, _, omega = body_state(sys, 0, q, v)
    out[0] = x_slider[0]
    out[1] = np.arctan2(R_crank[2, 1], R_crank[1, 1])
    out[2] = kinetic_energy(sys, q, v) + potential_energy(sys, q, v)
    out[3] = omega[0]
    return out


def build(formulation: str, params: dict) -> BuiltModel:
    rod_R = rotation_matrix_rxyz(ROD_ANGLES)
    rod_x = 0.5 * (POINT_B + POINT_C)
    try:
        offset = float(params["crank_com_offset"])
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {params['crank_com_offset']!r}", field="params.crank_com_offset") from None
    crank_x = POINT_A + np.array([0.0, 0.0, offset])
    builder = SystemBuilder(constraint_form(params))
    crank = builder.add_body(FREE, formulation, positive_scalar(params, "crank_mass"),
                             vector3(params, "crank_inertia"), name="crank")
    rod = builder.add_body(FREE, formulation, positive_scalar(params, "rod_mass"),
                           vector3(params, "rod_inertia"), name="connecting rod")
    slider = builder.add_body(FREE, formulation, positive_scalar(params, "slider_mass"),
                              vector3(params, "slider_inertia"), name="slider")
    gravity = vector3(params, "gravity")
    for body in (crank, rod, slider):
        builder.add_force(GRAVITY, body, gravity)
    builder.add_revolute_joint(crank, POINT_A - crank_x, [1.0, 0.0, 0.0], GROUND, POINT_A, [1.0, 0.0, 0.0])
    builder.add_spherical_joint(crank, POINT_B - crank_x, rod, rod_R.T @ (POINT_B - rod_x))
    builder.add_universal_joint(slider, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], rod, rod_R.T @ (POINT_C - rod_x),
                                rod_R.T @ UNIVERSAL_ROD_AXIS)
    builder.add_prismatic_joint(GROUND, POINT_C, [1.0, 0.0, 0.0], slider, [0.0, 0.0, 0.0])
    system = builder.build()
    omega_crank = np.array([float(params["crank_rate"]), 0.0, 0.0])
    blocks = [free_body_coordinates(formulation, crank_x, np.eye(3), np.cross(omega_crank, crank_x - POINT_A),
                                    omega_crank),
              free_body_coordinates(formulation, rod_x, rod_R, ROD_VELOCITY, rod_R.T @ ROD_OMEGA),
              free_body_coordinates(formulation, POINT_C, np.eye(3), SLIDER_VELOCITY, np.zeros(3))]
    q0 = assemble_positions(system, np.concatenate([b[0] for b in blocks]))
    v0 = np.concatenate([b[1] for b in blocks])
    crank_rate_index = int(system.body_int[crank, 3]) + 3   # first rotational velocity of the crank
    v0 = project_velocities(system, q0, v0, keep=[crank_rate_index] if formulation in ("RV", "Rxyz", "SE3") else None)
    return BuiltModel(system, q0, v0, slider_crank_outputs, OUTPUTS)


MODEL = Model(
    name="slider_crank",
    description="IFToMM spatial slider-crank: revolute, spherical, universal and prismatic joints (paper 000 Sect. 4.3)",
    defaults=DEFAULTS,
    formulations=["RV", "Rxyz", "EP", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={},
    builder=build,
    conservative=True,
    sources="paper 000 Table 8; universal-joint axes from ../shared/STUDIES.md",
)
