"""Mathematical pendulum in Cartesian coordinates (paper 002 Example 3.2, Fig. 5).

m = l = 1, g = 9.81; constraint (x^2 + y^2 - l^2)/2 = 0, so M = m I, B = (x, y) and
m q'' = -(0, m g) - B^T lambda as in paper 002 eq. (15). The total energy is fixed to
E = m/2 - m g l (the energy of the equilibrium start with unit speed), and the initial state is the
consistent one with horizontal deviation x0, y0 = -sqrt(l^2 - x0^2) and the speed that gives E,
moving in +x at the bottom (velocity tangent to the circle).

Two independent pendulums are integrated side by side, started at x0[0] and x0[1] (default 0 and
0.2, the two curves of Fig. 5), so that one study compares both. Each is a free point-mass body
(a free rigid body whose rotation stays at rest: no torques, omega0 = 0) in the plane z = 0 with a
DISTANCE constraint to the origin; its single multiplier is the paper's lambda. The two share each
Newton iteration, which only couples their stopping test.
"""
from __future__ import annotations

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.mbs.codes import FREE, GRAVITY, GRAVITY_ACCELERATION
from lgbench.mbs.constraints import constraint_matrix, constraint_residual
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.pose import body_state
from lgbench.mbs.system import B_MASS, SystemBuilder
from lgbench.models.base import BuiltModel, Model, positive_scalar

DEFAULTS = {"mass": 1.0, "length": 1.0, "gravity": 9.81, "x0": [0.0, 0.2]}
PER_PENDULUM = ("x", "y", "lambda", "energy", "phi", "bv")
OUTPUTS = tuple(f"{name}_{k}" for k in (1, 2) for name in PER_PENDULUM)


@kernel
def pendulum_outputs(sys, q, v, lam, t):
    """x, y, lambda, energy m|u|^2/2 + m g y, Phi and B v of each pendulum."""
    out = np.empty(12)
    nc = lam.shape[0]
    nv = v.shape[0]
    phi = np.zeros(nc)
    constraint_residual(sys, q, t, phi)
    C = np.zeros((nc, nv))
    constraint_matrix(sys, q, C)
    bv = C @ v
    for k in range(2):
        _, x, u, _ = body_state(sys, k, q, v)
        m = sys.body_real[k, B_MASS]
        g = -sys.force_real[k, GRAVITY_ACCELERATION + 1]
        j = 6 * k
        out[j] = x[0]
        out[j + 1] = x[1]
        out[j + 2] = lam[k]
        out[j + 3] = 0.5 * m * (u @ u) + m * g * x[1]
        out[j + 4] = phi[k]
        out[j + 5] = bv[k]
    return out


def initial_state(x0: float, length: float, gravity: float) -> tuple[np.ndarray, np.ndarray]:
    """Consistent (position, velocity) with E = m/2 - m g l (per unit mass)."""
    if not abs(x0) < length:
        raise InputError(f"|x0| must be below the length {length}, got {x0}", field="params.x0")
    y0 = -np.sqrt(length ** 2 - x0 ** 2)
    speed2 = 1.0 - 2.0 * gravity * (y0 + length)
    if speed2 < 0.0:
        raise InputError(f"x0 = {x0} lies above the turning point of E = m/2 - m g l", field="params.x0")
    tangent = np.array([-y0, x0, 0.0]) / length
    return np.array([x0, y0, 0.0]), np.sqrt(speed2) * tangent


def build(formulation: str, params: dict) -> BuiltModel:
    m = positive_scalar(params, "mass")
    length = positive_scalar(params, "length")
    gravity = positive_scalar(params, "gravity")
    x0 = params["x0"]
    if not isinstance(x0, (list, tuple)) or len(x0) != 2:
        raise InputError(f"must be a list of two initial deviations, got {x0!r}", field="params.x0")
    builder = SystemBuilder()
    q_blocks, v_blocks = [], []
    for k in range(2):
        body = builder.add_body(FREE, formulation, m, np.eye(3), name=f"pendulum {k + 1}")
        builder.add_force(GRAVITY, body, [0.0, -gravity, 0.0])
        position, velocity = initial_state(float(x0[k]), length, gravity)
        q, v = free_body_coordinates(formulation, position, np.eye(3), velocity, np.zeros(3))
        q_blocks.append(q)
        v_blocks.append(v)
    for k in range(2):
        builder.add_distance_constraint(k, (0.0, 0.0, 0.0), length)
    return BuiltModel(builder.build(), np.concatenate(q_blocks), np.concatenate(v_blocks), pendulum_outputs,
                      OUTPUTS)


MODEL = Model(
    name="pendulum",
    description="two mathematical pendulums in Cartesian coordinates, x0 = 0 and 0.2 (paper 002 Example 3.2)",
    defaults=DEFAULTS,
    formulations=["RV", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={},
    builder=build,
    conservative=True,
    sources="paper 002 Example 3.2",
)
