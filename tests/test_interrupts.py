"""Interrupts: SIGTERM or Ctrl-C to ``lgbench run`` stops it with "interrupted: N runs stored",
exit 143 / 130, the worker processes taken down with it (no orphans, no tracebacks)."""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lgbench.runner import single_run

from test_cli import write_study

ROOT = Path(__file__).resolve().parent.parent


def children(pid: int) -> set[int]:
    """Living descendants of ``pid`` (zombies excluded)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found | {grandchild for child in found for grandchild in children(child)}


def command_line(pid: int) -> str:
    """The command line of ``pid``, "" once it has ended (a child listed by ``children`` may end before it is
    read: the compile workers of a warm cache come and go at once)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far (0 once it has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_running(process: subprocess.Popen, cpu: float, timeout: float = 300.0) -> None:
    """Wait until ``process`` has used ``cpu`` seconds of CPU: past its imports and set-up, in its run,
    however loaded the machine (a fixed sleep once sent the signal before the run had begun)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None and cpu_seconds(process.pid) < cpu:
        time.sleep(0.1)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc to find the worker processes")
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_run_jobs_2_and_takes_the_workers_down(tmp_path, signum, code):
    path = write_study(tmp_path, formulations=["RV", "Rxyz"], t_end=40.0, steps={"values": [1e-5, 2e-5]},
                       reference={"formulation": "RV", "integrator": "RK44", "h": 1e-3}, max_steps=10**8)
    process = subprocess.Popen([sys.executable, "-m", "lgbench", "run", str(path), "--out", str(tmp_path / "out"),
                                "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 120
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.2)
        workers = {pid for pid in children(process.pid)
                   if "multiprocessing" in command_line(pid) and "spawn_main" in command_line(pid)}
    assert len(workers) >= 2, "the workers did not start"
    time.sleep(1.0)
    descendants = children(process.pid)
    stopped = time.monotonic()
    process.send_signal(signum)
    output, errors = process.communicate(timeout=60)
    latency = time.monotonic() - stopped
    assert process.returncode == code, errors
    assert "interrupted: 0 runs stored — run again to resume" in errors and "Traceback" not in errors + output
    assert latency < 5, f"took {latency:.1f} s to stop"
    time.sleep(0.5)
    assert not [pid for pid in descendants if alive(pid)], "orphaned worker processes"


def test_a_cold_engine_cache_announces_the_compilation(tmp_path, monkeypatch):
    import lgbench
    from lgbench import _compile_cache

    monkeypatch.setattr(lgbench, "NUMBA_CACHE_DIR", str(tmp_path / "empty"))
    assert "compiling the engine for this machine, once" in _compile_cache.compile_notice()
    (tmp_path / "warm").mkdir()
    (tmp_path / "warm" / "kernel.step-1.py312.nbi").write_bytes(b"")
    monkeypatch.setattr(lgbench, "NUMBA_CACHE_DIR", str(tmp_path / "warm"))
    assert _compile_cache.compile_notice() is None


def test_the_workers_column_is_the_dask_clusters_worker_count():
    distributed = pytest.importorskip("dask.distributed")
    from lgbench.runner.executors import worker_count

    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert worker_count("dask", 1, cluster.scheduler_address) == 3
    assert worker_count("processes", 2, None) == 2 and worker_count("serial", 4, None) == 1


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_simulate_with_one_line_and_no_traceback(signum, code):
    """simulate had no handler: a Ctrl-C ended in a KeyboardInterrupt traceback once the compiled run returned.
    The run is 1e8 steps (40 s or more), so that the signal finds it running, not finished: 6e6 steps
    (2.5 s) once raced the signal on a fast machine."""
    process = subprocess.Popen([sys.executable, "-m", "lgbench", "simulate", "heavy_top", "-f", "RV", "-i", "RK44",
                                "--step", "1e-6", "--t-end", "100", "--max-steps", "100000000"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    wait_until_running(process, 3.0)
    assert process.poll() is None, "the run ended before the signal"
    process.send_signal(signum)
    output, errors = process.communicate(timeout=120)
    assert process.returncode == code, errors
    assert "interrupted: the run was not finished" in errors and "Traceback" not in errors + output


def assert_ctrl_c_ends_within_a_second(process: subprocess.Popen, message: str) -> None:
    """SIGINT to a running lgbench process: exit 130 within 1 s, ``message`` on stderr, no traceback."""
    assert process.poll() is None, "the run ended before the signal"
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    output, errors = process.communicate(timeout=120)
    latency = time.monotonic() - sent
    assert process.returncode == 130, errors
    assert message in errors and "Traceback" not in errors + output
    assert latency < 1.0, f"{latency:.2f} s from Ctrl-C to exit"


def test_the_warm_up_compiles_without_a_step_so_only_the_interruptible_run_takes_steps():
    """The warm-up runs on the main thread, where a signal cannot reach compiled code; a warm-up to t = h
    with step-size control retried a step for hours on the Puma 560 (``test_adaptive_steps``) and the
    process ignored SIGTERM. It now goes to t = 0: numba compiles the whole entry point at its first call."""
    from lgbench.integrators import interface

    calls = []

    def run(inputs, t_end, warm_up, stop):
        calls.append((t_end, warm_up, threading.current_thread() is threading.main_thread()))
        return "done"

    _, result, _ = interface.timed_run(lambda: None, run, 0.5)
    assert result == "done"
    assert calls == [(0.0, True, True), (0.5, False, False)]


@pytest.mark.parametrize("integrator", ["RK44", "generalized-alpha"])
def test_ctrl_c_stops_a_compiled_run_within_a_second(integrator):
    """A signal used to wait for the compiled loop to finish its run (12 s and 165 s measured); the loop
    now reads the stop flag of ``timed_run`` before every step. The run would take 40 s or more: 1e8 steps."""
    command = [sys.executable, "-m", "lgbench", "simulate", "heavy_top", "-f", "RV", "-i", integrator, "--step", "1e-6",
               "--max-steps", "100000000"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    warm = subprocess.run(command + ["--t-end", "1e-5"], capture_output=True, text=True, env=env, timeout=900)
    assert warm.returncode == 0, warm.stderr      # compiled and cached: the next run starts its loop at once
    process = subprocess.Popen(command + ["--t-end", "100"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    wait_until_running(process, 4.0)
    assert_ctrl_c_ends_within_a_second(process, "interrupted: the run was not finished")


def test_ctrl_c_stops_a_serial_study_run_within_a_second(tmp_path):
    """The serial executor runs in the main process: the same stop flag ends its compiled run."""
    path = write_study(tmp_path, formulations=["RV"], t_end=400.0, steps={"values": [1e-5]},
                       reference={"formulation": "RV", "integrator": "RK44", "h": 1e-3}, max_steps=10**8)
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "lgbench", "run", str(path), "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not (out / "reference.csv").exists() and process.poll() is None:
        time.sleep(0.2)
    busy = cpu_seconds(process.pid)
    wait_until_running(process, busy + 2.0)   # the 4e7-step run is under way (it takes about 20 s)
    assert_ctrl_c_ends_within_a_second(process, "interrupted: 0 runs stored — run again to resume")


TIMING_COLUMNS = {*single_run.TIMING_COLUMNS, "executor", "workers"}


def _finished_tables(folder: Path):
    import pandas as pd
    runs = pd.read_csv(folder / "runs.csv").set_index("run_id").sort_index()
    errors = pd.read_csv(folder / "errors.csv").sort_values(["run_id", "quantity", "measure"]).reset_index(drop=True)
    return runs.drop(columns=[c for c in runs.columns if c in TIMING_COLUMNS]), errors


def test_a_kill_loop_loses_nothing_and_resumes_to_the_uninterrupted_result(tmp_path):
    """SIGKILL at random moments (a fixed seed), then a resume: every stored run survives, none is stored
    twice, and the finished folder equals that of an uninterrupted run (timing columns aside)."""
    import random
    path = write_study(tmp_path, formulations=["RV", "Rxyz", "EP"], integrators=["RK44", "generalized-alpha"],
                       exclude=[{"formulation": "EP", "integrator": "RK44"}], t_end=0.5,
                       steps={"rule": "geometric", "h0": 2e-3, "base": 2, "n": [1, 4]},
                       reference={"formulation": "RV", "integrator": "RK67", "h": 1e-4}, samples=51)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(out: Path, **popen):
        return subprocess.Popen([sys.executable, "-m", "lgbench", "run", str(path), "--out", str(out), "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **popen)

    whole = run(tmp_path / "whole")
    assert whole.wait(timeout=900) == 0, whole.stderr.read()
    killed = tmp_path / "killed"
    chance = random.Random(18)
    stored = []
    for _ in range(6):
        process = run(killed)
        time.sleep(chance.uniform(0.8, 2.5))
        process.kill()
        process.wait()
        if (killed / "runs.csv").exists():
            stored.append(len((killed / "runs.csv").read_text().splitlines()) - 1)
    assert stored == sorted(stored), f"stored runs went down between kills: {stored}"
    resume = run(killed)
    assert resume.wait(timeout=900) == 0, resume.stderr.read()
    runs_whole, errors_whole = _finished_tables(tmp_path / "whole")
    runs_killed, errors_killed = _finished_tables(killed)
    assert not runs_killed.index.duplicated().any()
    assert runs_killed.equals(runs_whole) and errors_killed.equals(errors_whole)


def test_a_signal_outside_a_run_ends_any_command_with_one_line(monkeypatch):
    """Ctrl-C while a command loads or prints (outside run's and simulate's own handling) was a
    KeyboardInterrupt traceback; now one line, exit 130."""
    from typer.testing import CliRunner

    from lgbench import cli
    from lgbench.runner import study

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(study, "models", interrupted)
    result = CliRunner().invoke(cli.app, ["list", "models"])
    assert result.exit_code == 130 and result.output.strip().endswith("interrupted")
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_simulate_on_a_cold_engine_cache_says_it_compiles_first(tmp_path, monkeypatch):
    """simulate, the README tour's first command, said nothing for a minute or more while the engine
    compiled (a60e2db: 78 s of silence on a 2-core machine); the notice goes to stderr, the results to stdout."""
    import lgbench
    from typer.testing import CliRunner

    from lgbench.cli import app

    monkeypatch.setattr(lgbench, "NUMBA_CACHE_DIR", str(tmp_path / "empty"))
    result = CliRunner().invoke(app, ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3",
                                      "--t-end", "0.01"])
    assert result.exit_code == 0, result.output
    assert "compiling the engine for this machine, once" in result.stderr
    assert result.stdout.startswith("status: ok")


DIES_WHILE_SAVING = """
import os, signal, sys
from matplotlib.figure import Figure

def savefig(self, target, *args, **kwargs):
    # a SIGKILL halfway through writing the second figure
    Figure.saved = getattr(Figure, "saved", 0) + 1
    real(self, target, *args, **kwargs)
    if Figure.saved == 2:
        data = open(target, "rb").read()
        open(target, "wb").write(data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)

real, Figure.savefig = Figure.savefig, savefig
from lgbench.cli import app
app(sys.argv[1:])
"""


def whole_png(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82")


def test_a_kill_during_plot_leaves_whole_figures_and_report_embeds_only_whole_ones(tmp_path):
    """SIGKILL while 'plot' writes a figure left a PNG cut short that 'report' then embedded (a60e2db);
    figures are written to a temporary name and renamed, so the old figure stays whole."""
    import base64
    import re

    from typer.testing import CliRunner

    from lgbench.cli import app
    from lgbench.runner.execute import execute_study
    from lgbench.runner.study import load_study

    out = tmp_path / "out"
    execute_study(load_study(write_study(tmp_path, formulations=["RV", "Rxyz"])), out)
    assert CliRunner().invoke(app, ["plot", str(out)]).exit_code == 0
    before = {path.name: path.read_bytes() for path in (out / "figures").glob("*.png")}
    killed = subprocess.run([sys.executable, "-c", DIES_WHILE_SAVING, "plot", str(out)], capture_output=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    after = {path.name: path.read_bytes() for path in (out / "figures").glob("*.png")}
    assert after.keys() == before.keys() and all(whole_png(data) for data in after.values())
    assert CliRunner().invoke(app, ["report", str(out)]).exit_code == 0
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', (out / "report.html").read_text())
    assert len(embedded) == len(before) and all(whole_png(base64.b64decode(data)) for data in embedded)
    assert list((out / "figures").glob(".*.lgbench-tmp")), "the killed plot left its part behind"
    assert CliRunner().invoke(app, ["plot", str(out)]).exit_code == 0
    assert not list((out / "figures").glob(".*.lgbench-tmp")), "the next plot removes it"
