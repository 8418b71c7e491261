"""runs.csv records each run's integrator kind; tables and figures classify rows from the results
alone, inferring the kind of folders written before the column existed from their Newton statistics."""
import pandas as pd
import pytest

from lgbench.analysis.kinds import implicit_runs, integrator_kinds
from lgbench.runner import single_run
from lgbench.runner.execute import execute_study
from lgbench.runner.single_run import RunResult
from lgbench.runner.study import Study
from lgbench.store import ResultStore, append_rows, read_frame

STUDY = Study.model_validate({
    "name": "kinds", "model": "heavy_top", "t_end": 0.01, "formulations": ["RV"],
    "integrators": ["RK44", "generalized-alpha", {"name": "generalized-alpha", "label": "modified",
                                                  "options": {"newton": "modified"}}],
    "steps": {"values": [1e-3, 5e-4]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}]})


def _without_newton_statistics(spec, n_samples=None, timing=None):
    outputs = {"com_x": spec.h ** 2, "com_y": 0.0, "com_z": 0.0, "energy": 1.0}
    return RunResult("ok", "", round(spec.t_end / spec.h), 1e-3, spec.t_end, outputs)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(single_run, "run_single", _without_newton_statistics)
    execute_study(STUDY, tmp_path)
    return tmp_path


def test_each_row_records_the_kind_of_its_integrator(folder):
    rows = ResultStore(folder).runs()
    assert {(row["integrator"], row["variant"], row["integrator_kind"]) for row in rows} == {
        ("RK44", "", "explicit"), ("generalized-alpha", "", "implicit"),
        ("generalized-alpha", "modified", "implicit")}


def test_the_recorded_kind_decides_even_without_newton_statistics(folder):
    runs = read_frame(folder / "runs.csv")
    assert set(implicit_runs(runs)["integrator"]) == {"generalized-alpha"}


def _old_runs(**columns):
    base = {"integrator": ["RK44", "RK44", "generalized-alpha", "generalized-alpha.modified"],
            "status": ["ok", "ok", "diverged", "ok"]}
    return pd.DataFrame({**base, **columns})


def test_old_folders_are_classified_by_their_newton_statistics():
    runs = _old_runs(newton_per_step=[None, None, None, 2.5])
    assert integrator_kinds(runs) == ["explicit", "explicit", "implicit", "implicit"]
    assert list(implicit_runs(runs).index) == [2, 3]


def test_old_folders_without_newton_statistics_hold_explicit_runs_only():
    assert integrator_kinds(_old_runs()) == ["explicit"] * 4


def test_a_widened_old_folder_uses_the_recorded_kind_where_there_is_one(tmp_path):
    path = tmp_path / "runs.csv"
    base = {"formulation": "RV", "h": 1e-3, "status": "ok"}
    append_rows(path, [{"run_id": "a", "integrator": "hht", "newton_per_step": 3.0, **base},
                       {"run_id": "b", "integrator": "RK44", "newton_per_step": "", **base}])
    append_rows(path, [{"run_id": "c", "integrator": "intrinsic-energy-momentum", "newton_per_step": "",
                        "integrator_kind": "implicit", **base}])
    assert integrator_kinds(read_frame(path)) == ["implicit", "explicit", "implicit"]
