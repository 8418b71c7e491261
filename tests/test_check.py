"""`lgbench check`: expectations guard the numerical claims (issue 4)."""
import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from lgbench import integrators
from lgbench.cli import app
from lgbench.analysis.expectations import check
from lgbench.runner.study import load_study

STUDY = {
    "name": "tiny_top",
    "model": "heavy_top",
    "t_end": 0.2,
    "formulations": ["RV"],
    "integrators": ["RK44"],
    "steps": {"rule": "geometric", "h0": 4e-4, "base": 2, "n": [1, 4]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 2e-5},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
    "expectations": [{"kind": "order", "method": "RV-RK44", "expected": 4, "tolerance": 0.3}],
}


def _run_and_check(tmp_path: Path):
    study = tmp_path / "tiny_top.yaml"
    study.write_text(yaml.safe_dump(STUDY))
    out = tmp_path / "out"
    runner = CliRunner()
    ran = runner.invoke(app, ["run", str(study), "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    return runner.invoke(app, ["check", str(out), "--junit", str(tmp_path / "junit.xml")])


def test_check_passes_on_the_intact_method(tmp_path):
    result = _run_and_check(tmp_path)
    assert result.exit_code == 0, result.output
    assert "tiny_top: 1 passed, 0 failed" in result.output


def test_swapped_tableau_weights_make_check_fail_naming_study_method_and_slopes(tmp_path, monkeypatch):
    rk44 = integrators.INTEGRATORS["RK44"]
    # swap b2 and b4: no longer order 4. ButcherTableau refuses such a definition (order conditions),
    # so the weights are swapped in a copy to test the slope check downstream.
    broken = copy.copy(rk44)
    object.__setattr__(broken, "B", rk44.B[[0, 3, 2, 1]].copy())
    monkeypatch.setitem(integrators.INTEGRATORS, "RK44", broken)
    result = _run_and_check(tmp_path)
    assert result.exit_code == 1
    line = next(text for text in result.output.splitlines() if text.startswith("RV-RK44: order of com"))
    assert "4 +- 0.3" in line and "REGRESSION" in line
    observed = float(line.split("4 +- 0.3")[1].split()[0])
    assert abs(observed - 4) > 0.3
    assert "tiny_top: 0 passed, 1 failed" in result.output
    junit = (tmp_path / "junit.xml").read_text()
    assert 'failures="1"' in junit and "RV-RK44" in junit


def _fixture_study(tmp_path, expectations):
    data = {**STUDY, "formulations": ["RV", "Rxyz"], "expectations": expectations}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_study(path)


def _fixture_frames():
    hs = [4e-4, 2e-4, 1e-4, 5e-5]
    runs, errors = [], []
    for formulation, scale, newton, cost in (("RV", 1e6, 1.0, 0.1), ("Rxyz", 1e9, 2.5, 0.3)):
        for k, h in enumerate(hs):
            status = "failed" if formulation == "Rxyz" and h == 4e-4 else "ok"
            run_id = f"{formulation}-{h}"
            runs.append({"run_id": run_id, "model": "heavy_top", "formulation": formulation,
                         "integrator": "RK44", "variant": "", "h": h, "t_end": 0.2, "status": status,
                         "message": "", "steps": 1, "cpu_s": cost * 4e-4 / h, "newton_per_step": newton + 0.01 * k,
                         "max_constraint_residual": 1e-12 * (k + 1)})
            if status == "ok":
                errors.append({"run_id": run_id, "quantity": "com", "measure": "norm_at_t_end",
                               "value": scale * h ** 4})
    return pd.DataFrame(runs), pd.DataFrame(errors)


@pytest.mark.parametrize("expectation, passes", [
    ({"kind": "order", "method": "RV-RK44", "expected": 4}, True),
    ({"kind": "order", "method": "RV-RK44", "expected": 3}, False),
    ({"kind": "order", "method": "Rxyz-RK44", "expected": 3.5, "at_least": True}, True),
    ({"kind": "fails", "method": "Rxyz-RK44", "h_range": [4e-4, 4e-4]}, True),
    ({"kind": "fails", "method": "Rxyz-RK44", "h_range": [1e-4, 4e-4]}, False),
    ({"kind": "succeeds", "method": "RV-RK44", "h_range": [5e-5, 4e-4]}, True),
    ({"kind": "succeeds", "method": "Rxyz-RK44", "h_range": [5e-5, 4e-4]}, False),
    ({"kind": "value", "method": "Rxyz-RK44", "column": "newton_per_step", "h": 5e-5, "expected": 2.53,
      "tolerance": 0.01}, True),
    ({"kind": "value", "method": "Rxyz-RK44", "column": "newton_per_step", "h": 4e-4, "expected": 2.5,
      "tolerance": 0.1}, False),   # a failed run has no value
    ({"kind": "less", "column": "error:com", "lower": "RV-RK44", "than": "Rxyz-RK44", "factor": 100}, True),
    ({"kind": "less", "column": "error:com", "lower": "RV-RK44", "than": "Rxyz-RK44", "factor": 1e4}, False),
    ({"kind": "less", "column": "newton_per_step", "lower": "Rxyz-RK44", "than": "RV-RK44"}, False),
    ({"kind": "bound", "column": "max_constraint_residual", "max": 1e-11}, True),
    ({"kind": "bound", "column": "max_constraint_residual", "max": 3e-12}, False),
    # cost ~ 1/h, three times as much for Rxyz, whose error is 1000x RV's: at one error Rxyz needs
    # 3 * 1000**(1/4) = 16.9x RV's CPU time, at one h 3x
    ({"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44", "at_error": 1e-8, "min": 16.8,
      "max": 17.0}, True),
    ({"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44", "at_error": 1e-8, "max": 10}, False),
    ({"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44", "at_error": 1e-3, "max": 100}, False),
    ({"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44", "at_error": 3e-9, "min": 16.8,
      "max": 17.0}, False),     # beyond Rxyz's finest run (6.25e-9)...
    ({"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44", "at_error": 3e-9, "extrapolate": True,
      "min": 16.8, "max": 17.0}, True),     # ...unless extended along the curve
    ({"kind": "cost_ratio", "method": "Rxyz-RK44", "than": "RV-RK44", "min": 2.99, "max": 3.01}, True),
    ({"kind": "cost_ratio", "method": "RV-RK44", "than": "Rxyz-RK44", "max": 1}, True),
    ({"kind": "cost_ratio", "method": "RV-RK44", "than": "Rxyz-RK44", "min": 1}, False),
])
def test_each_expectation_kind_passes_and_fails_on_a_hand_made_result(tmp_path, expectation, passes):
    study = _fixture_study(tmp_path, [expectation])
    runs, errors = _fixture_frames()
    (result,) = check(study, runs, errors)
    assert result.passed is passes, result


ALPHAS = {"a30": -0.3, "a20": -0.2, "a10": -0.1, "a05": -0.05}


def _alpha_sweep(tmp_path, expectation):
    """A study of four labelled variants whose error at h = 1e-4 is 0.01 - 0.065 alpha - 0.116 alpha^2
    (the shape of the V8's e_omega, paper 004 Fig. 10) and twice that at h = 2e-4."""
    data = {**STUDY, "integrators": [{"name": "RK44", "label": label} for label in ALPHAS],
            "expectations": [expectation]}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(data))
    runs, errors = [], []
    for label, alpha in ALPHAS.items():
        for h in (2e-4, 1e-4):
            run_id = f"{label}-{h}"
            runs.append({"run_id": run_id, "model": "heavy_top", "formulation": "RV", "integrator": "RK44",
                         "variant": label, "h": h, "t_end": 0.2, "status": "ok", "message": "", "steps": 1})
            errors.append({"run_id": run_id, "quantity": "com", "measure": "norm_at_t_end",
                           "value": h / 1e-4 * (0.01 - 0.065 * alpha - 0.116 * alpha ** 2)})
    return load_study(path), pd.DataFrame(runs), pd.DataFrame(errors)


@pytest.mark.parametrize("fit, passes", [
    ({"powers": [0, 1, 2], "max_residual": 1e-9}, True),
    ({"powers": [0, 1, 2], "coefficients": {0: [0.0099, 0.0101], 1: [-0.066, -0.064], 2: [-0.117, -0.115]}}, True),
    ({"powers": [0, 1, 2], "h": 2e-4, "coefficients": {0: [0.0099, 0.0101]}}, False),    # twice as large there
    ({"powers": [2], "min_residual": 0.3}, True),         # no alpha^2 law
    ({"powers": [2], "max_residual": 0.1}, False),
    ({"powers": [0, 2], "max_residual": 0.01}, False),     # nor alpha^2 over a constant
    ({"powers": [0, 1, 2], "max_residual": 1e-9, "h": 5e-5}, False),     # no runs at that h
])
def test_parameter_fit_separates_the_parts_of_an_error_that_depend_on_a_method_parameter(tmp_path, fit, passes):
    expectation = {"kind": "parameter_fit", "h": 1e-4, "methods": {f"RV-RK44.{k}": a for k, a in ALPHAS.items()},
                   **fit}
    study, runs, errors = _alpha_sweep(tmp_path, expectation)
    (result,) = check(study, runs, errors)
    assert result.passed is passes, result
    if "h" not in fit:
        assert "c" in result.observed and "residual" in result.observed


@pytest.mark.parametrize("fit, message", [
    ({"powers": [0, 1, 2, 3]}, "need more than 4 methods"),
    ({"powers": [1, 1], "max_residual": 0.1}, "each power of the parameter once"),
    ({"powers": [0, 1]}, "needs max_residual, min_residual or coefficients"),
    ({"powers": [0, 1], "coefficients": {2: [0, 1]}}, "powers [2] that are not in powers"),
    ({"powers": [0, 1], "coefficients": {1: [1, 0]}}, "min 1 is above max 0"),
])
def test_an_ill_posed_parameter_fit_is_refused_at_load_time(tmp_path, fit, message):
    from lgbench.exceptions import InputError
    expectation = {"kind": "parameter_fit", "h": 1e-4, "methods": {f"RV-RK44.{k}": a for k, a in ALPHAS.items()},
                   **fit}
    with pytest.raises(InputError) as error:
        _alpha_sweep(tmp_path, expectation)
    assert message in str(error.value)


def test_expectation_naming_an_unknown_method_is_rejected_at_load_time(tmp_path):
    from lgbench.exceptions import InputError
    with pytest.raises(InputError) as error:
        _fixture_study(tmp_path, [{"kind": "order", "method": "RV-RK45", "expected": 4}])
    message = str(error.value)
    assert "expectations[0].method" in message and "RV-RK44" in message


def test_cost_ratio_reads_the_work_precision_curve_between_the_bracketing_runs():
    from lgbench.analysis.expectations import cost_at_error
    cost, reason = cost_at_error([4e-4, 2e-4, 1e-4], [1e-4, 1e-6, 1e-8], [1.0, 2.0, 4.0], 1e-7)
    assert cost == pytest.approx(2.0 ** 1.5) and reason == ""
    cost, reason = cost_at_error([4e-4, 2e-4], [1e-4, 1e-6], [1.0, 2.0], 1e-9)
    assert cost != cost and "1e-06..0.0001 do not reach 1e-09" in reason


def test_cost_ratio_extends_a_curve_by_at_most_a_decade_of_error():
    from lgbench.analysis.expectations import cost_at_error
    h, error, cost = [4e-4, 2e-4, 1e-4], [1e-4, 1e-6, 1e-8], [1.0, 2.0, 4.0]
    assert cost_at_error(h, error, cost, 1e-9)[0] != cost_at_error(h, error, cost, 1e-9)[0]   # NaN
    value, note = cost_at_error(h, error, cost, 1e-9, extrapolate=True)
    assert value == pytest.approx(4.0 * 2.0 ** 0.5) and note == "extrapolated from 1e-08"
    value, note = cost_at_error(h, error, cost, 1e-3, extrapolate=True)
    assert value == pytest.approx(2.0 ** -0.5) and note == "extrapolated from 0.0001"
    value, note = cost_at_error(h, error, cost, 1e-10 / 2, extrapolate=True)
    assert value != value and "do not reach" in note


def test_cost_ratio_without_a_bound_is_rejected_at_load_time(tmp_path):
    from lgbench.exceptions import InputError
    with pytest.raises(InputError) as error:
        _fixture_study(tmp_path, [{"kind": "cost_ratio", "method": "RV-RK44", "than": "Rxyz-RK44"}])
    assert "min, max or both" in str(error.value)


def test_quick_profiles_of_every_shipped_study_load_and_name_the_study():
    for path in sorted(Path("studies").glob("*.yaml")):
        quick = load_study(path, "quick")
        assert quick.name.endswith("-quick") and quick.expectations, path


def test_unknown_profile_names_the_allowed_ones():
    from lgbench.exceptions import InputError
    with pytest.raises(InputError) as error:
        load_study("studies/heavy_top.yaml", "fast")
    assert "profiles" in str(error.value) and "quick" in str(error.value)
