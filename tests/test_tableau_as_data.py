"""A Butcher tableau given as data in a study file (issue 20 item 4): checked against the rooted-tree
order conditions when the file is loaded, then run as RK, RKMK and index-1 like the built-in tableaus.
The shipped example is Kutta's 3/8 rule (order 4), studies/examples/kutta_three_eighths.yaml."""
import pickle
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner.grid import labelled_specs, run_id
from lgbench.runner.single_run import integrator_of
from lgbench.runner.study import load_study

from test_cli import assert_one_line_input_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "studies" / "examples" / "kutta_three_eighths.yaml"
runner = CliRunner()


def _example(**changes) -> dict:
    study = yaml.safe_load(EXAMPLE.read_text())
    study["tableaus"][0].update(changes)
    return study


def test_kutta_three_eighths_from_yaml_has_order_4_under_rk_rkmk_and_index1(tmp_path):
    """The quick profile's expectations: order 4 under RKMK (RV) and RK (Rxyz); the runs are the 3/8 rule's,
    not RK44's under another name (their errors differ)."""
    out = tmp_path / "kutta"
    result = runner.invoke(app, ["run", str(EXAMPLE), "--profile", "quick", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    checked = runner.invoke(app, ["check", str(out)])
    assert checked.exit_code == 0, checked.output
    runs, errors = pd.read_csv(out / "runs.csv"), pd.read_csv(out / "errors.csv")
    table = errors.merge(runs[["run_id", "formulation", "integrator", "h"]], on="run_id")
    rv = table[table.formulation == "RV"].pivot_table(index="h", columns="integrator", values="value")
    assert (abs(rv["Kutta38"] / rv["RK44"] - 1) > 1e-3).all()
    assert (rv["Kutta38"] < 2 * rv["RK44"]).all()
    index1 = table[table.integrator == "Kutta38-index1"].sort_values("h")
    assert len(index1) == 5 and index1.value.iloc[0] < 1e-10


@pytest.mark.parametrize("changes, field, message", [
    ({"b": ["1/8", "3/8", "3/8", "1/4"]}, "tableaus[0]", "do not have order 4"),
    ({"order": 5}, "tableaus[0]", "do not have order 5"),
    ({"A": [[0, 0, 0, 0], ["1/3", 0, 0, 0], ["-1/3", 1, 0, 0], [1, -1, 1, 1]]}, "tableaus[0]",
     "strictly lower triangular"),
    ({"c": ["0", "1/0", "2/3", "1"]}, "tableaus[0].c[1]", "fraction such as 1/3"),
    ({"name": "RK44"}, "tableaus[0].name", "is taken"),
    ({"name": "ODE23-x"}, "tableaus[0].name", "not a usable tableau name"),
])
def test_a_wrong_tableau_is_one_line_naming_the_field(tmp_path, changes, field, message):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(_example(**changes)))
    result = runner.invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, message)
    assert field in result.output


def test_the_runs_carry_the_tableau_and_its_coefficients_name_them(tmp_path):
    """A run's spec holds the tableau, so worker processes build the same integrator (it pickles); changed
    coefficients under the same name give other run ids, so resuming never mixes two tableaus."""
    specs = [spec for spec, _ in labelled_specs(load_study(EXAMPLE)) if spec.integrator.startswith("Kutta38")]
    spec = pickle.loads(pickle.dumps(specs[0]))
    assert integrator_of(spec).order == 4 and integrator_of(spec).name == spec.integrator
    path = tmp_path / "study.yaml"
    changed = _example(A=[[0, 0, 0, 0], ["1/2", 0, 0, 0], [0, "1/2", 0, 0], [0, 0, 1, 0]],
                       b=["1/6", "1/3", "1/3", "1/6"], c=[0, "1/2", "1/2", 1])
    path.write_text(yaml.safe_dump(changed))
    other = [spec for spec, _ in labelled_specs(load_study(path)) if spec.integrator.startswith("Kutta38")]
    assert {run_id(s) for s in specs}.isdisjoint({run_id(s) for s in other})
