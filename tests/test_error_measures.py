"""Error measures over time (paper 002 Figs. 6/11, paper 004 Sect. 10, paper 003 Sect. 5) on
series with known differences, and their use in a study (windows, exact references, figures)."""
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from lgbench.exceptions import InputError
from lgbench.runner.error_measures import MEASURES
from lgbench.runner.single_run import RunResult
from lgbench.runner.study import load_study


def result(t, **outputs):
    final = {name: float(values[-1]) for name, values in outputs.items()}
    return RunResult("ok", "", len(t), 0.0, float(t[-1]), final,
                     series={"t": np.asarray(t, dtype=float), **{k: np.asarray(v, dtype=float)
                                                               for k, v in outputs.items()}})


T = np.linspace(0.0, 1.0, 101)
REFERENCE = result(T, x=np.cos(T) + 2.0, y=np.sin(T))
RUN = result(T, x=np.cos(T) + 2.0 + 1e-3 * T, y=np.sin(T) - 2e-3 * T ** 2)


def measure(name, outputs=("x", "y"), window=None, run=RUN):
    return MEASURES[name].function(run, REFERENCE, list(outputs), window)


def test_max_over_time_is_the_largest_difference_norm():
    expected = max(math.hypot(1e-3 * t, 2e-3 * t * t) for t in T)
    assert measure("max_over_time") == pytest.approx(expected, rel=1e-9)


def test_max_relative_over_time_scales_each_time_by_the_nominal_value():
    nominal = np.hypot(np.cos(T) + 2.0, np.sin(T))
    expected = np.max(np.hypot(1e-3 * T, 2e-3 * T ** 2) / nominal)
    assert measure("max_relative_over_time") == pytest.approx(expected, rel=1e-9)


def test_a_window_restricts_the_measure_to_its_times():
    early = measure("max_over_time", window=(0.0, 0.5))
    assert early == pytest.approx(math.hypot(0.5e-3, 2e-3 * 0.25), rel=1e-9)
    assert measure("max_over_time", window=(0.5, 1.0)) == pytest.approx(measure("max_over_time"))


def test_integrated_absolute_error_sums_the_components_integrals():
    # int_0^1 1e-3 t dt + int_0^1 2e-3 t^2 dt = 5e-4 + 6.667e-4 (trapezoidal rule, 100 intervals)
    assert measure("integrated_abs") == pytest.approx(5e-4 + 2e-3 / 3, rel=1e-3)
    assert measure("integrated_abs", outputs=("x",), window=(0.0, 0.5)) == pytest.approx(1e-3 * 0.125, rel=1e-9)


def test_relative_norm_at_t_end_is_e_D_of_paper_003():
    exact = math.hypot(math.cos(1.0) + 2.0, math.sin(1.0))
    assert measure("relative_norm_at_t_end") == pytest.approx(math.hypot(1e-3, 2e-3) / exact, rel=1e-9)


def test_a_run_that_stopped_early_is_measured_over_the_samples_it_reached():
    short = result(T[:51], x=REFERENCE.series["x"][:51] + 1.0, y=REFERENCE.series["y"][:51])
    assert measure("max_over_time", run=short) == pytest.approx(1.0)


def test_series_measures_need_series():
    plain = RunResult("ok", "", 1, 0.0, 1.0, {"x": 1.0, "y": 0.0})
    with pytest.raises(ValueError, match="samples"):
        MEASURES["max_over_time"].function(plain, REFERENCE, ["x"], None)


STUDY = {
    "name": "measures", "model": "heavy_top", "t_end": 0.02, "formulations": ["RV"], "integrators": ["RK44"],
    "steps": {"values": [2e-3, 1e-3]}, "samples": 11,
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 2.5e-4},
    "errors": [{"quantity": "com", "measure": "max_relative_over_time"},
               {"quantity": "com", "measure": "max_relative_over_time", "window": [0.01, 0.02]}],
    "series_plots": [{"outputs": ["com_x", "com_y"], "h": 2e-3}, {"outputs": ["com_z"], "difference": True},
                     {"outputs": ["energy"], "log": True}],
}


def write(tmp_path: Path, **changes) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, **changes}))
    return path


def test_windowed_errors_are_recorded_under_their_own_label_and_series_are_plotted(tmp_path):
    from lgbench.plots import draw_figures
    from lgbench.runner.execute import execute_study
    from lgbench.store import read_frame

    study = load_study(write(tmp_path))
    execute_study(study, tmp_path / "out")
    errors = read_frame(tmp_path / "out" / "errors.csv")
    assert set(errors["measure"]) == {"max_relative_over_time", "max_relative_over_time@0.01-0.02"}
    whole = errors[errors["measure"] == "max_relative_over_time"].set_index("run_id")["value"]
    late = errors[errors["measure"] != "max_relative_over_time"].set_index("run_id")["value"]
    assert (late <= whole * (1 + 1e-12)).all() and (whole > 0).all()
    assert whole["RV-RK44-h2e-03"] / whole["RV-RK44-h1e-03"] == pytest.approx(16, rel=0.2)
    names = {path.name for path in draw_figures(tmp_path / "out")}
    assert {"series_1_com_x_com_y.png", "difference_2_com_z.png", "series_3_energy.png"} <= names


@pytest.mark.parametrize("changes, field", [
    ({"series_plots": [{"outputs": ["nothing"]}]}, "series_plots[0].outputs[0]"),
    ({"series_plots": [{"outputs": ["com_x"], "h": 3e-3}]}, "series_plots[0].h"),
    ({"series_plots": [{"outputs": ["com_x"], "methods": ["EP-RK44"]}]}, "series_plots[0].methods[0]"),
    ({"errors": [{"quantity": "com", "measure": "max_over_time", "window": [0.5, 0.1]}]}, "errors[0].window"),
    ({"reference": {"exact": True}}, "reference.exact"),
    ({"reference": {"formulation": "RV", "h": 1e-3}}, "reference"),
])
def test_bad_series_plots_windows_and_references_name_their_field(tmp_path, changes, field):
    with pytest.raises(InputError) as caught:
        load_study(write(tmp_path, **changes))
    assert f"field '{field}" in str(caught.value)


def test_an_exact_reference_uses_the_models_closed_form_solution(tmp_path, monkeypatch):
    """A model with ``exact`` can be its own reference; here the heavy top gets a fake exact solution
    (the reference run at a fine step), so the errors must equal those against that run."""
    import dataclasses

    from lgbench.models import MODELS
    from lgbench.runner import single_run
    from lgbench.runner.execute import execute_study
    from lgbench.runner.grid import reference_spec
    from lgbench.store import read_frame

    numerical = load_study(write(tmp_path, series_plots=[]))
    fine = single_run.run_single(reference_spec(numerical), n_samples=11)
    names = list(MODELS["heavy_top"].outputs)

    def exact(params, times):
        assert np.allclose(times, fine.series["t"])
        return np.column_stack([fine.series[name] for name in names])

    monkeypatch.setitem(MODELS, "heavy_top", dataclasses.replace(MODELS["heavy_top"], exact=exact))
    study = load_study(write(tmp_path, series_plots=[], reference={"exact": True}))
    execute_study(study, tmp_path / "exact")
    execute_study(numerical, tmp_path / "numerical")
    a = read_frame(tmp_path / "exact" / "errors.csv").sort_values(["run_id", "measure"])["value"].to_numpy()
    b = read_frame(tmp_path / "numerical" / "errors.csv").sort_values(["run_id", "measure"])["value"].to_numpy()
    assert np.allclose(a, b, rtol=1e-12)
    assert read_frame(tmp_path / "exact" / "reference.csv")["formulation"].iloc[0] == "exact"


def test_constrained_runs_store_constraint_residuals_and_multipliers_over_time():
    from lgbench.runner.single_run import RunSpec, run_single

    result = run_single(RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 1e-3, 0.05), n_samples=11)
    series = result.series
    assert series["constraint_residual"].shape == (11,)
    assert series["constraint_residual"].max() < 1e-8                    # index 3: Phi = 0 to Newton tolerance
    assert 1e-6 < series["velocity_constraint_residual"].max() < 1.0     # B v = 0 only to O(h^2)
    assert np.all(series["lambda_norm"][1:] > 100.0)                     # m g plus the centripetal load
