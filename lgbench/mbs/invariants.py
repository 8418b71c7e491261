"""Invariants of a state: kinetic and potential energy, angular momentum (for outputs and checks)."""
import numpy as np

from lgbench._compiled import kernel
from lgbench.mbs.chain import chain_kinetic_energy, chain_potential_energy
from lgbench.mbs.codes import (
    CONSTANT, FREE, F_BODY, F_OTHER, F_TYPE, GRAVITY, GRAVITY_ACCELERATION, JOINT_PD, LINE_POINT1, LINE_POINT2,
    LINE_REST_LENGTH, LINE_SPRING_DAMPER, LINE_STIFFNESS, PD_KP, PD_SETPOINT, PD_SETPOINT_KIND, POINT_SPRING_DAMPER,
    SPRING_BODY_POINT, SPRING_GROUND_POINT, SPRING_STIFFNESS,
)
from lgbench.mbs.dense import cross, mat3_vec
from lgbench.mbs.loads import joint_angle
from lgbench.mbs.pose import body_com, body_point_motion, body_state
from lgbench.mbs.system import B_INERTIA, B_KIND, B_MASS, GROUND


@kernel
def kinetic_energy(sys, q, v):
    e = 0.0
    for i in range(sys.body_int.shape[0]):
        R, x, u, omega = body_state(sys, i, q, v)
        J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
        e += 0.5 * (omega @ mat3_vec(J, omega))
        if sys.body_int[i, B_KIND] == FREE:
            e += 0.5 * sys.body_real[i, B_MASS] * (u @ u)
    return e + chain_kinetic_energy(sys, q, v)


@kernel
def potential_energy(sys, q, v):
    """Potential of the conservative loads (gravity, springs: per axis to ground, along a line, and about a
    revolute joint's axis: a JOINT_PD element with a constant set point, kp (phi - phi_d)^2 / 2)."""
    e = 0.0
    for k in range(sys.force_int.shape[0]):
        i = sys.force_int[k, F_BODY]
        p = sys.force_real[k]
        if sys.force_int[k, F_TYPE] == GRAVITY:
            xc, _ = body_com(sys, i, q, v)
            e -= sys.body_real[i, B_MASS] * (p[GRAVITY_ACCELERATION:GRAVITY_ACCELERATION + 3] @ xc)
        elif sys.force_int[k, F_TYPE] == POINT_SPRING_DAMPER:
            position, _ = body_point_motion(sys, i, q, v, p[SPRING_BODY_POINT:SPRING_BODY_POINT + 3])
            for j in range(3):
                e += 0.5 * p[SPRING_STIFFNESS + j] * (position[j] - p[SPRING_GROUND_POINT + j]) ** 2
        elif sys.force_int[k, F_TYPE] == LINE_SPRING_DAMPER:
            first, _ = body_point_motion(sys, i, q, v, p[LINE_POINT1:LINE_POINT1 + 3])
            other = sys.force_int[k, F_OTHER]
            second = p[LINE_POINT2:LINE_POINT2 + 3].copy()
            if other != GROUND:
                second, _ = body_point_motion(sys, other, q, v, second)
            e += 0.5 * p[LINE_STIFFNESS] * (np.linalg.norm(first - second) - p[LINE_REST_LENGTH]) ** 2
        elif sys.force_int[k, F_TYPE] == JOINT_PD and int(p[PD_SETPOINT_KIND]) == CONSTANT:
            phi, _, _ = joint_angle(sys, k, q, v, 0.0)
            e += 0.5 * p[PD_KP] * (phi - p[PD_SETPOINT]) ** 2
    return e + chain_potential_energy(sys, q, v)


@kernel
def angular_momentum(sys, q, v):
    """Total angular momentum about the global origin, in the global frame."""
    L = np.zeros(3)
    for i in range(sys.body_int.shape[0]):
        R, x, u, omega = body_state(sys, i, q, v)
        J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
        L += mat3_vec(R, mat3_vec(J, omega))
        if sys.body_int[i, B_KIND] == FREE:
            L += sys.body_real[i, B_MASS] * cross(x, u)
    return L

