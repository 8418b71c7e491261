"""The cheapest method per accuracy band (issue 21): read off the work-precision curves at each target
error, with the runner-up's cost and the timing spread, in the report and on the index page."""
import csv
import math

import pandas as pd
import pytest
import yaml

from lgbench.analysis.accuracy_bands import accuracy_bands, method_cost

STEPS = [0.2 / 2 ** k for k in range(11)]
"""0.2 ... 1.95e-4: a second-order method's error h^2 spans 4e-2 ... 3.8e-8, a fourth-order one's
1.6e-3 ... 1.5e-15."""


def power_law_runs():
    """Method A: error h^2 for 1e-3 / h CPU seconds; method B: error h^4 for 4e-3 / h. On power laws
    the log-log interpolation of the bands is exact: A costs 1e-3 / sqrt(e), B 4e-3 / e^(1/4) at error e."""
    runs, errors = [], []
    for integrator, order, cost in (("A", 2, 1e-3), ("B", 4, 4e-3)):
        for h in STEPS:
            run_id = f"{integrator}-{h:g}"
            runs.append({"run_id": run_id, "formulation": "RV", "integrator": integrator, "h": h, "status": "ok",
                         "cpu_s": cost / h, "cpu_spread": 0.0})
            errors.append({"run_id": run_id, "quantity": "x", "measure": "norm_at_t_end", "value": h ** order})
    return pd.DataFrame(runs), pd.DataFrame(errors)


def test_cheapest_method_per_band_is_read_off_the_work_precision_curves():
    runs, errors = power_law_runs()
    coarse, medium, fine = accuracy_bands(runs, errors, "x", "norm_at_t_end", (1e-3, 1e-6, 1e-9))
    assert [c.method for c in coarse.reached] == ["RV-B", "RV-A"]
    assert coarse.best.cpu_s == pytest.approx(4e-3 / 1e-3 ** 0.25)
    assert coarse.runner_up.cpu_s == pytest.approx(1e-3 / 1e-3 ** 0.5)
    assert coarse.runner_up_ratio() == pytest.approx((1e-3 / 1e-3 ** 0.5) / (4e-3 / 1e-3 ** 0.25))
    assert medium.best.method == "RV-B" and medium.best.cpu_s == pytest.approx(4e-3 / 1e-6 ** 0.25)
    assert medium.runner_up_ratio() == pytest.approx(1.0 / (4e-3 / 1e-6 ** 0.25))
    assert [c.method for c in fine.reached] == ["RV-B"] and fine.missed == ("RV-A",)
    assert math.isnan(fine.runner_up_ratio()) and not fine.within_timing_spread()


def test_a_method_whose_coarsest_run_beats_the_target_costs_at_most_that_run():
    runs, errors = power_law_runs()
    band, = accuracy_bands(runs, errors, "x", "norm_at_t_end", (1e-2,))
    assert band.best.method == "RV-A" and band.best.cpu_s == pytest.approx(1e-3 / 0.1)
    assert band.runner_up.upper_bound and band.runner_up.cpu_s == pytest.approx(4e-3 / 0.2)
    assert band.runner_up.text() == "≤ 0.02 s" and not band.best.upper_bound


def test_runner_up_within_the_timing_spread_is_no_clear_winner():
    cost = method_cost("m", [1e-2, 5e-3], [1e-4, 2.5e-5], [1.0, 2.0], [0.5, 0.5], 5e-5)
    assert cost.slowest_cpu_s == pytest.approx(1.5 * cost.cpu_s)
    runs, errors = power_law_runs()
    noisy = runs.assign(cpu_spread=[0.9 if i == "B" else 0.0 for i in runs["integrator"]])
    band, = accuracy_bands(noisy, errors, "x", "norm_at_t_end", (1e-3,))
    ratio = band.runner_up_ratio()                             # 1.41 < 1 + 0.9: B's slowest repeat is slower
    assert band.best.method == "RV-B" and 1.0 < ratio < 1.9 and band.within_timing_spread()
    band, = accuracy_bands(runs, errors, "x", "norm_at_t_end", (1e-3,))
    assert not band.within_timing_spread()


def test_failed_runs_and_runs_without_time_do_not_count():
    runs, errors = power_law_runs()
    failing = runs.assign(status=["failed" if i == "B" else "ok" for i in runs["integrator"]])
    band, = accuracy_bands(failing, errors, "x", "norm_at_t_end", (1e-3,))
    assert [c.method for c in band.reached] == ["RV-A"] and band.missed == ("RV-B",)
    untimed = runs.assign(cpu_s=math.nan)
    band, = accuracy_bands(untimed, errors, "x", "norm_at_t_end", (1e-3,))
    assert band.reached == () and band.missed == ("RV-A", "RV-B")


def _write(folder, runs, errors):
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in (("runs.csv", runs), ("errors.csv", errors)):
        frame.to_csv(folder / name, index=False, quoting=csv.QUOTE_MINIMAL)


STUDY = {"name": "banded", "model": "heavy_top", "t_end": 1.0, "formulations": ["RV"],
         "integrators": ["RK44", "DOPRI5"], "steps": {"values": STEPS},
         "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
         "errors": [{"quantity": "com", "measure": "norm_at_t_end"}]}


def _heavy_top_runs():
    runs, errors = power_law_runs()
    runs = runs.assign(integrator=runs["integrator"].map({"A": "RK44", "B": "DOPRI5"}), model="heavy_top",
                       t_end=1.0, steps=[round(1 / h) for h in runs["h"]])
    return runs, errors.assign(quantity="com")


def test_report_and_index_show_the_bands(tmp_path):
    from test_report import report, table_row
    runs, errors = _heavy_top_runs()
    asks, plain = tmp_path / "asks", tmp_path / "plain"
    _write(asks, runs, errors)
    _write(plain, runs, errors)
    (asks / "study.yaml").write_text(yaml.safe_dump({**STUDY, "accuracy_bands": {"targets": [1e-3, 1e-9]}}))
    (plain / "study.yaml").write_text(yaml.safe_dump({**STUDY, "name": "plain"}))
    report(str(asks), str(plain), "--index", str(tmp_path / "index.md"))
    markdown = (asks / "report.md").read_text()
    assert "## Cheapest method per accuracy band" in markdown
    row = table_row(markdown, "0.001")
    assert row[1:3] == ["RV-DOPRI5", f"{4e-3 / 1e-3 ** 0.25:.3g} s"] and row[3] == "RV-RK44"
    assert row[-1] == "2 of 2"
    assert table_row(markdown, "1e-09")[1:4] == ["RV-DOPRI5", f"{4e-3 / 1e-9 ** 0.25:.3g} s", "–"]
    assert "| 1e-06 |" not in markdown                      # the study's own targets
    assert table_row((plain / "report.md").read_text(), "1e-06")[1] == "RV-DOPRI5"    # default targets
    index = (tmp_path / "index.md").read_text()
    bands = index.split("## Cheapest method per accuracy band")[1]
    assert "### banded" in bands and "### plain" not in bands
    assert table_row(bands, "1e-09")[1] == "RV-DOPRI5"


def test_bands_of_an_error_the_study_does_not_record_are_one_line_errors(tmp_path):
    from test_cli import assert_one_line_input_error
    from lgbench.cli import app
    from typer.testing import CliRunner
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "accuracy_bands": {"quantity": "omega"}}))
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, "accuracy_bands.quantity", "com")
    path.write_text(yaml.safe_dump({**STUDY, "accuracy_bands": {"targets": [-1.0]}}))
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, "accuracy_bands.targets")
