"""Inputs that describe no mechanism are one line naming the field, before anything runs: negative
stiffness, damping, rest lengths and controller gains of a mechanism file (each named as written), and
joints that cannot close (a connecting rod too short to reach its cylinder). Principal moments that break
the triangle inequality are accepted: identified robot data have them (the Puma 560's link 3: 0.0125,
0.066, 0.086), and a positive definite inertia is all the equations of motion need."""
import copy
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.models import MODELS
from test_cli import TINY, assert_one_line_input_error

ROOT = Path(__file__).resolve().parent.parent
PENDULUM = yaml.safe_load((ROOT / "studies" / "mechanisms" / "sprung_pendulum.yaml").read_text())
runner = CliRunner()


def _validate(tmp_path, model: str, params: dict):
    study = {**TINY, "model": model, "formulations": ["RV"], "params": params,
             "errors": [{"quantity": MODELS[model].outputs[0], "measure": "norm_at_t_end"}]}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(study))
    return runner.invoke(app, ["validate", str(path)])


def test_a_built_in_model_whose_joints_cannot_close_is_refused(tmp_path):
    assert_one_line_input_error(_validate(tmp_path, "v8_crank", {"rod_length": 0.01}),
                                "field 'params.rod_length'", "cannot reach")


@pytest.mark.parametrize("change, field", [
    (lambda d: d["parameters"].update(damping=-2.0), "forces[1].damping"),
    (lambda d: d["parameters"].update(stiffness=-400.0), "forces[1].stiffness"),
    (lambda d: d["forces"][1].update(rest_length=-0.25), "forces[1].rest_length"),
    (lambda d: d["parameters"].update(wall_damping=-0.5), "forces[2].damping"),
    (lambda d: d["forces"].append({"type": "point_spring_damper", "body": "bob", "stiffness": [1, 0, 0],
                                   "damping": [0, -3, 0], "ground_point": [0, 0, 0]}), "forces[7].damping[1]"),
    (lambda d: (d["joints"].__setitem__(0, {"name": "socket", "type": "revolute", "body1": "rod", "body2": "ground",
                                           "point": [0, 0, 0], "axis": [0, 0, 1]}),
                d["forces"].append({"type": "pd_controller", "joint": "socket", "kp": -1.0, "kd": 0.0,
                                    "setpoint": {"kind": "constant", "value": 0.0}})), "forces[7].kp"),
])
def test_a_mechanism_file_element_that_no_mechanism_has_names_its_field(tmp_path, change, field):
    data = copy.deepcopy(PENDULUM)
    change(data)
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(data))
    assert_one_line_input_error(runner.invoke(app, ["validate", str(path)]), f"field '{field}'")
