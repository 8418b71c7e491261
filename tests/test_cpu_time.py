"""CPU time measures the algorithm: one BLAS thread, so a run's thread time is the CPU it used.

numba lowers ``@`` on matrices to BLAS; a multi-threaded BLAS runs helper threads beside the run, whose
spinning entered ``time.process_time`` (V8 crank drive with HHT: 1.0-1.3 ms per step of process time
for 0.66 ms of wall time on 2 cores).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MATRIX_PRODUCTS = r"""
import json, os, time
for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.pop(variable, None)
import lgbench
import numpy as np
from numba import njit

@njit(nogil=True)
def products(A, n):
    s = 0.0
    for _ in range(n):
        s += (A @ A)[0, 0]
    return s

A = np.random.default_rng(0).random((160, 160))
products(A, 1)
thread, process = time.thread_time(), time.process_time()
products(A, 400)
print(json.dumps([time.thread_time() - thread, time.process_time() - process]))
"""


def test_importing_lgbench_keeps_blas_on_one_thread():
    """With the BLAS threads left to the library, process time was about 2x thread time on 2 cores."""
    run = subprocess.run([sys.executable, "-c", MATRIX_PRODUCTS], capture_output=True, text=True, timeout=600,
                         cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(Path.home())})
    assert run.returncode == 0, run.stderr[-2000:]
    thread, process = json.loads(run.stdout.strip().splitlines()[-1])
    assert process < 1.15 * thread, f"process {process:.3f} s, thread {thread:.3f} s: BLAS helper threads ran"


def test_a_short_run_is_timed_again_and_keeps_the_fastest():
    """The timing rule (DiffEqDevTools): a run under the threshold is repeated up to max_runs times; the
    CPU time is the minimum and the numbers are those of a single timing."""
    from lgbench.runner.single_run import RunSpec, TimingRule, run_single

    spec = RunSpec("heavy_top", "RV", "RK44", 1e-3, 0.05)
    once = run_single(spec)
    repeated = run_single(spec, timing=TimingRule(repeat_below_s=60.0, max_runs=4))
    assert once.statistics["cpu_runs"] == 1 and once.statistics["cpu_spread"] == 0.0
    assert repeated.statistics["cpu_runs"] == 4 and repeated.statistics["cpu_spread"] >= 0.0
    assert repeated.final_outputs == once.final_outputs and repeated.steps == once.steps
    long_enough = run_single(spec, timing=TimingRule(repeat_below_s=1e-9, max_runs=4))
    assert long_enough.statistics["cpu_runs"] == 1, "a run over the threshold is timed once"


def test_a_failed_run_is_not_timed_again():
    from lgbench.runner.single_run import RunSpec, TimingRule, run_single

    spec = RunSpec("heavy_top", "RV", "RK44", 0.5, 20.0)      # explodes: diverged
    result = run_single(spec, timing=TimingRule(repeat_below_s=60.0, max_runs=4))
    assert result.status != "ok" and result.statistics["cpu_runs"] == 1


def test_a_study_records_timed_runs_and_spread_in_runs_csv(tmp_path):
    from test_cli import write_study

    from lgbench.runner.execute import execute_study
    from lgbench.runner.study import load_study
    from lgbench.store import read_frame

    path = write_study(tmp_path, timing={"repeat_below_s": 30.0, "max_runs": 3})
    execute_study(load_study(path), tmp_path / "out")
    runs = read_frame(tmp_path / "out" / "runs.csv")
    ok = runs[runs["status"] == "ok"]
    assert len(ok) and (ok["cpu_runs"] == 3).all() and (ok["cpu_spread"] >= 0).all()


def test_a_bad_timing_rule_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from test_cli import assert_one_line_input_error, write_study
    from lgbench.cli import app

    path = write_study(tmp_path, timing={"max_runs": 0})
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, str(path), "field 'timing.max_runs'")
