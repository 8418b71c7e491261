"""Results know the code that made them: a run that uses a plugin's model, integrator (tableau) or error
measure has the plugin's package, version and code hash in its run id, and its reference in its cache key;
metadata.json lists the plugins a session used. A changed plugin recomputes its runs; runs of lgbench's own
entries keep their ids whatever plugins are installed.

The example plugin is installed into a temporary folder as tests/test_plugins.py does, and edited there.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from lgbench.plugins import code_hash

from test_plugins import install, lgbench

PACKAGE = {"package": "lgbench-example-plugin", "version": "0.1.0"}
STUDIES = {
    "model": {"model": "spherical_pendulum", "t_end": 0.1, "formulations": ["RV"], "integrators": ["RK44-index1"],
              "steps": {"values": [1e-2]},
              "reference": {"formulation": "RV", "integrator": "RK67-index1", "h": 1e-3},
              "errors": [{"quantity": "tip", "measure": "norm_at_t_end"}]},
    "tableau": {"model": "heavy_top", "t_end": 0.01, "formulations": ["RV"], "integrators": ["ralston3"],
                "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
                "errors": [{"quantity": "com", "measure": "norm_at_t_end"}]},
    "integrator": {"model": "heavy_top", "t_end": 0.01, "formulations": ["RV"], "integrators": ["trapezoidal"],
                   "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
                   "errors": [{"quantity": "com", "measure": "norm_at_t_end"}]},
    "measure": {"model": "heavy_top", "t_end": 0.01, "formulations": ["RV"], "integrators": ["RK44"],
                "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
                "errors": [{"quantity": "com", "measure": "max_abs_at_t_end"}]},
}
BUILT_IN = {"model": "heavy_top", "t_end": 0.01, "formulations": ["RV"], "integrators": ["RK44"],
            "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
            "errors": [{"quantity": "com", "measure": "norm_at_t_end"}]}


def write(folder: Path, name: str, document: dict) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "steps": {"values": [1e-3]}, **document}))
    return path


def edit_the_plugin(site: Path) -> None:
    source = site / "lgbench_example_plugin" / "__init__.py"
    source.write_text(source.read_text() + "\n# edited\n")


def run_ids(out: Path) -> list[str]:
    return [line.split(",")[0] for line in (out / "runs.csv").read_text().splitlines()[1:]]


def sessions(out: Path) -> list[dict]:
    return json.loads((out / "metadata.json").read_text())["sessions"]


@pytest.mark.parametrize("use", STUDIES, ids=[f"plugin-{use}" for use in STUDIES])
def test_a_changed_plugin_recomputes_the_runs_that_use_it(tmp_path, use):
    site = install(tmp_path / "site")
    study, out = write(tmp_path, use, STUDIES[use]), tmp_path / "out"
    first = lgbench(site, "run", str(study), "--out", str(out))
    assert first.returncode == 0 and "1 computed" in first.stdout, first.stdout + first.stderr
    unchanged = lgbench(site, "run", str(study), "--out", str(out))
    assert "skipping 1 of 1" in unchanged.stdout, unchanged.stdout + unchanged.stderr
    edit_the_plugin(site)
    changed = lgbench(site, "run", str(study), "--out", str(out))
    assert changed.returncode == 0 and "1 computed" in changed.stdout, changed.stdout + changed.stderr
    assert ("(from the reference cache)" in changed.stdout) == (use != "model"), changed.stdout
    old, new = run_ids(out)
    assert old != new and old.rsplit("-", 1)[0] == new.rsplit("-", 1)[0]
    recorded = [session["plugins"] for session in sessions(out)]
    assert len(recorded) == 2 and all(len(plugins) == 1 for plugins in recorded)
    assert all({key: plugins[0][key] for key in PACKAGE} == PACKAGE for plugins in recorded)
    assert recorded[0][0]["code"] != recorded[1][0]["code"]


def test_runs_of_lgbench_s_own_entries_keep_their_ids_beside_an_installed_plugin(tmp_path):
    site = install(tmp_path / "site")
    study, out = write(tmp_path, "built_in", BUILT_IN), tmp_path / "out"
    first = lgbench(site, "run", str(study), "--out", str(out))
    assert first.returncode == 0 and run_ids(out) == ["RV-RK44-h1e-03"], first.stdout + first.stderr
    assert sessions(out)[0]["plugins"] == []
    edit_the_plugin(site)
    again = lgbench(site, "run", str(study), "--out", str(out))
    assert "skipping 1 of 1" in again.stdout, again.stdout + again.stderr


def test_the_code_hash_follows_every_file_of_the_package_but_not_its_caches(tmp_path, monkeypatch):
    package = tmp_path / "hashed_plugin"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 1\n")
    (package / "data" / "tableau.json").write_text("[1]")
    monkeypatch.syspath_prepend(str(tmp_path))
    digest = code_hash.__wrapped__

    first = digest("hashed_plugin")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"compiled")
    (package / "kernels.nbi").write_bytes(b"numba index")
    assert digest("hashed_plugin") == first
    (package / "data" / "tableau.json").write_text("[2]")
    assert digest("hashed_plugin") != first
