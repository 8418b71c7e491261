"""V8 crank drive: crankshaft, 8 connecting rods, 8 pistons (paper 004 Sect. 10.2).

Paper 004 gives the structure (17 rigid bodies; with Euler parameters 119 coordinates and 118
constraints; crankshaft accelerated about x by a torque) but neither geometry, masses nor the torque
profile. lgbench's choices, typical of a 4-5 litre passenger-car V8 (all SI units):
- 90 degree V, banks at +-45 degrees from z in the y-z plane, crankshaft axis x;
- cross-plane crankshaft with 4 pins at 0, 90, 270, 180 degrees (firing-order layout 1-8-4-3-6-5-7-2
  family), pin spacing 0.1 m, crank radius 0.043 m (stroke 86 mm), each pin shared by one conrod of
  each bank, the two big ends 0.0125 m either side of the pin centre;
- conrod length 0.15 m, mass 0.6 kg, centre of mass 0.045 m from the big end, inertia about its
  centre of mass diag(2e-4, 1.6e-3, 1.5e-3) kg m^2 (rod frame: x along the rod, y = crank axis);
- piston (with pin) mass 0.5 kg, inertia diag(6e-4, 5e-4, 5e-4) kg m^2, centre of mass at the pin;
- crankshaft (with flywheel and counterweights, balanced: centre of mass on its axis) mass 20 kg,
  inertia diag(0.15, 0.5, 0.5) kg m^2 about its centre of mass;
- gravity 9.81 m/s^2 along -z; initial crankshaft speed 100 rad/s; drive torque about x ramped from
  0 to 200 N m over 0.05 s, then constant.
Joints (non-redundant): crankshaft revolute to ground (5 rows); per conrod a spherical joint at the
big end (3) and a universal joint at the piston pin (4: pin axis x in the piston, rod-fixed axis
normal to the rod and to x); per piston a prismatic joint to ground along its cylinder (5). With EP:
17 x 7 = 119 coordinates, 17 norm + 101 joint = 118 constraints, one degree of freedom. Parameter
``constraint_form``: the point rows in global components or in body 1's frame (``SystemBuilder``).
Positions are computed from the crank angle (closed form), velocities projected with the crank
speed kept. Outputs: crank angle (about x, wrapped), crank rate, the 8 piston strokes (distance of
the piston pin from the crank axis along its cylinder), energy, drive power (its time integral is
the work that closes the energy balance).
"""
from __future__ import annotations

import numpy as np

from lgbench.exceptions import InputError

from lgbench._compiled import kernel
from lgbench.mbs.assembly import assemble_positions, project_velocities
from lgbench.mbs.codes import FREE, GRAVITY, SCHEDULE_RAMP_TIME, TORQUE, TORQUE_SCHEDULE
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.invariants import kinetic_energy, potential_energy
from lgbench.mbs.loads import ramp_factor
from lgbench.mbs.pose import body_pose, body_state
from lgbench.mbs.system import B_NV, B_VSTART, GROUND, SystemBuilder
from lgbench.models.base import BuiltModel, Model, constraint_form, positive_scalar, vector3

DEFAULTS = {
    "crank_radius": 0.043,
    "rod_length": 0.15,
    "pin_spacing": 0.1,
    "big_end_offset": 0.0125,
    "rod_com_from_big_end": 0.045,
    "crankshaft_mass": 20.0,
    "crankshaft_inertia": [0.15, 0.5, 0.5],
    "rod_mass": 0.6,
    "rod_inertia": [2e-4, 1.6e-3, 1.5e-3],
    "piston_mass": 0.5,
    "piston_inertia": [6e-4, 5e-4, 5e-4],
    "gravity": [0.0, 0.0, -9.81],
    "initial_speed": 100.0,
    "torque": 200.0,
    "torque_ramp": 0.05,
    "constraint_form": "global",
}

PIN_ANGLES = np.radians([0.0, 90.0, 270.0, 180.0])   # cross-plane crankshaft
BANK_ANGLE = np.radians(45.0)
N_CYLINDERS = 8
OUTPUTS = (("crank_angle", "crank_rate") + tuple(f"piston_{k + 1}" for k in range(N_CYLINDERS))
           + ("energy", "drive_power"))
DRIVE_FORCE = 17
"""Index of the drive-torque element (after the 17 gravity elements)."""


def cylinder_layout(params: dict):
    """Per cylinder: big-end point on the crankshaft (crank frame, relative to the crank axis
    origin), cylinder axis (unit, global) and the x position of the cylinder."""
    r = positive_scalar(params, "crank_radius")
    spacing = positive_scalar(params, "pin_spacing")
    offset = positive_scalar(params, "big_end_offset")
    layout = []
    for pin, angle in enumerate(PIN_ANGLES):
        for side in (-1.0, 1.0):
            x = pin * spacing + side * offset
            big_end = np.array([x, r * np.cos(angle), r * np.sin(angle)])
            axis = np.array([0.0, side * np.sin(BANK_ANGLE), np.cos(BANK_ANGLE)])
            layout.append((big_end, axis, x))
    return layout


def piston_stroke(big_end: np.ndarray, axis: np.ndarray, x: float, rod: float) -> float:
    """Distance s of the piston pin from the crank axis along the cylinder: |x e_x + s axis - B| = rod."""
    relative = big_end - np.array([x, 0.0, 0.0])
    along = relative @ axis
    across = relative - along * axis
    reach = rod ** 2 - across @ across
    if reach < 0.0:
        raise InputError(f"a connecting rod of {rod:g} m cannot reach the cylinder axis from the crank pin "
                         f"({np.sqrt(across @ across):g} m away)", field="params.rod_length")
    return along + np.sqrt(reach)


@kernel
def v8_outputs(sys, q, v, lam, t):
    out = np.empty(12)
    R, _ = body_pose(sys, 0, q)
    _, _, _, omega = body_state(sys, 0, q, v)
    out[0] = np.arctan2(R[2, 1], R[1, 1])
    out[1] = omega[0]
    for k in range(8):
        _, x = body_pose(sys, 9 + k, q)
        side = -1.0 if k % 2 == 0 else 1.0
        out[2 + k] = side * np.sin(np.pi / 4) * x[1] + np.cos(np.pi / 4) * x[2]
    out[10] = kinetic_energy(sys, q, v) + potential_energy(sys, q, v)
    p = sys.force_real[DRIVE_FORCE]
    # power of the drive torque (body frame)
    out[11] = ramp_factor(p[TORQUE_SCHEDULE + SCHEDULE_RAMP_TIME], t) * (p[TORQUE:TORQUE + 3] @ omega)
    return out


def build(formulation: str, params: dict) -> BuiltModel:
    rod_length = positive_scalar(params, "rod_length")
    rod_com = positive_scalar(params, "rod_com_from_big_end")
    gravity = vector3(params, "gravity")
    layout = cylinder_layout(params)
    spacing = float(params["pin_spacing"])
    crank_com = np.array([1.5 * spacing, 0.0, 0.0])
    builder = SystemBuilder(constraint_form(params))
    crank = builder.add_body(FREE, formulation, positive_scalar(params, "crankshaft_mass"),
                             vector3(params, "crankshaft_inertia"), name="crankshaft")
    rods = [builder.add_body(FREE, formulation, positive_scalar(params, "rod_mass"),
                             vector3(params, "rod_inertia"), name=f"conrod {k + 1}") for k in range(N_CYLINDERS)]
    pistons = [builder.add_body(FREE, formulation, positive_scalar(params, "piston_mass"),
                                vector3(params, "piston_inertia"), name=f"piston {k + 1}") for k in range(N_CYLINDERS)]
    for body in [crank] + rods + pistons:
        builder.add_force(GRAVITY, body, gravity)
    torque = float(params["torque"])
    builder.add_timed_torque(crank, [torque, 0.0, 0.0], body_frame=True, ramp_time=float(params["torque_ramp"]))
    builder.add_revolute_joint(crank, -crank_com, [1.0, 0.0, 0.0], GROUND, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    poses = []
    for k, (big_end, axis, x) in enumerate(layout):
        stroke = piston_stroke(big_end, axis, x, rod_length)
        pin = np.array([x, 0.0, 0.0]) + stroke * axis
        along = (pin - big_end) / rod_length
        frame = np.column_stack([along, [1.0, 0.0, 0.0], np.cross(along, [1.0, 0.0, 0.0])])
        rod_x = big_end + rod_com * along
        poses.append((rod_x, frame, pin))
        builder.add_spherical_joint(crank, big_end - crank_com, rods[k], [-rod_com, 0.0, 0.0])
        builder.add_universal_joint(pistons[k], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], rods[k],
                                    [rod_length - rod_com, 0.0, 0.0], [0.0, 0.0, 1.0])
        builder.add_prismatic_joint(GROUND, [x, 0.0, 0.0], axis, pistons[k], [0.0, 0.0, 0.0])
    system = builder.build()
    omega = np.array([float(params["initial_speed"]), 0.0, 0.0])
    blocks = [free_body_coordinates(formulation, crank_com, np.eye(3), np.zeros(3), omega)]
    blocks += [free_body_coordinates(formulation, x, R, np.zeros(3), np.zeros(3)) for x, R, _ in poses]
    blocks += [free_body_coordinates(formulation, pin, np.eye(3), np.zeros(3), np.zeros(3)) for _, _, pin in poses]
    q0 = assemble_positions(system, np.concatenate([b[0] for b in blocks]))
    v0 = np.concatenate([b[1] for b in blocks])
    start, count = int(system.body_int[crank, B_VSTART]), int(system.body_int[crank, B_NV])
    v0 = project_velocities(system, q0, v0, keep=list(range(start, start + count)))
    return BuiltModel(system, q0, v0, v8_outputs, OUTPUTS)


MODEL = Model(
    name="v8_crank",
    description="V8 crank drive: crankshaft, 8 conrods, 8 pistons, torque-driven (paper 004 Sect. 10.2)",
    defaults=DEFAULTS,
    formulations=["RV", "Rxyz", "EP", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={"pistons": [f"piston_{k + 1}" for k in range(N_CYLINDERS)]},
    builder=build,
    conservative=False,
    sources="structure from paper 004 Sect. 10.2; geometry, masses and torque chosen by lgbench (docstring)",
)
