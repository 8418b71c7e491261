"""High-speed rotor on flexible supports (paper 000 Sect. 4.2, Fig. 9, Table 6, eq. 44).

A single rigid disk spins at n = 200000 rpm about its body x axis. It is held by two linear
spring-dampers between body points on the axis and fixed ground points: the left support at the
body point [-L_L, 0, 0] acts in x, y and z, the right support at [L_R, 0, 0] in y and z only
(the axial direction is held once). Gravity acts on the centre of mass, and the constant torque of
eq. (44), t = [0, 0, (L/2 - L_L) m g] with L = L_L + L_R, acts in the global frame.

Numbers and their sources (paper 000 Table 6 unless stated):

| parameter | value | note |
|---|---|---|
| mass | 1.2331 kg | **not** the printed 1.223 kg, see below |
| inertia | diag(0.001541, 0.000812, 0.000812) kg m^2 | about the centre of mass, principal axes = body axes |
| L_L, L_R | 0.11 m, 0.09 m | axial distances of the left / right support from the centre of mass |
| spin_rpm | 200000 rpm | omega = 2 pi n / 60 = 20943.95 rad/s about the body x axis |
| k_L | 4000 N/m in x, y, z | left support |
| k_R | 4000 N/m in y, z | right support (x: 0) |
| d_L | 5.165093 kg/s in x, y, z | d = 2 D omega m with D = 1e-4 and omega the spin speed |
| d_R | 5.165093 kg/s in y, z | right support (x: 0) |
| gravity | [0, -9.81, 0] m/s^2 | magnitude from Table 6; direction: lgbench's choice, see below |

Mass (see ../shared/STUDIES.md, pitfall "Rotor parameters"): the printed values are those of a
steel disk, rho = 7850 kg/m^3, r = 0.05 m, L_r = 0.02 m, with m = rho pi r^2 L_r = 1.2331 kg:
J_xx = m r^2 / 2 = 0.001541, J_yy = J_zz = m (3 r^2 + L_r^2) / 12 = 0.000812 and
d = 2 D omega m = 5.165093 kg/s (omega = spin speed). The printed m = 1.223 kg reproduces none of
them (it gives 0.001529, 0.000805, 5.123), so it is read as a typo and lgbench uses m = 1.2331 kg
with the printed inertias and damping. Every one of them can be overridden on its own (``mass``,
``inertia``, ``stiffness_left``/``_right``, ``damping_left``/``_right``, ``spin_rpm``); they are not
recomputed from each other.

Frame of the torque (eq. 44): global. A body-fixed torque about the body z axis would rotate with
the spin (3333 rev/s) and average out; the paper's torque is a constant load vector (in Exudyn, the
paper's code, a ``Torque`` load is global unless declared body-fixed). Its magnitude
|L/2 - L_L| m g is the moment of the weight about the midpoint between the supports.

Gravity direction and initial state (the paper gives neither). The rotor axis is x; gravity must
be transverse, and since the torque acts about z, gravity is taken along -y so that the weight and
eq. (44) act in the same x-y plane. Read literally (g = +9.81 in eq. 44), the torque then *adds*
to the moment of the weight about the support midpoint (both -0.01 m g about z): the supports
carry 0.4 m g (left) and 0.6 m g (right) at equilibrium, and the equilibrium of the spinning rotor
is tilted by -3.0e-3 rad about z (centre of mass 1.54 mm below the origin, p1 at y = -1.21 mm).
The rotor starts with undeformed springs (no preload): centre of mass at the origin, axis along x,
no translational velocity, angular velocity [omega, 0, 0].
It therefore falls onto its supports (translational modes near 12.8 Hz, decay time ~0.25 s) and,
because the spin makes the tilt gyroscopically stiff, precesses about the tilted equilibrium
instead of tilting into it: p1 = [-L_L, 0, 0] circles in the y-z plane with the precession
frequency of the conical backward-whirl mode,

    omega_p ~ k_theta / (J_xx omega),  k_theta = k_L L_L^2 + k_R L_R^2 - (k_R L_R - k_L L_L)^2 / (k_L + k_R)
            = 80.0 N m / rad,           J_xx omega = 32.27 N m s  ->  omega_p = 2.48 rad/s, T = 2.53 s,

the ~2.5 s (0.4 Hz) of Fig. 10; measured in lgbench (RV, RK44, h = 2e-5, phase of p1 about the
fitted circle centre for t in [0.6, 4] s): 2.54 s, radius 0.30 mm (tests/test_rotor.py). The
precession is hardly damped (decay rate ~ c_theta k_theta / (J_xx omega)^2 = 0.008 1/s). Its
period does not depend on the load; the load sets the radius of the circle. (With g = -9.81 in
eq. 44, i.e. the torque cancelling the moment of the weight, the equilibrium is untilted and the
precession is only excited through the small stiffness coupling k_R L_R - k_L L_L: set ``torque``
to [0, 0, 0.01 m g] to see it.) The nutation (forward-whirl) mode runs at about
J_xx omega / J_yy = 39700 rad/s and is damped within ~0.05 s.

With SE3 nodes (paper 002, issue 21) the translational velocity is U = R^T x' in the body frame; it
is zero at the start, so every node type starts from the same state.

Outputs: p1 (global position of the left-support body point), the centre of mass, the body-frame
angular velocity, ``energy`` = kinetic + gravity + spring potential, and the two powers of the
non-conservative loads, ``torque_power`` = t . omega_global and ``damping_power`` = the rate of
energy dissipated by the dampers (>= 0), so that

    d(energy)/dt = torque_power - damping_power.

The work balance itself (energy - work of the torque + dissipated energy, constant in time) is a
time integral, not a function of the state (q, v), and model outputs are functions of the state
only; it is closed by integrating the two power outputs over a sampled time series (see
tests/test_rotor.py).
"""
from __future__ import annotations

import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.mbs.codes import FREE, F_TYPE, GLOBAL_TORQUE, GRAVITY, POINT_SPRING_DAMPER, SPRING_BODY_POINT, TORQUE
from lgbench.mbs.dense import mat3_vec
from lgbench.mbs.invariants import kinetic_energy, potential_energy
from lgbench.mbs.pose import body_com, body_point_motion, body_state
from lgbench.mbs.system import SystemBuilder
from lgbench.models.base import BuiltModel, Model, positive_scalar, vector3
from lgbench.models.heavy_top import initial_rotation_state

DEFAULTS = {
    "mass": 1.2331,                          # rho pi r^2 L_r (Table 6 prints 1.223, see docstring)
    "inertia": [0.001541, 0.000812, 0.000812],
    "L_L": 0.11,
    "L_R": 0.09,
    "spin_rpm": 200000.0,
    "stiffness_left": [4000.0, 4000.0, 4000.0],
    "stiffness_right": [0.0, 4000.0, 4000.0],
    "damping_left": [5.165093, 5.165093, 5.165093],
    "damping_right": [0.0, 5.165093, 5.165093],
    "gravity": [0.0, -9.81, 0.0],
    "torque": "eq44",                        # or a global torque vector [tx, ty, tz]
    "com0": [0.0, 0.0, 0.0],                 # initial centre of mass (springs unstressed at the origin)
    "psi0": [0.0, 0.0, 0.0],                 # initial orientation (rotation vector)
}

OUTPUTS = ("p1_x", "p1_y", "p1_z", "com_x", "com_y", "com_z", "omega_x", "omega_y", "omega_z",
           "energy", "torque_power", "damping_power")


@kernel
def rotor_outputs(sys, q, v, lam, t):
    out = np.empty(12)
    R, x, u, omega = body_state(sys, 0, q, v)
    omega_global = mat3_vec(R, omega)
    torque_power = 0.0
    damping_power = 0.0
    left = -1
    for k in range(sys.force_int.shape[0]):
        p = sys.force_real[k]
        if sys.force_int[k, F_TYPE] == GLOBAL_TORQUE:
            torque_power += p[TORQUE:TORQUE + 3] @ omega_global
        elif sys.force_int[k, F_TYPE] == POINT_SPRING_DAMPER:
            if left < 0:
                left = k
            _, velocity = body_point_motion(sys, 0, q, v, p[SPRING_BODY_POINT:SPRING_BODY_POINT + 3])
            for j in range(3):
                damping_power += p[3 + j] * velocity[j] * velocity[j]
    # the first spring-damper is the left support; its body point is p1 = [-L_L, 0, 0]
    p1, _ = body_point_motion(sys, 0, q, v, sys.force_real[left, 6:9])
    xc, _ = body_com(sys, 0, q, v)
    out[0:3] = p1
    out[3:6] = xc
    out[6:9] = omega
    out[9] = kinetic_energy(sys, q, v) + potential_energy(sys, q, v)
    out[10] = torque_power
    out[11] = damping_power
    return out


def _nonnegative3(params: dict, key: str) -> np.ndarray:
    value = vector3(params, key)
    if np.any(value < 0.0):
        raise InputError(f"must be non-negative, got {params[key]!r}", field=f"params.{key}")
    return value


def _torque(params: dict, mass: float, L_L: float, L_R: float, gravity: np.ndarray) -> np.ndarray:
    value = params["torque"]
    if isinstance(value, str):
        if value != "eq44":
            raise InputError(f"must be 'eq44' or a list of 3 numbers, got {value!r}", field="params.torque")
        return np.array([0.0, 0.0, (0.5 * (L_L + L_R) - L_L) * mass * float(np.linalg.norm(gravity))])
    return vector3(params, "torque")


def spin_speed(params: dict) -> float:
    """Spin speed in rad/s from ``spin_rpm``."""
    return 2.0 * math.pi * positive_scalar(params, "spin_rpm") / 60.0


def build(formulation: str, params: dict) -> BuiltModel:
    m = positive_scalar(params, "mass")
    inertia = vector3(params, "inertia")
    if np.any(inertia <= 0.0):
        raise InputError(f"must be positive, got {params['inertia']!r}", field="params.inertia")
    L_L = positive_scalar(params, "L_L")
    L_R = positive_scalar(params, "L_R")
    omega = spin_speed(params)
    k_left = _nonnegative3(params, "stiffness_left")
    k_right = _nonnegative3(params, "stiffness_right")
    d_left = _nonnegative3(params, "damping_left")
    d_right = _nonnegative3(params, "damping_right")
    gravity = vector3(params, "gravity")
    torque = _torque(params, m, L_L, L_R, gravity)
    com0 = vector3(params, "com0")
    psi0 = vector3(params, "psi0")

    builder = SystemBuilder()
    body = builder.add_body(FREE, formulation, m, np.diag(inertia), name="rotor")
    builder.add_force(GRAVITY, body, gravity)
    builder.add_point_spring_damper(body, k_left, d_left, (-L_L, 0.0, 0.0), (-L_L, 0.0, 0.0))
    builder.add_point_spring_damper(body, k_right, d_right, (L_R, 0.0, 0.0), (L_R, 0.0, 0.0))
    builder.add_force(GLOBAL_TORQUE, body, torque)
    rotation, rates = initial_rotation_state(formulation, psi0, np.array([omega, 0.0, 0.0]))
    q0 = np.concatenate([com0, rotation])
    v0 = np.concatenate([np.zeros(3), rates])
    return BuiltModel(builder.build(), q0, v0, rotor_outputs, OUTPUTS)


MODEL = Model(
    name="rotor",
    description="high-speed rotor (200000 rpm) on flexible supports with gravity and a constant torque "
                "(paper 000 Sect. 4.2, Table 6, eq. 44)",
    defaults=DEFAULTS,
    formulations=["RV", "Rxyz", "F1", "EP-F1", "EP", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={"p1": ["p1_x", "p1_y", "p1_z"], "com": ["com_x", "com_y", "com_z"],
                   "omega": ["omega_x", "omega_y", "omega_z"]},
    builder=build,
    conservative=False,
    sources="paper 000 Table 6, eq. (44); mass from the steel disk behind Table 6 (STUDIES.md)",
)
