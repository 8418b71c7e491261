"""Automatic step-size control (paper 000 App. B) on the heavy top: tolerances drive the error,
sample times are hit exactly, rejected steps are counted, and bad options are input errors."""
import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.integrators import INTEGRATORS
from lgbench.integrators.adaptive import tolerance_rule
from lgbench.runner.single_run import RunSpec, run_single

ADAPTIVE = (("step_control", "adaptive"),)


def com_error(result, reference):
    return np.linalg.norm([result.final_outputs[k] - reference.final_outputs[k] for k in ("com_x", "com_y", "com_z")])


@pytest.fixture(scope="module")
def reference():
    return run_single(RunSpec("heavy_top", "RV", "RK67", 2.5e-5, 0.5))


def test_tolerance_rule_of_paper_000_section_4():
    r_tol, a_tol = tolerance_rule(1.0, 1e-4, 5)
    assert r_tol == pytest.approx(1e-2 / 1e4 ** 5) and a_tol == pytest.approx(1e-2 * r_tol)


@pytest.mark.parametrize("formulation", ["RV", "Rxyz"])
def test_the_error_follows_the_tolerance(reference, formulation):
    errors, steps = [], []
    for rtol in (1e-6, 1e-8, 1e-10):
        options = ADAPTIVE + (("rtol", rtol),)
        result = run_single(RunSpec("heavy_top", formulation, "DOPRI5", 1e-2, 0.5, options=options))
        assert result.status == "ok" and result.t_final == 0.5
        errors.append(com_error(result, reference))
        steps.append(result.steps)
    assert errors[0] > 20 * errors[1] > 400 * errors[2], errors
    assert steps[0] < steps[1] < steps[2]


def test_steps_adapt_to_the_solution_and_rejections_are_counted(reference):
    result = run_single(RunSpec("heavy_top", "RV", "DOPRI5", 1e-2, 0.5, options=ADAPTIVE + (("rtol", 1e-8),)))
    stats = result.statistics
    assert stats["rejected_steps"] >= 1                  # the first trial step h_max is far too large
    assert stats["max_step"] <= 1e-2 and stats["min_step"] < stats["max_step"]
    assert stats["rtol"] == 1e-8 and stats["atol"] == pytest.approx(1e-10)


def test_adaptive_runs_hit_every_sample_time(reference):
    result = run_single(RunSpec("heavy_top", "RV", "ODE23", 1e-3, 0.5, options=ADAPTIVE), n_samples=11)
    assert result.status == "ok"
    assert np.allclose(result.series["t"], np.linspace(0, 0.5, 11))
    fixed = run_single(RunSpec("heavy_top", "RV", "RK67", 1e-4, 0.5), n_samples=11)
    difference = np.abs(result.series["com_z"] - fixed.series["com_z"])
    assert difference.max() < 1e-3


def test_the_rule_tolerances_give_the_fixed_step_order_in_h(reference):
    """With r_tol = 1e-2 (t_end/h)^-p the error falls like h^p (paper 000 Fig. 5 style)."""
    hs = [4e-2, 2e-2, 1e-2]          # r_tol = 3.3e-8, 1.0e-9, 3.2e-11
    errors = [com_error(run_single(RunSpec("heavy_top", "RV", "DOPRI5", h, 0.5, options=ADAPTIVE)), reference)
              for h in hs]
    slopes = np.diff(np.log(errors)) / np.diff(np.log(hs))
    assert np.all(slopes > 3.5), slopes


@pytest.mark.parametrize("options, field", [
    ({"step_control": "adaptive"}, "options.step_control"),           # RK44 has no embedded pair
    ({"step_control": "sometimes"}, "options.step_control"),
    ({"rtol": 1e-6}, "options.rtol"),                                 # tolerances need adaptive
])
def test_bad_step_control_options_are_input_errors(options, field):
    with pytest.raises(InputError) as caught:
        INTEGRATORS["RK44"].validate_options(options)
    assert caught.value.field == field


def test_bad_adaptive_numbers_are_input_errors():
    with pytest.raises(InputError) as caught:
        INTEGRATORS["DOPRI5"].validate_options({"step_control": "adaptive", "rtol": -1.0})
    assert caught.value.field == "options.rtol"


def test_an_exhausted_step_budget_is_a_failure_that_says_so_not_a_divergence():
    result = run_single(RunSpec("heavy_top", "RV", "DOPRI5", 1e-2, 1.0,
                                options=(("step_control", "adaptive"), ("max_steps", 5))))
    assert result.status == "failed"
    assert "step budget" in result.message and "max_steps" in result.message


ADAPTIVE = (("step_control", "adaptive"),)


@pytest.mark.parametrize("integrator", ["DOPRI5", "DOPRI5-index1"])
def test_a_rule_tolerance_below_round_off_is_one_line_naming_the_coarsest_step(integrator):
    """The rule 1e-2 / (t_end/h)^5 gives rtol = 1e-17 at h = 1e-3: below the round-off of the error
    estimate every step would be rejected down to h_min (on the Puma 560 the rule's 1e-21 made 1e-11 s steps)."""
    from lgbench.runner.single_run import SMALLEST_RELATIVE_TOLERANCE, build_run

    formulation = "RV"
    model = "slider_crank" if integrator.endswith("-index1") else "heavy_top"   # DOPRI5 integrates no joints
    with pytest.raises(InputError) as raised:
        build_run(RunSpec(model, formulation, integrator, 1e-3, 1.0, options=ADAPTIVE))
    coarsest = 1.0 / (1e-2 / SMALLEST_RELATIVE_TOLERANCE) ** (1 / 5)
    assert raised.value.field == "h" and f"use h >= {coarsest:.3g}" in str(raised.value)
    assert tolerance_rule(1.0, coarsest * 1.0001, 5)[0] >= SMALLEST_RELATIVE_TOLERANCE
    build_run(RunSpec(model, formulation, integrator, coarsest * 1.0001, 1.0, options=ADAPTIVE))
    with pytest.raises(InputError) as raised:
        build_run(RunSpec(model, formulation, integrator, 0.05, 1.0, options=ADAPTIVE + (("rtol", 1e-16),)))
    assert raised.value.field == "options.rtol"


def test_a_study_whose_grid_reaches_below_round_off_names_file_and_field(tmp_path):
    import yaml

    from lgbench.runner.study import load_study

    study = {"name": "fine", "model": "slider_crank", "t_end": 1.0, "formulations": ["RV"],
             "integrators": [{"name": "DOPRI5-index1", "options": {"step_control": "adaptive"},
                              "steps": {"rule": "geometric", "h0": 0.05, "base": 2, "n": [1, 6]}}],
             "steps": {"rule": "geometric", "h0": 1e-3, "base": 2, "n": [1, 2]},
             "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
             "errors": [{"quantity": "slider_position", "measure": "max_over_time"}]}
    path = tmp_path / "fine.yaml"
    path.write_text(yaml.safe_dump(study))
    with pytest.raises(InputError) as raised:
        load_study(path)
    assert raised.value.file == str(path) and raised.value.field == "integrators[0].steps"
    assert "at h = 0.0015625 " in str(raised.value)


def test_a_trial_whose_error_is_not_a_number_is_retried_at_h_min_as_eq_b20_says_for_err_inf():
    """The Puma 560 with RV nodes at h_max = 0.1: the first trial step overflows the embedded solution
    and its error is NaN. Taken as it came, NaN made neither err <= 1 nor err > 0 true, so the same step
    was tried again until the budget ran out (50 million trials, hours: the hang of the Puma study).
    Counted as err = inf, eq. (B20) retries at h_min and the controller grows the step again."""
    budget = (("step_control", "adaptive"), ("max_steps", 2000))
    result = run_single(RunSpec("puma560", "RV", "DOPRI5-index1", 0.1, 0.1, options=budget))
    assert result.status == "ok", result.message
    assert result.t_final == pytest.approx(0.1)
    assert result.statistics["rejected_steps"] < 100
    assert result.statistics["min_step"] < 1e-6
    assert np.isfinite(result.statistics["max_constraint_residual"])


def test_a_trial_step_that_meets_a_singular_stage_matrix_is_retried_smaller():
    """The Puma 560 with Euler parameters at h_max = 0.1 (rtol 1e-7, no samples that would cut the first
    step short): the first trial step's stage meets a singular saddle-point matrix. That ended the run at
    t = 0 ("singular iteration matrix at t = 0 s (step 1)"); the trial is now rejected like one with an
    infinite error, retried at h_min, and the run goes on."""
    options = (("step_control", "adaptive"), ("rtol", 1e-7), ("atol", 1e-9), ("max_steps", 2000))
    result = run_single(RunSpec("puma560", "EP", "DOPRI5-index1", 0.1, 0.1, options=options))
    assert result.status == "ok", result.message
    assert result.t_final == pytest.approx(0.1)
    assert result.statistics["rejected_steps"] >= 1 and result.statistics["min_step"] == pytest.approx(1e-12)
    assert result.statistics["max_constraint_residual"] < 1e-13
