"""CSV store: atomic appends, crash recovery, widened headers; execution stores runs as they finish."""
import numpy as np
import pytest

from lgbench.runner import single_run
from lgbench.runner.execute import execute_study
from lgbench.runner.single_run import RunResult
from lgbench.runner.study import Study
from lgbench.store import ResultStore, append_rows, read_rows


def test_first_append_writes_the_header_once(tmp_path):
    path = tmp_path / "t.csv"
    append_rows(path, [{"a": 1, "b": 2.5}], ["a", "b"])
    append_rows(path, [{"a": 3, "b": 4.5}])
    assert path.read_text() == "a,b\n1,2.5\n3,4.5\n"


def test_trailing_partial_line_is_ignored_and_repaired_on_the_next_append(tmp_path):
    path = tmp_path / "t.csv"
    append_rows(path, [{"a": 1, "b": 2}])
    with open(path, "a") as handle:
        handle.write("7,")                      # a crash in the middle of a row
    assert read_rows(path) == [{"a": "1", "b": "2"}]
    append_rows(path, [{"a": 3, "b": 4}])
    assert path.read_text() == "a,b\n1,2\n3,4\n"


def test_new_columns_widen_the_header_and_keep_old_rows(tmp_path):
    path = tmp_path / "t.csv"
    append_rows(path, [{"a": 1}])
    append_rows(path, [{"a": 2, "newton_iterations": 3.5}])
    assert read_rows(path) == [{"a": "1", "newton_iterations": ""}, {"a": "2", "newton_iterations": "3.5"}]
    assert not list(tmp_path.glob("*.tmp"))


def test_messages_with_commas_and_line_breaks_stay_one_row(tmp_path):
    path = tmp_path / "t.csv"
    append_rows(path, [{"run_id": "x", "message": "Newton failed,\nsingular matrix"}])
    assert path.read_text().count("\n") == 2
    assert read_rows(path)[0]["message"] == "Newton failed, singular matrix"


def test_floats_keep_full_precision(tmp_path):
    path = tmp_path / "t.csv"
    append_rows(path, [{"value": 0.1 + 0.2}])
    assert float(read_rows(path)[0]["value"]) == 0.1 + 0.2


def test_a_row_cut_inside_a_multibyte_character_is_ignored(tmp_path):
    path = tmp_path / "t.csv"
    append_rows(path, [{"message": "pitch at π/2"}])
    with open(path, "ab") as handle:
        handle.write("π".encode()[:1])
    assert read_rows(path) == [{"message": "pitch at π/2"}]
    append_rows(path, [{"message": "ok"}])
    assert [row["message"] for row in read_rows(path)] == ["pitch at π/2", "ok"]


# --- execution with a fake engine ---------------------------------------------------------------

STUDY = Study.model_validate({
    "name": "tiny", "model": "heavy_top", "t_end": 0.01, "formulations": ["RV", "Rxyz"],
    "integrators": ["RK44"], "steps": {"values": [1e-3, 5e-4, 2.5e-4]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"},
               {"quantity": "energy", "measure": "norm_at_t_end"}]})


class FakeEngine:
    """Stands in for run_single: error h**4 in com_x; Rxyz fails at the largest step."""

    def __init__(self, interrupt_at: int | None = None):
        self.specs = []
        self.interrupt_at = interrupt_at

    def __call__(self, spec, n_samples=None, timing=None):
        self.specs.append(spec)
        if len(self.specs) == self.interrupt_at:
            raise KeyboardInterrupt
        if spec.formulation == "Rxyz" and spec.h == 1e-3:
            return RunResult("singular", "Tait-Bryan pitch at pi/2", 3, 1e-4, 0.003, {})
        outputs = {"com_x": spec.h ** 4, "com_y": 1.0, "com_z": 0.0, "energy": 5.0}
        series = None
        if n_samples:
            series = {"t": np.linspace(0, spec.t_end, n_samples), "energy": np.full(n_samples, 5.0)}
        return RunResult("ok", "", round(spec.t_end / spec.h), 1e-3, spec.t_end, outputs, series,
                         {"us_per_step": 1.0})


@pytest.fixture
def engine(monkeypatch):
    fake = FakeEngine()
    monkeypatch.setattr(single_run, "run_single", fake)
    return fake


def test_each_run_gets_a_row_and_its_errors_in_long_form(tmp_path, engine):
    outcome = execute_study(STUDY, tmp_path)
    store = ResultStore(tmp_path)
    assert (outcome.computed, outcome.failed, outcome.skipped) == (6, 1, 0)
    assert [row["run_id"] for row in store.runs()][:2] == ["RV-RK44-h1e-03", "RV-RK44-h5e-04"]
    errors = store.errors()
    assert len(errors) == 2 * 5
    first = errors[0]
    assert (first["quantity"], first["measure"]) == ("com", "norm_at_t_end")
    assert float(first["value"]) == pytest.approx(1e-12 - 1e-16)
    assert read_rows(store.reference_path)[0]["integrator"] == "RK67"


def test_failed_run_has_status_and_message_and_no_error_rows(tmp_path, engine):
    execute_study(STUDY, tmp_path)
    store = ResultStore(tmp_path)
    failed = store.finished_runs()["Rxyz-RK44-h1e-03"]
    assert (failed["status"], failed["message"]) == ("singular", "Tait-Bryan pitch at pi/2")
    assert not [row for row in store.errors() if row["run_id"] == "Rxyz-RK44-h1e-03"]


def test_resume_skips_finished_runs_and_the_reference(tmp_path, engine):
    execute_study(STUDY, tmp_path)
    engine.specs.clear()
    outcome = execute_study(STUDY, tmp_path)
    assert engine.specs == [] and outcome.skipped == 6


def test_interrupted_study_resumes_where_it_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(single_run, "run_single", FakeEngine(interrupt_at=4))   # reference + 2 runs
    with pytest.raises(KeyboardInterrupt):
        execute_study(STUDY, tmp_path)
    assert len(ResultStore(tmp_path).runs()) == 2
    resumed = FakeEngine()
    monkeypatch.setattr(single_run, "run_single", resumed)
    outcome = execute_study(STUDY, tmp_path)
    assert (outcome.skipped, outcome.computed) == (2, 4)
    assert len(ResultStore(tmp_path).runs()) == 6


def test_force_recomputes_and_keeps_one_row_per_run(tmp_path, engine):
    execute_study(STUDY, tmp_path)
    outcome = execute_study(STUDY, tmp_path, force=True)
    store = ResultStore(tmp_path)
    assert outcome.computed == 6
    assert len(store.runs()) == 6 and len(store.errors()) == 10


def test_results_of_another_setup_are_not_reused_silently(tmp_path, engine):
    from lgbench.exceptions import InputError

    execute_study(STUDY, tmp_path)
    with pytest.raises(InputError, match="--force"):
        execute_study(STUDY.model_copy(update={"t_end": 0.02}), tmp_path)


def test_samples_write_one_series_file_per_run(tmp_path, engine):
    execute_study(STUDY.model_copy(update={"samples": 5}), tmp_path)
    series = ResultStore(tmp_path).series_directory
    assert (series / "reference.csv").exists()
    rows = read_rows(series / "RV-RK44-h5e-04.csv")
    assert len(rows) == 5 and list(rows[0]) == ["t", "energy"]

