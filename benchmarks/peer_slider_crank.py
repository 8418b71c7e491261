"""Exudyn beside lgbench on the IFToMM spatial slider-crank (paper 000 Sect. 4.3, Table 8, Figs. 15-17).

lgbench's ``slider_crank`` with its defaults (``lgbench.models.slider_crank``): crank, connecting rod and
slider as free rigid bodies with their nodes at their centres of mass; a revolute joint crank-ground at A
about x, a spherical joint crank-rod at B, a universal joint slider-rod at C (the slider's x axis and the
rod-fixed axis (0, -2, 1)/sqrt(5) at t = 0), a prismatic joint slider-ground along x; gravity -9.81 in z.
Exudyn: the same bodies on RV (Lie group), EP or Rxyz nodes and the joints of Exudyn's own slider-crank
example, ``GenericJoint``s with constrained axes [1,1,1,0,1,1] (revolute), [1,1,1,0,0,0] (spherical),
[1,1,1,0,0,1] (universal: marker 0's x and marker 1's y free) and [0,1,1,1,1,1] (prismatic).

Both codes start from lgbench's initial state of the formulation (positions assembled onto Phi = 0,
velocities projected onto B v = 0), handed to Exudyn as global positions, rotation matrices, velocities
and angular velocities. Generalized-alpha (rho_inf = 0.9, index 3), full Newton, tolerances 1e-8 relative
/ 1e-10 absolute, no T_exp in either code (the slider-crank study's "paper" variant). Accuracy: slider
position, crank angle and crank rate at t_end against lgbench's EP generalized-alpha with tight Newton
tolerances at h / 10. Timing as in ``peer_exudyn``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.peer_exudyn import (
    _exudyn, compare_mechanism, final_values, generalized_alpha_settings, measure_exudyn_mechanism,
    measure_lgbench_mechanism, solve_generalized_alpha,
)

FORMULATIONS = ("RV", "EP", "Rxyz")
MODEL = "slider_crank"
STEP = 1e-3
"""Step size of the comparison (the slider-crank case in ``benchmarks/suite.py``)."""
T_END = 1.0
"""Simulated time of the comparison (about one crank revolution)."""
STATE = ("slider_position", "crank_angle", "crank_rate")
TIGHT_NEWTON = (("newton_rtol", 1e-12), ("newton_atol", 1e-13))
NODE_TYPE = {"RV": "RotationRotationVector", "EP": "RotationEulerParameters", "Rxyz": "RotationRxyz"}


def lgbench_initial_bodies(formulation: str) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(x, R, u, omega_global) of crank, rod and slider in lgbench's initial state of ``formulation``."""
    from lgbench.mbs.pose import body_state
    from lgbench.models import MODELS

    built = MODELS[MODEL].build(formulation)
    bodies = []
    for body in range(3):
        R, x, u, omega = body_state(built.system, body, built.q0, built.v0)
        bodies.append((x, R, u, R @ omega))
    return bodies


def _build(formulation: str, h: float, steps: int):
    exu = _exudyn()
    from exudyn.itemInterface import GenericJoint, MarkerBodyRigid
    from exudyn.rigidBodyUtilities import RigidBodyInertia

    from lgbench.models.slider_crank import DEFAULTS, POINT_A, POINT_B, POINT_C, UNIVERSAL_ROD_AXIS

    p = DEFAULTS
    mbs = exu.SystemContainer().AddSystem()
    node_type = getattr(exu.NodeType, NODE_TYPE[formulation])
    bodies = []
    for (x, R, u, omega), mass, inertia in zip(lgbench_initial_bodies(formulation),
                                               (p["crank_mass"], p["rod_mass"], p["slider_mass"]),
                                               (p["crank_inertia"], p["rod_inertia"], p["slider_inertia"])):
        body = mbs.CreateRigidBody(referencePosition=list(x), referenceRotationMatrix=R, initialVelocity=list(u),
                                   initialAngularVelocity=list(omega), gravity=p["gravity"], nodeType=node_type,
                                   inertia=RigidBodyInertia(mass=mass, inertiaTensor=np.diag(inertia)))
        bodies.append((body, x, R))
    (crank, x_crank, R_crank), (rod, x_rod, R_rod), (slider, x_slider, R_slider) = bodies
    ground = mbs.CreateGround()

    def marker(body, x_body, R_body, point, frame=np.eye(3)):
        """A rigid marker on a body or on ground at the global ``point`` whose axes are the columns of
        ``frame`` (global, initial configuration): the joint frame of a GenericJoint."""
        if body == ground:
            local, rotation = point, frame
        else:
            local, rotation = R_body.T @ (point - x_body), R_body.T @ frame
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=body, localHT=exu.HT(rotation=rotation, translation=list(local))))

    # joint frames: the global axes at t = 0 on both sides, except marker 1 of the universal joint, whose
    # y axis is the rod-fixed universal axis (x: the slider axis)
    revolute = [marker(ground, None, None, POINT_A), marker(crank, x_crank, R_crank, POINT_A)]
    mbs.AddObject(GenericJoint(markerNumbers=revolute, constrainedAxes=[1, 1, 1, 0, 1, 1]))
    spherical = [marker(crank, x_crank, R_crank, POINT_B), marker(rod, x_rod, R_rod, POINT_B)]
    mbs.AddObject(GenericJoint(markerNumbers=spherical, constrainedAxes=[1, 1, 1, 0, 0, 0]))
    cross_frame = np.column_stack([[1.0, 0.0, 0.0], UNIVERSAL_ROD_AXIS, np.cross([1.0, 0.0, 0.0], UNIVERSAL_ROD_AXIS)])
    universal = [marker(slider, x_slider, R_slider, POINT_C), marker(rod, x_rod, R_rod, POINT_C, cross_frame)]
    mbs.AddObject(GenericJoint(markerNumbers=universal, constrainedAxes=[1, 1, 1, 0, 0, 1]))
    prismatic = [marker(ground, None, None, POINT_C), marker(slider, x_slider, R_slider, POINT_C)]
    mbs.AddObject(GenericJoint(markerNumbers=prismatic, constrainedAxes=[0, 1, 1, 1, 1, 1]))
    mbs.Assemble()
    return mbs, generalized_alpha_settings(h, steps, tangent_operator=False), crank, slider


def run_exudyn(formulation: str, h: float, steps: int) -> tuple[float, np.ndarray, float]:
    """(process time of SolveDynamic, [slider position, crank angle, crank rate] at the end, Newton
    iterations per step) of one run."""
    exu = _exudyn()
    mbs, settings, crank, slider = _build(formulation, h, steps)
    cpu, newton = solve_generalized_alpha(mbs, settings, f"slider-crank {formulation}")
    origin = [0.0, 0.0, 0.0]
    x_slider = mbs.GetObjectOutputBody(slider, exu.OutputVariableType.Position, localPosition=origin)
    R_crank = np.reshape(mbs.GetObjectOutputBody(crank, exu.OutputVariableType.RotationMatrix, localPosition=origin),
                         (3, 3))
    omega = mbs.GetObjectOutputBody(crank, exu.OutputVariableType.AngularVelocityLocal, localPosition=origin)
    return cpu, np.array([x_slider[0], np.arctan2(R_crank[2, 1], R_crank[1, 1]), omega[0]]), newton


def measure_exudyn(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_exudyn_mechanism(run_exudyn, formulation, h, t_end, repeats, "state")


def measure_lgbench(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_lgbench_mechanism(MODEL, formulation, h, t_end, repeats, [("rho_inf", 0.9)], "state", STATE)


def reference_state(t_end: float, h: float) -> np.ndarray:
    """Slider position, crank angle and crank rate at t_end of lgbench's EP generalized-alpha at h with
    Newton tolerances 1e-12 / 1e-13 (the slider-crank study's reference)."""
    from lgbench.runner.single_run import RunSpec, run_single

    return final_values(run_single(RunSpec(MODEL, "EP", "generalized-alpha", h, t_end, options=TIGHT_NEWTON)), STATE)


def compare(h: float, t_end: float, repeats: int) -> list[dict[str, Any]]:
    """``compare_mechanism`` on the slider-crank: the final slider position, crank angle and rate ("state")."""
    return compare_mechanism(MODEL, FORMULATIONS, measure_lgbench, measure_exudyn, reference_state(t_end, h / 10),
                             f"lgbench EP generalized-alpha (Newton 1e-12) h={h / 10:g}", "state", h, t_end, repeats)
