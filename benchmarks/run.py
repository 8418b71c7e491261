"""Per-step CPU cost of lgbench's compiled engine, and Exudyn beside it on five mechanisms.

    .venv/bin/python benchmarks/run.py            # or: make bench        (about 3 minutes warm)
    .venv/bin/python benchmarks/run.py --quick    # or: make bench-quick  (under a minute warm)
    .venv/bin/python benchmarks/run.py --only "heavy top" --no-peer
    .venv/bin/python benchmarks/run.py --no-suite --peer slider_crank

Part 1 (benchmarks/suite.py): every model x formulation x integrator family of the suite, CPU
microseconds per step as the minimum over repeats of ``time.process_time`` of the integration loop
(compiled code warmed up); the first call of each case (JIT compilation or numba cache load) is
timed separately and never enters a per-step figure.
Part 2 (benchmarks/peer_exudyn.py): the heavy top in Exudyn and lgbench with the same formulation,
method, h and t_end: both per-step costs, their ratio, and the final COM difference against each
code's integration error. Skipped with a message when exudyn is not installed (extra ``peer``).
Part 3 (benchmarks/peer_puma.py): the Puma 560 in both codes (RV, EP, Rxyz nodes, generalized-alpha,
h = 1e-3, full Newton over 1 s, quick 0.2 s): per-step costs, ratio, Newton iterations per step, and
the joint angles at t_end against each other and against lgbench's minimal-coordinate model.
Part 4 (benchmarks/peer_constrained_top.py): the heavy top with a spherical joint in both codes (RV,
EP, Rxyz, generalized-alpha h = 1e-4, full Newton, T_exp in both, over 0.2 s): the same columns, with
the final centre of mass against lgbench's EP generalized-alpha at h / 10.
Part 5 (benchmarks/peer_rotor.py): the high-speed rotor in both codes (RV, EP, Rxyz, generalized-alpha
h = 6.25e-6, full Newton, over 0.02 s): the same columns, with the final left support point against
lgbench's RV RK44 at h / 10.
Part 6 (benchmarks/peer_slider_crank.py): the IFToMM spatial slider-crank in both codes (RV, EP, Rxyz,
generalized-alpha h = 1e-3, full Newton, over 1 s, quick 0.2 s): the same columns, with the final slider
position, crank angle and crank rate against lgbench's EP generalized-alpha (Newton 1e-12) at h / 10.

Writes benchmarks/results/suite.csv, peer.csv, peer_puma.csv, peer_constrained_top.csv, peer_rotor.csv and
peer_slider_crank.csv
(gitignored); every row carries its provenance (versions, git commit, source hash, CPU, date).
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import lgbench  # noqa: E402,F401  (first: one BLAS thread before numpy loads, see lgbench/__init__.py)
from benchmarks import (  # noqa: E402
    peer_constrained_top, peer_exudyn, peer_puma, peer_rotor, peer_slider_crank, suite,
)

PEERS = ("heavy_top", "puma", "constrained_top", "rotor", "slider_crank")


def write_csv(path: Path, rows: list[dict], provenance: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{**row, **provenance} for row in rows]
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def _fmt(x, spec: str) -> str:
    return "-" if x == "" or x is None else format(x, spec)


def run_suite(args, provenance: dict) -> None:
    cases = [c for c in suite.cases() if not args.only or args.only.lower() in c.name.lower()
             or args.only.lower() in c.group.lower()]
    if not cases:
        print(f"no suite case matches --only {args.only!r}")
        return
    print(f"\nPart 1: per-step CPU cost, min (median) of {args.repeats} repeats of ~{args.target:g} s CPU each")
    rows, group = [], None
    header = f"  {'case':52s} {'h':>7s} {'steps':>7s} {'us/step':>9s} {'median':>9s} {'Newton':>6s} {'1st call':>9s}"
    for case in cases:
        if case.group != group:
            group = case.group
            print(f"\n{group}\n{header}")
        row = suite.measure(case, args.repeats, args.target)
        rows.append(row)
        name = f"{case.formulation} {case.integrator}" + (f" ({case.label})" if case.label else "")
        print(f"  {name:52s} {case.h:7.0e} {row['steps']:7d} {row['us_per_step_min']:9.2f} "
              f"{row['us_per_step_median']:9.2f} {_fmt(row['newton_per_step'], '6.2f'):>6s} "
              f"{row['first_call_s']:8.2f}s", flush=True)
    write_csv(args.out_dir / "suite.csv", rows, provenance)


def run_peer(args, provenance: dict) -> None:
    reason = peer_exudyn.unavailable_reason()
    if reason:
        print(f"\nPart 2 skipped: {reason}")
        return
    print(f"\nPart 2: lgbench beside Exudyn {peer_exudyn.exudyn_version()}, heavy top, h = {args.peer_h:g}, "
          f"t_end = {args.peer_t_end:g} s, min of {args.repeats} repeats; COM errors against "
          f"lgbench RV RK67 at h = {args.peer_h / 10:g}")
    rows = peer_exudyn.compare(args.peer_h, args.peer_t_end, args.repeats, args.peer_h / 10)
    print(f"  {'case':34s} {'lgbench':>8s} {'Exudyn':>8s} {'ratio':>6s} {'|x_lg - x_ex|':>13s} "
          f"{'err lgbench':>11s} {'err Exudyn':>11s}")
    for r in rows:
        name = f"{r['formulation']} {r['integrator']}" + (f" ({r['newton']} Newton)" if r["newton"] else "")
        if r["status"] != "ok":
            print(f"  {name:34s} {r['status']}")
            continue
        print(f"  {name:34s} {r['lgbench_us_per_step']:8.2f} {r['exudyn_us_per_step']:8.2f} {r['ratio']:6.2f} "
              f"{r['com_difference']:13.2e} {r['lgbench_com_error']:11.2e} {r['exudyn_com_error']:11.2e}")
    print("  (us per step; ratio = lgbench / Exudyn; no explicit EP: Exudyn's explicit solvers refuse "
          "Euler-parameter nodes)")
    fields = list(max(rows, key=len))
    rows = [{k: r.get(k, "") for k in fields} for r in rows]
    write_csv(args.out_dir / "peer.csv", rows, {**provenance, "exudyn": peer_exudyn.exudyn_version()})


def run_peer_mechanism(args, provenance: dict, part: int, title: str, module, quantity: str, csv_name: str,
                       t_end: float | None = None) -> None:
    """One mechanism beside Exudyn (``module.compare`` at ``module.STEP``) over t_end (default 1 s, quick
    0.2 s): per-step costs, ratio, Newton iterations and the final ``quantity`` of both codes against each
    other and against the module's reference."""
    if peer_exudyn.unavailable_reason():
        return
    h, t_end = module.STEP, t_end or (0.2 if args.quick else 1.0)
    print(f"\nPart {part}: lgbench beside Exudyn {peer_exudyn.exudyn_version()}, {title}, generalized-alpha, full "
          f"Newton, h = {h:g}, t_end = {t_end:g} s, min of {args.repeats} repeats")
    rows = module.compare(h, t_end, args.repeats)
    difference = f"|{quantity}_lg - {quantity}_ex|"
    print(f"  {'formulation':12s} {'lgbench':>8s} {'Exudyn':>8s} {'ratio':>6s} {'Newton lg/ex':>13s} "
          f"{difference:>17s} {'err lgbench':>11s} {'err Exudyn':>11s}")
    for r in rows:
        if r["status"] != "ok":
            print(f"  {r['formulation']:12s} {r['status']}")
            continue
        newton = f"{r['lgbench_newton_per_step']:.2f}/{r['exudyn_newton_per_step']:.2f}"
        print(f"  {r['formulation']:12s} {r['lgbench_us_per_step']:8.1f} {r['exudyn_us_per_step']:8.1f} "
              f"{r['ratio']:6.2f} {newton:>13s} {r[quantity + '_difference']:17.2e} "
              f"{r['lgbench_' + quantity + '_error']:11.2e} {r['exudyn_' + quantity + '_error']:11.2e}")
    reference = next((r["reference"] for r in rows if r["status"] == "ok"), "the reference")
    print(f"  (us per step; ratio = lgbench / Exudyn; {quantity} differences: largest component; errors against "
          f"{reference})")
    fields = list(max(rows, key=len))
    rows = [{k: r.get(k, "") for k in fields} for r in rows]
    write_csv(args.out_dir / csv_name, rows, {**provenance, "exudyn": peer_exudyn.exudyn_version()})




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats of ~0.02 s, peer over 0.2 s")
    parser.add_argument("--repeats", type=int, help="timed repeats per case (default 7, quick 3)")
    parser.add_argument("--target", type=float, help="CPU seconds per timed run (default 0.1, quick 0.02)")
    parser.add_argument("--only", help="run only the suite cases whose name or group contains this text")
    parser.add_argument("--no-suite", action="store_true", help="skip part 1")
    parser.add_argument("--no-peer", action="store_true", help="skip parts 2-6 (Exudyn)")
    parser.add_argument("--peer", choices=PEERS, action="append",
                        help="run only this mechanism's Exudyn comparison (repeatable; default all)")
    parser.add_argument("--peer-h", type=float, default=2.5e-5,
                        help="step size of the peer comparison (default 2.5e-5: Rxyz generalized-alpha fails "
                             "near gimbal lock at 5e-5 and above, paper 000 Table 4)")
    parser.add_argument("--peer-t-end", type=float, help="simulated time of the peer comparison (default 1 s, "
                        "quick 0.2 s)")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    args.repeats = args.repeats or (3 if args.quick else 7)
    args.target = args.target or (0.02 if args.quick else 0.1)
    args.peer_t_end = args.peer_t_end or (0.2 if args.quick else 1.0)
    if args.repeats < 1 or args.target <= 0:
        parser.error("--repeats and --target must be positive")

    wall = time.perf_counter()
    from lgbench.runner.provenance import session_record

    provenance = {k: v for k, v in session_record("serial", 1).items() if k not in ("executor", "workers")}
    provenance["timing"] = "min over repeats of time.process_time of the integration loop / steps"
    print(f"lgbench {provenance['lgbench']} ({provenance['git_commit']}, sources {provenance['sources']}), "
          f"numpy {provenance['numpy']}, numba {provenance['numba']}, Python {provenance['python']}")
    print(f"CPU: {provenance['cpu']}   date: {provenance['started']}")
    print("'1st call' = wall time of a case's first run in this process (JIT compilation or numba cache "
          "load, model build); never part of us/step")
    if not args.no_suite:
        run_suite(args, provenance)
    peers = set() if args.no_peer else set(args.peer or PEERS)
    if "heavy_top" in peers:
        run_peer(args, provenance)
    if "puma" in peers:
        run_peer_mechanism(args, provenance, 3, "Puma 560", peer_puma, "angle", "peer_puma.csv")
    if "constrained_top" in peers:
        run_peer_mechanism(args, provenance, 4, "heavy top with a spherical joint", peer_constrained_top, "com",
                           "peer_constrained_top.csv", peer_constrained_top.T_END)
    if "rotor" in peers:
        run_peer_mechanism(args, provenance, 5, "high-speed rotor", peer_rotor, "p1", "peer_rotor.csv",
                           peer_rotor.T_END)
    if "slider_crank" in peers:
        run_peer_mechanism(args, provenance, 6, "spatial slider-crank", peer_slider_crank, "state",
                           "peer_slider_crank.csv")
    print(f"\ntotal wall time {time.perf_counter() - wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
