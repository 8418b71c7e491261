"""Exudyn beside lgbench on the IFToMM double four-bar (benchmark A02, N = 2) through its singular configurations.

The model is ``tests/data/four_bar_double_nonredundant.yaml``: five uniform rods of 1 kg and 1 m (three
cranks standing on (0, 0), (1, 0), (2, 0), two couplers across their tips), gravity 9.81 in -y, point B0
(the first crank's tip) starting at 1 m/s in +x; revolute joints of the cranks on ground about z, and
per loop a universal joint (crank axis z, coupler axis y) and a spherical joint, so that B has full row
rank away from the horizontal configuration, where the degrees of freedom jump from 1 to 3.
Exudyn: the same rigid bodies on Lie group rotation-vector nodes (``NodeRigidBodyRotVecLG``, RV) and the
joints as ``GenericJoint``s with constrained axes [1,1,1,1,1,0] (revolute about the frames' z),
[1,1,1,0,0,1] (universal: marker 0's x = global z on the crank and marker 1's y = global y on the
coupler free) and [1,1,1,0,0,0] (spherical), started from lgbench's initial state of the same
formulation. Both codes: generalized-alpha, rho_inf = 0.9, index 3, full Newton, at most 25 iterations,
no T_exp, the same relative and absolute Newton tolerances. Compared: status, the time reached, B0's
position and the total energy at t_end, and Newton iterations per step.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.peer_exudyn import _exudyn, generalized_alpha_settings

MECHANISM = Path(__file__).resolve().parent.parent / "tests" / "data" / "four_bar_double_nonredundant.yaml"
NAME = "four_bar_double_nonredundant"
GRAVITY = 9.81
CRANKS = ("crank0", "crank1", "crank2")
COUPLERS = ("coupler1", "coupler2")


def exact_B0(t_end: float) -> np.ndarray:
    """B0 = (cos phi, sin phi) at t_end of the one-degree-of-freedom motion (module note)."""
    from scipy.integrate import solve_ivp

    def rate(t, y):
        return [y[1], -3.5 * GRAVITY * math.cos(y[0]) / 3.0]

    sol = solve_ivp(rate, (0.0, t_end), [math.pi / 2, -1.0], method="DOP853", rtol=1e-13, atol=1e-13)
    phi = sol.y[0, -1]
    return np.array([math.cos(phi), math.sin(phi)])


def lgbench_model():
    from lgbench.runner.mechanism_file import load_mechanism, mechanism_data

    return mechanism_data(load_mechanism(MECHANISM))


def lgbench_run(integrator: str, h: float, t_end: float, rtol: float, atol: float, formulation: str = "RV"):
    """One lgbench run of the file (``run_single``)."""
    from lgbench.runner.single_run import RunSpec, run_single

    spec = RunSpec(NAME, formulation, integrator, h, t_end, options=(("newton_rtol", rtol), ("newton_atol", atol)),
                   mechanism=lgbench_model())
    return run_single(spec)


def _initial_bodies(formulation: str):
    """(name, mass, inertia diagonal, x, R, u, omega_global) of every body in lgbench's initial state."""
    from lgbench.mbs.pose import body_state

    mechanism = lgbench_model()
    built = mechanism.model().build(formulation)
    bodies = []
    for k, name in enumerate(CRANKS + COUPLERS):
        R, x, u, omega = body_state(built.system, k, built.q0, built.v0)
        bodies.append((name, x, R, u, R @ omega))
    return bodies


def _inertia(name: str) -> np.ndarray:
    axial, transverse = 1.0 * 0.01 ** 2 / 2, 1.0 / 12
    return np.diag([transverse, axial, transverse] if name.startswith("crank") else [axial, transverse, transverse])


def _build(h: float, steps: int, rtol: float, atol: float, adaptive: bool):
    exu = _exudyn()
    from exudyn.itemInterface import GenericJoint, MarkerBodyRigid
    from exudyn.rigidBodyUtilities import RigidBodyInertia

    mbs = exu.SystemContainer().AddSystem()
    ground = mbs.CreateGround()
    bodies = {}
    for name, x, R, u, omega in _initial_bodies("RV"):
        body = mbs.CreateRigidBody(referencePosition=list(x), referenceRotationMatrix=R, initialVelocity=list(u),
                                   initialAngularVelocity=list(omega), gravity=[0.0, -GRAVITY, 0.0],
                                   nodeType=exu.NodeType.RotationRotationVector,
                                   inertia=RigidBodyInertia(mass=1.0, inertiaTensor=_inertia(name)))
        bodies[name] = (body, x, R)

    def marker(name, point, frame=np.eye(3)):
        """A rigid marker on a body (or ground) at the global ``point``, axes the columns of the global
        ``frame`` at t = 0."""
        if name == "ground":
            body, local, rotation = ground, np.asarray(point, float), frame
        else:
            body, x, R = bodies[name]
            local, rotation = R.T @ (np.asarray(point, float) - x), R.T @ frame
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=body, localHT=exu.HT(rotation=rotation, translation=list(local))))

    ez_first = np.column_stack([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])   # x axis = global z
    y_second = np.column_stack([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # y axis = global y
    for k, crank in enumerate(CRANKS):
        mbs.AddObject(GenericJoint(markerNumbers=[marker("ground", [k, 0, 0]), marker(crank, [k, 0, 0])],
                                   constrainedAxes=[1, 1, 1, 1, 1, 0]))
    for crank, coupler, point in (("crank0", "coupler1", [0, 1, 0]), ("crank1", "coupler2", [1, 1, 0])):
        mbs.AddObject(GenericJoint(markerNumbers=[marker(crank, point, ez_first), marker(coupler, point, y_second)],
                                   constrainedAxes=[1, 1, 1, 0, 0, 1]))
    for crank, coupler, point in (("crank1", "coupler1", [1, 1, 0]), ("crank2", "coupler2", [2, 1, 0])):
        mbs.AddObject(GenericJoint(markerNumbers=[marker(crank, point), marker(coupler, point)],
                                   constrainedAxes=[1, 1, 1, 0, 0, 0]))
    mbs.Assemble()
    settings = generalized_alpha_settings(h, steps, tangent_operator=False)
    settings.timeIntegration.newton.relativeTolerance = rtol
    settings.timeIntegration.newton.absoluteTolerance = atol
    settings.timeIntegration.adaptiveStep = adaptive
    return mbs, settings, {name: body for name, (body, _, _) in bodies.items()}


def _energy(mbs, bodies) -> float:
    exu = _exudyn()
    out = exu.OutputVariableType
    energy = 0.0
    for name, body in bodies.items():
        u = np.array(mbs.GetObjectOutputBody(body, out.Velocity, localPosition=[0.0, 0.0, 0.0]))
        omega = np.array(mbs.GetObjectOutputBody(body, out.AngularVelocityLocal, localPosition=[0.0, 0.0, 0.0]))
        y = mbs.GetObjectOutputBody(body, out.Position, localPosition=[0.0, 0.0, 0.0])[1]
        energy += 0.5 * u @ u + 0.5 * omega @ _inertia(name) @ omega + GRAVITY * y
    return float(energy)


def exudyn_run(h: float, t_end: float, rtol: float, atol: float, adaptive: bool = False) -> dict[str, Any]:
    """Exudyn's generalized-alpha on the model: status, time reached, B0 (x, y) and energy at the end,
    Newton iterations per step; with ``adaptive`` (Exudyn's default) a step whose Newton iteration fails
    is retried with a smaller step (``adaptiveStep``), else the run fails as lgbench's does."""
    exu = _exudyn()
    steps = int(round(t_end / h))
    mbs, settings, bodies = _build(h, steps, rtol, atol, adaptive)
    try:
        ok = exu.SolveDynamic(mbs, settings, solverType=exu.DynamicSolverType.GeneralizedAlpha, storeSolver=True)
    except exu.SolverError:
        ok = False
    b0 = mbs.GetObjectOutputBody(bodies["crank0"], exu.OutputVariableType.Position, localPosition=[0.0, 0.5, 0.0])
    solver = mbs.sys["dynamicSolver"]
    return {"status": "ok" if ok else "failed", "t_reached": mbs.systemData.GetTime(),
            "B0": np.array(b0[:2]), "energy": _energy(mbs, bodies),
            "newton_per_step": solver.it.newtonStepsCount / max(solver.it.currentStepIndex, 1)}


def compare(h: float, t_end: float, rtol: float, atol: float, adaptive: bool = False) -> dict[str, Any]:
    """Both codes on the same model, method, h and tolerances: status, time reached, B0 at the end and
    its difference between the codes and its error against the exact motion (``exact_B0``), the total energy
    at t_end (35.835 J at t = 0), Newton iterations."""
    exact = exact_B0(t_end)
    lg = lgbench_run("generalized-alpha", h, t_end, rtol, atol)
    ex = exudyn_run(h, t_end, rtol, atol, adaptive)
    out = lg.final_outputs
    lg_b0 = np.array([out["B0_x"], out["B0_y"]])
    return {
        "h": h, "t_end": t_end, "rtol": rtol, "atol": atol, "exudyn_adaptive_step": adaptive,
        "lgbench_status": lg.status, "lgbench_t_reached": lg.t_final,
        "lgbench_steps_at_round_off": lg.statistics.get("steps_at_round_off"),
        "lgbench_newton_per_step": lg.statistics.get("newton_per_step"),
        "exudyn_status": ex["status"], "exudyn_t_reached": ex["t_reached"],
        "exudyn_newton_per_step": ex["newton_per_step"],
        "B0_difference": float(np.abs(lg_b0 - ex["B0"]).max()) if lg.status == ex["status"] == "ok" else None,
        "lgbench_B0_error": float(np.linalg.norm(lg_b0 - exact)) if lg.status == "ok" else None,
        "exudyn_B0_error": float(np.linalg.norm(ex["B0"] - exact)) if ex["status"] == "ok" else None,
        "lgbench_energy": out["energy"], "exudyn_energy": ex["energy"],
    }


if __name__ == "__main__":
    import sys

    h = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-3
    t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    for rtol, atol in ((1e-12, 1e-13), (1e-10, 1e-12), (1e-8, 1e-10)):
        print(compare(h, t_end, rtol, atol))
    print(compare(h, t_end, 1e-12, 1e-13, adaptive=True))
