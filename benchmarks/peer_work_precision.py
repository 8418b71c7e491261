"""Paper 000 Fig. 5 right read off both codes: the CPU time of EP generalized-alpha over RV's at a COM
error of 1e-4 on the heavy top, in Exudyn 1.13.6 (the paper's code) and in lgbench, with the same grid,
reference and reading.

Heavy top and settings as ``peer_exudyn`` (full Newton, rho_inf = 0.9, tolerances 1e-8 / 1e-10; Exudyn
with and without T_exp in its iteration matrix); h = 1e-3 / 2^k, k = 0..6, t_end = 1 s; error = |COM(1) -
COM_ref(1)| with lgbench RV RK67 at h = 1e-5 as the reference; CPU = the minimum of 3 runs (Exudyn:
process time of ``SolveDynamic``, lgbench: ``run_single``'s timed loop); the cost at an error is read off
each work-precision curve as the study expectations ``cost_ratio`` do (``cost_at_error``).

    .venv/bin/python benchmarks/peer_work_precision.py        # about 2 min; needs the extra `peer`
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import peer_exudyn as peer  # noqa: E402

from lgbench.analysis.expectations import cost_at_error  # noqa: E402
from lgbench.runner.single_run import RunSpec, run_single  # noqa: E402

STEPS = [1e-3 / 2 ** k for k in range(7)]
TARGETS = (1e-3, 1e-4)
REPEATS = 3


def exudyn_curve(formulation: str, tangent_operator: bool) -> list[tuple[float, float, float]]:
    """(h, COM error, CPU seconds) of Exudyn generalized-alpha, full Newton."""
    exu = peer._exudyn()
    case = peer.PeerCase(formulation, "generalized-alpha", "full")
    reference = peer.reference_com(1.0, 1e-5)
    curve = []
    for h in STEPS:
        cpu, com = [], None
        for _ in range(REPEATS):
            mbs, settings, solver, body = peer._build(case, h, int(round(1.0 / h)))
            settings.timeIntegration.generalizedAlpha.lieGroupAddTangentOperator = tangent_operator
            start = time.process_time()
            if not exu.SolveDynamic(mbs, settings, solverType=solver, storeSolver=False):
                raise RuntimeError(f"Exudyn {formulation} failed at h = {h:g}")
            cpu.append(time.process_time() - start)
            com = np.array(mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, localPosition=list(peer.COM)))
        curve.append((h, float(np.linalg.norm(com - reference)), min(cpu)))
    return curve


def lgbench_curve(formulation: str) -> list[tuple[float, float, float]]:
    """(h, COM error, CPU seconds) of lgbench generalized-alpha with its defaults."""
    reference = peer.reference_com(1.0, 1e-5)
    curve = []
    for h in STEPS:
        runs = [run_single(RunSpec("heavy_top", formulation, "generalized-alpha", h, 1.0)) for _ in range(REPEATS + 1)]
        runs = runs[1:]          # the first one compiles or loads
        out = runs[-1].final_outputs
        com = np.array([out["com_x"], out["com_y"], out["com_z"]])
        curve.append((h, float(np.linalg.norm(com - reference)), min(run.cpu_s for run in runs)))
    return curve


def main() -> None:
    reason = peer.unavailable_reason()
    if reason:
        print(reason)
        return
    codes = {f"Exudyn {peer.exudyn_version()}, T_exp off": lambda f: exudyn_curve(f, False),
             "Exudyn, T_exp on": lambda f: exudyn_curve(f, True),
             "lgbench": lgbench_curve}
    print("| code | node | h | COM error | CPU [s] | us per step |")
    print("|---|---|---|---|---|---|")
    readings = []
    for code, curve_of in codes.items():
        curves = {formulation: curve_of(formulation) for formulation in ("RV", "EP")}
        for formulation, curve in curves.items():
            for h, error, cpu in curve:
                print(f"| {code} | {formulation} | {h:.4g} | {error:.3g} | {cpu:.4f} | {1e6 * cpu * h:.2f} |")
        for target in TARGETS:
            costs = {formulation: cost_at_error(*zip(*curve), target)[0] for formulation, curve in curves.items()}
            readings.append((code, target, costs["RV"], costs["EP"]))
    print("\n| code | COM error | CPU RV [s] | CPU EP [s] | EP / RV (paper: ~1/4 at 1e-4) |")
    print("|---|---|---|---|---|")
    for code, target, rv, ep in readings:
        print(f"| {code} | {target:g} | {rv:.4f} | {ep:.4f} | {ep / rv:.2f} |")


if __name__ == "__main__":
    main()
