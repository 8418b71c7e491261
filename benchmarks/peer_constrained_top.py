"""Exudyn beside lgbench on the heavy top with a spherical joint (paper 000 Sect. 4.1.2, Figs. 6-8).

lgbench's ``heavy_top_constrained``: a free rigid body (m = 15, J = diag(0.234375, 0.468750, 0.234375)
about its centre of mass), its reference point at the centre of mass, held at the body point -c
(c = [0, 1, 0]) by a spherical joint at the global origin, gravity [0, 0, -9.81], omega0 = [0, 150,
-4.61538] (body frame), psi0 = 0, u0 = omega0 x c. Exudyn: the same body on an RV (Lie group), EP or
Rxyz node at the centre of mass, a SphericalJoint between a ground point at the origin and the body
point -c, the weight at the centre of mass. Generalized-alpha (rho_inf = 0.9, index 3), full Newton,
tolerances 1e-8 relative / 1e-10 absolute and T_exp in the Lie group iteration matrix in both codes
(lgbench ``texp: true``, Exudyn's default ``lieGroupAddTangentOperator``).

Timing as in ``peer_exudyn``: Exudyn's marginal process time per step beyond its setup, lgbench's
minimum of the timed integration loop per step. The final centre-of-mass positions of both codes are
compared with each other and with lgbench's EP generalized-alpha at h / 10.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.peer_exudyn import (
    COM, GRAVITY, INERTIA_COM, MASS, OMEGA0, _exudyn, compare_mechanism, final_values, generalized_alpha_settings,
    measure_exudyn_mechanism, measure_lgbench_mechanism, solve_generalized_alpha, unrotated_rigid_body_node,
)

FORMULATIONS = ("RV", "EP", "Rxyz")
MODEL = "heavy_top_constrained"
COM_OUTPUTS = ("com_x", "com_y", "com_z")
STEP = 1e-4
"""Step size of the comparison (the constrained top's case in ``benchmarks/suite.py``)."""
T_END = 0.2
"""Simulated time of the comparison: Exudyn 1.13.6's RV node loses Newton convergence between 0.25 and
0.3 s at h = 1e-4 (with T_exp or without), where lgbench's RV runs on to 1 s; Rxyz nears gimbal lock at
about 1.1 s."""


def _build(formulation: str, h: float, steps: int):
    exu = _exudyn()
    from exudyn.itemInterface import Force, MarkerBodyPosition, ObjectGround, ObjectJointSpherical, ObjectRigidBody

    node = unrotated_rigid_body_node(formulation, COM, np.cross(OMEGA0, COM), OMEGA0)
    mbs = exu.SystemContainer().AddSystem()
    J = INERTIA_COM
    body = mbs.AddObject(ObjectRigidBody(mass=MASS, nodeNumber=mbs.AddNode(node),
                                         inertia=[J[0, 0], J[1, 1], J[2, 2], J[1, 2], J[0, 2], J[0, 1]]))
    mbs.AddLoad(Force(markerNumber=mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=[0.0] * 3)),
                      loadVector=list(MASS * GRAVITY)))
    fixed_point = mbs.AddMarker(MarkerBodyPosition(bodyNumber=mbs.AddObject(ObjectGround()), localPosition=[0.0] * 3))
    top_point = mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=list(-COM)))
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[fixed_point, top_point]))
    mbs.Assemble()
    return mbs, generalized_alpha_settings(h, steps, tangent_operator=True), body


def run_exudyn(formulation: str, h: float, steps: int) -> tuple[float, np.ndarray, float]:
    """(process time of SolveDynamic, centre of mass at the end, Newton iterations per step) of one run."""
    exu = _exudyn()
    mbs, settings, body = _build(formulation, h, steps)
    cpu, newton = solve_generalized_alpha(mbs, settings, f"constrained top {formulation}")
    com = np.array(mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, localPosition=[0.0] * 3))
    return cpu, com, newton


def measure_exudyn(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_exudyn_mechanism(run_exudyn, formulation, h, t_end, repeats, "com")


def measure_lgbench(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_lgbench_mechanism(MODEL, formulation, h, t_end, repeats, [("newton", "full"), ("texp", True)],
                                     "com", COM_OUTPUTS)


def reference_com(t_end: float, h: float) -> np.ndarray:
    """Centre of mass at t_end of lgbench's EP generalized-alpha at h (second order, full Newton)."""
    from lgbench.runner.single_run import RunSpec, run_single

    return final_values(run_single(RunSpec(MODEL, "EP", "generalized-alpha", h, t_end, options=(("newton", "full"),))),
                        COM_OUTPUTS)


def compare(h: float, t_end: float, repeats: int) -> list[dict[str, Any]]:
    """``compare_mechanism`` on the constrained top: the final centre of mass ("com")."""
    return compare_mechanism(MODEL, FORMULATIONS, measure_lgbench, measure_exudyn, reference_com(t_end, h / 10),
                             f"lgbench EP generalized-alpha h={h / 10:g}", "com", h, t_end, repeats)
