"""The lgbench command: bad input is one line on stderr with exit code 2; good input runs end to end."""
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app

runner = CliRunner()

TINY = {
    "name": "tiny", "model": "heavy_top", "t_end": 0.01, "formulations": ["RV", "Rxyz"],
    "integrators": ["RK44"], "steps": {"rule": "geometric", "h0": 1e-3, "base": 2, "n": [1, 3]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
}


def write_study(tmp_path: Path, text: str | None = None, **changes) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(text if text is not None else yaml.safe_dump({**TINY, **changes}))
    return path


def assert_one_line_input_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize("text, changes, fragments", [
    ("name: x\nformulations: [RV\n", {}, ["YAML syntax error at line"]),
    (None, {"model": "spinning_top"}, ["field 'model'", "allowed: chain_of_bodies, heavy_top"]),
    (None, {"integrators": ["RK44", "RK45"]},
     ["field 'integrators[1]'", "allowed: DOPRI5, ", "RK44, "]),
    (None, {"steps": {"values": [1e-3, -1e-3]}}, ["field 'steps.values[1]'", "greater than 0"]),
    (None, {"step": 1e-3}, ["field 'step'", "unknown field", "allowed: name"]),
], ids=["yaml_syntax", "unknown_model", "unknown_integrator", "negative_step", "unknown_key"])
def test_bad_study_file_ends_with_one_line_naming_file_field_and_allowed(tmp_path, text, changes, fragments):
    path = write_study(tmp_path, text, **changes)
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert_one_line_input_error(result, str(path), *fragments)


def test_missing_study_file_is_one_line(tmp_path):
    assert_one_line_input_error(runner.invoke(app, ["run", str(tmp_path / "none.yaml")]), "file not found")


def test_unknown_list_kind_names_the_allowed_kinds():
    result = runner.invoke(app, ["list", "solvers"])
    assert_one_line_input_error(result, "allowed: models, formulations, integrators")


@pytest.mark.parametrize("assignment, fragment", [("mass", "expected key=value"), ("mas=3", "allowed: com")])
def test_bad_set_is_one_line(assignment, fragment):
    result = runner.invoke(app, ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3",
                                 "--t-end", "0.01", "--set", assignment])
    assert_one_line_input_error(result, "--set", fragment)


def test_plot_of_a_folder_without_results_is_one_line(tmp_path):
    assert_one_line_input_error(runner.invoke(app, ["plot", str(tmp_path)]), "runs.csv")


@pytest.mark.parametrize("kind, name", [("models", "heavy_top"), ("formulations", "Rxyz"),
                                        ("integrators", "RK67")])
def test_list_shows_names_with_descriptions(kind, name):
    result = runner.invoke(app, ["list", kind])
    assert result.exit_code == 0
    assert any(line.startswith(name + " ") and len(line.split()) > 2 for line in result.stdout.splitlines())


def test_simulate_writes_t_and_every_output(tmp_path):
    csv = tmp_path / "series.csv"
    result = runner.invoke(app, ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3",
                                 "--t-end", "0.01", "--set", "mass=10", "--samples", "6", "--csv", str(csv)])
    assert result.exit_code == 0, result.output
    assert "status: ok" in result.stdout and "com_x" in result.stdout
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("t,com_x,com_y,com_z") and "energy" in lines[0]
    assert len(lines) == 1 + 6


def test_run_prints_the_error_table_resumes_and_plots(tmp_path):
    out = tmp_path / "out"
    study = write_study(tmp_path)
    first = runner.invoke(app, ["run", str(study), "--out", str(out), "--verbose"])
    assert first.exit_code == 0, first.output
    assert "[6/6] Rxyz-RK44-h2.5e-04" in first.stdout
    assert "RV-RK44" in first.stdout and "order" in first.stdout
    second = runner.invoke(app, ["run", str(study), "--out", str(out)])
    assert "skipping 6 of 6 runs" in second.stdout and "reference" not in second.stdout
    drawn = runner.invoke(app, ["plot", str(out)])
    assert drawn.exit_code == 0 and (out / "figures" / "convergence_com.png").exists()


def test_plot_with_an_unknown_kind_is_one_line(tmp_path):
    (tmp_path / "runs.csv").write_text("run_id,model,formulation,integrator,h,t_end,status,message,steps,cpu_s\n"
                                       "a,heavy_top,RV,RK44,0.001,1.0,ok,,1000,0.01\n")
    assert_one_line_input_error(runner.invoke(app, ["plot", str(tmp_path), "--kind", "energy"]), "convergence")


def test_every_option_help_is_shown_whole():
    """Square brackets in a help text are markup to the help renderer, which drops them and their content
    (``--max-steps`` read "Step budget ." when its default was written as "[default: 1e7]")."""
    import typer

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        shown = runner.invoke(app, [name, "--help"], env={"COLUMNS": "400"}).output
        for param in command.params:
            text = " ".join((getattr(param, "help", None) or "").split())
            if text:
                assert text in " ".join(shown.split()), f"lgbench {name} {param.opts[0]}: {text!r} not shown"
