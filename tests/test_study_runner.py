"""The study runner at scale (issue 7): resuming after a killed process, the reference cache,
executors that give identical results, per-run limits, provenance, progress, validation."""
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from lgbench.exceptions import InputError
from lgbench.runner import reference_cache
from lgbench.runner.execute import compute_reference, execute_study
from lgbench.runner.executors import Limits
from lgbench.runner.study import load_study
from lgbench.runner.single_run import TIMING_COLUMNS
from lgbench.store import read_frame

ROOT = Path(__file__).resolve().parent.parent
TIMINGS = list(TIMING_COLUMNS)

TINY = {
    "name": "tiny", "model": "heavy_top", "t_end": 0.05, "formulations": ["RV", "Rxyz"],
    "integrators": ["RK44"], "steps": {"values": [1e-3, 5e-4]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
}


def write(tmp_path: Path, name: str = "study.yaml", **changes) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({**TINY, **changes}))
    return path


def comparable(directory: Path):
    runs = read_frame(directory / "runs.csv").drop(columns=TIMINGS + ["executor", "workers"], errors="ignore")
    return runs.sort_values("run_id").reset_index(drop=True)


def test_a_study_killed_mid_run_resumes_to_the_same_runs_csv(tmp_path):
    """SIGKILL while the third of six runs is computing; the rerun skips what is stored and the
    result equals an uninterrupted run's, row for row (timings aside)."""
    study = write(tmp_path, t_end=1.0, formulations=["RV"], integrators=["RK44", "DOPRI5", "ODE23"],
                  steps={"values": [1e-4, 5e-5]}, reference={"formulation": "RV", "integrator": "RK67",
                                                             "h": 1e-3})
    command = [sys.executable, "-m", "lgbench", "run", str(study), "--out"]
    environment = {**os.environ, "MPLBACKEND": "Agg"}
    interrupted = tmp_path / "interrupted"
    process = subprocess.Popen(command + [str(interrupted)], cwd=ROOT, env=environment,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    runs_csv = interrupted / "runs.csv"
    while time.monotonic() < deadline and process.poll() is None:
        if runs_csv.exists() and len(runs_csv.read_text().splitlines()) >= 3:      # header + 2 runs
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stored = len(read_frame(runs_csv))
    assert 2 <= stored < 6, "the kill must land mid-study"
    resumed = subprocess.run(command + [str(interrupted)], cwd=ROOT, env=environment, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"skipping {stored} of 6 runs" in resumed.stdout
    whole = tmp_path / "whole"
    assert subprocess.run(command + [str(whole)], cwd=ROOT, env=environment, capture_output=True,
                          timeout=600).returncode == 0
    assert list(read_frame(interrupted / "runs.csv")["run_id"]) == list(read_frame(whole / "runs.csv")["run_id"])
    assert comparable(interrupted).equals(comparable(whole))
    errors = [read_frame(d / "errors.csv").sort_values("run_id").reset_index(drop=True)
              for d in (interrupted, whole)]
    assert errors[0].equals(errors[1])


def test_the_reference_is_computed_once_and_a_changed_specification_is_recomputed(tmp_path, monkeypatch):
    from lgbench.runner import single_run

    calls = []
    real = single_run.run_single

    def counting(spec, n_samples=None):
        calls.append(spec)
        return real(spec, n_samples=n_samples)

    monkeypatch.setattr(single_run, "run_single", counting)
    study = load_study(write(tmp_path))
    first, cached_first = compute_reference(study)
    second, cached_second = compute_reference(study)
    assert (cached_first, cached_second) == (False, True) and len(calls) == 1
    assert second.final_outputs == first.final_outputs and second.steps == first.steps
    finer = load_study(write(tmp_path, reference={**TINY["reference"], "h": 5e-5}))
    other_parameters = load_study(write(tmp_path, params={"mass": 16.0}))
    sampled = load_study(write(tmp_path, samples=6))
    for changed in (finer, other_parameters, sampled):
        result, cached = compute_reference(changed)
        assert not cached
    assert len(calls) == 4
    assert compute_reference(sampled)[0].series["t"].shape == (6,)
    monkeypatch.setattr("lgbench._compile_cache.source_hash", lambda: "edited-kernels")
    assert not compute_reference(study)[1], "changed numerical code must not reuse a cached reference"


def test_a_damaged_cache_entry_is_a_miss(tmp_path):
    study = load_study(write(tmp_path))
    compute_reference(study)
    from lgbench.runner.grid import reference_spec

    key = reference_cache.reference_key(reference_spec(study), None)
    (reference_cache.cache_root() / key / "result.json").write_text("{not json")
    assert compute_reference(study)[1] is False


def test_two_worker_processes_give_the_serial_errors(tmp_path):
    study = load_study(write(tmp_path))
    execute_study(study, tmp_path / "serial")
    execute_study(study, tmp_path / "parallel", executor="processes", jobs=2)
    assert comparable(tmp_path / "serial").equals(comparable(tmp_path / "parallel"))
    errors = [read_frame(tmp_path / d / "errors.csv").sort_values("run_id").reset_index(drop=True)
              for d in ("serial", "parallel")]
    assert errors[0].equals(errors[1])
    runs = read_frame(tmp_path / "parallel" / "runs.csv")
    assert set(runs["executor"]) == {"processes"} and set(runs["workers"]) == {2}


def test_the_dask_executor_runs_a_study_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    study = load_study(write(tmp_path, formulations=["RV"]))
    execute_study(study, tmp_path / "serial")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        execute_study(study, tmp_path / "dask", executor="dask", address=cluster.scheduler_address)
    assert comparable(tmp_path / "serial").equals(comparable(tmp_path / "dask"))
    assert set(read_frame(tmp_path / "dask" / "runs.csv")["executor"]) == {"dask"}


def test_the_workers_column_of_a_dask_study_is_the_clusters_worker_count(tmp_path):
    """Issue 18: with the Dask executor the workers column said 1 whatever the cluster size."""
    distributed = pytest.importorskip("dask.distributed", reason="dask.distributed is not installed")
    study = load_study(write(tmp_path, formulations=["RV"], t_end=0.01))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        execute_study(study, tmp_path / "dask", executor="dask", address=cluster.scheduler_address)
    runs = read_frame(tmp_path / "dask" / "runs.csv")
    assert len(runs) == 2 and set(runs["executor"]) == {"dask"} and set(runs["workers"]) == {2}


def test_runs_over_the_step_budget_or_wall_limit_are_timeouts_and_the_study_goes_on(tmp_path):
    study = load_study(write(tmp_path, formulations=["RV"], t_end=1.0, steps={"values": [1e-2, 1e-3]},
                             reference={"formulation": "RV", "integrator": "RK44", "h": 1e-2}))
    execute_study(study, tmp_path / "budget", limits=Limits(max_steps=500))
    runs = read_frame(tmp_path / "budget" / "runs.csv").set_index("run_id")
    assert runs.loc["RV-RK44-h1e-02", "status"] == "ok"
    assert runs.loc["RV-RK44-h1e-03", "status"] == "timeout"
    assert "step budget of 500" in runs.loc["RV-RK44-h1e-03", "message"]
    slow = load_study(write(tmp_path, formulations=["RV"], t_end=60.0, steps={"values": [1e-6, 1e-2]},
                            reference={"formulation": "RV", "integrator": "RK44", "h": 1e-2}), max_steps=10**8)
    started = time.monotonic()
    execute_study(slow, tmp_path / "wall", limits=Limits(wall_seconds=8.0))
    assert time.monotonic() - started < 60
    runs = read_frame(tmp_path / "wall" / "runs.csv").set_index("run_id")
    assert runs.loc["RV-RK44-h1e-06", "status"] == "timeout"
    assert "wall-time limit of 8 s" in runs.loc["RV-RK44-h1e-06", "message"]
    assert runs.loc["RV-RK44-h1e-02", "status"] == "ok"


def test_metadata_records_the_provenance_of_every_session(tmp_path):
    study = load_study(write(tmp_path, formulations=["RV"]))
    execute_study(study, tmp_path / "out")
    execute_study(study, tmp_path / "out", force=True)
    data = json.loads((tmp_path / "out" / "metadata.json").read_text())
    assert data["study"] == "tiny" and len(data["sessions"]) == 2
    session = data["sessions"][0]
    for key in ("lgbench", "python", "numpy", "numba", "cpu", "cpu_count", "started", "executor", "workers"):
        assert session[key] not in (None, ""), key
    assert session["executor"] == "serial" and session["workers"] == 1


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_shows_done_total_and_eta_on_a_terminal_only():
    from lgbench.cli_progress import ProgressDisplay

    terminal = FakeTerminal()
    display = ProgressDisplay(stream=terminal)
    display.started(4)
    display.finished(1, 4, "RV-RK44-h1e-03", "ok")
    assert "[1/4] RV-RK44-h1e-03" in terminal.getvalue() and "ETA" in terminal.getvalue()
    display.close()
    log = io.StringIO()
    quiet_in_logs = ProgressDisplay(stream=log)
    quiet_in_logs.started(4)
    quiet_in_logs.finished(1, 4, "RV-RK44-h1e-03", "ok")
    assert log.getvalue() == ""
    verbose = ProgressDisplay(stream=log, verbose=True)
    verbose.finished(2, 4, "RV-RK44-h5e-04", "ok  steps=100")
    assert log.getvalue() == "[2/4] RV-RK44-h5e-04  ok  steps=100\n"


def test_validate_checks_a_study_without_running_it(tmp_path):
    from typer.testing import CliRunner

    from lgbench.cli import app

    runner = CliRunner()
    good = runner.invoke(app, ["validate", str(ROOT / "studies" / "heavy_top_constrained.yaml")])
    assert good.exit_code == 0 and "126 runs" in good.stdout and "profile quick" in good.stdout
    bad = runner.invoke(app, ["validate", str(write(tmp_path, integrators=["RK45"]))])
    assert bad.exit_code == 2 and "field 'integrators[0]'" in bad.output and "RK44" in bad.output
    assert not (tmp_path / "results").exists()


def test_bad_executor_settings_are_input_errors(tmp_path):
    study = load_study(write(tmp_path))
    with pytest.raises(InputError, match="executor"):
        execute_study(study, tmp_path / "x", executor="cluster")
    with pytest.raises(InputError, match="--jobs"):
        execute_study(study, tmp_path / "y", executor="processes", jobs=0)
