"""IFToMM benchmark A04, Bricard's mechanism: Exudyn beside lgbench on studies/mechanisms/iftomm_a04_bricard.yaml.

The statement and the geometry are in the mechanism file's header. Exudyn: the five rods as rigid bodies on RV
(Lie group), EP or Rxyz nodes, started from lgbench's initial state of the formulation (at rest), with
``GenericJoint``s at O, A, B, C and D holding all but the rotation about the joint axis (constrained axes
[1,1,1,1,1,0], the joint frame's z along the axis) and the joint E holding one rotation less
([1,1,1,1,0,0]): the loop's 30 rows have rank 29 along the motion, and lgbench removes
the same row (one axis row of E) when it builds the file. Generalized-alpha (rho_inf = 0.9), full Newton, the same
h and Newton tolerances in both codes; the point B (the statement's P3) at t_end against lgbench's RV RK67 with
projection at h / 4 (the study's reference method).

    .venv/bin/python -m benchmarks.peer_iftomm_bricard [--h 1e-3] [--t-end 10] [--newton 1e-10 1e-12]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MECHANISM = ROOT / "studies" / "mechanisms" / "iftomm_a04_bricard.yaml"
FORMULATIONS = ("RV", "EP", "Rxyz")
NODE_TYPE = {"RV": "RotationRotationVector", "EP": "RotationEulerParameters", "Rxyz": "RotationRxyz"}
SIDE = 0.1
LENGTH = 1.0
JOINTS = (  # point, axis, body1, body2 (None: ground); rods OA, AB, BC, CD, DE are bodies 0..4
    ((0.0, 0.0, 0.0), (0.0, 1.0, 0.0), None, 0),
    ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0, 1),
    ((1.0, -1.0, 0.0), (1.0, 0.0, 0.0), 1, 2),
    ((1.0, -1.0, 1.0), (0.0, 1.0, 0.0), 2, 3),
    ((0.0, -1.0, 1.0), (0.0, 0.0, 1.0), 3, 4),
    ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), 4, None),
)
ROD_AXES = (0, 1, 2, 0, 1)
"""The global axis each rod lies along at t = 0 (x, y, z)."""
B_ON_AB = (0.0, -0.5, 0.0)
"""The point B (P3) in the body frame of the rod AB (identity at t = 0, centre of mass at (1, -0.5, 0))."""


def mechanism_data():
    from lgbench.runner.mechanism_file import load_mechanism, mechanism_data as data

    return data(load_mechanism(MECHANISM))


def lgbench_initial_bodies(formulation: str):
    """(x, R, u, omega_global) of the five rods in lgbench's initial state of ``formulation``."""
    from lgbench.mbs.pose import body_state

    built = mechanism_data().model().build(formulation)
    out = []
    for body in range(5):
        R, x, u, omega = body_state(built.system, body, built.q0, built.v0)
        out.append((x, R, u, R @ omega))
    return out


def _joint_frame(axis) -> np.ndarray:
    """Columns: two unit vectors normal to ``axis``, then ``axis`` (a joint frame whose z is the axis)."""
    z = np.asarray(axis, dtype=float)
    x = np.roll(z, 1)
    return np.column_stack([x, np.cross(z, x), z])


def _build_exudyn(formulation: str, h: float, steps: int, newton: tuple[float, float]):
    from benchmarks.peer_exudyn import _exudyn, generalized_alpha_settings
    exu = _exudyn()
    from exudyn.itemInterface import GenericJoint, MarkerBodyRigid
    from exudyn.rigidBodyUtilities import RigidBodyInertia

    mbs = exu.SystemContainer().AddSystem()
    node_type = getattr(exu.NodeType, NODE_TYPE[formulation])
    bodies = []
    for (x, R, u, omega), along in zip(lgbench_initial_bodies(formulation), ROD_AXES):
        diagonal = np.full(3, (LENGTH**2 + SIDE**2) / 12.0)
        diagonal[along] = SIDE**2 / 6.0
        body = mbs.CreateRigidBody(referencePosition=list(x), referenceRotationMatrix=R, initialVelocity=list(u),
                                   initialAngularVelocity=list(omega), gravity=[0.0, -9.81, 0.0],
                                   nodeType=node_type,
                                   inertia=RigidBodyInertia(mass=1.0, inertiaTensor=np.diag(diagonal)))
        bodies.append((body, x, R))
    ground = mbs.CreateGround()

    def marker(k, point, frame):
        point = np.asarray(point, dtype=float)
        if k is None:
            return mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localHT=exu.HT(rotation=frame,
                                                                                  translation=list(point))))
        body, x, R = bodies[k]
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=body, localHT=exu.HT(rotation=R.T @ frame,
                                                                            translation=list(R.T @ (point - x)))))

    for j, (point, axis, body1, body2) in enumerate(JOINTS):
        frame = _joint_frame(axis)
        constrained = [1, 1, 1, 1, 1, 0] if j < len(JOINTS) - 1 else [1, 1, 1, 1, 0, 0]
        mbs.AddObject(GenericJoint(markerNumbers=[marker(body1, point, frame), marker(body2, point, frame)],
                                   constrainedAxes=constrained))
    mbs.Assemble()
    settings = generalized_alpha_settings(h, steps, tangent_operator=False)
    settings.timeIntegration.newton.relativeTolerance, settings.timeIntegration.newton.absoluteTolerance = newton
    return mbs, settings, bodies[1][0]


def run_exudyn(formulation: str, h: float, steps: int, newton: tuple[float, float]):
    """(process time of SolveDynamic, B at the end, Newton iterations per step) of one Exudyn run."""
    from benchmarks.peer_exudyn import _exudyn, solve_generalized_alpha
    exu = _exudyn()
    mbs, settings, rod_ab = _build_exudyn(formulation, h, steps, newton)
    cpu, iterations = solve_generalized_alpha(mbs, settings, f"Bricard {formulation}")
    return cpu, np.array(mbs.GetObjectOutputBody(rod_ab, exu.OutputVariableType.Position,
                                                 localPosition=list(B_ON_AB))), iterations


def lgbench_run(formulation: str, integrator: str, h: float, t_end: float, options=()):
    from lgbench.runner.single_run import RunSpec, run_single

    data = mechanism_data()
    run = run_single(RunSpec(data.model().name, formulation, integrator, h, t_end, options=tuple(options),
                             mechanism=data))
    if run.status != "ok":
        raise RuntimeError(f"lgbench Bricard {formulation} {integrator}: {run.status}: {run.message}")
    return run


def final_b(run) -> np.ndarray:
    return np.array([run.final_outputs[f"B_{c}"] for c in "xyz"])


def compare(formulations, h: float, t_end: float, repeats: int, newton) -> list[dict[str, Any]]:
    """One row per formulation: B at t_end from both codes (generalized-alpha, same h, rho_inf and Newton
    tolerances) against the RK67 reference at h / 4, and both codes' µs per step."""
    from benchmarks.peer_exudyn import marginal_cost

    reference = final_b(lgbench_run("RV", "RK67-index1", h / 4, t_end))
    options = (("newton_atol", newton[1]), ("newton_rtol", newton[0]), ("rho_inf", 0.9))
    rows = []
    for formulation in formulations:
        row = {"formulation": formulation, "h": h, "t_end": t_end, "newton_rtol": newton[0], "newton_atol": newton[1]}
        try:
            runs = [lgbench_run(formulation, "generalized-alpha", h, t_end, options) for _ in range(repeats + 1)][1:]
            per_step, (_, b_exudyn, iterations) = marginal_cost(
                lambda steps: run_exudyn(formulation, h, steps, newton), h, t_end, repeats)
        except RuntimeError as failure:
            rows.append({**row, "status": str(failure)})
            continue
        b_lgbench = final_b(runs[-1])
        lgbench_us = 1e6 * min(run.cpu_s / run.steps for run in runs)
        rows.append({**row, "status": "ok", "lgbench_us_per_step": lgbench_us, "exudyn_us_per_step": per_step,
                     "ratio": lgbench_us / per_step,
                     "lgbench_newton_per_step": runs[-1].statistics["newton_per_step"],
                     "exudyn_newton_per_step": iterations,
                     "B_difference": float(np.abs(b_lgbench - b_exudyn).max()),
                     "lgbench_B_error": float(np.abs(b_lgbench - reference).max()),
                     "exudyn_B_error": float(np.abs(b_exudyn - reference).max())})
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formulations", nargs="+", default=list(FORMULATIONS), choices=FORMULATIONS)
    parser.add_argument("--h", type=float, default=1e-3)
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--newton", type=float, nargs=2, default=[1e-10, 1e-12], metavar=("RTOL", "ATOL"))
    args = parser.parse_args(argv)
    from benchmarks.peer_exudyn import exudyn_version, unavailable_reason

    reason = unavailable_reason()
    if reason:
        sys.exit(reason)
    print(f"Exudyn {exudyn_version()}; generalized-alpha rho_inf = 0.9, full Newton rtol {args.newton[0]:g} "
          f"atol {args.newton[1]:g}, h = {args.h:g}, t_end = {args.t_end:g} s")
    for row in compare(args.formulations, args.h, args.t_end, args.repeats, tuple(args.newton)):
        print(", ".join(f"{key}={value:.4g}" if isinstance(value, float) else f"{key}={value}"
                        for key, value in row.items()))


if __name__ == "__main__":
    main()
