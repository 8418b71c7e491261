"""Plugins (issue 20 item 3): another package registers models, tableaus, integrators and error measures
through entry points, with the interfaces the built-in ones have, and a study runs on them.

The example plugin (examples/lgbench_example_plugin) is installed into a temporary folder as an installer
would: its package copied, a ``*.dist-info`` folder with its metadata and the entry points of its
pyproject.toml; lgbench runs in a subprocess with that folder on PYTHONPATH (no build tools, no
network). ``pip install ./examples/lgbench_example_plugin`` does the same into the environment.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "lgbench_example_plugin"


def install(site: Path, source: Path = EXAMPLE, entry_points: dict | None = None) -> Path:
    """The package of ``source`` and its dist-info (entry points from its pyproject, or ``entry_points``)."""
    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    package = source / project["name"].replace("-", "_")
    shutil.copytree(package, site / package.name, dirs_exist_ok=True)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    groups = project["entry-points"] if entry_points is None else entry_points
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items()) + "\n"
        for group, points in groups.items()))
    return site


def lgbench(site: Path, *arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "lgbench", *arguments], capture_output=True, text=True,
                          env=environment, cwd=cwd or ROOT, timeout=900)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return install(tmp_path_factory.mktemp("site"))


def test_list_shows_the_plugin_entries_and_where_they_come_from(site):
    origin = "[plugin lgbench-example-plugin 0.1.0 (entry point"
    models = lgbench(site, "list", "models").stdout.splitlines()
    assert any(line.startswith("spherical_pendulum") and origin in line for line in models)
    assert any(line.startswith("heavy_top ") and "[plugin" not in line for line in models)
    integrators = lgbench(site, "list", "integrators").stdout.splitlines()
    for name in ("ralston3", "ralston3-index1", "trapezoidal", "lie-euler"):
        assert any(line.startswith(name + " ") and origin in line for line in integrators), name
    measures = lgbench(site, "list", "measures").stdout
    assert "max_abs_at_t_end" in measures and "Largest absolute difference" in measures


STUDY = {
    "name": "plugin_study", "model": "spherical_pendulum", "t_end": 1.0, "formulations": ["RV", "EP"],
    "integrators": ["ralston3-index1", "trapezoidal"],
    "steps": {"rule": "geometric", "h0": 4e-3, "base": 2, "n": [0, 3]},
    "reference": {"formulation": "RV", "integrator": "RK67-index1", "h": 2.5e-4},
    "errors": [{"quantity": "tip", "measure": "max_abs_at_t_end"}],
    "expectations": [
        {"kind": "order", "method": "RV-ralston3-index1", "expected": 3, "tolerance": 0.3},
        {"kind": "order", "method": "EP-ralston3-index1", "expected": 3, "tolerance": 0.3},
        {"kind": "order", "method": "RV-trapezoidal", "expected": 2, "tolerance": 0.2},
        {"kind": "order", "method": "EP-trapezoidal", "expected": 2, "tolerance": 0.2},
    ],
}


def run_and_check(site: Path, document: dict, folder: Path, runs: int, expectations: int) -> Path:
    """``lgbench run`` then ``lgbench check`` of the study ``document`` with the plugin installed: every run
    ok and every expectation met. Returns the result folder."""
    study = folder / f"{document['name']}.yaml"
    study.write_text(yaml.safe_dump(document))
    run = lgbench(site, "run", str(study), "--out", str(folder / "out"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{runs} computed (0 not ok)" in run.stdout
    check = lgbench(site, "check", str(folder / "out"))
    assert check.returncode == 0 and f"{expectations} passed, 0 failed" in check.stdout, check.stdout + check.stderr
    return folder / "out"


def test_a_study_runs_on_the_plugins_model_tableau_integrator_and_measure(site, tmp_path):
    run_and_check(site, STUDY, tmp_path, runs=16, expectations=4)


LIE_EULER_STUDY = {
    "name": "plugin_family", "model": "heavy_top", "t_end": 0.1, "formulations": ["RV"],
    "integrators": ["lie-euler"],
    "steps": {"rule": "geometric", "h0": 1e-4, "base": 2, "n": [1, 4]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-5},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
    "expectations": [{"kind": "order", "method": "RV-lie-euler", "expected": 1, "tolerance": 0.1}],
}


def test_a_plugin_brings_a_compiled_integrator_family_of_its_own(site, tmp_path):
    """The example plugin's symplectic Lie-Euler (lgbench_example_plugin/lie_euler.py): its own cached
    entry point around lgbench's fixed-step loop, timed by lgbench's rule; first order on the heavy top
    (1.01-1.03 over h = 1e-4 .. 1.25e-5)."""
    out = run_and_check(site, LIE_EULER_STUDY, tmp_path, runs=4, expectations=1)
    runs = (out / "runs.csv").read_text().splitlines()
    assert all(",explicit," in line for line in runs[1:])       # the kind the plugin declares


def test_without_the_plugin_its_names_are_unknown(tmp_path):
    study = tmp_path / "plugin_study.yaml"
    study.write_text(yaml.safe_dump(STUDY))
    result = lgbench(tmp_path, "validate", str(study))
    assert result.returncode == 2 and "unknown model: 'spherical_pendulum'" in result.stderr


@pytest.mark.parametrize("points, fragment", [
    ({"lgbench.models": {"broken": "lgbench_example_plugin:NO_SUCH_MODEL"}},
     "entry point broken = lgbench_example_plugin:NO_SUCH_MODEL) cannot be loaded: AttributeError"),
    ({"lgbench.models": {"wrong": "lgbench_example_plugin:RALSTON3"}},
     "expected a lgbench.models.Model or a list of them, got ButcherTableau"),
    ({"lgbench.integrators": {"wrong": "lgbench_example_plugin:SPHERICAL_PENDULUM"}},
     "an integrator has name, description, kind"),
    ({"lgbench.tableaus": {"again": "lgbench_example_plugin:RALSTON3", "twice": "lgbench_example_plugin:RALSTON3"}},
     "registers 'ralston3', which plugin lgbench-example-plugin 0.1.0 (entry point again"),
    ({"lgbench.error_measures": {"norm_at_t_end": "lgbench_example_plugin:max_abs_at_t_end"}},
     "registers 'norm_at_t_end', which lgbench has registered already"),
], ids=["import", "model-kind", "integrator-kind", "taken-by-plugin", "taken-by-lgbench"])
def test_a_bad_plugin_is_one_line_naming_package_and_entry_point(tmp_path, points, fragment):
    site = install(tmp_path / "site", entry_points=points)
    result = lgbench(site, "list", "models" if "models" in str(points) else "integrators"
                     if "integrators" in str(points) or "tableaus" in str(points) else "measures")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "plugin lgbench-example-plugin 0.1.0" in lines[0] and fragment in lines[0], lines[0]
