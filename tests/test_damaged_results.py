"""Damaged result folders: every command ends with one line naming the file, the line and the
problem (and how to repair); ``run --force`` repairs; resume recomputes runs whose error rows or
series are missing; an invalid metadata.json is kept as a backup."""
import json
import shutil

import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner.execute import execute_study
from lgbench.runner.study import load_study
from lgbench.store import read_frame

from test_cli import write_study

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


def test_resume_recomputes_runs_whose_error_rows_or_series_are_missing(folder):
    study, out = folder
    (out / "errors.csv").unlink()
    (out / "series" / "RV-RK44-h2e-03.csv").unlink()
    outcome = execute_study(load_study(study), out)
    assert outcome.computed == 2 and outcome.skipped == 0
    assert (out / "series" / "RV-RK44-h2e-03.csv").exists()
    errors = read_frame(out / "errors.csv")
    assert sorted(errors["run_id"]) == ["RV-RK44-h1e-03", "RV-RK44-h2e-03"]
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
