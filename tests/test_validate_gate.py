"""``lgbench validate`` is the run's gate (issue 49 item 6): what a run checks before it integrates, the
study's parameters applied to its model and each integrator against the model, is checked when the study
is loaded, and ``lgbench run`` checks its command-line options before it computes anything."""
from importlib.util import find_spec
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.integrators import INTEGRATORS
from lgbench.runner.single_run import integrates_constraints
from test_cli import TINY, assert_one_line_input_error, write_study

ROOT = Path(__file__).resolve().parents[1]
MECHANISM = ROOT / "studies" / "mechanisms" / "double_pendulum.yaml"
runner = CliRunner()
DASK = "--address" if find_spec("distributed") else "--executor"
"""The option refused first when the dask executor lacks an address: without the extra, the executor."""

ON_MECHANISM = {
    "name": "gate", "model": str(MECHANISM), "t_end": 0.01, "formulations": ["RV", "SE3"],
    "integrators": ["generalized-alpha"], "steps": {"values": [1e-3]},
    "reference": {"formulation": "RV", "integrator": "RK67-index1", "h": 1e-4},
    "errors": [{"quantity": "tip", "measure": "norm_at_t_end"}],
}
ON_SLIDER_CRANK = {**TINY, "model": "slider_crank", "formulations": ["RV"], "integrators": ["RK44-index1"],
                   "reference": {"formulation": "RV", "integrator": "RK67-index1", "h": 1e-4},
                   "errors": [{"quantity": "slider_position", "measure": "norm_at_t_end"}]}


def _validate(tmp_path: Path, study: dict):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False))
    return runner.invoke(app, ["validate", str(path)])


def test_the_studies_below_are_valid_as_written(tmp_path):
    assert _validate(tmp_path, ON_MECHANISM).exit_code == 0
    assert _validate(tmp_path, ON_SLIDER_CRANK).exit_code == 0


def test_the_study_parameters_are_applied_to_its_mechanism_file(tmp_path):
    result = _validate(tmp_path, {**ON_MECHANISM, "params": {"mass": -1}})
    assert_one_line_input_error(result, "field 'params'", "double_pendulum", "bodies[0].mass", "must be positive")


def test_the_reference_parameters_are_applied_to_its_mechanism_file(tmp_path):
    result = _validate(tmp_path, {**ON_MECHANISM, "reference": {**ON_MECHANISM["reference"],
                                                                 "params": {"mass": 0}}})
    assert_one_line_input_error(result, "field 'reference.params'", "double_pendulum", "RV")


def test_the_study_parameters_are_applied_to_a_built_in_model(tmp_path):
    result = _validate(tmp_path, {**TINY, "params": {"mass": -1}})
    assert_one_line_input_error(result, "field 'params.mass'", "heavy_top", "must be positive")


@pytest.mark.parametrize("study, field, fragments", [
    ({**ON_SLIDER_CRANK, "integrators": ["RK44-index1", "RK44"]}, "integrators[1]", ["'RK44'", "slider_crank",
                                                                                       "allowed: RK44-index1"]),
    ({**ON_SLIDER_CRANK, "integrators": [{"name": "DOPRI5", "options": {"step_control": "adaptive"}}]},
     "integrators[0].name", ["'DOPRI5'", "slider_crank", "exclude the combination"]),
    ({**ON_SLIDER_CRANK, "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4}},
     "reference.integrator", ["'RK67'", "slider_crank", "17 constraint rows"]),
    ({**ON_MECHANISM, "formulations": ["RV"], "integrators": ["heun"],
      "tableaus": [{"name": "heun", "order": 2, "A": [[0, 0], [1, 0]], "b": [0.5, 0.5], "c": [0, 1]}]},
     "integrators[0]", ["'heun'", "double_pendulum", "allowed: heun-index1"]),
], ids=["built_in_tableau", "adaptive_entry", "reference", "study_tableau_on_a_mechanism"])
def test_an_explicit_tableau_on_a_model_with_joints_is_refused_naming_integrator_model_and_field(
        tmp_path, study, field, fragments):
    assert_one_line_input_error(_validate(tmp_path, study), f"field '{field}'", *fragments)


def test_an_excluded_combination_is_not_refused(tmp_path):
    study = {**ON_SLIDER_CRANK, "formulations": ["RV", "EP"], "integrators": ["RK44-index1", "RK44"],
             "exclude": [{"formulation": "RV", "integrator": "RK44"}, {"formulation": "EP", "integrator": "RK44"}]}
    assert _validate(tmp_path, study).exit_code == 0


def test_simulate_names_the_integrator_and_the_model_it_cannot_integrate():
    result = runner.invoke(app, ["simulate", "slider_crank", "-f", "RV", "-i", "RK44", "--step", "1e-3",
                                 "--t-end", "0.01"])
    assert_one_line_input_error(result, "'RK44'", "slider_crank", "allowed: RK44-index1")


def test_integrators_declare_whether_they_integrate_constraints():
    assert not integrates_constraints(INTEGRATORS["RK44"])
    assert not integrates_constraints(INTEGRATORS["intrinsic-energy-momentum"])
    assert integrates_constraints(INTEGRATORS["RK44-index1"])
    assert integrates_constraints(INTEGRATORS["generalized-alpha"])
    assert not integrates_constraints(SimpleNamespace(name="plugin", constraints=False))
    assert integrates_constraints(SimpleNamespace(name="plugin", constraints=True))


@pytest.mark.parametrize("options, field", [
    (["--jobs", "0"], "--jobs"),
    (["--jobs", "100000"], "--jobs"),
    (["--executor", "threads"], "--executor"),
    (["--executor", "dask"], DASK),
    (["--executor", "dask", "--address", "tcp://127.0.0.1:9", "--wall-limit", "5"],
     "--wall-limit" if DASK == "--address" else "--executor"),
])
def test_run_options_are_checked_before_anything_is_computed(tmp_path, options, field):
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(write_study(tmp_path)), "--out", str(out), *options])
    assert_one_line_input_error(result, f"field '{field}'")
    assert "reference" not in result.output and not out.exists()


def test_a_plugin_tableau_on_a_model_with_joints_is_refused(tmp_path):
    from test_plugins import install, lgbench

    site = install(tmp_path / "site")
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**ON_SLIDER_CRANK, "integrators": ["ralston3"]}))
    done = lgbench(site, "validate", str(path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert all(fragment in done.stderr for fragment in ("field 'integrators[0]'", "'ralston3'", "slider_crank",
                                                        "ralston3-index1")), done.stderr
