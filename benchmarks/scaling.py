"""Per-step CPU cost against the number of bodies: a chain of N rigid links.

    .venv/bin/python benchmarks/scaling.py                 # N = 1, 2, 4, ..., 64
    .venv/bin/python benchmarks/scaling.py --max-n 128 --repeats 7

Model ``chain_of_bodies`` (N links, spherical joints, the first to ground; RV and EP nodes) at
h = 1e-3, integrated through the engine (``run_single``: warm-up outside the timed region,
``time.process_time`` around the compiled loop). Cases: generalized-alpha with full and modified
Newton on RV and EP nodes with the banded solver, generalized-alpha (RV, full Newton) with the dense
solver for comparison, and the explicit index-1 RKMK with projection (``RK44-index1``, RV), banded and
dense. The solver is forced rather than left to "auto", whose choice switches from dense to banded
within the fitted range and would mix two algorithms in one exponent.

Per-step cost = (t(3 S) - t(S)) / (2 S) with t(n) the minimum over the repeats of the CPU time of an
n-step run, so that the start-up (consistent initial accelerations) cancels; S is chosen so that an
S-step run takes about ``--budget`` seconds. The first call of each case (JIT compilation or numba
cache load, wall clock) is reported separately and never enters a per-step figure. The exponent p of
cost ~ N^p is a least-squares fit in log-log over N >= 4.

Writes benchmarks/results/scaling.csv (with provenance) and docs/img/scaling.png.
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
H = 1e-3
BANDED = (("linear_algebra", "banded"),)
CASES = [  # label, formulation, integrator, options
    ("GA full RV banded", "RV", "generalized-alpha", BANDED),
    ("GA modified RV banded", "RV", "generalized-alpha", (("linear_algebra", "banded"), ("newton", "modified"))),
    ("GA full EP banded", "EP", "generalized-alpha", BANDED),
    ("GA modified EP banded", "EP", "generalized-alpha", (("linear_algebra", "banded"), ("newton", "modified"))),
    ("GA full RV dense", "RV", "generalized-alpha", (("linear_algebra", "dense"),)),
    ("RK44-index1 RV banded", "RV", "RK44-index1", BANDED),
    ("RK44-index1 RV dense", "RV", "RK44-index1", (("linear_algebra", "dense"),)),
]
FIT_FROM = 4


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
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (rev + ("-dirty" if dirty else "")) if rev else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def fitted_exponent(ns, costs) -> float:
    """Least-squares slope of log(cost) over log(N) for N >= FIT_FROM (nan with fewer than 2 points)."""
    ns, costs = np.asarray(ns, float), np.asarray(costs, float)
    keep = (ns >= FIT_FROM) & np.isfinite(costs) & (costs > 0)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns[keep]), np.log(costs[keep]), 1)[0])


def measure(run_single, RunSpec, formulation, integrator, options, n, repeats, budget):
    """(us per step, start-up seconds, Newton iterations per step, status) of one case."""
    def cpu(steps):
        spec = RunSpec("chain_of_bodies", formulation, integrator, H, steps * H, params={"n_bodies": n},
                       options=options)
        best, result = np.inf, None
        for _ in range(repeats):
            result = run_single(spec)
            if result.status != "ok":
                return np.nan, result
            best = min(best, result.cpu_s)
        return best, result

    probe, result = cpu(10)
    if not np.isfinite(probe):
        return np.nan, np.nan, np.nan, result.status
    # start-up included in the probe: an upper bound of the per-step cost, enough to size the runs
    steps = int(np.clip(budget / max(probe / 10, 1e-7), 20, 20000))
    short, _ = cpu(steps)
    long, result = cpu(3 * steps)
    per_step = (long - short) / (2 * steps)
    startup = short - steps * per_step
    return 1e6 * per_step, startup, result.statistics.get("newton_per_step", np.nan), result.status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=64, help="largest number of bodies (powers of 2)")
    parser.add_argument("--dense-max-n", type=int, default=64, help="largest N of the dense comparison case")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per run length (min taken)")
    parser.add_argument("--budget", type=float, default=0.1, help="CPU seconds of the shorter timed run")
    parser.add_argument("--cases", nargs="*", default=None, help="case labels (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "scaling.csv")
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "img" / "scaling.png")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    import numba

    import lgbench
    from lgbench.runner.single_run import RunSpec, run_single
    import_s = time.perf_counter() - t0

    ns = [1]
    while ns[-1] * 2 <= args.max_n:
        ns.append(ns[-1] * 2)
    cases = [c for c in CASES if args.cases is None or c[0] in args.cases]
    provenance = {"lgbench": lgbench.__version__, "numpy": np.__version__, "numba": numba.__version__,
                  "python": platform.python_version(), "commit": git_commit(), "cpu": cpu_model(),
                  "date": _dt.datetime.now().isoformat(timespec="seconds")}
    print(f"import: {import_s:.2f} s wall; {provenance['cpu']}; commit {provenance['commit']}")
    rows = []
    for label, formulation, integrator, options in cases:
        t1 = time.perf_counter()
        run_single(RunSpec("chain_of_bodies", formulation, integrator, H, H, params={"n_bodies": 2},
                           options=options))
        first_call = time.perf_counter() - t1
        print(f"{label}: first call (compilation or cache load) {first_call:.2f} s wall")
        for n in ns:
            if "dense" in label and n > args.dense_max_n:
                continue
            us, startup, newton, status = measure(run_single, RunSpec, formulation, integrator, options, n,
                                                  args.repeats, args.budget)
            rows.append({"case": label, "formulation": formulation, "integrator": integrator,
                         "options": ";".join(f"{k}={v}" for k, v in options), "n_bodies": n, "h": H,
                         "us_per_step": us, "startup_s": startup, "newton_per_step": newton, "status": status,
                         "first_call_s": first_call, **provenance})
            print(f"  N = {n:4d}: {us:10.1f} us/step  (start-up {1e3 * startup:8.2f} ms, "
                  f"Newton/step {newton:.2f}) {status}", flush=True)

    exponents, per_iteration = {}, {}
    print(f"\n{'case':24s}" + "".join(f"{n:>9d}" for n in ns) + f"{'exponent':>10s}{'per Newton it.':>16s}")
    for label, *_ in cases:
        sel = [r for r in rows if r["case"] == label]
        n_bodies = [r["n_bodies"] for r in sel]
        exponents[label] = fitted_exponent(n_bodies, [r["us_per_step"] for r in sel])
        # implicit cases: the cost of one Newton iteration, apart from the iteration count, which grows with
        # the chain's nonlinearity (3.0 -> 4.0 per full-Newton step from N = 32 to 64), not with the algebra
        per_iteration[label] = fitted_exponent(n_bodies, [r["us_per_step"] / r["newton_per_step"] for r in sel])
        cells = {r["n_bodies"]: r["us_per_step"] for r in sel}
        print(f"{label:24s}" + "".join(f"{cells.get(n, np.nan):9.1f}" for n in ns) + f"{exponents[label]:10.2f}"
              f"{per_iteration[label]:16.2f}")
    for r in rows:
        r["fitted_exponent"] = exponents[r["case"]]
        r["fitted_exponent_per_newton_iteration"] = per_iteration[r["case"]]

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")
    draw(rows, exponents, args.figure)
    print(f"wrote {args.figure}")
    return 0


def draw(rows, exponents, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 4.8))
    for label, exponent in exponents.items():
        sel = [r for r in rows if r["case"] == label and np.isfinite(r["us_per_step"])]
        style = "--" if "dense" in label else ("-." if "RK44" in label else "-")
        ax.loglog([r["n_bodies"] for r in sel], [r["us_per_step"] for r in sel], style, marker="o", ms=4,
                  label=f"{label}  (N^{exponent:.2f})")
    ns = sorted({r["n_bodies"] for r in rows})
    ax.loglog(ns, [10.0 * n for n in ns], ":", color="0.6", label="slope 1")
    ax.set_xlabel("number of bodies N")
    ax.set_ylabel("CPU time per step [us]")
    ax.set_title(f"Chain of N links, h = {H:g}: per-step cost (exponent fitted over N >= {FIT_FROM})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
