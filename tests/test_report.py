"""lgbench report: Markdown and self-contained HTML from hand-made result folders."""
import csv
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app

from test_cli import assert_one_line_input_error

runner = CliRunner()

STEPS = [1e-2, 5e-3, 2.5e-3, 1.25e-3]
NEWTON = {1e-2: 3.0, 5e-3: 2.5, 2.5e-3: 2.0, 1.25e-3: 2.0}
FAILURE = "Newton iteration did not converge at t = 0.01 s"


def _run(formulation, integrator, h, status="ok", message="", newton=""):
    return {"run_id": f"{formulation}-{integrator}-h{h:g}", "model": "heavy_top", "formulation": formulation,
            "integrator": integrator, "variant": "", "h": h, "t_end": 1.0, "status": status, "message": message,
            "steps": round(1 / h), "cpu_s": 0.01, "newton_per_step": newton}


def write_results(directory: Path) -> Path:
    """runs.csv and errors.csv: RV generalized-alpha with error 0.5 h^2, RV RK44 with 2 h^4, and
    Rxyz generalized-alpha failing at the largest h, 3 h^2 elsewhere."""
    runs, errors = [], []
    for h in STEPS:
        for formulation, integrator, error, newton in (("RV", "generalized-alpha", 0.5 * h ** 2, NEWTON[h]),
                                                        ("RV", "RK44", 2 * h ** 4, ""),
                                                        ("Rxyz", "generalized-alpha", 3 * h ** 2, 2.0)):
            failed = formulation == "Rxyz" and h == STEPS[0]
            run = _run(formulation, integrator, h, "failed" if failed else "ok", FAILURE if failed else "",
                       "" if failed else newton)
            runs.append(run)
            if not failed:
                errors.append({"run_id": run["run_id"], "quantity": "com", "measure": "norm_at_t_end",
                               "value": error})
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows in (("runs.csv", runs), ("errors.csv", errors)):
        with open(directory / name, "w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return directory


STUDY = {
    "name": "fixture", "description": "A hand-made result folder.", "paper": "000 Table 4",
    "model": "heavy_top", "t_end": 1.0, "formulations": ["RV", "Rxyz"],
    "integrators": ["RK44", "generalized-alpha"], "exclude": [{"formulation": "Rxyz", "integrator": "RK44"}],
    "steps": {"values": STEPS}, "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
    "expectations": [{"kind": "order", "method": "RV-generalized-alpha", "expected": 2, "tolerance": 0.1},
                     {"kind": "succeeds", "method": "Rxyz-generalized-alpha", "h_range": [1.25e-3, 1e-2]}],
    "published": {"source": "000 Table 4",
                  "columns": {"newton_per_step": {"RV-generalized-alpha": {1e-2: 3.1, 5e-3: 2.4},
                                                  "Rxyz-generalized-alpha": {1e-2: "failed"}},
                              "steps": {"RV-RK44": {1e-2: 100, 5e-3: 190}},
                              "max_eta": {"RV-RK44": {1e-2: 0.0}}},
                  "errors": {"com": {"RV-generalized-alpha": {1e-2: 5.1e-5}}},
                  "orders": {"RV-RK44": 4, "RV-generalized-alpha": 2},
                  "values": [{"name": "precession period", "published": "~2.5 s", "note": "Fig. 10"}]},
}


def report(*arguments: str):
    result = runner.invoke(app, ["report", *arguments])
    assert result.exit_code == 0, result.output
    return result


def table_row(markdown: str, first_cells: str) -> list[str]:
    """The cells of the Markdown table row that starts with ``first_cells``."""
    line = next(line for line in markdown.splitlines() if line.startswith(f"| {first_cells} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_report_from_csv_files_only(tmp_path):
    folder = write_results(tmp_path / "results")
    result = report(str(folder))
    assert result.stdout.split() == [str(folder / "report.md"), str(folder / "report.html")]
    markdown = (folder / "report.md").read_text()
    assert "# lgbench report: results" in markdown and "No study.yaml" in markdown
    assert table_row(markdown, "runs") == ["runs", "ok", "not ok", "total CPU [s]"]
    assert "| 12 | 11 | 1 | 0.12 |" in markdown
    assert table_row(markdown, "RV-generalized-alpha | com (norm_at_t_end)")[2:5] == ["2.00", "1.25e-03 … 1e-02", "4"]
    assert table_row(markdown, "RV-RK44 | com (norm_at_t_end)")[2:5] == ["4.00", "1.25e-03 … 1e-02", "4"]
    assert table_row(markdown, "Rxyz-generalized-alpha | com (norm_at_t_end)")[2:5] == ["2.00", "1.25e-03 … 5e-03", "3"]
    assert table_row(markdown, "1e-02 | 5.000e-05")[1:] == ["5.000e-05", "2.000e-08", "–"]
    newton = markdown.split("## Newton iterations per step")[1].split("##")[0]
    assert "RK44" not in newton
    assert table_row(newton, "1e-02")[1:] == ["3.00", "–"]
    assert table_row(newton, "5e-03")[1:] == ["2.50", "2.00"]
    assert table_row(markdown, "Rxyz-generalized-alpha-h0.01") == [
        "Rxyz-generalized-alpha-h0.01", "Rxyz-generalized-alpha", "1e-02", "failed", FAILURE]
    assert "## Expectations" not in markdown and " / " not in newton
    figures = sorted((folder / "figures").glob("*.png"))
    assert figures
    for figure in figures:
        assert f"](figures/{figure.name})" in markdown
    html = (folder / "report.html").read_text()
    assert html.count('src="data:image/png;base64,') == len(figures)
    assert "figures/" not in html and "<td>2.00</td>" in html


def test_published_numbers_and_expectations_with_study_yaml(tmp_path):
    folder = write_results(tmp_path / "results")
    (folder / "study.yaml").write_text(yaml.safe_dump(STUDY))
    report(str(folder))
    markdown = (folder / "report.md").read_text()
    assert "# lgbench report: fixture" in markdown and "A hand-made result folder." in markdown
    newton = markdown.split("## Newton iterations per step")[1].split("##")[0]
    assert "lgbench / published" in newton
    assert table_row(newton, "1e-02")[1:] == ["3.00 / 3.1", "– / –"]
    assert table_row(newton, "5e-03")[1:] == ["2.50 / 2.4", "2.00"]
    assert table_row(markdown, "1e-02 | 5.000e-05 / 5.1e-05")[1:] == ["5.000e-05 / 5.1e-05", "2.000e-08", "–"]
    assert table_row(markdown, "RV-RK44 | com (norm_at_t_end)")[-1] == "4"
    assert table_row(markdown, "Rxyz-generalized-alpha | com (norm_at_t_end)")[-1] == "–"
    assert "1 of 2 regression checks passed" in markdown
    assert table_row(markdown, "Rxyz-generalized-alpha succeeds for h in [0.00125, 0.01]")[-1] == "REGRESSION"
    assert "| precession period | ~2.5 s | Fig. 10 |" in markdown
    steps = markdown.split("## steps (lgbench / published)")[1].split("##")[0]
    assert table_row(steps, "h") == ["h", "RV-RK44"]
    assert [table_row(steps, h)[1] for h in ("1e-02", "5e-03", "2.5e-03")] == ["100 / 100", "200 / 190", "400"]
    assert "runs.csv has no column 'max_eta'" in markdown
    assert "<td>3.00 / 3.1</td>" in (folder / "report.html").read_text()


def test_index_links_every_report(tmp_path):
    with_study = write_results(tmp_path / "a")
    (with_study / "study.yaml").write_text(yaml.safe_dump(STUDY))
    without = write_results(tmp_path / "b")
    result = report(str(with_study), str(without), "--index", str(tmp_path / "site" / "index.md"))
    assert result.stdout.split()[-2:] == [str(tmp_path / "site" / "index.md"), str(tmp_path / "site" / "index.html")]
    index = (tmp_path / "site" / "index.md").read_text()
    assert table_row(index, "[fixture](../a/report.md)")[1:] == ["12", "1", "1/2"]
    assert table_row(index, "[b](../b/report.md)")[1:] == ["12", "1", "–"]
    html = (tmp_path / "site" / "index.html").read_text()
    assert re.search(r'<a href="\.\./a/report\.html">fixture</a>', html)


def test_folder_without_runs_csv_is_one_line_and_writes_nothing(tmp_path):
    good = write_results(tmp_path / "good")
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["report", str(good), str(tmp_path / "empty")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no runs.csv" in lines[0]
    assert str(tmp_path / "empty") in lines[0] and "Traceback" not in result.output
    assert not (good / "report.md").exists()


def test_bad_published_label_in_study_yaml_is_one_line(tmp_path):
    folder = write_results(tmp_path / "results")
    bad = {**STUDY, "published": {"orders": {"RV-RK45": 4}}}
    (folder / "study.yaml").write_text(yaml.safe_dump(bad))
    result = runner.invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "field 'published.orders.RV-RK45'" in lines[0] and "allowed: RV-RK44" in lines[0]


def test_runs_csv_without_the_needed_columns_is_one_line(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "runs.csv").write_text("run_id,formulation,h\nRV-RK44-h0.01,RV,0.01\n")
    result = runner.invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "lacks the column(s) integrator, status" in lines[0]


@pytest.mark.parametrize("index", ["/", "", ".", "x/.."])
def test_an_index_path_that_names_no_file_is_one_line(tmp_path, index):
    """--index / was a ValueError ("PosixPath('/') has an empty name") after the reports were written."""
    result = runner.invoke(app, ["report", str(tmp_path), "--index", index])
    assert_one_line_input_error(result, "field '--index'", "must name a file")
