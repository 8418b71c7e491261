"""Rotation formulations of a rigid-body node: codes used by the compiled kernels, and their names.

| name    | rotation coordinates | rotational velocity | update | paper 000 |
|---------|----------------------|---------------------|--------|-----------|
| RV      | rotation vector psi  | omega (body)        | Lie group (UAC, Alg. 1) | Sect. 2.2, 3 |
| Rxyz    | Tait-Bryan xyz       | theta'              | additive | formulation 2, eq. (13)-(14) |
| F1      | Tait-Bryan xyz       | omega (body)        | additive, theta' = G^-1 omega | formulation 1, eq. (11) |
| EP-F1   | Euler parameters     | omega (body)        | additive, e' = L^T omega / 2 | formulation 1 |
| EP      | Euler parameters     | e'                  | additive, with e.e = 1 as constraint | formulation 2 |
| SE3     | rotation vector psi  | omega (body)        | Lie group on SE(3): (R, x) o exp_SE3([U, omega]) | paper 002 Sect. 2, eq. (22) |

An SE3 node is a FREE body whose translational velocity is U = R^T x' (body frame, paper 002 eq. 3)
instead of the global x' of all other formulations.

In every formulation the body angular velocity is omega = W(rho) w for the rotational velocity
coordinates w: W = I (RV, F1, EP-F1), G(theta) (Rxyz), 2 L(e) (EP).
"""
from lgbench.mbs.codes import EP, EP_F1, F1, RV, RXYZ, SE3

FORMULATION_CODES = {"RV": RV, "Rxyz": RXYZ, "F1": F1, "EP-F1": EP_F1, "EP": EP, "SE3": SE3}

FORMULATIONS = {
    "RV": "rotation vector on R3xSO(3), Lie group update (RKMK / Lie group generalized-alpha)",
    "Rxyz": "Tait-Bryan xyz angles, classical formulation 2 (velocities = angle rates)",
    "F1": "Tait-Bryan xyz angles, classical formulation 1 (angular velocity as velocity; explicit only)",
    "EP-F1": "Euler parameters, classical formulation 1 (angular velocity as velocity; explicit only)",
    "EP": "Euler parameters, classical formulation 2 with the unit-length constraint (implicit and -index1 integrators)",
    "SE3": "rotation vector on SE(3), body-frame translational velocity, Lie group update (paper 002)",
    "Min": "minimal (joint) coordinates of serial chains: CRBA mass matrix, RNEA bias forces",
}

# Number of rotation coordinates and rotational velocity coordinates per formulation code.
ROTATION_COORDINATES = {RV: 3, RXYZ: 3, F1: 3, EP_F1: 4, EP: 4, SE3: 3}
ROTATION_VELOCITIES = {RV: 3, RXYZ: 3, F1: 3, EP_F1: 3, EP: 4, SE3: 3}
LIE_GROUP = {RV: True, RXYZ: False, F1: False, EP_F1: False, EP: False, SE3: True}

# Formulations usable by explicit RK/RKMK (no algebraic constraint of their own) and by implicit
# second-order integrators (velocity coordinates = coordinate rates, or a Lie group node).
EXPLICIT_FORMULATIONS = ("RV", "Rxyz", "F1", "EP-F1", "Min", "SE3")
IMPLICIT_FORMULATIONS = ("RV", "Rxyz", "EP", "Min", "SE3")
