"""Damaged result folders: every command ends with one line naming the file, the line and the
problem (and how to repair); ``lgbench repair`` drops what is damaged and ``run`` then computes it
again, to the results of an undamaged folder; ``run --force`` repairs too; resume recomputes runs whose
error rows or series are missing; an invalid metadata.json is kept as a backup."""
import json
import shutil

import pandas as pd
import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner.execute import execute_study
from lgbench.runner.study import load_study
from lgbench.runner.single_run import TIMING_COLUMNS
from lgbench.store import read_frame, read_metadata
from lgbench.store.tables import DamagedTable

from test_cli import assert_one_line_input_error, write_study

runner = CliRunner()
EXPECTATION = [{"kind": "order", "method": "RV-RK44", "expected": 4, "tolerance": 10}]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A small finished result folder (two runs with series), made once."""
    root = tmp_path_factory.mktemp("pristine")
    path = write_study(root, formulations=["RV"], steps={"values": [2e-3, 1e-3]}, samples=3,
                       expectations=EXPECTATION)
    execute_study(load_study(path), root / "out")
    return path, root / "out"


@pytest.fixture
def folder(pristine, tmp_path):
    path, out = pristine
    shutil.copytree(out, tmp_path / "out")
    return path, tmp_path / "out"


def replace_line(path, number, change):
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = change(lines[number - 1])
    path.write_bytes(b"\n".join(lines))


DAMAGES = {
    "invalid_utf8": ("runs.csv", lambda p: replace_line(p, 2, lambda line: line + b"\xff\xfe"), "line 2: not UTF-8"),
    "text_in_number": ("runs.csv", lambda p: replace_line(p, 3, lambda line: line.replace(b",ok,", b",ok,x", 1)
                                                         .replace(b"0.001", b"abc", 1)), "line 3"),
    "short_row": ("runs.csv", lambda p: replace_line(p, 2, lambda line: line.rsplit(b",", 3)[0]), "line 2 has"),
    "long_row": ("errors.csv", lambda p: replace_line(p, 2, lambda line: line + b",1,2"), "line 2 has"),
    "renamed_header": ("runs.csv", lambda p: replace_line(p, 1, lambda line: line.replace(b"run_id", b"id")),
                       "lacks the column(s) run_id"),
    "text_error_value": ("errors.csv", lambda p: replace_line(p, 3, lambda line: line.rsplit(b",", 1)[0] + b",big"),
                         "column 'value'"),
}


@pytest.mark.parametrize("command", ["run", "plot", "report", "check"])
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_table_is_one_line_naming_file_line_and_repair(folder, damage, command):
    study, out = folder
    name, apply, fragment = DAMAGES[damage]
    apply(out / name)
    arguments = {"run": ["run", str(study), "--out", str(out)], "plot": ["plot", str(out)],
                 "report": ["report", str(out)], "check": ["check", str(out)]}[command]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and name.split("/")[-1] in lines[0] and fragment in lines[0] and "--force" in lines[0]
    assert f"lgbench repair {out}" in lines[0]


def test_a_damaged_series_table_names_its_line(folder):
    from lgbench.store.tables import DamagedTable

    _, out = folder
    path = out / "series" / "RV-RK44-h1e-03.csv"
    replace_line(path, 2, lambda line: b"x" + line)
    with pytest.raises(DamagedTable, match="line 2, column 't'"):
        read_frame(path)


def test_run_with_force_repairs_a_damaged_table_and_keeps_a_backup(folder):
    study, out = folder
    DAMAGES["invalid_utf8"][1](out / "runs.csv")
    result = runner.invoke(app, ["run", str(study), "--out", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert "damaged" in result.output and list(out.glob("runs.csv.damaged-*"))
    assert len(read_frame(out / "runs.csv")) == 2


def test_resume_recomputes_runs_whose_error_rows_are_missing(folder):
    study, out = folder
    (out / "errors.csv").unlink()
    outcome = execute_study(load_study(study), out)
    assert outcome.computed == 2 and outcome.skipped == 0
    errors = read_frame(out / "errors.csv")
    assert sorted(errors["run_id"]) == ["RV-RK44-h1e-03", "RV-RK44-h2e-03"]
    assert execute_study(load_study(study), out).skipped == 2


def test_resume_recomputes_a_run_whose_series_file_alone_is_missing(pristine, folder):
    """Its error rows and runs row are there: only the series file tells that the run is incomplete (the test
    above deleted errors.csv too, which recomputes every run whatever resume makes of the series)."""
    study, out = folder
    (out / "series" / "RV-RK44-h2e-03.csv").unlink()
    outcome = execute_study(load_study(study), out)
    assert outcome.computed == 1 and outcome.skipped == 1
    assert (out / "series" / "RV-RK44-h2e-03.csv").exists()
    for found, expected in zip(contents(out), contents(pristine[1])):
        if isinstance(found, dict):
            assert found == expected
        else:
            pd.testing.assert_frame_equal(found, expected)
    assert execute_study(load_study(study), out).skipped == 2


def test_truncated_errors_are_recomputed(folder):
    study, out = folder
    text = (out / "errors.csv").read_text().splitlines(keepends=True)
    (out / "errors.csv").write_text("".join(text[:2]))
    outcome = execute_study(load_study(study), out)
    assert outcome.computed == 1 and outcome.skipped == 1


@pytest.mark.parametrize("content", ["[1, 2]", '{"sessions": "x"}', "{not json", "\xff"])
def test_invalid_metadata_is_kept_as_a_backup_and_report_goes_on(folder, content):
    study, out = folder
    (out / "metadata.json").write_text(content, encoding="latin-1")
    (out / "errors.csv").unlink()                # something to compute: a new session
    result = runner.invoke(app, ["run", str(study), "--out", str(out)])
    assert result.exit_code == 0, result.output
    backups = list(out.glob("metadata.json.invalid-*"))
    assert len(backups) == 1 and backups[0].read_text(encoding="latin-1") == content
    assert isinstance(json.loads((out / "metadata.json").read_text())["sessions"], list)
    (out / "metadata.json").write_text(content, encoding="latin-1")
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0


def test_a_broken_study_copy_is_one_line(folder):
    _, out = folder
    (out / "study.yaml").write_text("name: [unclosed\n")
    for command in (["check", str(out)], ["report", str(out)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1 and "study.yaml" in result.stderr


@pytest.mark.parametrize("content", [b"name: [unclosed\n", b"x", b"\xff\xfe", b"series_plots: 5\n"])
def test_a_broken_study_copy_stops_the_series_plots_with_one_line_naming_repair(folder, content):
    """The series plots read the copy unchecked: a YAMLError, UnicodeDecodeError or AttributeError traceback."""
    _, out = folder
    (out / "study.yaml").write_bytes(content)
    for kinds in (["-k", "series"], ["-k", "trajectory"], []):
        assert_one_line_input_error(runner.invoke(app, ["plot", str(out), *kinds]), "study.yaml", "lgbench repair")
    assert runner.invoke(app, ["plot", str(out), "-k", "convergence"]).exit_code == 0


@pytest.mark.parametrize("content", [b"", b"r"])
def test_check_of_a_runs_table_without_rows_is_one_line(folder, content):
    """Was a KeyError('formulation') traceback."""
    _, out = folder
    (out / "runs.csv").write_bytes(content)
    assert_one_line_input_error(runner.invoke(app, ["check", str(out)]), "runs.csv", "no complete rows")


def test_check_without_a_study_copy_asks_for_the_study_file(folder):
    _, out = folder
    (out / "study.yaml").unlink()
    assert_one_line_input_error(runner.invoke(app, ["check", str(out)]), "study.yaml", "--study")


REPAIRABLE = {
    "invalid_utf8": "runs.csv: line 2: not UTF-8 text: row dropped",
    "text_in_number": "runs.csv: line 3, column 'h': 'abc' is not a number: row dropped",
    "short_row": "runs.csv: line 2 has 15 cells, the header 18: row dropped",
    "long_row": "errors.csv: line 2 has 6 cells, the header 4: row dropped",
    "renamed_header": "runs.csv: line 1: the header lacks the column(s) run_id: table set aside, it starts anew",
    "text_error_value": "errors.csv: line 3, column 'value': 'big' is not a number: row dropped",
    "cut_short_line": "errors.csv: line 3: cut short (an interrupted write): row dropped",
    "error_row_missing": "runs.csv: 1 ok run(s) without error rows for com (norm_at_t_end) (RV-RK44-h1e-03)",
    "errors_deleted": "runs.csv: 2 ok run(s) without error rows for com (norm_at_t_end) (RV-RK44-h1e-03, RV-RK44-h2e-03)",
    "damaged_series": "series/RV-RK44-h1e-03.csv: line 3, column 't': 'x",
    "series_deleted": "runs.csv: 1 ok run(s) without its series file (RV-RK44-h2e-03): dropped",
    "damaged_reference": "reference.csv: line 2 has 3 cells, the header 26: set aside; the next run writes it again",
    "damaged_reference_series": "series/reference.csv: line 1: the header lacks the column(s) t",
    "invalid_metadata": "metadata.json: not valid provenance (JSON with a list of sessions): set aside as "
                        "metadata.json.invalid-TIME, a new one started",
    "stray_temporary_file": ".runs.csv.999999999.lgbench-tmp: temporary file of an interrupted write: removed",
    "run_row_twice": "runs.csv: 1 run(s) with more than one row (RV-RK44-h2e-03): every row of them dropped; "
                     "the next run computes them again",
    "error_row_twice": "errors.csv: 1 run(s) with an error row twice (RV-RK44-h2e-03): every row of them dropped",
    "short_series": "runs.csv: 1 ok run(s) without a series of the study's 3 samples (RV-RK44-h1e-03): dropped",
    "stray_series": "series: 1 file(s) of run(s) without a row in runs.csv (RV-RK44-h5e-04): set aside",
    "empty_run_id": "runs.csv: line 2, column 'run_id': empty: row dropped",
    "empty_measure": "errors.csv: line 2, column 'measure': empty: row dropped",
    "metadata_deleted": "metadata.json: missing: the sessions that computed the stored runs are unknown: a new one "
                        "started",
    "metadata_of_another_study": "metadata.json: the provenance of study 'other', not of 'tiny': set aside as "
                                 "metadata.json.invalid-TIME, a new one started",
}
"""The first line ``lgbench repair`` prints for each damage of ``DAMAGES`` and ``MORE_DAMAGES``."""


def cut_short(path):
    path.write_bytes(path.read_bytes()[:-7])


MORE_DAMAGES = {
    "cut_short_line": ("errors.csv", cut_short),
    "error_row_missing": ("errors.csv", lambda p: p.write_bytes(b"\n".join(p.read_bytes().split(b"\n")[:2] + [b""]))),
    "errors_deleted": ("errors.csv", lambda p: p.unlink()),
    "damaged_series": ("series/RV-RK44-h1e-03.csv", lambda p: replace_line(p, 3, lambda line: b"x" + line)),
    "series_deleted": ("series/RV-RK44-h2e-03.csv", lambda p: p.unlink()),
    "damaged_reference": ("reference.csv", lambda p: replace_line(p, 2, lambda line: line[:20])),
    "damaged_reference_series": ("series/reference.csv", lambda p: replace_line(p, 1, lambda line: b"time")),
    "invalid_metadata": ("metadata.json", lambda p: p.write_text("[1, 2]")),
    "stray_temporary_file": (".runs.csv.999999999.lgbench-tmp", lambda p: p.write_bytes(b"run_id,mod")),
    "run_row_twice": ("runs.csv", lambda p: p.write_bytes(p.read_bytes() + p.read_bytes().split(b"\n")[1] + b"\n")),
    "error_row_twice": ("errors.csv", lambda p: p.write_bytes(p.read_bytes() + p.read_bytes().split(b"\n")[1] + b"\n")),
    "short_series": ("series/RV-RK44-h1e-03.csv", lambda p: p.write_bytes(b"\n".join(p.read_bytes().split(b"\n")[:-2])
                                                                           + b"\n")),
    "stray_series": ("series/RV-RK44-h5e-04.csv",
                     lambda p: p.write_bytes((p.parent / "RV-RK44-h1e-03.csv").read_bytes())),
    "empty_run_id": ("runs.csv", lambda p: replace_line(p, 2, lambda line: line[line.index(b","):])),
    "empty_measure": ("errors.csv", lambda p: replace_line(p, 2, lambda line: line.replace(b"norm_at_t_end", b""))),
    "metadata_deleted": ("metadata.json", lambda p: p.unlink()),
    "metadata_of_another_study": ("metadata.json", lambda p: p.write_text(p.read_text().replace('"study": "tiny"',
                                                                                            '"study": "other"'))),
}
TIMING = list(TIMING_COLUMNS)


def contents(out):
    """Everything a result folder holds but the timings, as its readers see it (the last row of a run wins):
    runs (by run id), errors, series, reference."""
    runs = read_frame(out / "runs.csv").drop(columns=TIMING, errors="ignore").drop_duplicates("run_id", keep="last")
    runs = runs.sort_values("run_id").reset_index(drop=True)
    errors = read_frame(out / "errors.csv").drop_duplicates(["run_id", "quantity", "measure"], keep="last")
    errors = errors.sort_values(["run_id", "quantity"]).reset_index(drop=True)
    series = {path.name: path.read_text() for path in sorted((out / "series").glob("*.csv"))}
    reference = read_frame(out / "reference.csv").drop(columns=TIMING, errors="ignore")
    return runs[sorted(runs.columns)], errors, series, reference


@pytest.mark.parametrize("damage", list(REPAIRABLE))
def test_repair_then_run_gives_the_results_of_an_undamaged_folder(pristine, folder, damage):
    study, out = folder
    name, apply = {**{key: value[:2] for key, value in DAMAGES.items()}, **MORE_DAMAGES}[damage]
    apply(out / name)
    repaired = runner.invoke(app, ["repair", str(out)])
    assert repaired.exit_code == 0, repaired.output
    lines = repaired.stdout.strip().splitlines()
    assert "Traceback" not in repaired.output and lines[0].startswith(REPAIRABLE[damage])
    assert lines[-1].endswith("computes the dropped runs again")
    again = runner.invoke(app, ["repair", str(out)])
    assert again.exit_code == 0 and again.stdout.strip() == f"{out}: no damage found"
    resumed = runner.invoke(app, ["run", str(out / "study.yaml"), "--out", str(out)])
    assert resumed.exit_code == 0, resumed.output
    assert read_metadata(out / "metadata.json") is not None
    for found, expected in zip(contents(out), contents(pristine[1])):
        if isinstance(found, dict):
            assert found == expected
        else:
            pd.testing.assert_frame_equal(found, expected)


def test_repair_keeps_a_backup_of_each_damaged_file_and_says_what_it_did(folder):
    _, out = folder
    original = (out / "runs.csv").read_bytes()
    replace_line(out / "runs.csv", 2, lambda line: line + b"\xff")
    replace_line(out / "runs.csv", 3, lambda line: line + b",extra")
    damaged_bytes = (out / "runs.csv").read_bytes()
    result = runner.invoke(app, ["repair", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:3] == ["runs.csv: line 2: not UTF-8 text: row dropped",
                         "runs.csv: line 3 has 19 cells, the header 18: row dropped",
                         "errors.csv: 2 row(s) of run(s) without a row in runs.csv "
                         "(RV-RK44-h1e-03, RV-RK44-h2e-03): dropped"]
    backups = list(out.glob("runs.csv.damaged-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == damaged_bytes
    assert len(list(out.glob("errors.csv.damaged-*"))) == 1
    assert read_frame(out / "runs.csv").empty and original.split(b"\n")[0] == (out / "runs.csv").read_bytes().split(b"\n")[0]


def test_error_rows_of_a_run_that_did_not_end_ok_are_dropped(folder):
    """Two writers of one run (lgbench before the folder lock): one stored it ok with its error rows, the other
    as failed; readers take the last runs row, and the error rows then belonged to no ok run."""
    _, out = folder
    replace_line(out / "runs.csv", 2, lambda line: line.replace(b",ok,,", b",diverged,Newton failed,", 1))
    result = runner.invoke(app, ["repair", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("errors.csv: 1 row(s) of run(s) that did not end ok (RV-RK44-h2e-03): dropped")
    assert set(read_frame(out / "errors.csv")["run_id"]) == {"RV-RK44-h1e-03"}
    assert runner.invoke(app, ["repair", str(out)]).stdout.strip() == f"{out}: no damage found"


def test_a_dry_run_reports_a_temporary_file_and_leaves_it(folder):
    _, out = folder
    leftover = out / "series" / ".RV-RK44-h1e-03.csv.999999999.lgbench-tmp"
    leftover.write_bytes(b"t,com")
    result = runner.invoke(app, ["repair", str(out), "--dry-run"])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"series/{leftover.name}: temporary file of an interrupted write: removed")
    assert leftover.exists()


def test_a_dry_run_reports_and_changes_nothing(folder):
    _, out = folder
    DAMAGES["text_error_value"][1](out / "errors.csv")
    def files():
        return {path: path.read_bytes() for path in out.rglob("*") if path.is_file() and path.name != ".lgbench.lock"}

    before = files()
    result = runner.invoke(app, ["repair", str(out), "--dry-run"])
    assert result.exit_code == 1 and "errors.csv: line 3, column 'value': 'big' is not a number" in result.stdout
    assert files() == before


def test_a_damaged_study_copy_needs_the_study_file_and_is_written_again_from_it(folder):
    study, out = folder
    (out / "study.yaml").write_text("name: [unclosed\n")
    result = runner.invoke(app, ["repair", str(out)])
    assert_one_line_input_error(result, "study.yaml", "give the study file with --study")
    result = runner.invoke(app, ["repair", str(out), "--study", str(study)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("study.yaml: YAML syntax error") and "written again from" in result.stdout
    assert list(out.glob("study.yaml.damaged-*")) and load_study(out / "study.yaml").name == "tiny"


@pytest.mark.parametrize("target, fragment", [("missing", "no such folder"), ("empty", "not a result folder"),
                                              ("file", "is a file, not a folder")])
def test_repair_of_something_that_is_no_result_folder_is_one_line(tmp_path, target, fragment):
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    result = runner.invoke(app, ["repair", str(tmp_path / target)])
    assert_one_line_input_error(result, fragment)
    assert not (tmp_path / "missing").exists()


def test_repair_waits_for_no_writer_it_names_the_holder(folder):
    from lgbench.store import FolderLock

    _, out = folder
    with FolderLock(out):
        result = runner.invoke(app, ["repair", str(out)])
    assert_one_line_input_error(result, "in use by another lgbench process", "--wait")


CUT_SHORT = {"runs.csv": "runs.csv: line 3: cut short (an interrupted write)",
             "errors.csv": "errors.csv: line 3: cut short (an interrupted write)"}
"""A last row cut in the middle (a kill during the write, a power cut): the file and what ``run`` says when it
removes it."""


@pytest.mark.parametrize("command", ["check", "plot", "report"])
@pytest.mark.parametrize("name", list(CUT_SHORT))
def test_a_last_row_cut_short_is_one_line_naming_file_line_and_repair_not_a_verdict(folder, name, command):
    """check said REGRESSION ("no fit", too few points), plot and report drew the folder without the row,
    all with exit code 0 but check."""
    _, out = folder
    cut_short(out / name)
    result = runner.invoke(app, [command, str(out)])
    assert_one_line_input_error(result, f"{out / name}: line 3: cut short", f"lgbench repair {out}", "--force")
    assert "REGRESSION" not in result.output and not (out / "report.md").exists()


@pytest.mark.parametrize("name", list(CUT_SHORT))
def test_a_last_row_cut_short_while_a_writer_holds_the_folder_is_the_row_being_written(folder, name):
    """A reader that comes while ``lgbench run`` appends sees the table as it was before the append, not
    damage; the same line with no writer is damage again. (A run's error rows are stored before its runs
    row, so a runs row being written is a run not yet stored, which report leaves out.)"""
    from lgbench.store import FolderLock, read_frame

    _, out = folder
    rows = len(read_frame(out / name))
    cut_short(out / name)
    with FolderLock(out):
        assert len(read_frame(out / name)) == rows - 1
        if name == "runs.csv":
            result = runner.invoke(app, ["report", str(out)])
            assert result.exit_code == 0, result.output
    with pytest.raises(DamagedTable, match="line 3: cut short"):
        read_frame(out / name)


@pytest.mark.parametrize("name", list(CUT_SHORT))
def test_run_removes_a_last_row_cut_short_says_so_and_computes_its_run_again(pristine, folder, name):
    study, out = folder
    cut_short(out / name)
    result = runner.invoke(app, ["run", str(study), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{CUT_SHORT[name]}: removed" in result.stdout and "1 computed (0 not ok), 1 skipped" in result.stdout
    for found, expected in zip(contents(out), contents(pristine[1])):
        if isinstance(found, dict):
            assert found == expected
        else:
            pd.testing.assert_frame_equal(found, expected)
    verdicts = [runner.invoke(app, ["check", str(directory)]) for directory in (out, pristine[1])]
    assert verdicts[0].stdout == verdicts[1].stdout and not verdicts[0].stderr


def test_run_removes_a_cut_short_row_of_a_run_outside_the_grid_and_leaves_a_sound_folder(folder):
    """Nothing of the grid is pending: no append removes the line, so the run itself must."""
    study, out = folder
    with open(out / "runs.csv", "ab") as handle:
        handle.write(b"RV-RK44-h5e-04,heavy_top,RV")
    result = runner.invoke(app, ["run", str(study), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "runs.csv: line 4: cut short (an interrupted write): removed" in result.stdout
    assert (out / "runs.csv").read_bytes().endswith(b"\n") and len(read_frame(out / "runs.csv")) == 2


@pytest.mark.parametrize("command", ["check", "report"])
@pytest.mark.parametrize("damage", ["error_row_missing", "errors_deleted"])
def test_an_ok_run_without_its_error_rows_is_one_line_naming_errors_csv_and_the_run_not_a_verdict(
        folder, damage, command):
    """check said REGRESSION ("no fit"), report wrote its expectations as failed."""
    _, out = folder
    MORE_DAMAGES[damage][1](out / "errors.csv")
    result = runner.invoke(app, [command, str(out)])
    assert_one_line_input_error(result, f"{out / 'errors.csv'}: no error rows for com (norm_at_t_end) of the ok run "
                                "RV-RK44-h1e-03", f"lgbench repair {out}", "--force")
    assert "REGRESSION" not in result.output and not (out / "report.md").exists()


def test_check_of_a_study_interrupted_between_runs_is_one_line_saying_how_to_finish_it(pristine, folder):
    """A folder without some runs of its grid (an interrupted study, or one after ``lgbench repair``) was
    checked as if complete: the missing points made "no fit" REGRESSION verdicts."""
    _, out = folder
    lines = (out / "runs.csv").read_bytes().splitlines(keepends=True)
    (out / "runs.csv").write_bytes(b"".join(lines[:-1]))
    result = runner.invoke(app, ["check", str(out)])
    assert_one_line_input_error(result, f"{out / 'runs.csv'}", "1 of the study's 2 runs are not stored",
                                f"lgbench run {out / 'study.yaml'} --out {out}")
    assert "REGRESSION" not in result.output
    assert runner.invoke(app, ["run", str(out / "study.yaml"), "--out", str(out)]).exit_code == 0
    verdicts = [runner.invoke(app, ["check", str(directory)]) for directory in (out, pristine[1])]
    assert verdicts[0].stdout == verdicts[1].stdout and not verdicts[0].stderr
