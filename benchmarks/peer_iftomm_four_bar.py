"""IFToMM benchmark A02, the N four-bar mechanism: its mechanism files, and Exudyn beside lgbench on it.

Statement: M. Gonzalez, D. Dopico, U. Lugris, J. Cuadrado, Multibody Syst. Dyn. 16 (2006) 179-190, and
http://lim.ii.udc.es/mbsbenchmark/dist/A02/A02_specification.xml (after E. Bayo, A. Avello, Nonlinear Dyn. 5
(1994) 209-231, whose mechanism has N = 2). 2N + 1 rods of 1 m and 1 kg, mass uniformly distributed (slender
rods); N + 1 cranks hinged to the ground at x = 0, 1, ..., N, N couplers joining their tips; gravity 9.81 along
-y; the cranks start upright, the couplers horizontal at y = 1, and the tip B0 of the first crank moves at
1 m/s along +x (every crank turns at -1 rad/s, the couplers translate at 1 m/s). The statement's N is 40 over
20 s; this module writes N = 2, 10 and 40.

A mechanism file has no loops or repetition, so ``four_bar_mechanism(n)`` writes the file for one N; the
files in studies/mechanisms come from

    .venv/bin/python -m benchmarks.peer_iftomm_four_bar write 2 10 40

Every joint is revolute (5 rows each, 5 (3N + 1) in all); lgbench removes the three redundant rows per loop
when it builds the mechanism (docs/mechanisms.md, "Redundant constraints"). A slender rod's inertia about its
own axis is zero; the planar motion involves only the inertia about z (m L^2 / 12), so the file gives every
rod m L^2 / 12 about its two transverse axes and a hundredth of it about its own axis (x), which keeps the mass
matrix positive definite and leaves the motion and the energy unchanged (the angular velocity stays along the
body's z axis).

Exudyn (``python -m benchmarks.peer_iftomm_four_bar compare``): the same rigid bodies on RV (Lie group), EP or
Rxyz nodes, started from lgbench's initial state of the formulation, with ``GenericJoint``s: every crank and
the left end of every coupler on full revolute joints about z (constrained axes [1,1,1,1,1,0]), the right end
of every coupler on a joint holding only the x and y translations ([1,1,0,0,0,0]), i.e. the independent rows
(the way Exudyn's own example fourBarMechanism3D.py removes the redundant ones). Generalized-alpha,
rho_inf = 0.9, full Newton, the same h and Newton tolerances in both codes (default: 1e-8 relative, 1e-10
absolute); Exudyn's dense LU at N = 2 and its sparse LU (EigenSparse) from N = 10 on, lgbench's own choice
(dense at N = 2, banded from N = 10 on: ``lgbench.integrators.implicit.solver_kind``); timing as in
``peer_exudyn`` (Exudyn's marginal per-step cost, lgbench's integration loop).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
MECHANISMS = ROOT / "studies" / "mechanisms"
FORMULATIONS = ("RV", "EP", "Rxyz")
T_END = 2.0
"""Simulated time of the cost comparison: the first two horizontal passes (t = 0.71 s and 1.4 s at N = 2)."""


def mechanism_path(n: int) -> Path:
    return MECHANISMS / ("iftomm_a02_four_bar.yaml" if n == 2 else f"iftomm_a02_four_bar_n{n}.yaml")


def _rod(name: str, position: list[str], rotation: str, velocity: list[str], rate: str) -> dict[str, Any]:
    return {"name": name, "mass": "mass", "inertia": ["mass * length**2 / 1200", "mass * length**2 / 12", "mass * length**2 / 12"],
            "position": position, "orientation": {"rotation_vector": [0, 0, rotation]},
            "velocity": velocity, "angular_velocity": [0, 0, rate]}


def four_bar_mechanism(n: int) -> dict[str, Any]:
    """The N four-bar as a mechanism file's data: cranks ``crank0`` ... ``crankN`` (body x along the rod, up),
    couplers ``coupler1`` ... ``couplerN`` (body x along +x), revolute joints about z."""
    cranks = [_rod(f"crank{i}", [f"{i} * length", "length / 2", 0], "pi / 2", ["speed / 2", 0, 0],
                   "-speed / length") for i in range(n + 1)]
    couplers = [_rod(f"coupler{i}", [f"({i} - 0.5) * length", "length", 0], "0", ["speed", 0, 0], "0")
                for i in range(1, n + 1)]
    joints = [{"name": f"ground{i}", "type": "revolute", "body1": f"crank{i}", "body2": "ground",
               "point": [f"{i} * length", 0, 0], "axis": [0, 0, 1]} for i in range(n + 1)]
    for i in range(1, n + 1):
        joints.append({"name": f"crank{i - 1}_coupler{i}", "type": "revolute", "body1": f"crank{i - 1}",
                       "body2": f"coupler{i}", "point": [f"{i - 1} * length", "length", 0], "axis": [0, 0, 1]})
        joints.append({"name": f"coupler{i}_crank{i}", "type": "revolute", "body1": f"coupler{i}",
                       "body2": f"crank{i}", "point": [f"{i} * length", "length", 0], "axis": [0, 0, 1]})
    return {
        "name": "iftomm_a02_four_bar" if n == 2 else f"iftomm_a02_four_bar_n{n}",
        "description": f"IFToMM A02, the N four-bar mechanism with N = {n} (benchmarks/peer_iftomm_four_bar.py)",
        "formulations": ["RV", "Rxyz", "EP", "SE3"],
        "parameters": {"mass": 1.0, "length": 1.0, "speed": 1.0, "g": 9.81},
        "bodies": cranks + couplers,
        "joints": joints,
        "forces": [{"type": "gravity", "acceleration": [0, "-g", 0]}],
        "outputs": [{"name": "B0", "kind": "position", "body": "crank0", "point": ["length / 2", 0, 0],
                     "components": "xy"},
                    {"name": "B0_velocity", "kind": "velocity", "body": "crank0", "point": ["length / 2", 0, 0],
                     "components": "xy"},
                    {"name": "crank_angle", "kind": "joint_angle", "joint": "ground0", "continuous": True},
                    {"name": "energy", "kind": "energy"}],
    }


HEADER = """\
# IFToMM benchmark A02, the N four-bar mechanism, N = {n}: {rods} rods of 1 m and 1 kg (slender), {joints} revolute
# joints, gravity 9.81 along -y; the cranks start upright and the tip B0 of the first crank moves at 1 m/s along
# +x. Statement: Gonzalez, Dopico, Lugris, Cuadrado, Multibody Syst. Dyn. 16 (2006) 179-190;
# http://lim.ii.udc.es/mbsbenchmark/dist/A02/A02_specification.xml. {rows} constraint rows, {independent} independent
# (lgbench removes three per loop). Written by `python -m benchmarks.peer_iftomm_four_bar write {n}`; see that
# module for the inertia of the slender rods. Do not edit by hand.
"""


def write(n: int) -> Path:
    path = mechanism_path(n)
    text = yaml.safe_dump(four_bar_mechanism(n), sort_keys=False, width=120, default_flow_style=None)
    rods = 2 * n + 1
    path.write_text(HEADER.format(n=n, rods=rods, joints=3 * n + 1, rows=5 * (3 * n + 1), independent=6 * rods - 1)
                    + text)
    return path


def mechanism_data(n: int):
    """The validated mechanism file of N (``lgbench.runner.single_run.MechanismData``)."""
    from lgbench.runner.mechanism_file import load_mechanism, mechanism_data as data

    return data(load_mechanism(mechanism_path(n)))


def lgbench_initial_bodies(n: int, formulation: str) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(x, R, u, omega_global) of every body (cranks, then couplers) in lgbench's initial state of
    ``formulation``."""
    from lgbench.mbs.pose import body_state

    built = mechanism_data(n).model().build(formulation)
    out = []
    for body in range(2 * n + 1):
        R, x, u, omega = body_state(built.system, body, built.q0, built.v0)
        out.append((x, R, u, R @ omega))
    return out


NODE_TYPE = {"RV": "RotationRotationVector", "EP": "RotationEulerParameters", "Rxyz": "RotationRxyz"}
SPARSE_FROM = 10
"""From this N on Exudyn runs its sparse LU (EigenSparse), as it advises above 1000 unknowns; its dense LU below
(the cheaper of the two at N = 2)."""


def _build_exudyn(n: int, formulation: str, h: float, steps: int, newton: tuple[float, float]):
    from benchmarks.peer_exudyn import _exudyn, generalized_alpha_settings
    exu = _exudyn()
    from exudyn.itemInterface import GenericJoint, MarkerBodyRigid
    from exudyn.rigidBodyUtilities import RigidBodyInertia

    mbs = exu.SystemContainer().AddSystem()
    node_type = getattr(exu.NodeType, NODE_TYPE[formulation])
    inertia = RigidBodyInertia(mass=1.0, inertiaTensor=np.diag([1.0 / 1200.0, 1.0 / 12.0, 1.0 / 12.0]))
    bodies = []
    for x, R, u, omega in lgbench_initial_bodies(n, formulation):
        body = mbs.CreateRigidBody(referencePosition=list(x), referenceRotationMatrix=R, initialVelocity=list(u),
                                   initialAngularVelocity=list(omega), gravity=[0.0, -9.81, 0.0],
                                   nodeType=node_type, inertia=inertia)
        bodies.append((body, x, R))
    ground = mbs.CreateGround()

    def marker(k: int | None, point) -> int:
        """A rigid marker at the global ``point`` with global axes at t = 0, on body k or on ground."""
        point = np.asarray(point, dtype=float)
        if k is None:
            return mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localHT=exu.HT(rotation=np.eye(3),
                                                                                  translation=list(point))))
        body, x, R = bodies[k]
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=body, localHT=exu.HT(rotation=R.T,
                                                                            translation=list(R.T @ (point - x)))))

    revolute, planar_pin = [1, 1, 1, 1, 1, 0], [1, 1, 0, 0, 0, 0]
    for i in range(n + 1):
        mbs.AddObject(GenericJoint(markerNumbers=[marker(None, [i, 0, 0]), marker(i, [i, 0, 0])],
                                   constrainedAxes=revolute))
    for i in range(1, n + 1):
        coupler = n + i
        mbs.AddObject(GenericJoint(markerNumbers=[marker(i - 1, [i - 1, 1, 0]), marker(coupler, [i - 1, 1, 0])],
                                   constrainedAxes=revolute))
        mbs.AddObject(GenericJoint(markerNumbers=[marker(coupler, [i, 1, 0]), marker(i, [i, 1, 0])],
                                   constrainedAxes=planar_pin))
    mbs.Assemble()
    settings = generalized_alpha_settings(h, steps, tangent_operator=False)
    settings.timeIntegration.newton.relativeTolerance, settings.timeIntegration.newton.absoluteTolerance = newton
    if n >= SPARSE_FROM:
        settings.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    return mbs, settings, bodies[0][0]


def run_exudyn(n: int, formulation: str, h: float, steps: int, newton: tuple[float, float]):
    """(process time of SolveDynamic, B0's (x, y) at the end, Newton iterations per step) of one run."""
    from benchmarks.peer_exudyn import _exudyn, solve_generalized_alpha
    exu = _exudyn()
    mbs, settings, crank0 = _build_exudyn(n, formulation, h, steps, newton)
    cpu, iterations = solve_generalized_alpha(mbs, settings, f"N four-bar N={n} {formulation}")
    tip = mbs.GetObjectOutputBody(crank0, exu.OutputVariableType.Position, localPosition=[0.5, 0.0, 0.0])
    return cpu, np.array(tip[:2]), iterations


def measure_exudyn(n: int, formulation: str, h: float, t_end: float, repeats: int, newton) -> dict[str, Any]:
    from benchmarks.peer_exudyn import marginal_cost

    per_step, (_, tip, iterations) = marginal_cost(lambda steps: run_exudyn(n, formulation, h, steps, newton), h,
                                                   t_end, repeats)
    return {"us_per_step": per_step, "B0": tip, "newton_per_step": iterations}


def lgbench_spec(n: int, formulation: str, integrator: str, h: float, t_end: float, options=()):
    from lgbench.runner.single_run import RunSpec

    data = mechanism_data(n)
    return RunSpec(data.model().name, formulation, integrator, h, t_end, options=tuple(options), mechanism=data)


def measure_lgbench(n: int, formulation: str, h: float, t_end: float, repeats: int, newton) -> dict[str, Any]:
    from lgbench.runner.single_run import run_single

    options = (("newton_atol", newton[1]), ("newton_rtol", newton[0]), ("rho_inf", 0.9))
    spec = lgbench_spec(n, formulation, "generalized-alpha", h, t_end, options)
    runs = [run_single(spec) for _ in range(repeats + 1)][1:]      # the first one compiles or loads
    for run in runs:
        if run.status != "ok":
            raise RuntimeError(f"lgbench N={n} {formulation}: {run.status}: {run.message}")
    out = runs[-1].final_outputs
    return {"us_per_step": 1e6 * min(run.cpu_s / run.steps for run in runs),
            "B0": np.array([out["B0_x"], out["B0_y"]]), "newton_per_step": runs[-1].statistics["newton_per_step"]}


def reference_tip(n: int, t_end: float, h: float) -> np.ndarray:
    """B0 at t_end from lgbench RV RK67 with projection at h (the A02 studies' reference method)."""
    from lgbench.runner.single_run import run_single

    run = run_single(lgbench_spec(n, "RV", "RK67-index1", h, t_end))
    if run.status != "ok":
        raise RuntimeError(f"reference N={n}: {run.status}: {run.message}")
    return np.array([run.final_outputs["B0_x"], run.final_outputs["B0_y"]])


def lgbench_solver(n: int, formulation: str) -> str:
    """"dense" or "banded": the linear solver lgbench's generalized-alpha picks for the N four-bar (option
    ``linear_algebra: auto``, ``lgbench.integrators.implicit.solver_kind``)."""
    from lgbench.integrators.implicit import GENERALIZED_ALPHA, solver_kind

    built = mechanism_data(n).model().build(formulation)
    return solver_kind(built.system, 3, {**GENERALIZED_ALPHA.defaults})


def compare(sizes, formulations, h: float, t_end: float, repeats: int, newton):
    """One row per N and formulation (yielded as measured): both codes' µs per step, their ratio, Newton
    iterations per step, lgbench's linear solver and B0 at t_end against the RK67 reference at h / 4."""
    for n in sizes:
        reference = reference_tip(n, t_end, h / 4)
        for formulation in formulations:
            row = {"N": n, "bodies": 2 * n + 1, "formulation": formulation, "h": h, "t_end": t_end,
                   "newton_rtol": newton[0], "newton_atol": newton[1], "repeats": repeats,
                   "lgbench_solver": lgbench_solver(n, formulation)}
            try:
                lg = measure_lgbench(n, formulation, h, t_end, repeats, newton)
                ex = measure_exudyn(n, formulation, h, t_end, repeats, newton)
            except RuntimeError as failure:
                yield {**row, "status": str(failure)}
                continue
            yield {**row, "status": "ok", "lgbench_us_per_step": lg["us_per_step"],
                   "exudyn_us_per_step": ex["us_per_step"], "ratio": lg["us_per_step"] / ex["us_per_step"],
                   "lgbench_newton_per_step": lg["newton_per_step"], "exudyn_newton_per_step": ex["newton_per_step"],
                   "B0_difference": float(np.abs(lg["B0"] - ex["B0"]).max()),
                   "lgbench_B0_error": float(np.abs(lg["B0"] - reference).max()),
                   "exudyn_B0_error": float(np.abs(ex["B0"] - reference).max())}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write_command = commands.add_parser("write", help="write the mechanism files of the given N")
    write_command.add_argument("sizes", type=int, nargs="+")
    compare_command = commands.add_parser("compare", help="per-step cost of both codes (generalized-alpha)")
    compare_command.add_argument("--sizes", type=int, nargs="+", default=[2, 10, 40])
    compare_command.add_argument("--formulations", nargs="+", default=list(FORMULATIONS), choices=FORMULATIONS)
    compare_command.add_argument("--h", type=float, default=1e-3)
    compare_command.add_argument("--t-end", type=float, default=T_END)
    compare_command.add_argument("--repeats", type=int, default=3)
    compare_command.add_argument("--newton", type=float, nargs=2, default=[1e-8, 1e-10], metavar=("RTOL", "ATOL"))
    args = parser.parse_args(argv)
    if args.command == "write":
        for n in args.sizes:
            print(write(n))
        return
    from benchmarks.peer_exudyn import exudyn_version, unavailable_reason

    reason = unavailable_reason()
    if reason:
        sys.exit(reason)
    print(f"Exudyn {exudyn_version()}; generalized-alpha rho_inf = 0.9, full Newton rtol {args.newton[0]:g} "
          f"atol {args.newton[1]:g}, h = {args.h:g}, t_end = {args.t_end:g} s, min of {args.repeats} repeats")
    for row in compare(args.sizes, args.formulations, args.h, args.t_end, args.repeats, tuple(args.newton)):
        print(", ".join(f"{key}={value:.4g}" if isinstance(value, float) else f"{key}={value}"
                        for key, value in row.items()), flush=True)


if __name__ == "__main__":
    main()
