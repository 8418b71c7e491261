"""Generalized-alpha and HHT at tight Newton tolerances through the singular configurations of the IFToMM double
four-bar (benchmark A02, N = 2; ``tests/data/four_bar_double_nonredundant.yaml``), against its exact motion.

The mechanism is a chain of parallelograms: every crank turns by the same angle phi (from the +x axis, pi/2
at t = 0) and the couplers translate, so the motion is that of one degree of freedom,
    ((N + 1) m L^2 / 3 + N m L^2) phi'' = -((N + 1) / 2 + N) m g L cos(phi),
i.e. 3 phi'' = -3.5 g cos(phi) for N = 2, m = L = 1, with phi'(0) = -1 (B0 at 1 m/s in +x), and
B0 = L (cos phi, sin phi). The reference integrates this equation with DOP853 at rtol = atol = 1e-13.
The runs: every formulation and step size of ``GRID``, Newton rtol 1e-12, atol 1e-13 (``TIGHT``); per run
the status, steps accepted at the round-off level, Newton iterations, the error of B0 at t_end, the total
energy's largest deviation from its initial value over ``SAMPLES`` samples, and fitted orders per method.

    .venv/bin/python -m benchmarks.singular_four_bar [t_end]
"""
from __future__ import annotations

import sys

import numpy as np

from benchmarks.peer_four_bar import NAME, exact_B0, lgbench_model

TIGHT = (("newton_rtol", 1e-12), ("newton_atol", 1e-13))
STEPS = (1e-3, 5e-4, 2.5e-4, 1.25e-4)
GRID = [(integrator, formulation) for integrator in ("generalized-alpha", "hht") for formulation in ("RV", "EP", "SE3")]
SAMPLES = 1001


def run(integrator: str, formulation: str, h: float, t_end: float):
    from lgbench.runner.single_run import RunSpec, run_single

    spec = RunSpec(NAME, formulation, integrator, h, t_end, options=TIGHT, mechanism=lgbench_model())
    return run_single(spec, n_samples=SAMPLES)


def table(t_end: float) -> list[dict]:
    reference = exact_B0(t_end)
    rows = []
    for integrator, formulation in GRID:
        for h in STEPS:
            result = run(integrator, formulation, h, t_end)
            row = {"method": f"{formulation}-{integrator}", "h": h, "status": result.status,
                   "message": result.message, "steps_at_round_off": result.statistics.get("steps_at_round_off"),
                   "newton_per_step": result.statistics.get("newton_per_step"),
                   "max_newton_in_step": result.statistics.get("max_newton_in_step"),
                   "us_per_step": result.statistics.get("us_per_step")}
            if result.status == "ok":
                out = result.final_outputs
                row["B0_error"] = float(np.linalg.norm(np.array([out["B0_x"], out["B0_y"]]) - reference))
                energy = result.series["energy"]
                row["energy_drift"] = float(np.abs(energy - energy[0]).max())
            rows.append(row)
    return rows


def orders(rows: list[dict]) -> dict[str, float]:
    """Least-squares slope of log(B0 error) over log(h) per method (all of its runs ok)."""
    fitted = {}
    for method in dict.fromkeys(row["method"] for row in rows):
        own = [row for row in rows if row["method"] == method]
        if all(row["status"] == "ok" for row in own):
            fitted[method] = float(np.polyfit(np.log([r["h"] for r in own]), np.log([r["B0_error"] for r in own]), 1)[0])
    return fitted


if __name__ == "__main__":
    t_end = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    rows = table(t_end)
    print(f"{'method':24} {'h':>9} {'status':7} {'round-off':>9} {'Newton':>7} {'max':>4} {'B0 error':>10} "
          f"{'energy drift':>12} {'us/step':>8}")
    for r in rows:
        print(f"{r['method']:24} {r['h']:9.3g} {r['status']:7} {r['steps_at_round_off']!s:>9} "
              f"{r['newton_per_step']:7.3f} {r['max_newton_in_step']!s:>4} {r.get('B0_error', float('nan')):10.3e} "
              f"{r.get('energy_drift', float('nan')):12.3e} {r['us_per_step']:8.1f}"
              + ("" if r["status"] == "ok" else f"  {r['message']}"))
    for method, order in orders(rows).items():
        print(f"order {method}: {order:.2f}")
