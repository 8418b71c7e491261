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


def exudyn_curve(formulation: str, tangent_operator: bool, reference: np.ndarray) -> list[tuple[float, float, float]]:
    """(h, COM error, CPU seconds) of Exudyn generalized-alpha, full Newton."""
    case = peer.PeerCase(formulation, "generalized-alpha", "full")
    curve = []
    for h in STEPS:
        runs = [peer.run_exudyn(case, h, int(round(1.0 / h)), tangent_operator) for _ in range(REPEATS)]
        curve.append((h, float(np.linalg.norm(runs[-1][1] - reference)), min(cpu for cpu, _ in runs)))
    return curve


def lgbench_curve(formulation: str, reference: np.ndarray) -> list[tuple[float, float, float]]:
    """(h, COM error, CPU seconds) of lgbench generalized-alpha with its defaults."""
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
    reference = peer.reference_com(1.0, 1e-5)
    codes = {f"Exudyn {peer.exudyn_version()}, T_exp off": lambda f: exudyn_curve(f, False, reference),
             "Exudyn, T_exp on": lambda f: exudyn_curve(f, True, reference),
             "lgbench": lambda f: lgbench_curve(f, reference)}
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
