"""Exudyn (C++, the code of paper 000) beside lgbench on the Puma 560, same model, method, h and t_end.

The model is lgbench's ``puma560`` in absolute coordinates (paper 000 Sect. 4.4): the DH parameters,
masses, centres of mass and inertias of ``lgbench.models.puma560.DEFAULTS`` (Corke's data; link 1 with
the regularised mass and inertia of ``LINK1_REGULARISED_MASS``), gravity [0, 0, -9.81], the PD gains of
Table 10 and the constant-acceleration set-points of Table 9. In Exudyn it is built by the robotics
module the paper's code ships (``Robot.CreateRedundantCoordinateMBS``): one rigid body per link on the
node type of the formulation, a GenericJoint per revolute joint and a TorsionalSpringDamper per PD
controller, whose offset and velocity offset a pre-step user function sets to the set-point at the end
of the step (Exudyn passes t_{n+1}), where lgbench's generalized-alpha evaluates it too.

Method: generalized-alpha, rho_inf = 0.9, index 3, full Newton, tolerances 1e-8 relative / 1e-10
absolute, T_exp left out (lgbench ``texp: false``, Exudyn ``lieGroupAddTangentOperator = False``).
Accuracy: the six joint angles at t_end against lgbench's minimal-coordinate model (CRBA/RNEA, an
independent formulation) integrated by RK44 at h / 100. Timing as ``peer_exudyn``: Exudyn's marginal
cost per step (its Python pre-step function included, as in the paper's own Puma example), lgbench's
minimum of CPU time / steps of the integration loop.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from benchmarks.peer_exudyn import (
    _exudyn, compare_mechanism, final_values, generalized_alpha_settings, measure_exudyn_mechanism,
    measure_lgbench_mechanism, solve_generalized_alpha,
)
from lgbench.models.puma560 import DEFAULTS, LINK1_REGULARISED_MASS, N_JOINTS

FORMULATIONS = ("RV", "EP", "Rxyz")
STEP = 1e-3
"""Step size of the comparison (generalized-alpha, h = 1e-3, full Newton)."""
ANGLES = tuple(f"phi_{k}" for k in range(1, N_JOINTS + 1))


def setpoint(joint: int, t: float) -> tuple[float, float]:
    """(phi_d, phi_d') of lgbench's BANG_BANG trajectory: acceleration a up to t_switch, -a up to
    2 t_switch, then rest (``lgbench.mbs.trajectories``)."""
    phi0 = math.radians(DEFAULTS["phi_init_deg"][joint])
    a, t_switch = DEFAULTS["acceleration"][joint], DEFAULTS["t_switch"]
    if t <= t_switch:
        return phi0 + 0.5 * a * t * t, a * t
    tau = min(t, 2.0 * t_switch) - t_switch
    rate = a * (t_switch - tau) if t < 2.0 * t_switch else 0.0
    return phi0 + 0.5 * a * t_switch ** 2 + a * t_switch * tau - 0.5 * a * tau * tau, rate


def _robot():
    from exudyn.robotics import Robot, RobotBase, RobotLink, RobotTool, StdDH2HT

    p = DEFAULTS
    robot = Robot(gravity=p["gravity"], base=RobotBase(), tool=RobotTool(),
                  referenceConfiguration=[math.radians(x) for x in p["phi_init_deg"]])
    for i in range(N_JOINTS):
        mass = p["mass"][i]
        inertia = np.diag([p["inertia_xx"][i], p["inertia_yy"][i], p["inertia_zz"][i]])
        if mass <= 0.0:
            mass, inertia = LINK1_REGULARISED_MASS, np.diag([p["inertia_yy"][i]] * 3)
        robot.AddLink(RobotLink(mass=mass, COM=[p["com_x"][i], p["com_y"][i], p["com_z"][i]], inertia=inertia,
                                localHT=StdDH2HT([0.0, p["dh_d"][i], p["dh_a"][i], p["dh_alpha"][i]]),
                                PDcontrol=(p["kp"][i], p["kd"][i])))
    return robot


def _build(formulation: str, h: float, steps: int):
    exu = _exudyn()
    from exudyn.itemInterface import MarkerBodyRigid, ObjectGround

    node_type = {"RV": exu.NodeType.RotationRotationVector, "EP": exu.NodeType.RotationEulerParameters,
                 "Rxyz": exu.NodeType.RotationRxyz}[formulation]
    mbs = exu.SystemContainer().AddSystem()
    base = mbs.AddMarker(MarkerBodyRigid(bodyNumber=mbs.AddObject(ObjectGround()), localPosition=[0.0, 0.0, 0.0]))
    printing = exu.config.printToConsole
    exu.config.printToConsole = False    # link 3's published inertia breaks the triangle inequality
    try:
        items = _robot().CreateRedundantCoordinateMBS(mbs, baseMarker=base, createJointTorqueLoads=False,
                                                      rigidBodyNodeType=node_type)
    finally:
        exu.config.printToConsole = printing
    controllers = items["springDamperList"]

    def set_points(mbs, t):
        for joint, controller in enumerate(controllers):
            phi, rate = setpoint(joint, t)
            mbs.SetObjectParameter(controller, "offset", phi)
            mbs.SetObjectParameter(controller, "velocityOffset", rate)
        return True

    set_points(mbs, 0.0)        # the initial accelerations see the set-point at t = 0 (the default offset is 0)
    mbs.SetPreStepUserFunction(set_points)
    mbs.Assemble()
    return mbs, generalized_alpha_settings(h, steps, tangent_operator=False), controllers


def run_exudyn(formulation: str, h: float, steps: int) -> tuple[float, np.ndarray, float]:
    """(process time of SolveDynamic, joint angles at the end, Newton iterations per step) of one run."""
    exu = _exudyn()
    mbs, settings, controllers = _build(formulation, h, steps)
    cpu, newton = solve_generalized_alpha(mbs, settings, f"Puma 560 {formulation}")
    angles = np.array([mbs.GetObjectOutput(c, exu.OutputVariableType.Rotation) for c in controllers])
    return cpu, angles, newton


def measure_exudyn(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_exudyn_mechanism(run_exudyn, formulation, h, t_end, repeats, "angle")


def measure_lgbench(formulation: str, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    return measure_lgbench_mechanism("puma560", formulation, h, t_end, repeats, [], "angle", ANGLES)


def reference_angles(t_end: float, h: float) -> np.ndarray:
    """Joint angles at t_end of lgbench's minimal-coordinate model, RK44 at h."""
    from lgbench.runner.single_run import RunSpec, run_single

    return final_values(run_single(RunSpec("puma560", "Min", "RK44", h, t_end)), ANGLES)


def compare(h: float, t_end: float, repeats: int) -> list[dict[str, Any]]:
    """``compare_mechanism`` on the Puma 560: the six joint angles at t_end ("angle")."""
    return compare_mechanism("puma560", FORMULATIONS, measure_lgbench, measure_exudyn,
                             reference_angles(t_end, h / 100), f"lgbench Min RK44 h={h / 100:g}", "angle", h, t_end,
                             repeats)
