"""Result folders: valid output paths, one writer at a time (the folder lock), atomic writes, and a
study file never overwritten by its copy."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.exceptions import InputError
from lgbench.runner.execute import execute_study
from lgbench.runner.study import load_study
from lgbench.store import FolderBusy, FolderLock, read_frame
from lgbench.store import atomic

from test_cli import TINY, assert_one_line_input_error, write_study

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("out, fragment", [("", "empty folder name"), ("/", "filesystem root")])
def test_out_must_name_a_folder_other_than_the_root(tmp_path, out, fragment):
    result = runner.invoke(app, ["run", str(write_study(tmp_path)), "--out", out])
    assert_one_line_input_error(result, "--out", fragment)


def test_the_study_file_is_never_overwritten_by_its_copy(tmp_path):
    text = "# my comments\n" + yaml.safe_dump({**TINY, "formulations": ["RV"], "steps": {"values": [1e-3]}})
    path = write_study(tmp_path, text)
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert path.read_text() == text


def test_a_second_writer_fails_at_once_naming_the_holder(tmp_path):
    with FolderLock(tmp_path / "out"):
        with pytest.raises(FolderBusy) as caught:
            with FolderLock(tmp_path / "out"):
                pass
    message = str(caught.value)
    assert f"pid {os.getpid()}" in message and "--wait" in message and "\n" not in message
    with FolderLock(tmp_path / "out"):              # released: free again
        pass


def test_a_waiting_writer_goes_on_when_the_holder_is_done(tmp_path):
    study = load_study(write_study(tmp_path, formulations=["RV"], steps={"values": [1e-3]}))
    held = threading.Event()

    def hold() -> None:
        with FolderLock(tmp_path / "out"):
            held.set()
            time.sleep(1.0)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    messages = []
    started = time.monotonic()
    outcome = execute_study(study, tmp_path / "out", progress=messages.append, wait=True)
    thread.join()
    assert time.monotonic() - started >= 0.9 and outcome.computed == 1
    assert any(message.startswith("waiting for") for message in messages)


def test_two_concurrent_writers_lose_nothing_and_duplicate_nothing(tmp_path):
    """Both writers start while the folder is busy: the one without --wait stops at once with one
    line naming the holder, the one with --wait computes every run once when the folder is free."""
    path = write_study(tmp_path, formulations=["RV", "Rxyz"])
    command = [sys.executable, "-m", "lgbench", "run", str(path), "--out", str(tmp_path / "out"), "-q"]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def start(*extra):
        return subprocess.Popen(command + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=environment)

    with FolderLock(tmp_path / "out"):
        waiting, refused = start("--wait"), start()
        _, message = refused.communicate(timeout=300)
        assert refused.returncode == 2
        assert message.count("\n") == 1 and "in use by another lgbench process" in message
        assert f"pid {os.getpid()}" in message
    output, _ = waiting.communicate(timeout=300)
    assert waiting.returncode == 0, output
    runs = read_frame(tmp_path / "out" / "runs.csv")
    assert len(runs) == 6 and runs["run_id"].is_unique
    errors = read_frame(tmp_path / "out" / "errors.csv")
    assert len(errors) == 6 and not errors.duplicated(["run_id", "quantity", "measure"]).any()


def test_two_runs_started_together_compute_each_run_once(tmp_path):
    """Two ``lgbench run`` into one --out at the same moment (a60e2db: both computed every run, each
    run_id twice, or rows vanished when one widened the header while the other appended, and both exited
    0): one computes every run, the other stops at once with one line naming the holder; started
    together with --wait, the second waits and then finds every run done."""
    path = write_study(tmp_path, formulations=["RV", "Rxyz"], t_end=1.0, steps={"values": [1e-5, 2e-5]},
                       reference={"formulation": "RV", "integrator": "RK44", "h": 1e-3}, max_steps=10**6)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def together(out, *extra):
        command = [sys.executable, "-m", "lgbench", "run", str(path), "--out", str(out), "-q", *extra]
        processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=environment) for _ in range(2)]
        return [(process.wait(timeout=300), *process.communicate()) for process in processes]

    def assert_each_run_once(out):
        runs = read_frame(out / "runs.csv")
        assert len(runs) == 4 and runs["run_id"].is_unique and (runs["status"] == "ok").all()
        errors = read_frame(out / "errors.csv")
        assert len(errors) == 4 and not errors.duplicated(["run_id", "quantity", "measure"]).any()

    finished = together(tmp_path / "out")
    assert sorted(code for code, _, _ in finished) == [0, 2], finished
    message = next(errors for code, _, errors in finished if code == 2)
    assert message.count("\n") == 1 and message.startswith("error: ") and "in use by another lgbench process" in message
    assert_each_run_once(tmp_path / "out")

    finished = together(tmp_path / "waited", "--wait")
    assert [code for code, _, _ in finished] == [0, 0], finished
    summaries = sorted(line for _, output, _ in finished for line in output.splitlines() if "computed" in line)
    assert [line.split(";")[0] for line in summaries] == ["0 computed (0 not ok), 4 skipped",
                                                          "4 computed (0 not ok), 0 skipped"]
    assert_each_run_once(tmp_path / "waited")


def test_an_atomic_write_leaves_the_old_file_or_the_new_one(tmp_path):
    target = tmp_path / "figure.png"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic.atomic_path(target) as temporary:
            temporary.write_bytes(b"half")
            raise RuntimeError("killed while writing")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["figure.png"]
    atomic.write_bytes(target, b"new")
    assert target.read_bytes() == b"new" and os.listdir(tmp_path) == ["figure.png"]


def test_leftovers_of_dead_writers_are_cleaned_on_the_next_run(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = tmp_path / "out" / "figures" / f".convergence.png.{dead.stdout.strip()}{atomic.SUFFIX}"
    leftover.parent.mkdir(parents=True)
    leftover.write_bytes(b"partial")
    study = load_study(write_study(tmp_path, formulations=["RV"], steps={"values": [1e-3]}))
    execute_study(study, tmp_path / "out")
    assert not leftover.exists()
    assert not list((tmp_path / "out").rglob(f"*{atomic.SUFFIX}"))


def test_a_result_folder_that_is_a_file_is_one_line(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        execute_study(load_study(write_study(tmp_path)), tmp_path / "file")


def test_a_kill_between_error_rows_and_runs_row_resumes_to_the_uninterrupted_tables(tmp_path):
    """``record`` stores a run's error rows before its runs row; a kill in between left those error rows
    in errors.csv, and the resumed run appended them a second time (the kill loop's seed once hit it). The
    resume now removes the rows of every run it computes again."""
    study = load_study(write_study(tmp_path))
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    execute_study(study, whole)
    execute_study(study, killed)
    lines = (killed / "runs.csv").read_text().splitlines(keepends=True)
    (killed / "runs.csv").write_text("".join(lines[:-1]))      # the last run: error rows, no runs row
    execute_study(study, killed)
    for name, key in (("runs.csv", ["run_id"]), ("errors.csv", ["run_id", "quantity", "measure"])):
        resumed, uninterrupted = read_frame(killed / name), read_frame(whole / name)
        assert not resumed.duplicated(key).any()
        assert sorted(map(tuple, resumed[key].values)) == sorted(map(tuple, uninterrupted[key].values))
