"""A full disk: a run into a small tmpfs ends with one line, leaves only whole files, and a full
reference cache is a warning. Skipped where the test cannot mount a tmpfs."""
import subprocess

import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.store import append_rows, atomic, read_frame, read_rows

from test_cli import write_study

runner = CliRunner()


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode(errors='replace').strip()[:80]})")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


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
