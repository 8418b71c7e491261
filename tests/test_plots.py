"""Figures come from the CSV files alone, including failed runs."""
import math

import pytest

from lgbench.exceptions import InputError
from lgbench.plots import draw_figures

RUNS = """run_id,model,formulation,integrator,h,t_end,status,message,steps,cpu_s
RV-RK44-h1e-03,heavy_top,RV,RK44,0.001,1.0,ok,,1000,0.010
RV-RK44-h5e-04,heavy_top,RV,RK44,0.0005,1.0,ok,,2000,0.020
RV-RK44-h2.5e-04,heavy_top,RV,RK44,0.00025,1.0,ok,,4000,0.040
Rxyz-RK44-h1e-03,heavy_top,Rxyz,RK44,0.001,1.0,singular,Tait-Bryan pitch at pi/2,12,0.0001
Rxyz-RK44-h5e-04,heavy_top,Rxyz,RK44,0.0005,1.0,ok,,2000,0.021
Rxyz-RK44-h2.5e-04,heavy_top,Rxyz,RK44,0.00025,1.0,ok,,4000,0.041
RV-DOPRI5-h1e-03,heavy_top,RV,DOPRI5,0.001,1.0,ok,,1000,0.015
RV-DOPRI5-h5e-04,heavy_top,RV,DOPRI5,0.0005,1.0,ok,,2000,0.030
RV-DOPRI5-h2.5e-04,heavy_top,RV,DOPRI5,0.00025,1.0,diverged,NaN,1500,0.020
"""
ERRORS = """run_id,quantity,measure,value
RV-RK44-h1e-03,com,norm_at_t_end,1.6e-08
RV-RK44-h5e-04,com,norm_at_t_end,1.0e-09
RV-RK44-h2.5e-04,com,norm_at_t_end,6.25e-11
Rxyz-RK44-h5e-04,com,norm_at_t_end,3.2e-04
Rxyz-RK44-h2.5e-04,com,norm_at_t_end,2.0e-05
RV-DOPRI5-h1e-03,com,norm_at_t_end,3.2e-11
RV-DOPRI5-h5e-04,com,norm_at_t_end,1.0e-12
RV-RK44-h1e-03,omega,norm_at_t_end,1e-06
"""


@pytest.fixture
def results(tmp_path):
    (tmp_path / "runs.csv").write_text(RUNS)
    (tmp_path / "errors.csv").write_text(ERRORS)
    return tmp_path


def test_figures_are_drawn_from_the_csv_files(results):
    paths = draw_figures(results)
    names = sorted(path.name for path in paths)
    assert names == ["convergence_com.png", "convergence_omega.png", "cpu_time.png",
                     "work_precision_com.png", "work_precision_omega.png"]
    for path in paths:
        assert path.parent == results / "figures"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_a_folder_without_runs_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="runs.csv"):
        draw_figures(tmp_path)


def test_kinds_and_format_select_the_figures(results):
    paths = draw_figures(results, ["convergence", "cpu_time"], "svg")
    assert sorted(path.name for path in paths) == ["convergence_com.svg", "convergence_omega.svg", "cpu_time.svg"]


def test_a_measure_with_a_time_window_keeps_its_whole_name(results):
    (results / "errors.csv").write_text(ERRORS + "RV-RK44-h1e-03,omega,max_over_time@0.5-1,2e-06\n")
    names = sorted(path.name for path in draw_figures(results, ["convergence"]))
    assert names == ["convergence_com.png", "convergence_omega_max_over_time@0.5-1.png",
                     "convergence_omega_norm_at_t_end.png"]


def test_unknown_kind_or_format_names_the_allowed_ones(results):
    with pytest.raises(InputError, match="work_precision"):
        draw_figures(results, ["convergance"])
    with pytest.raises(InputError, match="svg"):
        draw_figures(results, None, "jpg")


def test_convergence_legend_gives_the_fitted_slope_and_its_step_range(results):
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none"}):
        [path] = [p for p in draw_figures(results, ["convergence"], "svg") if p.name == "convergence_com.svg"]
    text = path.read_text()
    assert "RV RK44 (slope 4.00, h 0.00025…0.001)" in text       # errors fall by 16 per halving
    assert "Rxyz RK44 (slope 4.00, h 0.00025…0.0005)" in text     # h = 1e-3 failed: fitted on two points
    assert "failed run" in text
    assert ">4<" in text                                           # the order-4 reference triangle


STUDY_WITH_TRAJECTORY = """name: fixture
model: heavy_top
t_end: 1.0
formulations: [RV]
integrators: [RK44]
steps: {values: [1.0e-3]}
reference: {formulation: RV, integrator: RK67, h: 1.0e-4}
errors: [{quantity: com}]
samples: 5
series_plots:
  - {outputs: [com_y], against: com_x, h: 1.0e-3}
  - {outputs: [energy], h: 1.0e-3}
"""


def test_trajectory_and_series_plots_come_from_the_series_files(results):
    (results / "study.yaml").write_text(STUDY_WITH_TRAJECTORY)
    (results / "series").mkdir()
    circle = "t,com_x,com_y,energy\n" + "".join(
        f"{t},{math.cos(t)},{math.sin(t)},{1 + 1e-3 * t}\n" for t in (0, 0.25, 0.5, 0.75, 1.0))
    (results / "series" / "RV-RK44-h1e-03.csv").write_text(circle)
    (results / "series" / "reference.csv").write_text(circle)
    assert [p.name for p in draw_figures(results, ["trajectory"])] == ["trajectory_1_com_y.png"]
    assert [p.name for p in draw_figures(results, ["series"])] == ["series_2_energy.png"]
    assert [p.name for p in draw_figures(results, ["reference"])] == ["reference_time_series.png"]
