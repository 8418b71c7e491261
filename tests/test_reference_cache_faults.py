"""Reference-cache faults: an unwritable cache is a warning, a damaged entry (any way) is a miss that
is recomputed and replaced, entries carry a checksum, and ``lgbench reference --force`` replaces."""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner import reference_cache
from lgbench.runner.execute import compute_reference, execute_study
from lgbench.runner.grid import reference_spec
from lgbench.runner.study import load_study

from test_cli import write_study

runner = CliRunner()


def sampled_study(tmp_path):
    return load_study(write_study(tmp_path, formulations=["RV"], steps={"values": [1e-3]}, samples=5))


def entry(study):
    return reference_cache.cache_root() / reference_cache.reference_key(reference_spec(study), study.samples)


def truncate_npz(folder):
    data = (folder / "series.npz").read_bytes()
    (folder / "series.npz").write_bytes(data[: len(data) // 2])


def unexpected_key(folder):
    data = json.loads((folder / "result.json").read_text())
    data["surprise"] = 1
    del data["steps"]
    (folder / "result.json").write_text(json.dumps(data))


def wrong_series(folder):
    with np.load(folder / "series.npz") as stored:
        series = {name: stored[name] for name in stored.files}
    series["t"] = series["t"] + 1.0
    np.savez(folder / "series.npz", **series)


def wrong_shape(folder):
    (folder / "result.json").write_text("[1, 2, 3]")


@pytest.mark.parametrize("damage", [truncate_npz, unexpected_key, wrong_series, wrong_shape],
                         ids=["truncated_npz", "unexpected_key", "bad_checksum", "wrong_shape"])
def test_a_damaged_entry_is_a_miss_that_is_recomputed_and_replaced(tmp_path, damage):
    study = sampled_study(tmp_path)
    first, _ = compute_reference(study)
    damage(entry(study))
    again, cached = compute_reference(study)
    assert not cached and again.final_outputs == first.final_outputs
    assert compute_reference(study)[1], "the damaged entry was replaced"
    assert "series_sha256" in json.loads((entry(study) / "result.json").read_text())


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_cache_is_a_warning_and_the_study_goes_on(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    monkeypatch.setenv("LGBENCH_REFERENCE_CACHE", str(cache))
    messages = []
    outcome = execute_study(sampled_study(tmp_path), tmp_path / "out", progress=messages.append)
    assert outcome.computed == 1 and any("cannot be written" in text for text in messages)


def test_an_unwritable_cache_is_a_warning_and_the_study_goes_on(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("LGBENCH_REFERENCE_CACHE", str(blocker / "references"))
    messages = []
    for use_cache in (True, False):
        outcome = execute_study(sampled_study(tmp_path), tmp_path / f"out-{use_cache}", progress=messages.append,
                                use_cache=use_cache)
        assert outcome.computed == 1
    assert sum("cannot be written" in text for text in messages) == 2


def test_a_full_cache_is_a_warning(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    messages = []
    result, cached = reference_cache.cached_reference(
        reference_spec(sampled_study(tmp_path)), 5, lambda: compute_reference(sampled_study(tmp_path), False)[0],
        warn=messages.append)
    assert result.status == "ok" and "No space left" in messages[0]
    assert not [path for path in reference_cache.cache_root().iterdir()]


def test_reference_force_really_replaces_a_damaged_entry(tmp_path):
    path = write_study(tmp_path, formulations=["RV"], steps={"values": [1e-3]}, samples=5)
    assert runner.invoke(app, ["reference", str(path)]).exit_code == 0
    folder = entry(load_study(path))
    truncate_npz(folder)
    result = runner.invoke(app, ["reference", str(path), "--force"])
    assert result.exit_code == 0 and "computed" in result.output
    assert reference_cache.load(folder.name) is not None


def test_a_read_only_mounted_cache_is_a_warning_and_the_study_goes_on(tmp_path):
    """The chmod test above is skipped for root, who writes anyway: a read-only bind mount (in a private
    mount namespace) stops root too. a60e2db computed the reference, then ended with 'error: ...:
    Read-only file system' (exit 2) and no runs. Skipped where no mount namespace can be made."""
    cache = tmp_path / "cache"
    cache.mkdir()
    read_only = f"mount --bind {shlex.quote(str(cache))} {shlex.quote(str(cache))} && " \
                f"mount -o remount,bind,ro {shlex.quote(str(cache))}"
    trial = subprocess.run(["unshare", "-m", "sh", "-c", f"{read_only} && ! touch {shlex.quote(str(cache))}/x"],
                           capture_output=True)
    if trial.returncode != 0:
        pytest.skip("cannot make a read-only mount here")
    path = write_study(tmp_path, formulations=["RV"], steps={"values": [1e-3]}, samples=5)
    command = shlex.join([sys.executable, "-m", "lgbench", "run", str(path), "--out", str(tmp_path / "out")])
    done = subprocess.run(["unshare", "-m", "sh", "-c", f"{read_only} && exec {command}"], capture_output=True,
                          text=True, env={**os.environ, "LGBENCH_REFERENCE_CACHE": str(cache),
                                          "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert done.returncode == 0, done.stderr
    assert "cannot be written (Read-only file system)" in done.stdout + done.stderr
    assert "1 computed" in done.stdout and not list(cache.iterdir())
