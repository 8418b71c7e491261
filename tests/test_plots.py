"""Figures come from the CSV files alone, including failed runs."""
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
    (tmp_path / "errors.csv").write_text(ERRORS + "RV-RK44-h5e-04,omega,norm")   # cut-off last line
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
