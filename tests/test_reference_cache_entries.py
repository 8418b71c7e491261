"""A reference-cache entry proves its content: every field of result.json and series.npz damaged in turn
(missing, of the wrong type, altered) is a miss that is warned about once, recomputed and replaced; it is
never used and never ends the command."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner import reference_cache
from lgbench.runner.grid import reference_spec
from lgbench.runner.single_run import RunResult, RunSpec
from lgbench.runner.study import load_study

from test_cli import write_study

SPEC = RunSpec("heavy_top", "RV", "RK67", 1e-4, 0.01)
SAMPLES = 3
RESULT = RunResult("ok", "", 100, 0.5, 0.01, {"com_x": 0.25, "energy": 3.0},
                   {"t": np.array([0.0, 0.005, 0.01]), "com_x": np.array([0.0, 0.125, 0.25]),
                    "energy": np.array([3.0, 3.0, 3.0])}, {"us_per_step": 5.0, "cpu_runs": 1})


def folder():
    return reference_cache.cache_root() / reference_cache.reference_key(SPEC, SAMPLES)


def edit(change):
    """A damage of result.json: ``change`` edits its content in place."""
    def damage(entry):
        data = json.loads((entry / "result.json").read_text())
        change(data)
        (entry / "result.json").write_text(json.dumps(data))
    return damage


def replace_field(name, value):
    return edit(lambda data: data.__setitem__(name, value))


def drop_field(name):
    return edit(lambda data: data.pop(name))


def edit_series(change):
    def damage(entry):
        with np.load(entry / "series.npz") as stored:
            series = {name: stored[name] for name in stored.files}
        change(series)
        np.savez(entry / "series.npz", **series)
    return damage


def write(name, content):
    return lambda entry: (entry / name).write_bytes(content)


def truncate(name):
    return lambda entry: (entry / name).write_bytes((entry / name).read_bytes()[:100])


def remove(name):
    return lambda entry: (entry / name).unlink()


FIELDS = ["status", "message", "steps", "cpu_s", "t_final", "final_outputs", "statistics", "has_series",
          "series_sha256", "inputs", "sha256"]
WRONG_TYPES = {"status": 1, "message": None, "steps": "many", "cpu_s": "fast", "t_final": [0.01],
               "final_outputs": {"com_x": "0.25", "energy": 3.0}, "statistics": [1], "has_series": "yes",
               "series_sha256": 5, "inputs": "heavy_top", "sha256": None}
ALTERED = {"status": "diverged", "message": "edited", "steps": 101, "cpu_s": 0.75, "t_final": 0.02,
           "final_outputs": {"com_x": 1.25, "energy": 3.0}, "statistics": {"us_per_step": 5.0, "cpu_runs": 2},
           "has_series": False, "series_sha256": "0" * 64, "inputs": {"format": 2}, "sha256": "0" * 64}
DAMAGES = {
    **{f"{name}-missing": drop_field(name) for name in FIELDS},
    **{f"{name}-wrong-type": replace_field(name, WRONG_TYPES[name]) for name in FIELDS},
    **{f"{name}-altered": replace_field(name, ALTERED[name]) for name in FIELDS},
    "final_outputs-lacks-a-quantity": edit(lambda data: data["final_outputs"].pop("energy")),
    "final_outputs-extra-quantity": edit(lambda data: data["final_outputs"].__setitem__("com_y", 0.0)),
    "steps-a-float": replace_field("steps", 100.0),
    "steps-infinite": replace_field("steps", float("inf")),
    "inputs-of-another-step": edit(lambda data: data["inputs"]["spec"].__setitem__("h", 2e-4)),
    "unknown-field": replace_field("surprise", 1),
    "result-missing": remove("result.json"),
    "result-empty": write("result.json", b""),
    "result-not-json": write("result.json", b"{not json"),
    "result-not-utf8": write("result.json", b"\xff\xfe{}"),
    "result-a-list": write("result.json", b"[1, 2, 3]"),
    "result-deeply-nested": write("result.json", b"[" * 100000 + b"]" * 100000),
    "series-missing": remove("series.npz"),
    "series-truncated": truncate("series.npz"),
    "series-not-a-zip": write("series.npz", b"not a zip"),
    "series-value-altered": edit_series(lambda series: series["com_x"].__setitem__(0, 1.0)),
    "series-array-dropped": edit_series(lambda series: series.pop("energy")),
    "series-array-added": edit_series(lambda series: series.__setitem__("extra", np.zeros(3))),
    "series-type-changed": edit_series(lambda series: series.__setitem__("t", series["t"].astype(np.float32))),
}


def same(result, expected):
    return (result.status, result.message, result.steps, result.cpu_s, result.t_final, result.final_outputs,
            result.statistics) == (expected.status, expected.message, expected.steps, expected.cpu_s,
                                   expected.t_final, expected.final_outputs, expected.statistics) \
        and result.series.keys() == expected.series.keys() \
        and all(np.array_equal(result.series[name], expected.series[name]) for name in expected.series)


class Computations:
    """The compute function of ``cached_reference``, counting its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return RESULT


def test_a_sound_entry_gives_back_what_was_stored():
    compute = Computations()
    reference_cache.cached_reference(SPEC, SAMPLES, compute)
    warnings = []
    result, cached = reference_cache.cached_reference(SPEC, SAMPLES, compute, warn=warnings.append)
    assert cached and compute.calls == 1 and not warnings and same(result, RESULT)


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_entry_is_a_miss_warned_once_recomputed_and_replaced(damage):
    compute = Computations()
    reference_cache.cached_reference(SPEC, SAMPLES, compute)
    damage(folder())
    warnings = []
    result, cached = reference_cache.cached_reference(SPEC, SAMPLES, compute, warn=warnings.append)
    assert not cached and compute.calls == 2 and same(result, RESULT)
    assert len(warnings) == 1 and f"reference cache entry {folder()} is damaged" in warnings[0], warnings
    again, cached = reference_cache.cached_reference(SPEC, SAMPLES, compute, warn=warnings.append)
    assert cached and compute.calls == 2 and len(warnings) == 1 and same(again, RESULT), "not replaced"


@pytest.mark.parametrize("damage", [
    edit(lambda data: data["final_outputs"].__setitem__("com_x", data["final_outputs"]["com_x"] + 1.0)),
    edit(lambda data: data["final_outputs"].pop("com_x")),
    replace_field("steps", "many"),
], ids=["final-value-altered", "final-value-missing", "steps-not-a-number"])
def test_a_study_never_uses_a_damaged_reference(tmp_path, damage):
    """Before, an altered final value gave errors of 1.000003 instead of 3.7e-6, and a missing one an
    internal error after "reference ok (from the reference cache)"."""
    study = write_study(tmp_path, formulations=["RV"], steps={"values": [1e-3]})
    runner = CliRunner()
    first = runner.invoke(app, ["run", str(study), "--out", str(tmp_path / "first")])
    assert first.exit_code == 0, first.output
    damage(reference_cache.cache_root() / reference_cache.reference_key(reference_spec(load_study(study)), None))
    second = runner.invoke(app, ["run", str(study), "--out", str(tmp_path / "second")])
    assert second.exit_code == 0, second.output
    assert second.output.count("is damaged") == 1 and "(from the reference cache)" not in second.output
    errors = [(tmp_path / name / "errors.csv").read_text() for name in ("first", "second")]
    assert errors[0] == errors[1]
