"""Per-step CPU cost of lgbench's compiled explicit core on the heavy top (paper 000 Sect. 4.1.1).

    .venv/bin/python benchmarks/run.py            # or: make bench

For RK44, DOPRI5 and RK67 x formulations RV (Lie group RKMK), Rxyz, F1 and EP-F1 it integrates the
heavy top at h = 1e-5 over 0.2 s (20000 steps) through the engine (``run_single``), which warms up
the JIT outside the timed region and times the integration loop with ``time.process_time``. The
minimum over the repeats is reported (the usual estimator for short CPU-bound runs: noise only
adds time). The first call of the process -- import, JIT compilation or numba cache load -- is
timed separately (wall clock) and never enters the per-step figures.

Writes benchmarks/results/explicit.csv (gitignored), one row per (formulation, integrator), each row
carrying its provenance (lgbench/numpy/numba/python versions, git commit, CPU model, date).
"""
from __future__ import annotations

import argparse
import csv
import datetime as _dt
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FORMULATIONS = ["RV", "Rxyz", "F1", "EP-F1"]
INTEGRATORS = ["RK44", "DOPRI5", "RK67"]
# Exudyn per-step CPU time on the same heavy top with its RV (Lie group) node, as quoted in the
# project brief; only RK44 and RK67 are available.
EXUDYN_US_PER_STEP = {("RV", "RK44"): 4.4, ("RV", "RK67"): 7.3}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (rev + ("-dirty" if dirty else "")) if rev else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _cache_snapshot(directory: str) -> dict[str, float]:
    """{file: mtime} of numba's cache files (index .nbi and code .nbc)."""
    cache = Path(directory)
    if not cache.exists():
        return {}
    return {str(p): p.stat().st_mtime for p in cache.rglob("*.nb[ic]")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--h", type=float, default=1e-5, help="step size (default 1e-5)")
    parser.add_argument("--t-end", type=float, default=0.2, help="simulated time per run (default 0.2 s)")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per case, >= 5 (default 7)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "explicit.csv")
    args = parser.parse_args(argv)
    if args.repeats < 5:
        parser.error("--repeats must be at least 5")

    # ---- first call: import + JIT compile or cache load (wall clock, excluded from everything else)
    t0 = time.perf_counter()
    import numba
    import numpy as np

    import lgbench
    from lgbench.runner.single_run import RunSpec, run_single
    t_import = time.perf_counter() - t0
    # numba compiles lazily at the first call, so the cache is still untouched here
    cache_dir = str(getattr(lgbench, "NUMBA_CACHE_DIR", numba.config.CACHE_DIR))
    cache_before = _cache_snapshot(cache_dir)
    t1 = time.perf_counter()
    first = run_single(RunSpec("heavy_top", FORMULATIONS[0], INTEGRATORS[0], args.h, 10 * args.h))
    t_first = time.perf_counter() - t1
    compiled = _cache_snapshot(cache_dir) != cache_before   # new or rewritten cache entries
    if first.status != "ok":
        print(f"warm-up run failed: {first.message}", file=sys.stderr)
        return 1

    provenance = {
        "lgbench_version": lgbench.__version__,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpu": cpu_model(),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "first_call_kind": "jit_compile" if compiled else "cache_load",
        "first_call_total_s": round(t_import + t_first, 3),
    }

    rows = []
    for integrator in INTEGRATORS:
        for formulation in FORMULATIONS:
            spec = RunSpec("heavy_top", formulation, integrator, args.h, args.t_end)
            # first call of this case (a new tableau size / formulation may need its own
            # specialisation); run_single also warms up before its own timed region
            c0 = time.perf_counter()
            run_single(RunSpec("heavy_top", formulation, integrator, args.h, 10 * args.h))
            case_first = time.perf_counter() - c0
            times, steps = [], None
            for _ in range(args.repeats):
                r = run_single(spec)
                if r.status != "ok":
                    print(f"{formulation}/{integrator}: {r.status}: {r.message}", file=sys.stderr)
                    return 1
                times.append(r.cpu_s)
                steps = r.steps
            times = np.array(times)
            rows.append({
                "model": "heavy_top", "formulation": formulation, "integrator": integrator,
                "h": args.h, "t_end": args.t_end, "steps": steps, "repeats": args.repeats,
                "us_per_step_min": 1e6 * times.min() / steps,
                "us_per_step_median": 1e6 * float(np.median(times)) / steps,
                "first_call_s": case_first,
            })

    by_key = {(r["formulation"], r["integrator"]): r for r in rows}
    for r in rows:
        rv = by_key[("RV", r["integrator"])]["us_per_step_min"]
        r["ratio_to_rv"] = r["us_per_step_min"] / rv
        ex = EXUDYN_US_PER_STEP.get((r["formulation"], r["integrator"]))
        r["exudyn_us_per_step"] = "" if ex is None else ex
        r["ratio_to_exudyn"] = "" if ex is None else r["us_per_step_min"] / ex
        r.update(provenance)

    # ---- report
    print(f"lgbench {provenance['lgbench_version']} ({provenance['git_commit']}), "
          f"numpy {provenance['numpy']}, numba {provenance['numba']}, Python {provenance['python']}")
    print(f"CPU: {provenance['cpu']}   date: {provenance['date']}")
    print(f"first call (import {t_import:.2f} s + run with "
          f"{'JIT compilation' if compiled else 'numba cache load'}): {t_import + t_first:.2f} s wall "
          f"(first run_single alone {t_first:.2f} s; cache {cache_dir})")
    print(f"heavy top, h = {args.h:g}, {rows[0]['steps']} steps per run, CPU time = time.process_time of the "
          f"integration loop, min (median) of {args.repeats} repeats\n")
    header = f"{'integrator':10s} {'formulation':11s} {'us/step':>8s} {'(median)':>9s} {'vs RV':>6s} " \
             f"{'Exudyn':>7s} {'lgbench/Exudyn':>15s} {'1st call':>9s}"
    print(header)
    print("-" * len(header))
    for r in rows:
        ex = f"{r['exudyn_us_per_step']:.1f}" if r["exudyn_us_per_step"] != "" else "-"
        ratio_ex = f"{r['ratio_to_exudyn']:.2f}" if r["ratio_to_exudyn"] != "" else "-"
        print(f"{r['integrator']:10s} {r['formulation']:11s} {r['us_per_step_min']:8.2f} "
              f"{r['us_per_step_median']:9.2f} {r['ratio_to_rv']:6.2f} {ex:>7s} {ratio_ex:>15s} "
              f"{1e3 * r['first_call_s']:7.1f}ms")
    print("\nExudyn: heavy top with the RV Lie group node (figures quoted in the project brief; "
          "different machine, so compare ratios with care).")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    fields = ["model", "formulation", "integrator", "h", "t_end", "steps", "repeats", "us_per_step_min",
              "us_per_step_median", "ratio_to_rv", "exudyn_us_per_step", "ratio_to_exudyn", "first_call_s",
              *provenance]
    tmp = args.out.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(args.out)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
