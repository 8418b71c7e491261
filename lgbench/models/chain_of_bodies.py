"""Chain of N identical rigid links joined by spherical joints, the first to ground (scaling benchmark).

A 3-D pendulum chain under gravity for measuring how the cost per step grows with the number of
bodies (issue 9, item 3). Each link is a box of length L along its body x axis with a square cross
section of side a, J = m/12 diag(2 a^2, L^2 + a^2, L^2 + a^2) about its centre of mass. Link k's
base point (-L/2, 0, 0) coincides with link k-1's tip (L/2, 0, 0); link 0's base is the ground
point at the origin. Absolute coordinates, one FREE node per link (RV or EP), 3 constraint rows per
joint: the coupling graph is a path, so the iteration matrix of implicit methods is banded when
bodies and joint multipliers are interleaved along the chain (lgbench/mbs/banded.py).

Initial state: the chain lies straight along the global x axis and turns as one rigid body with
angular velocity omega0 (global = body frame, R = I) about the ground point, so u_k = omega0 x x_k
satisfies every velocity constraint exactly. With the default omega0 = [5, 0, 2] rad/s the links
spin about their axes and swing about z while gravity pulls them down: a fully 3-D motion.

Parameter ``constraint_form``: the joints' point rows in global components or in body 1's frame
(``SystemBuilder``). Outputs: tip position (link N-1's tip point), total energy, and the largest joint-point gap
max_k |p_k - p'_k| (position-constraint residual of the spherical joints).
"""
from __future__ import annotations

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.mbs.codes import FREE, GRAVITY
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.invariants import kinetic_energy, potential_energy
from lgbench.mbs.pose import body_point_motion
from lgbench.mbs.system import SystemBuilder
from lgbench.models.base import BuiltModel, Model, constraint_form, positive_scalar, vector3

DEFAULTS = {
    "n_bodies": 4,
    "mass": 1.0,
    "length": 0.5,
    "width": 0.05,
    "gravity": [0.0, 0.0, -9.81],
    "omega0": [5.0, 0.0, 2.0],
    "constraint_form": "global",
}
OUTPUTS = ("tip_x", "tip_y", "tip_z", "energy", "joint_gap")


@kernel
def chain_outputs(sys, q, v, lam, t):
    """Tip of the last link, total energy and the largest spherical-joint gap."""
    out = np.empty(5)
    n = sys.body_int.shape[0]
    base = sys.joint_real[0, 0:3]       # joint 0: base point (-L/2, 0, 0) of link 0
    tip, _ = body_point_motion(sys, n - 1, q, v, -base)
    out[0:3] = tip
    out[3] = kinetic_energy(sys, q, v) + potential_energy(sys, q, v)
    gap = np.sqrt(np.sum(body_point_motion(sys, 0, q, v, base)[0] ** 2))
    for k in range(1, n):
        a, _ = body_point_motion(sys, k - 1, q, v, -base)
        b, _ = body_point_motion(sys, k, q, v, base)
        gap = max(gap, np.sqrt(np.sum((a - b) ** 2)))
    out[4] = gap
    return out


def build(formulation: str, params: dict) -> BuiltModel:
    n = params["n_bodies"]
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"must be a positive integer, got {n!r}", field="params.n_bodies")
    m = positive_scalar(params, "mass")
    length = positive_scalar(params, "length")
    width = positive_scalar(params, "width")
    gravity = vector3(params, "gravity")
    omega0 = vector3(params, "omega0")
    inertia = m / 12.0 * np.array([2.0 * width ** 2, length ** 2 + width ** 2, length ** 2 + width ** 2])
    base = np.array([-0.5 * length, 0.0, 0.0])
    builder = SystemBuilder(constraint_form(params))
    q_blocks, v_blocks = [], []
    for k in range(int(n)):
        body = builder.add_body(FREE, formulation, m, inertia, name=f"link {k}")
        builder.add_force(GRAVITY, body, gravity)
        if k == 0:
            builder.add_spherical_joint(body, base)
        else:
            builder.add_spherical_joint(body - 1, -base, body, base)
        x = np.array([(k + 0.5) * length, 0.0, 0.0])
        q, v = free_body_coordinates(formulation, x, np.eye(3), np.cross(omega0, x), omega0)
        q_blocks.append(q)
        v_blocks.append(v)
    return BuiltModel(builder.build(), np.concatenate(q_blocks), np.concatenate(v_blocks), chain_outputs,
                      OUTPUTS)


MODEL = Model(
    name="chain_of_bodies",
    description="N rigid links joined by spherical joints under gravity (scaling benchmark, issue 9)",
    defaults=DEFAULTS,
    formulations=["RV", "EP", "SE3"],
    outputs=list(OUTPUTS),
    output_groups={"tip": ["tip_x", "tip_y", "tip_z"]},
    builder=build,
    conservative=True,
    sources="lgbench scaling benchmark (no published reference); box-link inertia m/12 (L^2 + a^2)",
)
