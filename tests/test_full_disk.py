"""A full disk: a run into a small tmpfs ends with one line, leaves only whole files, and a full
reference cache is a warning. Skipped where the test cannot mount a tmpfs."""
import os
import subprocess

import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner.execute import execute_study
from lgbench.runner.study import load_study
from lgbench.store import append_rows, atomic, read_frame, read_rows

from test_cli import write_study

runner = CliRunner()


def mounted_disk(tmp_path, size: str):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode(errors='replace').strip()[:80]})")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def small_disk(tmp_path):
    yield from mounted_disk(tmp_path, "96k")


@pytest.fixture
def disk(tmp_path):
    yield from mounted_disk(tmp_path, "4m")


def fill(disk, keep: int) -> None:
    """Fill ``disk`` up, then free about ``keep`` bytes (whole pages)."""
    with open(disk / "filler", "wb", buffering=0) as filler:
        for chunk in (65536, 4096):
            try:
                while True:
                    filler.write(b"\0" * chunk)
            except OSError:
                pass
    size = (disk / "filler").stat().st_size
    os.truncate(disk / "filler", max(0, size - (keep // 4096 + 1) * 4096))


def test_a_full_disk_is_one_line_and_leaves_whole_files(tmp_path, small_disk, monkeypatch):
    monkeypatch.setenv("LGBENCH_REFERENCE_CACHE", str(small_disk / "cache"))
    path = write_study(tmp_path, formulations=["RV", "Rxyz"], samples=2000,
                       steps={"rule": "geometric", "h0": 1e-3, "base": 2, "n": [1, 3]})
    result = runner.invoke(app, ["run", str(path), "--out", str(small_disk / "out")])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "No space left on device" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "reference cache" in result.output and "cannot be written" in result.output
    assert not list((small_disk / "out").rglob(f"*{atomic.SUFFIX}"))
    if (small_disk / "out" / "runs.csv").exists():
        read_frame(small_disk / "out" / "runs.csv")           # whole rows only


def test_a_row_that_does_not_fit_on_a_full_disk_is_taken_back_whole(small_disk):
    """os.write wrote what fitted, then failed: the table ended in a row cut short."""
    path = small_disk / "t.csv"
    append_rows(path, [{"run_id": "a", "message": "x" * 95_000}], ["run_id", "message"])
    before = path.read_bytes()
    with pytest.raises(OSError, match="No space left"):
        append_rows(path, [{"run_id": "b", "message": "y" * 5_000}])
    assert path.read_bytes() == before and len(read_rows(path)) == 1


def test_a_full_disk_during_report_keeps_the_old_report_whole(tmp_path, disk):
    """report.html was written in place: on a full disk a60e2db left it cut short (81920 bytes, no closing
    tag) after one error line. Now the new report goes to a temporary name first: the old one stays whole."""
    out = disk / "out"
    execute_study(load_study(write_study(tmp_path, formulations=["RV", "Rxyz"])), out)
    assert runner.invoke(app, ["plot", str(out), "-k", "convergence"]).exit_code == 0
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    before = {name: (out / name).read_bytes() for name in ("report.md", "report.html")}
    assert runner.invoke(app, ["plot", str(out), "-k", "cpu_time"]).exit_code == 0    # the next report is larger
    fill(disk, len(before["report.md"]) + 4096)       # room for report.md, not for report.html
    result = runner.invoke(app, ["report", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and "No space left on device" in result.stderr
    assert (out / "report.html").read_bytes() == before["report.html"]
    assert (out / "report.md").read_bytes().endswith(b"\n")
    assert not list(out.rglob(f"*{atomic.SUFFIX}"))


def no_space(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    root = tmp_path_factory.mktemp("finished")
    execute_study(load_study(write_study(root, formulations=["RV", "Rxyz"])), root / "out")
    return root / "out"


@pytest.mark.parametrize("command, writer, target", [
    (["plot", "-k", "convergence"], "matplotlib.figure.Figure.savefig", "figures/convergence"),
    (["report"], "pathlib.Path.write_bytes", "report.md"),
])
def test_a_full_disk_in_plot_or_report_names_the_file_that_could_not_be_written(finished, monkeypatch, command,
                                                                                   writer, target):
    """Was "error: [Errno 28] No space left on device": the writer's error names no file, or the temporary one."""
    monkeypatch.setattr(writer, no_space)
    result = runner.invoke(app, [command[0], str(finished), *command[1:]])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {finished / target}"), lines
    assert "No space left on device" in lines[0] and "lgbench-tmp" not in lines[0]
