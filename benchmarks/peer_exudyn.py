"""Exudyn (C++, the code of paper 000) beside lgbench on the same heavy top, method, h and t_end.

The problem is lgbench's ``heavy_top`` (paper 000 Sect. 4.1.1, Table 3): m = 15, J = diag(0.234375,
0.468750, 0.234375) about the COM, COM at [0, 1, 0] from the fixed point, gravity [0, 0, -9.81],
omega0 = [0, 150, -4.61538] (body frame), psi0 = 0. lgbench integrates the three rotation coordinates
of a body about its fixed point, J_O omega' + omega x J_O omega = c x R^T m g with J_O = J + m(|c|^2 I
- c c^T). Exudyn has no rotation-only node, so the peer model is the one of Exudyn's own heavy-top
example: an ObjectRigidBody with inertia J_O and its node at the fixed point, the weight applied at c
(MarkerBodyPosition + Force) and the three node translations fixed by CoordinateConstraints to ground
(the explicit solvers eliminate such constraints; generalized-alpha keeps them as index-3 equations
with three multipliers). The rotational dynamics are identical.

Nodes: NodeRigidBodyRotVecLG for RV (Lie group), NodeRigidBodyRxyz for Rxyz, NodeRigidBodyEP for EP.
Methods: RK44 and RK67 (fixed step), generalized-alpha (rho_inf = 0.9, index 3) with full or modified
Newton, tolerances 1e-8 relative / 1e-10 absolute in both codes, T_exp left out of the Lie group
iteration matrix in both (lgbench ``texp: false``, Exudyn ``lieGroupAddTangentOperator = False``).
Exudyn's explicit solvers refuse Euler-parameter nodes (their unit-length constraint is algebraic),
so explicit EP has no peer (lgbench's explicit EP is the different formulation EP-F1).

Timing: process time around ``exu.SolveDynamic`` with file output, sensors and console output off,
exudynCPPfast (no range checks) when the CPU has AVX2, one thread. The per-step figure is the
marginal cost (T(N) - T(n0)) / (N - n0) of the minima over the repeats, so Exudyn's per-run setup
(assembly, initial accelerations) is not charged to its steps. lgbench's is the minimum of
process time / steps of the integration loop (``run_single``).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

# lgbench model data (lgbench/models/heavy_top.py DEFAULTS)
MASS = 15.0
INERTIA_COM = np.diag([0.234375, 0.468750, 0.234375])
COM = np.array([0.0, 1.0, 0.0])
GRAVITY = np.array([0.0, 0.0, -9.81])
OMEGA0 = [0.0, 150.0, -4.61538]
NODE = {"RV": "NodeRigidBodyRotVecLG", "Rxyz": "NodeRigidBodyRxyz", "EP": "NodeRigidBodyEP"}
SETUP_STEPS = 10   # n0 of the marginal per-step cost


@dataclass(frozen=True)
class PeerCase:
    formulation: str          # lgbench formulation = Exudyn node (see NODE)
    integrator: str           # lgbench integrator name
    newton: str = ""          # "full" / "modified" for generalized-alpha

    @property
    def name(self) -> str:
        return f"{self.formulation} {self.integrator}" + (f" ({self.newton} Newton)" if self.newton else "")

    def lgbench_options(self) -> tuple[tuple[str, Any], ...]:
        return (("newton", self.newton), ("texp", False)) if self.newton else ()


def peer_cases() -> list[PeerCase]:
    out = []
    for formulation in ("RV", "Rxyz"):
        out += [PeerCase(formulation, "RK44"), PeerCase(formulation, "RK67")]
    for formulation in ("RV", "EP", "Rxyz"):
        out += [PeerCase(formulation, "generalized-alpha", newton) for newton in ("full", "modified")]
    return out


def unavailable_reason() -> str | None:
    """None if Exudyn can be imported, else why not (the comparison is then skipped)."""
    try:
        _exudyn()
    except ImportError as error:
        return (f"exudyn is not installed ({error}); install the optional peer with "
                "`pip install -e '.[peer]'` to compare with Exudyn")
    return None


def _exudyn():
    if "exudyn" not in sys.modules:
        sys.exudynFast = True     # exudynCPPfast (no range checks); Exudyn falls back if the CPU lacks AVX2
    import exudyn

    return exudyn


def exudyn_version() -> str:
    exu = _exudyn()
    return f"{exu.GetVersionString()} ({'exudynCPPfast' if getattr(sys, 'exudynFast', False) else 'exudynCPP'})"


def _build(case: PeerCase, h: float, steps: int, tangent_operator: bool = False):
    exu = _exudyn()
    from exudyn.itemInterface import (
        CoordinateConstraint, Force, MarkerBodyPosition, MarkerNodeCoordinate, NodeRigidBodyEP, NodeRigidBodyRotVecLG,
        NodeRigidBodyRxyz, ObjectRigidBody, PointGround,
    )
    from exudyn.rigidBodyUtilities import AngularVelocity2EulerParameters_t, AngularVelocity2RotXYZ_t, eulerParameters0

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    if case.formulation == "RV":
        node = NodeRigidBodyRotVecLG(referenceCoordinates=[0.0] * 6, initialVelocities=[0.0] * 3 + OMEGA0)
    elif case.formulation == "Rxyz":
        rates = list(AngularVelocity2RotXYZ_t(OMEGA0, [0.0, 0.0, 0.0]))
        node = NodeRigidBodyRxyz(referenceCoordinates=[0.0] * 6, initialVelocities=[0.0] * 3 + rates)
    else:
        ep0 = list(eulerParameters0)
        node = NodeRigidBodyEP(referenceCoordinates=[0.0] * 3 + ep0,
                               initialVelocities=[0.0] * 3 + list(AngularVelocity2EulerParameters_t(OMEGA0, ep0)))
    n = mbs.AddNode(node)
    J = INERTIA_COM + MASS * ((COM @ COM) * np.eye(3) - np.outer(COM, COM))
    body = mbs.AddObject(ObjectRigidBody(mass=MASS, nodeNumber=n,
                                         inertia=[J[0, 0], J[1, 1], J[2, 2], J[1, 2], J[0, 2], J[0, 1]]))
    mbs.AddLoad(Force(markerNumber=mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=list(COM))),
                      loadVector=list(MASS * GRAVITY)))
    ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(PointGround()), coordinate=0))
    for k in range(3):
        fixed = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=n, coordinate=k))
        mbs.AddObject(CoordinateConstraint(markerNumbers=[ground, fixed]))
    mbs.Assemble()

    settings = exu.SimulationSettings()
    settings.timeIntegration.numberOfSteps = steps
    settings.timeIntegration.endTime = steps * h
    settings.timeIntegration.verboseMode = 0
    settings.solution.file.write = False
    settings.solution.file.writeInitialValues = False
    settings.solution.sensors.writePeriod = 1e9
    settings.parallel.numberOfThreads = 1
    settings.timeIntegration.explicit.computeEndOfStepAccelerations = False
    settings.timeIntegration.explicit.computeMassMatrixInversePerBody = True
    settings.timeIntegration.newton.useModifiedNewton = case.newton == "modified"
    settings.timeIntegration.newton.relativeTolerance = 1e-8
    settings.timeIntegration.newton.absoluteTolerance = 1e-10
    settings.timeIntegration.generalizedAlpha.spectralRadius = 0.9
    settings.timeIntegration.generalizedAlpha.lieGroupAddTangentOperator = tangent_operator
    solver = exu.DynamicSolverType.GeneralizedAlpha if case.newton else getattr(exu.DynamicSolverType, case.integrator)
    return mbs, settings, solver, body


def run_exudyn(case: PeerCase, h: float, steps: int, tangent_operator: bool = False) -> tuple[float, np.ndarray]:
    """(process time of SolveDynamic, COM position at the end) of one Exudyn run of ``steps`` steps; T_exp
    in the Lie group iteration matrix with ``tangent_operator``."""
    exu = _exudyn()
    mbs, settings, solver, body = _build(case, h, steps, tangent_operator)
    start = time.process_time()
    ok = exu.SolveDynamic(mbs, settings, solverType=solver, storeSolver=False)
    cpu = time.process_time() - start
    if not ok:
        raise RuntimeError(f"Exudyn {case.name}: solver failed")
    com = np.array(mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, localPosition=list(COM)))
    return cpu, com


def measure_exudyn(case: PeerCase, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    steps = int(round(t_end / h))
    setup = min(run_exudyn(case, h, SETUP_STEPS)[0] for _ in range(repeats))
    runs = [run_exudyn(case, h, steps) for _ in range(repeats)]
    total = min(cpu for cpu, _ in runs)
    return {"steps": steps, "us_per_step": 1e6 * (total - setup) / (steps - SETUP_STEPS),
            "setup_ms": 1e3 * setup, "com": runs[-1][1]}


def measure_lgbench(case: PeerCase, h: float, t_end: float, repeats: int) -> dict[str, Any]:
    from lgbench.runner.single_run import RunSpec, run_single

    spec = RunSpec("heavy_top", case.formulation, case.integrator, h, t_end, options=case.lgbench_options())
    runs = [run_single(spec) for _ in range(repeats + 1)][1:]     # the first one compiles or loads
    for run in runs:
        if run.status != "ok":
            raise RuntimeError(f"lgbench {case.name}: {run.status}: {run.message}")
    best = min(run.cpu_s / run.steps for run in runs)
    out = runs[-1].final_outputs
    return {"steps": runs[-1].steps, "us_per_step": 1e6 * best,
            "com": np.array([out["com_x"], out["com_y"], out["com_z"]]),
            "newton_per_step": runs[-1].statistics.get("newton_per_step", "")}


def reference_com(t_end: float, h: float) -> np.ndarray:
    """COM at t_end from lgbench RV RK67 at h (sixth order; at h = 1e-5 its error is at round-off)."""
    from lgbench.runner.single_run import RunSpec, run_single

    run = run_single(RunSpec("heavy_top", "RV", "RK67", h, t_end))
    return np.array([run.final_outputs[k] for k in ("com_x", "com_y", "com_z")])


def compare(h: float, t_end: float, repeats: int, h_reference: float) -> list[dict[str, Any]]:
    """One row per ``peer_cases()`` entry: both codes' us/step, their ratio, final COM difference and errors."""
    ref = reference_com(t_end, h_reference)
    rows = []
    for case in peer_cases():
        try:
            lg = measure_lgbench(case, h, t_end, repeats)
            ex = measure_exudyn(case, h, t_end, repeats)
        except RuntimeError as failure:     # e.g. Rxyz generalized-alpha near gimbal lock at large h
            rows.append({"formulation": case.formulation, "integrator": case.integrator, "newton": case.newton,
                         "h": h, "t_end": t_end, "status": str(failure)})
            continue
        rows.append({
            "formulation": case.formulation, "integrator": case.integrator, "newton": case.newton,
            "h": h, "t_end": t_end, "status": "ok", "steps": lg["steps"], "repeats": repeats,
            "lgbench_us_per_step": lg["us_per_step"], "exudyn_us_per_step": ex["us_per_step"],
            "ratio": lg["us_per_step"] / ex["us_per_step"], "exudyn_setup_ms": ex["setup_ms"],
            "lgbench_newton_per_step": lg["newton_per_step"],
            "com_difference": float(np.linalg.norm(lg["com"] - ex["com"])),
            "lgbench_com_error": float(np.linalg.norm(lg["com"] - ref)),
            "exudyn_com_error": float(np.linalg.norm(ex["com"] - ref)),
            "reference": f"lgbench RV RK67 h={h_reference:g}",
        })
    return rows


def generalized_alpha_settings(h: float, steps: int, tangent_operator: bool):
    """Exudyn's settings of the mechanism comparisons: generalized-alpha (rho_inf = 0.9), full Newton with
    tolerances 1e-8 relative / 1e-10 absolute, T_exp in the Lie group iteration matrix or not, no output,
    one thread."""
    exu = _exudyn()
    settings = exu.SimulationSettings()
    integration = settings.timeIntegration
    integration.numberOfSteps = steps
    integration.endTime = steps * h
    integration.verboseMode = 0
    settings.solution.file.write = False
    settings.parallel.numberOfThreads = 1
    integration.newton.useModifiedNewton = False
    integration.newton.relativeTolerance = 1e-8
    integration.newton.absoluteTolerance = 1e-10
    integration.generalizedAlpha.spectralRadius = 0.9
    integration.generalizedAlpha.lieGroupAddTangentOperator = tangent_operator
    return settings


def solve_generalized_alpha(mbs, settings, what: str) -> tuple[float, float]:
    """(process time of SolveDynamic, Newton iterations per step) of one generalized-alpha run."""
    exu = _exudyn()
    start = time.process_time()
    try:
        ok = exu.SolveDynamic(mbs, settings, solverType=exu.DynamicSolverType.GeneralizedAlpha, storeSolver=True)
    except exu.SolverError:      # Newton did not converge: raised, not returned
        ok = False
    cpu = time.process_time() - start
    if not ok:
        raise RuntimeError(f"Exudyn {what}: solver failed")
    return cpu, mbs.sys["dynamicSolver"].it.newtonStepsCount / settings.timeIntegration.numberOfSteps


def marginal_cost(run, h: float, t_end: float, repeats: int) -> tuple[float, Any]:
    """(µs per step beyond Exudyn's per-run setup, the last run's result) of ``run(steps) -> (cpu, ...)``:
    (T(N) - T(n0)) / (N - n0) of the minima over the repeats (see the module docstring)."""
    steps = int(round(t_end / h))
    setup = min(run(SETUP_STEPS)[0] for _ in range(repeats))
    runs = [run(steps) for _ in range(repeats)]
    return 1e6 * (min(result[0] for result in runs) - setup) / (steps - SETUP_STEPS), runs[-1]


def unrotated_rigid_body_node(formulation: str, position, velocity, omega):
    """An Exudyn rigid-body node (RV Lie group, EP or Rxyz) at ``position`` with R = I, the global velocity
    ``velocity`` and the body angular velocity ``omega`` (as angle or parameter rates where the node
    type needs them)."""
    from exudyn.itemInterface import NodeRigidBodyEP, NodeRigidBodyRotVecLG, NodeRigidBodyRxyz
    from exudyn.rigidBodyUtilities import AngularVelocity2EulerParameters_t, AngularVelocity2RotXYZ_t, eulerParameters0

    position, velocity, omega = list(position), list(velocity), list(omega)
    if formulation == "RV":
        return NodeRigidBodyRotVecLG(referenceCoordinates=position + [0.0] * 3, initialVelocities=velocity + omega)
    if formulation == "Rxyz":
        rates = list(AngularVelocity2RotXYZ_t(omega, [0.0, 0.0, 0.0]))
        return NodeRigidBodyRxyz(referenceCoordinates=position + [0.0] * 3, initialVelocities=velocity + rates)
    ep0 = list(eulerParameters0)
    return NodeRigidBodyEP(referenceCoordinates=position + ep0,
                           initialVelocities=velocity + list(AngularVelocity2EulerParameters_t(omega, ep0)))


def measure_exudyn_mechanism(run_exudyn, formulation: str, h: float, t_end: float, repeats: int,
                             quantity: str) -> dict[str, Any]:
    """The Exudyn side of ``compare_mechanism``: ``run_exudyn(formulation, h, steps) -> (cpu, value, Newton
    iterations per step)`` timed by ``marginal_cost``; the value as ``quantity``."""
    per_step, (_, value, newton) = marginal_cost(lambda steps: run_exudyn(formulation, h, steps), h, t_end, repeats)
    return {"us_per_step": per_step, quantity: value, "newton_per_step": newton}


def final_values(run, names) -> np.ndarray:
    """The named outputs of an lgbench run at its end."""
    return np.array([run.final_outputs[name] for name in names])


def measure_lgbench_mechanism(model: str, formulation: str, h: float, t_end: float, repeats: int, options,
                              quantity: str, names) -> dict[str, Any]:
    """The lgbench side of ``compare_mechanism``: generalized-alpha with ``options``, the minimum per step
    over ``repeats`` timed runs after one that compiles or loads, the final outputs ``names`` as
    ``quantity``."""
    from lgbench.runner.single_run import RunSpec, run_single

    spec = RunSpec(model, formulation, "generalized-alpha", h, t_end, options=tuple(options))
    runs = [run_single(spec) for _ in range(repeats + 1)][1:]
    for run in runs:
        if run.status != "ok":
            raise RuntimeError(f"lgbench {model} {formulation}: {run.status}: {run.message}")
    return {"us_per_step": 1e6 * min(run.cpu_s / run.steps for run in runs), quantity: final_values(runs[-1], names),
            "newton_per_step": runs[-1].statistics["newton_per_step"]}


def compare_mechanism(model: str, formulations, measure_lgbench, measure_exudyn, reference: np.ndarray,
                      reference_name: str, quantity: str, h: float, t_end: float, repeats: int) -> list[dict[str, Any]]:
    """One row per formulation of a mechanism in both codes (generalized-alpha, full Newton): per-step
    costs, their ratio, Newton iterations per step, and the largest difference of the final ``quantity``
    (the key of the measure functions' results) between the codes and against ``reference``."""
    rows = []
    for formulation in formulations:
        row = {"model": model, "formulation": formulation, "integrator": "generalized-alpha", "newton": "full",
               "h": h, "t_end": t_end, "repeats": repeats}
        try:
            lg = measure_lgbench(formulation, h, t_end, repeats)
            ex = measure_exudyn(formulation, h, t_end, repeats)
        except RuntimeError as failure:
            rows.append({**row, "status": str(failure)})
            continue
        rows.append({
            **row, "status": "ok",
            "lgbench_us_per_step": lg["us_per_step"], "exudyn_us_per_step": ex["us_per_step"],
            "ratio": lg["us_per_step"] / ex["us_per_step"],
            "lgbench_newton_per_step": lg["newton_per_step"], "exudyn_newton_per_step": ex["newton_per_step"],
            f"{quantity}_difference": float(np.abs(lg[quantity] - ex[quantity]).max()),
            f"lgbench_{quantity}_error": float(np.abs(lg[quantity] - reference).max()),
            f"exudyn_{quantity}_error": float(np.abs(ex[quantity] - reference).max()),
            "reference": reference_name,
        })
    return rows
