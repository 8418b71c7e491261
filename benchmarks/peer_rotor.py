"""Exudyn beside lgbench on the high-speed rotor (paper 000 Sect. 4.2, Table 6, eq. 44, Table 7).

lgbench's ``rotor`` with its defaults (``lgbench.models.rotor.DEFAULTS``): a free rigid disk (m = 1.2331,
J = diag(0.001541, 0.000812, 0.000812) about its centre of mass) spinning at 200000 rpm about its body
x axis, held by two point spring-dampers between the body points [-L_L, 0, 0], [L_R, 0, 0] and the same
ground points (per global axis: left 4000 N/m and 5.165093 kg/s in x, y, z; right in y, z), gravity
[0, -9.81, 0] and the global torque of eq. (44); the springs start unstressed, the disk at rest but for
its spin. Exudyn: the same body on an RV (Lie group), EP or Rxyz node, two
``CartesianSpringDamper`` connectors between ground and body points, the weight at the centre of mass
and a global ``Torque``. Generalized-alpha (rho_inf = 0.9), full Newton, tolerances 1e-8 / 1e-10, no
T_exp in either code (the rotor study's settings).

h = 6.25e-6: Euler parameters need h <= 6.25e-6 at this spin (Table 7: EP fails for h >= 1.25e-5 in the
paper and in lgbench). The final position of the left support point p1 is compared between the codes
and against lgbench's RV RK44 at h / 10.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.peer_exudyn import (
    _exudyn, compare_mechanism, final_values, generalized_alpha_settings, measure_exudyn_mechanism,
    measure_lgbench_mechanism, solve_generalized_alpha, unrotated_rigid_body_node,
)

FORMULATIONS = ("RV", "EP", "Rxyz")
MODEL = "rotor"
STEP = 6.25e-6
"""Step size of the comparison: the largest at which the Euler-parameter runs converge (Table 7)."""
T_END = 0.02
"""Simulated time of the comparison (3200 steps; the rotor falls onto its supports, 12.8 Hz)."""
P1 = ("p1_x", "p1_y", "p1_z")


def _parameters():
    from lgbench.models.rotor import DEFAULTS, _torque, spin_speed

    p = dict(DEFAULTS)
    gravity = np.array(p["gravity"])
    torque = _torque(p, p["mass"], p["L_L"], p["L_R"], gravity)
    return p, gravity, torque, spin_speed(p)


def _build(formulation: str, h: float, steps: int):
    exu = _exudyn()
    from exudyn.itemInterface import (
        Force, MarkerBodyPosition, MarkerBodyRigid, ObjectConnectorCartesianSpringDamper, ObjectGround, ObjectRigidBody,
        Torque,
    )

    p, gravity, torque, omega = _parameters()
    origin = [0.0, 0.0, 0.0]
    node = unrotated_rigid_body_node(formulation, origin, origin, [omega, 0.0, 0.0])
    mbs = exu.SystemContainer().AddSystem()
    J = p["inertia"]
    body = mbs.AddObject(ObjectRigidBody(mass=p["mass"], nodeNumber=mbs.AddNode(node),
                                         inertia=[J[0], J[1], J[2], 0.0, 0.0, 0.0]))
    mbs.AddLoad(Force(markerNumber=mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=origin)),
                      loadVector=list(p["mass"] * gravity)))
    mbs.AddLoad(Torque(markerNumber=mbs.AddMarker(MarkerBodyRigid(bodyNumber=body, localPosition=origin)),
                       loadVector=list(torque), bodyFixed=False))
    ground = mbs.AddObject(ObjectGround())
    for point, stiffness, damping in (([-p["L_L"], 0.0, 0.0], p["stiffness_left"], p["damping_left"]),
                                      ([p["L_R"], 0.0, 0.0], p["stiffness_right"], p["damping_right"])):
        markers = [mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=point)),
                   mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=point))]
        mbs.AddObject(ObjectConnectorCartesianSpringDamper(markerNumbers=markers, stiffness=list(stiffness),
                                                           damping=list(damping)))
    mbs.Assemble()
    return mbs, generalized_alpha_settings(h, steps, tangent_operator=False), body


def run_exudyn(formulation: str, h: float, steps: int) -> tuple[float, np.ndarray, float]:
    """(process time of SolveDynamic, p1 at the end, Newton iterations per step) of one run."""
    exu = _exudyn()
    mbs, settings, body = _build(formulation, h, steps)
    cpu, newton = solve_generalized_alpha(mbs, settings, f"rotor {formulation}")
    p, _, _, _ = _parameters()
    p1 = np.array(mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, localPosition=[-p["L_L"], 0.0, 0.0]))
    return cpu, p1, newton


def measure_exudyn(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_exudyn_mechanism(run_exudyn, formulation, h, t_end, repeats, "p1")


def measure_lgbench(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_lgbench_mechanism(MODEL, formulation, h, t_end, repeats, [("newton", "full")], "p1", P1)


def reference_p1(t_end: float, h: float) -> np.ndarray:
    """p1 at t_end of lgbench's RV RK44 (RKMK, fourth order) at h."""
    from lgbench.runner.single_run import RunSpec, run_single

    return final_values(run_single(RunSpec(MODEL, "RV", "RK44", h, t_end)), P1)


def compare(h: float, t_end: float, repeats: int) -> list[dict[str, Any]]:
    """``compare_mechanism`` on the rotor: the final left support point ("p1")."""
    return compare_mechanism(MODEL, FORMULATIONS, measure_lgbench, measure_exudyn, reference_p1(t_end, h / 10),
                             f"lgbench RV RK44 h={h / 10:g}", "p1", h, t_end, repeats)
