"""Puma 560 robot: six revolute joints, PD joint controllers tracking point-to-point motions.

Paper 000 Sect. 4.4 (eq. 45, Tables 9 and 10, Figs. 19-21). Formulation "Min": minimal (joint)
coordinates with the chain kernels of ``lgbench.mbs.chain`` (RNEA for the bias forces, CRBA for the
mass matrix). The absolute-coordinate formulations (free bodies + revolute joints) reuse the
Python helpers ``dh_links``, ``link_frames``, ``joint_axes`` and ``link_inertial`` below.

Sources of every number (``DEFAULTS``):
- Kinematics and link inertial data: P. Corke's Robotics Toolbox (roboticstoolbox-python 1.5.0,
  ``models.DH.Puma560``; Corke & Armstrong-Helouvry, ICRA 1994), as collected in
  /work/shared/data/puma560.json: standard DH parameters d, a, alpha (offsets 0), link masses,
  centres of mass and inertias about the centre of mass in the DH link frame i; motor inertia,
  gearing and friction are not modelled (Jm = 0, G = 1, B = 0, Tc = 0). d_1 = 0.67183 m is the
  pedestal height of rtb >= 1.0 (no effect on the joint dynamics).
- Link 1: m_1 = 0 and I_1 = diag(0, 0.35, 0) about its centre of mass, which lies on joint axis 1
  (rtb data, used unchanged). In joint coordinates only its inertia about joint axis 1 (0.35 kg m^2,
  the link-frame y axis) enters, so the singular link inertia is harmless here; its mass and the
  other two inertia components have no effect on the joint dynamics (an absolute-coordinate model
  may regularise them freely, e.g. exudyn's m_1 = 20 kg, without changing the motion).
- Gravity [0, 0, -9.81] m/s^2 (paper 000 Sect. 4.4: 9.81 in the negative z direction).
- PD gains Kp, Kd: paper 000 Table 10. Law tau_i = Kp_i (phi_d,i - phi_i) + Kd_i (phi_d,i' - phi_i'),
  a joint spring-damper with a moving rest position (the paper: "a PD controller, which is
  implemented in the simulation model as a spring-damper element"); no feed-forward torque, no
  gravity compensation.
- Motion: phi_init of eq. (45); constant joint accelerations a of Table 9 up to t_switch = 0.5 s
  and -a after it (``trajectories.BANG_BANG``). Default a = 4 phi^Goal / (1 s)^2 with phi^Goal the
  right-hand vector of eq. (45) in radians; Table 9 prints these values rounded to 4 decimals
  (-8.3776, 4.1888, -13.9626, 6.2832, 6.2832, 3.1416). Note: with these accelerations the joints
  move BY phi^Goal (a t_switch^2 = phi^Goal), i.e. they come to rest at phi_init + phi^Goal =
  [-120, 82.5, -110, 90, 112.5, 45] deg; this equals eq. (45)'s phi^Goal only for joints 1, 4 and 6
  (phi_init = 0). Eq. (45) read as absolute goal angles would need a = 4 (phi^Goal - phi_init) =
  [-8.3776, 2.6180, -20.9440, 6.2832, 4.7124, 3.1416] rad/s^2, which contradicts Table 9 for joints
  2, 3 and 5. lgbench follows Table 9 (the accelerations the paper says it used); override
  ``acceleration`` to study the other reading.
- Parameter ``constraint_form`` (absolute coordinates): the revolute joints' point rows in global
  components or in the link's frame (``SystemBuilder``).
"""
from __future__ import annotations

import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.mbs.assembly import assemble_positions
from lgbench.mbs.chain import (
    chain_kinetic_energy, chain_link_frame, chain_mass_matrix_rows, chain_potential_energy, chain_setpoint,
)
from lgbench.mbs.chain_builder import add_chain, ChainLink, dh_frames
from lgbench.mbs.codes import BANG_BANG, FREE, GRAVITY
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.invariants import kinetic_energy, potential_energy
from lgbench.mbs.loads import joint_angle, setpoint
from lgbench.mbs.pose import body_pose
from lgbench.mbs.system import GROUND, SystemBuilder
from lgbench.models.base import BuiltModel, Model, constraint_form, positive_scalar, vector3

N_JOINTS = 6
PHI_GOAL_EQ45_DEG = (-120.0, 60.0, -200.0, 90.0, 90.0, 45.0)   # paper 000 eq. (45), right-hand vector
TABLE9_ACCELERATION = (-8.3776, 4.1888, -13.9626, 6.2832, 6.2832, 3.1416)   # paper 000 Table 9 (printed)

DEFAULTS = {
    # standard DH (rtb Puma560): T_{i-1,i} = Rz(q_i + offset_i) Tz(d_i) Tx(a_i) Rx(alpha_i)
    "dh_d": [0.67183, 0.0, 0.15005, 0.4318, 0.0, 0.0],
    "dh_a": [0.0, 0.4318, 0.0203, 0.0, 0.0, 0.0],
    "dh_alpha": [math.pi / 2, 0.0, -math.pi / 2, math.pi / 2, -math.pi / 2, 0.0],
    "dh_offset": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    # link masses (kg), centres of mass (m) and principal inertias about them (kg m^2), DH link frame
    "mass": [0.0, 17.4, 4.8, 0.82, 0.34, 0.09],
    "com_x": [0.0, -0.3638, -0.0203, 0.0, 0.0, 0.0],
    "com_y": [0.0, 0.006, -0.0141, 0.019, 0.0, 0.0],
    "com_z": [0.0, 0.2275, 0.07, 0.0, 0.0, 0.032],
    "inertia_xx": [0.0, 0.13, 0.066, 0.0018, 0.0003, 0.00015],
    "inertia_yy": [0.35, 0.524, 0.086, 0.0013, 0.0004, 0.00015],
    "inertia_zz": [0.0, 0.539, 0.0125, 0.0018, 0.0003, 4e-05],
    "gravity": [0.0, 0.0, -9.81],
    # paper 000 Table 10
    "kp": [40000.0, 40000.0, 40000.0, 100.0, 100.0, 10.0],
    "kd": [400.0, 400.0, 100.0, 1.0, 1.0, 0.1],
    # paper 000 eq. (45) and Table 9 (see the module docstring)
    "phi_init_deg": [0.0, 22.5, 90.0, 0.0, 22.5, 0.0],
    "acceleration": [4.0 * math.radians(x) for x in PHI_GOAL_EQ45_DEG],
    "t_switch": 0.5,
    "constraint_form": "global",   # absolute coordinates only (SystemBuilder)
}

PHI = tuple(f"phi_{k}" for k in range(1, N_JOINTS + 1))
OUTPUTS = PHI + ("ee_x", "ee_y", "ee_z", "energy", "tracking_error")


def _six(params: dict, key: str, nonnegative: bool = False) -> np.ndarray:
    try:
        value = np.asarray(params[key], dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"must be a list of {N_JOINTS} numbers, got {params[key]!r}", field=f"params.{key}") from None
    if value.shape != (N_JOINTS,) or not np.all(np.isfinite(value)):
        raise InputError(f"must be a list of {N_JOINTS} finite numbers, got {params[key]!r}", field=f"params.{key}")
    if nonnegative and np.any(value < 0.0):
        raise InputError(f"must be non-negative, got {value.tolist()}", field=f"params.{key}")
    return value


def dh_links(params: dict) -> list[ChainLink]:
    """The six links of the robot (DH, inertial data, PD gains, set-points) from model parameters."""
    d, a, alpha, offset = (_six(params, k) for k in ("dh_d", "dh_a", "dh_alpha", "dh_offset"))
    mass = _six(params, "mass", nonnegative=True)
    com = np.stack([_six(params, k) for k in ("com_x", "com_y", "com_z")], axis=1)
    inertia = np.stack([_six(params, k, nonnegative=True) for k in ("inertia_xx", "inertia_yy", "inertia_zz")],
                       axis=1)
    kp = _six(params, "kp", nonnegative=True)
    kd = _six(params, "kd", nonnegative=True)
    phi0 = np.radians(_six(params, "phi_init_deg"))
    acc = _six(params, "acceleration")
    t_switch = positive_scalar(params, "t_switch")
    return [ChainLink(a=a[i], alpha=alpha[i], d=d[i], offset=offset[i], joint="revolute", mass=mass[i],
                      com=tuple(com[i]), inertia=tuple(map(tuple, np.diag(inertia[i]))), kp=kp[i], kd=kd[i],
                      trajectory=(BANG_BANG, phi0[i], acc[i], t_switch))
            for i in range(N_JOINTS)]


def initial_angles(params: dict) -> np.ndarray:
    """phi_init (rad), eq. (45)."""
    return np.radians(_six(params, "phi_init_deg"))


def goal_angles(params: dict) -> np.ndarray:
    """Rest angles of the prescribed motion after 2 t_switch: phi_init + a t_switch^2 (rad)."""
    t_switch = positive_scalar(params, "t_switch")
    return initial_angles(params) + _six(params, "acceleration") * t_switch ** 2


def link_frames(links: list[ChainLink], theta) -> list[tuple[np.ndarray, np.ndarray]]:
    """Global (R_i, origin_i) of DH frames 1..6 (the link frames) at joint angles theta."""
    return dh_frames(links, np.asarray(theta, dtype=float))


def joint_axes(links: list[ChainLink], theta) -> list[tuple[np.ndarray, np.ndarray]]:
    """Global (point, unit axis) of joints 1..6: joint i turns about z_{i-1} through origin_{i-1}."""
    frames = [(np.eye(3), np.zeros(3))] + link_frames(links, theta)[:-1]
    return [(origin.copy(), R[:, 2].copy()) for R, origin in frames]


def link_inertial(links: list[ChainLink], theta=None):
    """Per link (mass, centre of mass, inertia about it): in the link frame if theta is None, else global."""
    result = []
    frames = None if theta is None else link_frames(links, theta)
    for i, link in enumerate(links):
        com = np.asarray(link.com, dtype=float)
        inertia = np.asarray(link.inertia, dtype=float)
        if frames is not None:
            R, origin = frames[i]
            com, inertia = origin + R @ com, R @ inertia @ R.T
        result.append((float(link.mass), com, inertia))
    return result


@kernel
def puma_outputs(sys, q, v, lam, t):
    """phi_1..phi_6, origin of DH frame 6 (wrist centre / flange), total energy (kinetic + gravity),
    Euclidean norm of phi - phi_d(t)."""
    out = np.empty(11)
    err = 0.0
    for i in range(6):
        phi = q[sys.chain_int[i, 0]]
        out[i] = phi
        phi_d, _, _ = chain_setpoint(sys, i, t)
        err += (phi - phi_d) ** 2
    _, origin = chain_link_frame(sys, q, 5)
    out[6:9] = origin
    out[9] = chain_kinetic_energy(sys, q, v) + chain_potential_energy(sys, q, v)
    out[10] = math.sqrt(err)
    return out


LINK1_REGULARISED_MASS = 20.0
"""Link 1 has zero mass and inertia diag(0, 0.35, 0) in Corke's data; its centre of mass lies on
joint axis 1, so in absolute coordinates it gets this mass and 0.35 kg m^2 about all three axes: only
the inertia about joint axis 1 (0.35, link-frame y) enters the joint motion (as in exudyn's model).
Its potential energy adds a constant 20 * 9.81 * d_1 = 131.8 J to the absolute models' energy."""


WRIST_JOINT_ROW = 15
"""joint_int row of joint 6's coincident-point primitive (3 primitives per revolute joint); its
body-1 point (in link 6) is the origin of DH frame 5 = origin of DH frame 6 (d_6 = a_6 = 0)."""


@kernel
def puma_absolute_outputs(sys, q, v, lam, t):
    """As ``puma_outputs`` for the absolute-coordinate model: joint angles from the PD elements."""
    out = np.empty(11)
    err = 0.0
    first = sys.force_int.shape[0] - 6
    for i in range(6):
        phi, _, _ = joint_angle(sys, first + i, q, v, t)
        phi_d, _, _ = setpoint(sys.force_real[first + i], t)
        out[i] = phi
        err += (phi - phi_d) ** 2
    R6, x6 = body_pose(sys, 5, q)
    out[6:9] = x6 + R6 @ sys.joint_real[WRIST_JOINT_ROW, 0:3]
    out[9] = kinetic_energy(sys, q, v) + potential_energy(sys, q, v)
    out[10] = math.sqrt(err)
    return out


def build_absolute(formulation: str, params: dict, links: list[ChainLink], gravity: np.ndarray) -> BuiltModel:
    """Six free bodies on the DH link frames (reference point = centre of mass), revolute joint i about
    z_{i-1} through origin_{i-1}, and a PD element per joint whose zero angle is x_{i-1} = x_i (so
    that the measured angle is the DH joint angle theta_i)."""
    theta0 = initial_angles(params)
    frames = link_frames(links, theta0)
    kp, kd = _six(params, "kp", nonnegative=True), _six(params, "kd", nonnegative=True)
    acceleration, t_switch = _six(params, "acceleration"), positive_scalar(params, "t_switch")
    builder = SystemBuilder(constraint_form(params))
    bodies, centres = [], []
    for i, (mass, com, inertia) in enumerate(link_inertial(links)):
        if mass <= 0.0:
            mass, inertia = LINK1_REGULARISED_MASS, np.diag([inertia[1, 1]] * 3)
        bodies.append(builder.add_body(FREE, formulation, mass, inertia, name=f"link {i + 1}"))
        centres.append(frames[i][1] + frames[i][0] @ com)
        builder.add_force(GRAVITY, bodies[-1], gravity)
    previous = [(np.eye(3), np.zeros(3))] + frames[:-1]
    for i, body in enumerate(bodies):
        R_prev, origin = previous[i]
        R_i = frames[i][0]
        parent = GROUND if i == 0 else bodies[i - 1]
        # joint data of the parent side: global for ground, else in the parent's (link i-1) frame
        parent_point = origin if i == 0 else R_prev.T @ (origin - centres[i - 1])
        builder.add_revolute_joint(body, R_i.T @ (origin - centres[i]), R_i.T @ R_prev[:, 2],
                                   parent, parent_point, [0.0, 0.0, 1.0] if i else R_prev[:, 2])
    for i, body in enumerate(bodies):
        builder.add_joint_pd_controller(GROUND if i == 0 else bodies[i - 1], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0],
                                        body, [1.0, 0.0, 0.0], kp[i], kd[i], BANG_BANG,
                                        [theta0[i], acceleration[i], t_switch])
    system = builder.build()
    blocks = [free_body_coordinates(formulation, centres[i], frames[i][0], np.zeros(3), np.zeros(3))
              for i in range(6)]
    q0 = assemble_positions(system, np.concatenate([b[0] for b in blocks]))
    v0 = np.concatenate([b[1] for b in blocks])
    return BuiltModel(system, q0, v0, puma_absolute_outputs, OUTPUTS)


def build(formulation: str, params: dict) -> BuiltModel:
    links = dh_links(params)
    gravity = vector3(params, "gravity")
    if formulation != "Min":
        return build_absolute(formulation, params, links, gravity)
    builder = SystemBuilder()
    coordinates = add_chain(builder, links, gravity=gravity)
    system = builder.build()
    q0 = np.zeros(builder.nq)
    q0[coordinates] = initial_angles(params)
    v0 = np.zeros(builder.nv)
    eigenvalues = np.linalg.eigvalsh(chain_mass_matrix_rows(system, q0))
    if not eigenvalues.min() > 1e-12 * max(eigenvalues.max(), 1e-300):
        raise InputError("the joint-space mass matrix is singular at phi_init (every joint needs inertia "
                         f"about its axis); eigenvalues {eigenvalues.tolist()}", field="params.mass")
    return BuiltModel(system, q0, v0, puma_outputs, OUTPUTS)


MODEL = Model(
    name="puma560",
    description="Puma 560, 6 revolute joints with PD controllers tracking constant-acceleration "
                "point-to-point motions (paper 000 Sect. 4.4, eq. 45, Tables 9 and 10)",
    defaults=DEFAULTS,
    formulations=["Min", "RV", "Rxyz", "EP", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={"phi": list(PHI), "ee": ["ee_x", "ee_y", "ee_z"]},
    builder=build,
    conservative=False,
    sources="Corke's Robotics Toolbox Puma560 (standard DH, Corke & Armstrong-Helouvry 1994; motor data "
            "dropped); paper 000 eq. (45), Tables 9 and 10",
)
