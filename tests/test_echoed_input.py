"""Input echoed back is escaped, and step sizes that would name one run are refused.

A study's description with BEL, NUL, RLO or ESC characters rang the terminal, recoloured it or reversed the
text after it, on the terminal and in report.md; step sizes 1e-3 and 1.0000000000000002e-3 passed
validate as "2 runs" and were computed as one (their run ids are the same)."""
import re

import pytest
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner.execute import execute_study
from lgbench.runner.study import load_study

from test_cli import assert_one_line_input_error, write_study

runner = CliRunner()
CONTROLS = "\a\0\u202e\x1b[31m\x08\x7f\u2066"
"""BEL, NUL, right-to-left override, an ANSI colour (ESC), backspace, DEL, left-to-right isolate."""
UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("steps, field", [
    ({"values": [1e-3, 1.0000000000000002e-3]}, "field 'steps.values'"),
    ({"values": [2e-3, 1e-3, 2.000000000001e-3]}, "field 'steps.values'"),
    ({"rule": "geometric", "h0": 1e-3, "base": 1.0000000000001, "n": [1, 2]}, "field 'steps'"),
], ids=["values", "values_apart", "geometric"])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_step_sizes_that_name_one_run_are_one_line_naming_the_field(tmp_path, steps, field, command):
    path = write_study(tmp_path, steps=steps)
    result = runner.invoke(app, [command, str(path)] + (["--out", str(tmp_path / "out")] if command == "run" else []))
    assert_one_line_input_error(result, str(path), field, "twice")
    assert not (tmp_path / "out").exists()


def test_step_sizes_apart_in_the_eleventh_digit_are_two_runs(tmp_path):
    path = write_study(tmp_path, steps={"values": [1e-3, 1.0000000001e-3]})
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0 and "(4 runs," in result.output, result.output


def test_control_characters_of_a_description_are_escaped_on_the_terminal_and_in_the_report(tmp_path):
    path = write_study(tmp_path, description=f"top {CONTROLS}red")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert not UNPRINTABLE.search(result.output)
    assert result.stdout.splitlines()[0] == "study tiny: top \\x07\\x00\\u202e\\x1b[31m\\x08\\x7f\\u2066red"
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "top \\x07\\x00\\u202e" in text and not UNPRINTABLE.search(text), name


def test_control_characters_of_an_expectation_are_escaped_by_check(tmp_path):
    path = write_study(tmp_path, expectations=[{"kind": "bound", "column": f"x{CONTROLS}", "max": 1.0}])
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(path), "--out", str(out)]).exit_code == 0
    result = runner.invoke(app, ["check", str(out)])
    assert "x\\x07\\x00\\u202e" in result.output and not UNPRINTABLE.search(result.output), result.output


def test_control_characters_of_an_option_value_are_escaped(tmp_path):
    result = runner.invoke(app, ["run", str(write_study(tmp_path)), "--executor", f"x{CONTROLS}"])
    assert_one_line_input_error(result, "--executor", "x\\x07\\x00\\u202e")
    assert not UNPRINTABLE.search(result.output)


def test_a_study_of_distinct_steps_runs_them_all(tmp_path):
    study = load_study(write_study(tmp_path, formulations=["RV"], steps={"values": [2e-3, 1e-3]}))
    assert execute_study(study, tmp_path / "out").computed == 2
