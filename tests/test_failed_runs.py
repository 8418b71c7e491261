"""A run that does not reach t_end writes nothing that looks like a result: ``simulate --csv`` keeps the samples
the run reached (none when it fails before its first step) under a first line that says it failed, and the
command ends with one line naming the run, the time and the cause (exit 1); a study whose reference fails says
so in one line. Guarded here: a run failing at step 1 must not write a row of zeros at t = 0 and exit 0, and an
EP run (or a study's reference) failing at its start must not end in "internal error ... ZeroDivisionError"
(the constraint series of a zero quaternion)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.integrators import implicit

runner = CliRunner()
PENDULUM = str(Path(__file__).resolve().parent.parent / "studies" / "mechanisms" / "double_pendulum.yaml")
GIMBAL_LOCK = "theta1=1.5707963267948966"
"""The upper rod turned by pi/2 about y: Tait-Bryan pitch pi/2 at t = 0, G(theta) singular, so the Rxyz run
cannot start (its consistent accelerations meet a singular matrix)."""


def simulate(tmp_path: Path, *arguments: str) -> tuple:
    csv = tmp_path / "series.csv"
    result = runner.invoke(app, ["simulate", *arguments, "--csv", str(csv)])
    return result, csv


def assert_one_failure_line(result, *fragments: str) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def series_rows(csv: Path) -> pd.DataFrame:
    first = csv.read_text().splitlines()[0]
    assert first.startswith("# the run ") and "did not reach t_end" in first, first
    return pd.read_csv(csv, comment="#")


def fail_consistent_accelerations(monkeypatch) -> None:
    """Every generalized-alpha run fails in its consistent accelerations, before its first step, as a
    mechanism whose constraint rows are dependent at t = 0 does."""
    monkeypatch.setattr(implicit, "consistent_accelerations_of", lambda solver: lambda *arguments: False)


def test_a_run_that_cannot_start_writes_no_row(tmp_path):
    result, csv = simulate(tmp_path, PENDULUM, "-f", "Rxyz", "-i", "generalized-alpha", "--step", "1e-3",
                           "--t-end", "1", "--set", GIMBAL_LOCK)
    assert_one_failure_line(result, "double_pendulum Rxyz-generalized-alpha h=0.001", "(failed)",
                            "singular iteration matrix at t = 0 s", "series.csv: 0 samples")
    assert "status:" not in result.stdout
    rows = series_rows(csv)
    assert rows.empty and {"t", "tip_x", "constraint_residual"} <= set(rows.columns)


def test_a_run_that_fails_at_step_one_writes_its_start_state_only(tmp_path):
    arguments = [PENDULUM, "-f", "RV", "-i", "generalized-alpha", "--step", "1e-3", "--t-end", "1", "--samples", "11"]
    result, csv = simulate(tmp_path, *arguments, "--option", "max_iterations=1")
    assert_one_failure_line(result, "double_pendulum RV-generalized-alpha h=0.001", "Newton iteration did not "
                            "converge", "at t = 0 s (step 1)", "1 sample up to the failure")
    rows = series_rows(csv)
    (tmp_path / "ok").mkdir()
    complete, complete_csv = simulate(tmp_path / "ok", *arguments)
    assert complete.exit_code == 0, complete.output
    pd.testing.assert_frame_equal(rows, pd.read_csv(complete_csv).iloc[:1])


def test_a_run_that_diverges_keeps_the_samples_it_reached(tmp_path):
    result, csv = simulate(tmp_path, "heavy_top", "-f", "RV", "-i", "RK44", "--step", "0.02", "--t-end", "1",
                           "--samples", "21")
    assert_one_failure_line(result, "heavy_top RV-RK44 h=0.02", "(diverged)", "at t = 0.3 s (step 16)",
                            "7 samples up to the failure")
    rows = series_rows(csv)
    assert np.allclose(rows["t"], np.linspace(0.0, 0.3, 7)) and np.isfinite(rows.to_numpy()).all()


def test_an_ep_run_that_cannot_start_is_a_failure_not_an_internal_error(tmp_path, monkeypatch):
    fail_consistent_accelerations(monkeypatch)
    result, csv = simulate(tmp_path, PENDULUM, "-f", "EP", "-i", "generalized-alpha", "--step", "1e-3",
                           "--t-end", "1")
    assert_one_failure_line(result, "double_pendulum EP-generalized-alpha h=0.001", "at t = 0 s")
    assert series_rows(csv).empty


def test_animating_a_run_that_cannot_start_is_one_line(tmp_path):
    result = runner.invoke(app, ["animate", PENDULUM, "-f", "Rxyz", "-i", "RK44-index1", "--step", "1e-3",
                                 "--t-end", "0.1", "--set", GIMBAL_LOCK, "--out", str(tmp_path / "motion.gif")])
    assert_one_failure_line(result, "double_pendulum Rxyz-RK44-index1 h=0.001", "at t = 0 s", "no frame to draw")
    assert not (tmp_path / "motion.gif").exists()


def test_a_study_whose_reference_fails_says_so_in_one_line(tmp_path, monkeypatch):
    fail_consistent_accelerations(monkeypatch)
    study = tmp_path / "study.yaml"
    study.write_text(yaml.safe_dump({
        "name": "failing_reference", "model": PENDULUM, "t_end": 0.01, "formulations": ["RV"],
        "integrators": ["RK44-index1"], "steps": {"values": [1e-3]}, "samples": 11,
        "reference": {"formulation": "EP", "integrator": "generalized-alpha", "h": 1e-4},
        "errors": [{"quantity": "tip", "measure": "norm_at_t_end"}]}))
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(study), "--out", str(out)])
    assert_one_failure_line(result, "the reference run double_pendulum EP-generalized-alpha h=0.0001", "at t = 0 s",
                            "'reference:'")
    assert not (out / "runs.csv").exists()
    result = runner.invoke(app, ["reference", str(study)])
    assert_one_failure_line(result, "the reference run double_pendulum EP-generalized-alpha h=0.0001")


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_an_ok_run_writes_its_series_without_a_comment(tmp_path, formulation):
    result, csv = simulate(tmp_path, PENDULUM, "-f", formulation, "-i", "generalized-alpha", "--step", "1e-3",
                           "--t-end", "0.01", "--samples", "3")
    assert result.exit_code == 0 and "status: ok" in result.stdout, result.output
    assert csv.read_text().startswith("t,pivot_angle,") and len(pd.read_csv(csv)) == 3
