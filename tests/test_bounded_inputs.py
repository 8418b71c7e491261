"""Honest statuses and bounded inputs: a run is "ok" only if it reached t_end; step counts, end times,
samples, grids, nesting and option values are bounded at validation with one line naming the field."""
import dataclasses

import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.exceptions import InputError
from lgbench.runner import single_run
from lgbench.runner.study import load_study

from test_cli import TINY, assert_one_line_input_error, write_study

runner = CliRunner()


def test_a_run_that_stops_before_t_end_is_not_ok(monkeypatch):
    from lgbench.integrators import INTEGRATORS

    real = INTEGRATORS["RK44"]

    class StopsEarly:
        def __getattr__(self, name):
            return getattr(real, name)

        def integrate(self, *args):
            return dataclasses.replace(real.integrate(*args), t_reached=0.0, steps=0)

    monkeypatch.setitem(INTEGRATORS, "RK44", StopsEarly())
    result = single_run.run_single(single_run.RunSpec("heavy_top", "RV", "RK44", 1e-3, 0.01))
    assert result.status != "ok" and "before t_end" in result.message and not result.final_outputs


@pytest.mark.parametrize("arguments, fragment", [
    (["--step", "1e-300", "--t-end", "1"], "field '--step'"),
    (["--step", "2", "--t-end", "1"], "larger than t_end"),
    (["--step", "1e-3", "--t-end", "1e308"], "field '--t-end'"),
    (["--step", "1e-3", "--t-end", "inf"], "field '--t-end'"),
    (["--step", "1e-9", "--t-end", "1000"], "step budget"),
    (["--step", "1e-3", "--t-end", "1", "-i", "generalized-alpha", "--option", "fd_relative_step=0"],
     "fd_relative_step"),
], ids=["tiny_step", "step_over_t_end", "huge_t_end", "inf_t_end", "over_budget", "zero_option"])
def test_simulate_refuses_unbounded_runs_before_starting(arguments, fragment):
    result = runner.invoke(app, ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", *arguments])
    assert_one_line_input_error(result, fragment)


def test_max_steps_raises_the_step_budget(tmp_path):
    path = write_study(tmp_path, t_end=1.0, steps={"values": [1e-9]})
    with pytest.raises(InputError, match="step budget"):
        load_study(path)
    assert load_study(path, max_steps=10**9).name == "tiny"
    assert load_study(write_study(tmp_path, steps={"values": [1e-9]}, max_steps=10**9)).name == "tiny"


@pytest.mark.parametrize("changes, fragment", [
    ({"t_end": 1e308}, "field 't_end'"),
    ({"t_end": float("inf")}, "field 't_end'"),
    ({"steps": {"values": [1e-300]}}, "field 'steps.values[0]'"),
    ({"steps": {"values": [float("inf")]}}, "field 'steps.values[0]'"),
    ({"steps": {"rule": "geometric", "h0": 1e-3, "base": 2, "n": [1, 10**400]}}, "field 'steps.n[1]'"),
    ({"reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-300}}, "field 'reference.h'"),
    ({"samples": 10**12}, "field 'samples'"),
    ({"formulations": ["RV", "Rxyz", "EP"], "integrators": [{"name": "RK44", "label": f"v{k}"} for k in range(40)],
      "steps": {"values": [1e-3 / (1 + k / 1000) for k in range(1000)]}}, "more than 100000"),
    ({"integrators": [{"name": "generalized-alpha", "options": {"fd_relative_step": 0}}]},
     "field 'integrators[0].options.fd_relative_step'"),
    ({"integrators": [{"name": "generalized-alpha", "optons": {}}]}, "field 'integrators[0].optons'"),
    ({"integrators": [{"name": "generalized-alpha", "label": "a b"}]}, "field 'integrators[0].label'"),
    ({"integrators": [3]}, "field 'integrators[0]'"),
    ({"name": ".."}, "field 'name'"),
    ({"name": "a/b"}, "field 'name'"),
    ({"samples": 11, "series_plots": [{"outputs": ["energy"], "title": "drift of $\\frac{$"}]},
     "field 'series_plots[0].title'"),
], ids=["huge_t_end", "inf_t_end", "tiny_h", "inf_h", "huge_n", "tiny_reference_h", "huge_samples",
        "huge_grid", "zero_fd_step", "entry_typo", "entry_label", "entry_number", "dotdot_name", "slash_name",
        "math_title"])
def test_unbounded_or_misplaced_study_fields_are_one_line_naming_the_real_field(tmp_path, changes, fragment):
    path = write_study(tmp_path, **changes)
    with pytest.raises(InputError) as caught:
        load_study(path)
    message = str(caught.value)
    assert fragment in message and "constrained-str" not in message and "@" not in message
    assert "\n" not in message and len(message) < 500


def test_a_title_with_math_that_parses_or_a_lone_dollar_is_drawn(tmp_path):
    """A mathtext title that matplotlib cannot parse stopped 'lgbench plot' as an internal error (a60e2db:
    a ValueError traceback); one that parses, or a lone '$', is a valid title."""
    for title in ["energy $E - E_0$ over $t$", "costs $5", "two\nlines $x^2$"]:
        study = load_study(write_study(tmp_path, samples=11, series_plots=[{"outputs": ["energy"], "title": title}]))
        assert study.series_plots[0].title == title


def test_a_result_folder_named_with_dollar_signs_is_plotted(tmp_path):
    """The folder name goes into figure titles: as math text, 'a$x^$' stopped 'lgbench plot' with exit 3."""
    from lgbench.runner.execute import execute_study

    out = tmp_path / "a$x^$"
    execute_study(load_study(write_study(tmp_path, samples=11, series_plots=[{"outputs": ["energy"]}])), out)
    result = CliRunner().invoke(app, ["plot", str(out)])
    assert result.exit_code == 0, result.output
    assert list((out / "figures").glob("*.png"))


def test_numbers_written_as_yaml_text_are_numbers_for_every_option(tmp_path):
    text = yaml.safe_dump({**TINY, "integrators": [{"name": "DOPRI5", "options": {
        "step_control": "adaptive", "rtol": 1e-6, "atol": 1e-8}}], "formulations": ["RV"]})
    text = text.replace("1.0e-06", "1e-6").replace("1.0e-08", "1e-8")
    assert "rtol: 1e-6" in text
    study = load_study(write_study(tmp_path, text))
    assert study.integrator_entries()[0].options["rtol"] == 1e-6


def test_deep_nesting_and_huge_files_are_one_line(tmp_path):
    deep = tmp_path / "deep.yaml"
    deep.write_text("name: " + "[" * 5000 + "]" * 5000)
    with pytest.raises(InputError, match="nested too deeply"):
        load_study(deep)
    huge = write_study(tmp_path, description="x" * 2_000_000)
    with pytest.raises(InputError, match="bytes"):
        load_study(huge)


def test_wall_limit_must_be_finite(tmp_path):
    result = runner.invoke(app, ["run", str(write_study(tmp_path)), "--out", str(tmp_path / "out"),
                                 "--wall-limit", "inf"])
    assert_one_line_input_error(result, "--wall-limit")


def test_a_long_description_is_not_echoed_in_full(tmp_path):
    path = write_study(tmp_path, description="word " * 50_000, formulations=["RV"],
                       steps={"values": [1e-3]})
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()[0]) < 200


@pytest.mark.parametrize("csv", ["", "/", ".", "x/..", "DIRECTORY"])
def test_simulate_csv_must_name_a_file(tmp_path, csv):
    """Was a ValueError traceback ("PosixPath('.') has an empty name") after the run, or a failed rename."""
    target = str(tmp_path) if csv == "DIRECTORY" else csv
    result = runner.invoke(app, ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3", "--t-end", "0.01",
                                 "--csv", target])
    assert_one_line_input_error(result, "field '--csv'", "must name a file")
