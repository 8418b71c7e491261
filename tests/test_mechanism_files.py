"""Mechanism files (issue 20): a mechanism described as data runs as the built-in models do.

Claims:
* the slider-crank, the V8 crank drive and the constrained heavy top written as mechanism files
  (studies/mechanisms/) build the same system arrays as their Python builders and give the same
  results (outputs to 1e-13 relative) in every formulation;
* a mechanism lgbench does not ship (the double pendulum of docs/mechanisms.md) moves as the
  closed-form solution of its linearised equations says at small amplitude;
* joint angles, rates and PD controllers follow one sign convention (body1 relative to body2),
  whichever body of the joint is ground;
* a study names a mechanism file (relative to the study) or holds one inline, its result folder keeps
  the mechanism, and a changed mechanism never reuses the runs of the old one;
* a bad file is one line naming the file and the field.
"""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.exceptions import InputError
from lgbench.integrators import INTEGRATORS
from lgbench.lie.so3 import exp_so3
from lgbench.mechanisms.build import mechanism_model
from lgbench.models import MODELS
from lgbench.runner.grid import expand, run_id
from lgbench.runner.mechanism_file import load_mechanism, mechanism_data, validate_mechanism
from lgbench.runner.single_run import RunSpec, run_single
from lgbench.runner.study import load_study
from test_cli import assert_one_line_input_error

ROOT = Path(__file__).resolve().parent.parent
MECHANISMS = ROOT / "studies" / "mechanisms"
runner = CliRunner()

EQUIVALENT = [("slider_crank.yaml", "slider_crank", 1e-3), ("v8_crank.yaml", "v8_crank", 1e-4),
              ("heavy_top_constrained.yaml", "heavy_top_constrained", 1e-4)]
CASES = [(file, name, formulation, h) for file, name, h in EQUIVALENT for formulation in MODELS[name].formulations]
SAME_OUTPUTS = {   # mechanism-file output: the built-in model's output of the same quantity
    "slider_crank": {name: name for name in ("slider_position", "crank_angle", "energy", "crank_rate")},
    "v8_crank": {name: name for name in MODELS["v8_crank"].outputs},
    "heavy_top_constrained": {"com_x": "com_x", "com_y": "com_y", "com_z": "com_z", "vcom_x": "vcom_x",
                              "omega_y": "omega_y", "omega_z": "omega_z", "energy": "energy", "R_23": "R23"},
}


def _relative(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300))


@pytest.mark.parametrize("file, name, formulation, h", CASES, ids=[f"{n}-{f}" for _, n, f, _ in CASES])
def test_shipped_mechanism_file_builds_the_system_of_the_python_builder(file, name, formulation, h):
    mine = mechanism_model(load_mechanism(MECHANISMS / file)).build(formulation)
    theirs = MODELS[name].build(formulation)
    for array in ("sizes", "body_int", "body_real", "force_int", "force_real", "joint_int", "joint_real"):
        assert np.array_equal(getattr(mine.system, array), getattr(theirs.system, array)), array
    # the V8's rods and pistons start from rounded poses, assembled onto Phi = 0 with the crank held
    assert _relative(mine.q0, theirs.q0) <= 1e-15
    assert _relative(mine.v0, theirs.v0) <= 1e-14


@pytest.mark.parametrize("file, name, formulation, h", CASES, ids=[f"{n}-{f}" for _, n, f, _ in CASES])
def test_shipped_mechanism_file_gives_the_results_of_the_python_builder(file, name, formulation, h):
    """Over 200 steps of explicit RK44 with projection (paper 001): outputs within 1e-13. SE3 nodes run
    with generalized-alpha only, whose results are determined to its Newton tolerance: a difference of
    1e-17 in the initial velocities (the slider-crank's crank held in full by the file, its rate alone
    by the builder) moves them by ~1e-12 at rtol 1e-12, so there the bound is 1e-10."""
    data = mechanism_data(load_mechanism(MECHANISMS / file))
    explicit = formulation in INTEGRATORS["RK44-index1"].formulations
    integrator, options, bound = (("RK44-index1", (), 1e-13) if explicit else
                                  ("generalized-alpha", (("newton_atol", 1e-13), ("newton_rtol", 1e-12)), 1e-10))
    mine = run_single(RunSpec(data.model().name, formulation, integrator, h, 200 * h, options=options,
                              mechanism=data))
    theirs = run_single(RunSpec(name, formulation, integrator, h, 200 * h, options=options))
    assert mine.status == theirs.status == "ok" and mine.steps == theirs.steps
    for own, other in SAME_OUTPUTS[name].items():
        scale = max(abs(theirs.final_outputs[other]), 1e-3 * max(map(abs, theirs.final_outputs.values())))
        assert abs(mine.final_outputs[own] - theirs.final_outputs[other]) <= bound * scale, own


def _linear_double_pendulum(parameters: dict, times: np.ndarray) -> np.ndarray:
    """Absolute rod angles of the linearised double pendulum released at rest: theta(t) = X cos(Omega t)
    X^-1 theta0, with K X = M X Omega^2 (rods of mass m, length l, transverse inertia I about the centre
    of mass; a = l / 2): M = [[I + m a^2 + m l^2, m l a], [m l a, I + m a^2]], K = g diag(m a + m l, m a)."""
    m, l, r, g = (parameters[key] for key in ("mass", "length", "radius", "g"))
    a, inertia = l / 2, m * (3 * r ** 2 + l ** 2) / 12
    M = np.array([[inertia + m * a ** 2 + m * l ** 2, m * l * a], [m * l * a, inertia + m * a ** 2]])
    K = g * np.diag([m * a + m * l, m * a])
    squares, X = np.linalg.eig(np.linalg.solve(M, K))
    modal = np.linalg.solve(X, [parameters["theta1"], parameters["theta2"]])
    return np.array([X @ (modal * np.cos(np.sqrt(squares) * t)) for t in times])


def _deviation_from_linear_theory(amplitude: float) -> float:
    """Largest difference of the rod angles from the linearised solution over 3 s (two periods of the
    slow mode), relative to the amplitude; RK44 with projection at h = 1e-3 (its own error is ~1e-10)."""
    data = mechanism_data(load_mechanism(MECHANISMS / "double_pendulum.yaml"))
    parameters = {**data.model().defaults, "theta1": amplitude, "theta2": -2 * amplitude}
    spec = RunSpec("double_pendulum", "RV", "RK44-index1", 1e-3, 3.0, params=tuple(sorted(parameters.items())),
                   mechanism=data)
    run = run_single(spec, n_samples=301)
    assert run.status == "ok"
    exact = _linear_double_pendulum(parameters, run.series["t"])
    upper = run.series["pivot_angle"] + parameters["theta1"]
    lower = run.series["elbow_angle"] + upper + parameters["theta2"] - parameters["theta1"]
    return max(np.max(np.abs(upper - exact[:, 0])), np.max(np.abs(lower - exact[:, 1]))) / (2 * amplitude)


def test_double_pendulum_file_swings_as_the_closed_form_linear_solution():
    """The file's masses, inertias, joint points and axes are right if small swings follow both normal
    modes of the linearised equations: the deviation is the nonlinear terms', O(amplitude^2) (measured
    1.1e-4 at 1e-3 rad, 1.1e-6 at 1e-4 rad); a wrong inertia or joint point would detune a mode at
    any amplitude."""
    large, small = _deviation_from_linear_theory(1e-3), _deviation_from_linear_theory(1e-4)
    assert small <= 2e-6
    assert 80 <= large / small <= 120


PD_PENDULUM = {
    "name": "pd_pendulum",
    "parameters": {"setpoint": 0.3},
    "bodies": [{"name": "arm", "mass": 2.0, "inertia": [0.02, 0.02, 0.001], "position": [0.1, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body1": "arm", "body2": "ground", "point": [0, 0, 0],
                "axis": [0, 0, 1]}],
    "forces": [{"type": "pd_controller", "joint": "hinge", "kp": 50.0, "kd": 5.0,
                "setpoint": {"kind": "constant", "value": "setpoint"}}],
    "outputs": [{"name": "angle", "kind": "joint_angle", "joint": "hinge"},
                {"name": "rate", "kind": "joint_rate", "joint": "hinge"},
                {"name": "omega", "kind": "angular_velocity", "body": "arm", "components": "z"}],
}


@pytest.mark.parametrize("ground_first", [False, True], ids=["arm-ground", "ground-arm"])
def test_pd_controller_drives_the_joint_angle_to_its_set_point_whichever_body_is_ground(ground_first):
    document = copy.deepcopy(PD_PENDULUM)
    if ground_first:     # the angle of ground relative to the arm: minus the arm's rotation
        document["joints"][0].update(body1="ground", body2="arm")
    data = mechanism_data(validate_mechanism(document, "pd.yaml"))
    run = run_single(RunSpec("pd_pendulum", "RV", "generalized-alpha", 1e-3, 5.0, mechanism=data), n_samples=11)
    assert run.status == "ok"
    assert run.final_outputs["angle"] == pytest.approx(0.3, abs=1e-6)
    sign = -1.0 if ground_first else 1.0
    assert np.allclose(run.series["rate"], sign * run.series["omega"], atol=1e-12)


def test_study_names_a_mechanism_file_keeps_it_with_its_results_and_resumes(tmp_path):
    study_file = tmp_path / "study.yaml"
    (tmp_path / "mechanisms").mkdir()
    mechanism = yaml.safe_load((MECHANISMS / "double_pendulum.yaml").read_text())
    (tmp_path / "mechanisms" / "pendulum2.yaml").write_text(yaml.safe_dump(mechanism))
    study = {"name": "dp", "model": "mechanisms/pendulum2.yaml", "t_end": 0.05, "formulations": ["RV", "EP"],
             "integrators": ["RK44-index1"], "steps": {"values": [1e-3, 5e-4]},
             "reference": {"formulation": "RV", "integrator": "RK67-index1", "h": 2.5e-4},
             "errors": [{"quantity": "tip", "measure": "norm_at_t_end"}],
             "expectations": [{"kind": "bound", "column": "max_constraint_residual", "max": 1e-12}]}
    study_file.write_text(yaml.safe_dump(study))
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(study_file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    kept = yaml.safe_load((out / "study.yaml").read_text())
    assert kept["model"]["name"] == "double_pendulum" and len(kept["model"]["bodies"]) == 2
    assert runner.invoke(app, ["check", str(out)]).exit_code == 0
    again = runner.invoke(app, ["run", str(study_file), "--out", str(out)])
    assert "0 computed" in again.output and "4 skipped" in again.output
    # the same study on a heavier rod is another mechanism: other run ids, nothing reused
    mechanism["parameters"]["mass"] = 2.0
    (tmp_path / "mechanisms" / "pendulum2.yaml").write_text(yaml.safe_dump(mechanism))
    changed = {run_id(spec) for spec in expand(load_study(study_file))}
    assert changed.isdisjoint({line.split(",")[0] for line in (out / "runs.csv").read_text().splitlines()[1:]})


def test_study_holds_a_mechanism_inline(tmp_path):
    study = load_study(ROOT / "studies" / "double_pendulum.yaml")
    assert study.model_name() == "double_pendulum"
    document = yaml.safe_load((ROOT / "studies" / "double_pendulum.yaml").read_text())
    document["model"] = yaml.safe_load((MECHANISMS / "double_pendulum.yaml").read_text())
    path = tmp_path / "inline.yaml"
    path.write_text(yaml.safe_dump(document))
    inline = load_study(path)
    assert [run_id(spec) for spec in expand(inline)] == [run_id(spec) for spec in expand(study)]


TABLED = {"type": "torque", "body": "upper rod", "torque": [0, 0, 1]}
"""A torque element to give a bad time table (appended to the double pendulum's forces)."""
BAD = [
    ({"bodies": [{"name": "a", "mass": 1.0}]}, ["bodies[0].inertia", "required field is missing"]),
    ({"bodies[0].mass": "heavy"}, ["bodies[0].mass", "'heavy' is not a scalar parameter", "allowed:"]),
    ({"bodies[0].mass": -1.0}, ["bodies[0].mass", "must be positive"]),
    ({"bodies[0].colour": "red"}, ["bodies[0].colour", "unknown field", "allowed: name, mass, inertia"]),
    ({"joints[0].body2": "wall"}, ["joints[0].body2", "unknown body 'wall'", "allowed: upper rod, lower rod, ground"]),
    ({"joints[0].type": "screw"}, ["joints[0]", "screw"]),
    ({"joints[0].axis1": [0, 1, 0]}, ["joints[0]", "not used: axis1"]),
    ({"joints+": {"type": "distance", "body1": "lower rod", "body2": "ground", "point1": [0, 0, -1.0],
                  "point2": [0, 0, -5.0], "length": 0.1}},        # the tip cannot reach 5 m down
     ["initial state", "initial positions cannot be assembled"]),
    ({"joints[0].axis": [0, 0, 0]}, ["joints[0].axis", "non-zero"]),
    ({"bodies[0].orientation": {"rotation_matrix": [[1, 0, 0], [0, 1, 0], [0, 0.5, 1]]}},
     ["bodies[0].orientation.rotation_matrix", "not a rotation matrix"]),
    ({"bodies[0].orientation": {"quaternion": [1, 0, 0, 0], "tait_bryan": [0, 0, 0]}},
     ["bodies[0].orientation", "exactly one of"]),
    ({"bodies[0].position": [0, "import os", 0]}, ["bodies[0].position", "not a number or an arithmetic expression"]),
    ({"bodies[0].position": [0, "__import__('os')", 0]}, ["bodies[0].position", "only the functions"]),
    ({"bodies[0].position": "offset"}, ["bodies[0].position", "'offset' is not a vector parameter"]),
    ({"outputs[0].joint": "knee"}, ["outputs[0].joint", "unknown joint 'knee'", "allowed: pivot, elbow"]),
    ({"outputs[1].name": "pivot_angle"}, ["outputs[1].name", "'pivot_angle' is defined twice"]),
    ({"outputs[0].kind": "joint_displacement"}, ["outputs[0].joint", "joint_displacement is an output of a prismatic"]),
    ({"name": "slider_crank"}, ["field 'name'", "built-in model"]),
    ({"parameters.theta1": [1, 2]}, ["a vector parameter has 3 numbers"]),
    ({"forces[0].acceleration": [0, 0, "-g / 0"]}, ["forces[0].acceleration[2]", "cannot be evaluated"]),
    ({"forces+": {**TABLED, "table": {"time": [0, 0.2, 0.2], "factor": [0, 1, 2]}}},
     ["forces[1].table.time", "must increase strictly: time[2] = 0.2 follows 0.2"]),
    ({"forces+": {**TABLED, "table": {"time": [0, 1], "factor": [0, 1, 2]}}},
     ["forces[1].table", "as many points (2 times, 3 factors)"]),
    ({"forces+": {**TABLED, "ramp_time": 0.1, "table": {"time": [0, 1], "factor": [0, 1]}}},
     ["forces[1]", "a ramp_time or a table, not both"]),
    ({"forces+": {**TABLED, "table": {"time": [0, "1 / 0"], "factor": [0, 1]}}},
     ["forces[1].table.time[1]", "cannot be evaluated"]),
    ({"forces+": {**TABLED, "ramp_time": -1}}, ["forces[1].ramp_time", "non-negative"]),
    ({"constraint_form": "local"}, ["field 'constraint_form'", "global", "body"]),
]


def _changed(document: dict, changes: dict) -> dict:
    document = copy.deepcopy(document)
    for path, value in changes.items():
        if path == "bodies" and isinstance(value, list):
            document["bodies"] = value
            continue
        if path in ("joints+", "forces+"):
            document[path[:-1]].append(value)
            continue
        target, parts = document, path.replace("]", "").replace("[", ".").split(".")
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        target[parts[-1]] = value
    return document


@pytest.mark.parametrize("changes, fragments", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_mechanism_file_is_one_line_naming_file_and_field(tmp_path, changes, fragments):
    document = _changed(yaml.safe_load((MECHANISMS / "double_pendulum.yaml").read_text()), changes)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    assert_one_line_input_error(runner.invoke(app, ["validate", str(path)]), str(path), *fragments)


def test_validate_reports_a_mechanism_file():
    result = runner.invoke(app, ["validate", str(MECHANISMS / "v8_crank.yaml")])
    assert result.exit_code == 0
    assert "valid mechanism 'v8_crank_file' (17 bodies, 25 joints, 101 constraint rows in RV" in result.output


def test_simulate_runs_a_mechanism_file():
    result = runner.invoke(app, ["simulate", str(MECHANISMS / "double_pendulum.yaml"), "-f", "SE3", "-i",
                                 "generalized-alpha", "--step", "1e-3", "--t-end", "0.01"])
    assert result.exit_code == 0, result.output
    assert "status: ok" in result.output and "pivot_angle" in result.output


def test_a_mechanism_file_lists_every_formulation_the_implicit_integrators_take():
    mechanism = load_mechanism(MECHANISMS / "double_pendulum.yaml")
    assert set(mechanism.formulations) <= set(INTEGRATORS["generalized-alpha"].formulations)
    with pytest.raises(InputError, match="formulations"):
        validate_mechanism({**yaml.safe_load((MECHANISMS / "double_pendulum.yaml").read_text()),
                            "formulations": ["F1"]}, "x.yaml")


UNDRIVEN = dict(twist=[0.0, 0.0, 0.0], rock=[0.0, 0.0, 0.0])
"""The sprung pendulum's tabulated torques switched off."""


def _sprung_pendulum(n_samples=51, **overrides):
    data = mechanism_data(load_mechanism(MECHANISMS / "sprung_pendulum.yaml"))
    parameters = {**data.model().defaults, **overrides}
    spec = RunSpec("sprung_pendulum", "RV", "RK44-index1", 2.5e-4, 0.5, params=tuple(sorted(
        (key, tuple(value) if isinstance(value, list) else value) for key, value in parameters.items())),
        mechanism=data)
    run = run_single(spec, n_samples=n_samples)
    assert run.status == "ok", run.message
    return run


def test_line_springs_store_the_energy_their_forces_do_work_with():
    """Undamped, unforced: the springs' potential 0.5 k (l - L0)^2 (mbs/invariants.py) and their forces
    (mbs/loads.py) agree if the total energy stays constant; a constant global force on the bob adds
    its work f . (x_bob - x_bob(0)). RK44 at h = 2.5e-4 over 0.5 s."""
    still = dict(damping=0.0, wall_damping=0.0, push=0.0, **UNDRIVEN)
    free = _sprung_pendulum(**still, pull=[0.0, 0.0, 0.0])
    energy = np.asarray(free.series["energy"])
    assert np.ptp(energy) <= 1e-7 * np.abs(energy).max()
    assert np.ptp(free.series["bob_z"]) > 0.01                      # the bob bounces
    pulled = _sprung_pendulum(**still, pull=[0.0, 2.0, 0.0])
    work = 2.0 * (np.asarray(pulled.series["bob_y"]) - pulled.series["bob_y"][0])
    balance = np.asarray(pulled.series["energy"]) - work
    assert np.ptp(balance) <= 1e-7 * np.abs(balance).max()
    assert np.ptp(work) > 1e-3


def test_dampers_and_the_follower_force_change_the_energy_as_they_should():
    """With damping and no forces the energy only decreases; the ramped follower force then changes it."""
    damped = _sprung_pendulum(push=0.0, pull=[0.0, 0.0, 0.0], **UNDRIVEN)
    assert np.all(np.diff(np.asarray(damped.series["energy"])) <= 1e-9)
    pushed = _sprung_pendulum(pull=[0.0, 0.0, 0.0], **UNDRIVEN)
    assert abs(pushed.final_outputs["energy"] - damped.final_outputs["energy"]) > 1e-3


def test_tabulated_torques_change_the_energy_by_the_work_of_their_power():
    """Undamped, no forces but the two tabulated torques (a global one on the rod, a body-frame one on the
    mass, whose table spans two TIME_TABLE rows): E(t) - E(0) is the integral of their power outputs
    (trapezoids on every step, the tables' kinks on steps)."""
    run = _sprung_pendulum(n_samples=2001, damping=0.0, wall_damping=0.0, push=0.0, pull=[0.0, 0.0, 0.0])
    t, energy = np.asarray(run.series["t"]), np.asarray(run.series["energy"])
    power = np.asarray(run.series["twist_power"]) + np.asarray(run.series["rock_power"])
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])
    assert np.ptp(work) > 1e-2
    assert np.abs(energy - energy[0] - work).max() <= 1e-6 * np.ptp(work)


BALL = {
    "name": "ball", "formulations": ["RV", "Rxyz", "EP", "SE3"],
    "bodies": [{"name": "ball", "mass": 2.0, "inertia": [0.5, 0.5, 0.5], "position": [0, 0, 0],
                "orientation": {"rotation_vector": [0.4, -0.2, 0.7]}, "angular_velocity": [0.0, 3.0, 0.0]}],
    "forces": [{"name": "drive", "type": "torque", "body": "ball", "torque": [0.0, 0.0, 1.0], "frame": "global",
                "table": {"time": [0.0, 0.25, 0.5, 0.75], "factor": [0.0, 1.0, 1.0, -0.5]}}],
    "outputs": [{"name": "omega", "kind": "angular_velocity", "body": "ball"}],
}
"""A ball (isotropic inertia J = 0.5 kg m^2) spinning at 3 rad/s about global y, driven about global z by a
torque of 1 N m times a table: J omega' = tau f(t) in every frame, so omega = omega_0 + tau F(t) / J with F
the integral of the piecewise-linear f."""


def _table_integral(times, factors, t):
    """F(t) = integral from 0 to t of the piecewise-linear f through (times, factors), held outside them."""
    total = factors[0] * (min(t, times[0]) - 0.0)
    for a, b, fa, fb in zip(times[:-1], times[1:], factors[:-1], factors[1:]):
        if t > a:
            end = min(t, b)
            total += (end - a) * (fa + 0.5 * (fb - fa) * (end - a) / (b - a))
    return total + factors[-1] * max(t - times[-1], 0.0)


@pytest.mark.parametrize("frame", ["global", "body"])
@pytest.mark.parametrize("formulation, integrator", [("RV", "RK44"), ("SE3", "RK44"), ("EP", "RK44-index1"),
                                                     ("RV", "generalized-alpha"), ("EP", "generalized-alpha"),
                                                     ("SE3", "generalized-alpha")])
def test_a_tabulated_torque_spins_a_ball_up_by_the_integral_of_its_table(frame, formulation, integrator):
    """RK44 integrates omega' = tau f(t) / J exactly (f linear between steps); generalized-alpha to its
    second order. A global torque acts on the global angular velocity, a body-frame one on the body's."""
    document = copy.deepcopy(BALL)
    document["forces"][0]["frame"] = frame
    document["outputs"][0]["frame"] = frame
    data = mechanism_data(validate_mechanism(document, "ball.yaml"))
    run = run_single(RunSpec("ball", formulation, integrator, 1e-3, 1.0, mechanism=data), n_samples=41)
    assert run.status == "ok", run.message
    table = BALL["forces"][0]["table"]
    expected_z = np.array([_table_integral(table["time"], table["factor"], t) / 0.5 for t in run.series["t"]])
    if frame == "global":
        expected = np.column_stack([np.zeros_like(expected_z), np.full_like(expected_z, 3.0), expected_z])
    else:
        w0 = exp_so3(np.array([0.4, -0.2, 0.7])).T @ np.array([0.0, 3.0, 0.0])
        expected = w0 + np.outer(expected_z, [0.0, 0.0, 1.0])
    found = np.column_stack([run.series[f"omega_{axis}"] for axis in "xyz"])
    assert np.abs(found - expected).max() <= (1e-11 if integrator.startswith("RK44") else 1e-5)


@pytest.mark.parametrize("kind", ["torque", "force"])
def test_a_table_from_zero_to_one_is_the_ramp_bit_for_bit(kind):
    """The table (0, 0), (T, 1) interpolates t / T on [0, T] and holds 1 after it: the runs of a ramped and of
    a tabulated load are the same to the last bit."""
    load = ({"type": "torque", "body": "wheel", "torque": [0, 0, 1.0]} if kind == "torque" else
            {"type": "force", "body": "wheel", "force": [0, 2.0, 0], "point": [0.5, 0, 0]})
    runs = []
    for schedule in ({"ramp_time": 0.3}, {"table": {"time": [0.0, 0.3], "factor": [0.0, 1.0]}}):
        document = copy.deepcopy(WHEEL)
        document["forces"] = [{**load, **schedule}]
        data = mechanism_data(validate_mechanism(document, "wheel.yaml"))
        runs.append(run_single(RunSpec("wheel", "RV", "generalized-alpha", 1e-2, 1.0, mechanism=data),
                               n_samples=11))
    assert runs[0].status == runs[1].status == "ok"
    assert runs[0].final_outputs["turned"] > 0.1
    for name in ("turned", "wrapped"):
        assert np.array_equal(runs[0].series[name], runs[1].series[name])


@pytest.mark.parametrize("frame", ["global", "bodies"])
def test_a_point_spring_damper_without_a_point_holds_the_centre_of_mass(frame):
    from lgbench.mbs.codes import SPRING_BODY_POINT

    document = {"name": "bob_on_springs", "bodies": [{"name": "bob", "mass": 1.0, "inertia": [1, 1, 1],
                                                      "position": [0.3, -0.2, 0.5]}],
                "forces": [{"type": "point_spring_damper", "body": "bob", "stiffness": [1, 2, 3],
                            "ground_point": [0, 0, 0], "frame": frame}],
                "outputs": [{"name": "bob", "kind": "position", "body": "bob"}]}
    built = mechanism_model(validate_mechanism(document, "bob.yaml")).build("RV")
    assert np.array_equal(built.system.force_real[0, SPRING_BODY_POINT:SPRING_BODY_POINT + 3], np.zeros(3))


def test_a_mechanism_lists_at_least_one_formulation(tmp_path):
    document = yaml.safe_load((MECHANISMS / "double_pendulum.yaml").read_text())
    path = tmp_path / "none.yaml"
    path.write_text(yaml.safe_dump({**document, "formulations": []}))
    assert_one_line_input_error(runner.invoke(app, ["validate", str(path)]), str(path), "field 'formulations'",
                                "at least 1 item")


WHEEL = {
    "name": "wheel", "formulations": ["RV", "EP"],
    "bodies": [{"name": "wheel", "mass": 2.0, "inertia": [0.25, 0.25, 0.5], "position": [0, 0, 0]}],
    "joints": [{"name": "axle", "type": "revolute", "body1": "wheel", "body2": "ground", "point": [0, 0, 0],
                "axis": [0, 0, 1]}],
    "forces": [{"type": "torque", "body": "wheel", "torque": [0, 0, 1.0]}],
    "outputs": [{"name": "turned", "kind": "joint_angle", "joint": "axle", "continuous": True},
                {"name": "wrapped", "kind": "joint_angle", "joint": "axle"}],
}
"""A wheel spun up from rest by a constant torque tau = 1 N m about its axle (J = 0.5 kg m^2)."""


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_a_continuous_joint_angle_counts_the_turns_of_a_wheel_spun_up_by_a_torque(formulation):
    """phi(t) = tau t^2 / (2 J): 9 rad (1.4 turns) at t = 3 s; the wrapped angle jumps by 2 pi, the
    continuous one follows the closed form over every sample and at t_end."""
    data = mechanism_data(validate_mechanism(WHEEL, "wheel.yaml"))
    run = run_single(RunSpec("wheel", formulation, "RK44-index1", 1e-3, 3.0, mechanism=data), n_samples=61)
    assert run.status == "ok", run.message
    t = run.series["t"]
    assert np.abs(run.series["turned"] - t ** 2).max() < 1e-9
    assert run.final_outputs["turned"] == pytest.approx(9.0, abs=1e-9)
    assert run.final_outputs["wrapped"] == pytest.approx(9.0 - 2 * np.pi, abs=1e-9)
    assert np.abs(np.diff(run.series["wrapped"])).max() > np.pi


def test_continuous_is_an_option_of_joint_angles_only(tmp_path):
    document = copy.deepcopy(WHEEL)
    document["outputs"][1] = {"name": "rate", "kind": "joint_rate", "joint": "axle", "continuous": True}
    with pytest.raises(InputError, match="'continuous' is an option of a joint_angle output"):
        validate_mechanism(document, "wheel.yaml")


def test_a_joint_angle_left_wrapped_keeps_the_content_and_run_ids_of_files_written_before_the_option():
    document = copy.deepcopy(WHEEL)
    document["outputs"][0].pop("continuous")
    assert "continuous" not in mechanism_data(validate_mechanism(document, "wheel.yaml")).text
    assert '"continuous": true' in mechanism_data(validate_mechanism(WHEEL, "wheel.yaml")).text


def _resting_on(joint: dict) -> dict:
    """A 2 kg block at rest at the origin, turned (so that an SE3 node's body-frame velocities are not the
    global ones), held against gravity (g = 10 along -z) by ``joint`` alone."""
    return {
        "name": "resting", "formulations": ["RV", "EP", "SE3"],
        "bodies": [{"name": "block", "mass": 2.0, "inertia": [0.1, 0.1, 0.1], "position": [0, 0, 0],
                    "orientation": {"rotation_vector": [0.3, -0.2, 0.5]}}],
        "joints": [{"name": "support", "body1": "block", "body2": "ground", **joint}],
        "forces": [{"type": "gravity", "acceleration": [0, 0, -10.0]}],
        "outputs": [{"name": "reaction", "kind": "joint_force", "joint": "support"},
                    {"name": "at", "kind": "position", "body": "block"}],
    }


@pytest.mark.parametrize("formulation", ["RV", "EP", "SE3"])
@pytest.mark.parametrize("joint", [
    {"type": "prismatic", "point": [0, 0, 0], "axis": [1, 0, 0]},
    {"type": "cylindrical", "point": [0, 0, 0], "axis": [1, 0, 0]},
    {"type": "distance", "point1": [0, 0, 0], "point2": [0, 0, 1.0]},
    {"type": "spherical", "point": [0, 0, 0]},
], ids=["prismatic", "cylindrical", "distance", "spherical"])
def test_the_joint_force_of_every_joint_holds_a_resting_block_against_its_weight(joint, formulation):
    """A horizontal rail (prismatic, cylindrical), a rod to a point above (distance), a ball joint: the
    block stays at rest, and the joint's force on it is its weight reversed, m g = 20 N upwards."""
    data = mechanism_data(validate_mechanism(_resting_on(joint), "resting.yaml"))
    run = run_single(RunSpec("resting", formulation, "generalized-alpha", 1e-3, 0.05, mechanism=data),
                     n_samples=6)
    assert run.status == "ok", run.message
    assert np.abs([run.series[f"at_{axis}"] for axis in "xyz"]).max() < 1e-12
    for axis, expected in zip("xyz", (0.0, 0.0, 20.0)):
        assert np.allclose(run.series[f"reaction_{axis}"], expected, atol=1e-8)
