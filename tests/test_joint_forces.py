"""Joint reactions (docs/notes/joint_forces.md): ``joint_force`` and ``joint_torque`` of a mechanism file are
evaluated from the acceleration-level system at the run's state, so they are as accurate as the motion.

Claims:
* a block sliding down a rotated prismatic joint under gravity (tests/data/inclined_slider.yaml) has an
  exactly constant reaction force and moment; generalized-alpha at index 3 and 2, HHT and RK44-index1 give
  both to round-off at h = 1e-3, 1e-4 and 1e-5, not worse as h shrinks (the integrator's own lambda of
  index 3 is off by eps / (beta h^2));
* on a tilted revolute pendulum (tests/data/tilted_pendulum.yaml) the force and the moment about the joint
  point are those of Newton's and Euler's laws at the run's state (to round-off on B v = 0; with the O(h^2)
  of an index-3 run's velocities otherwise);
* at one physical state the reactions of spherical, universal, cylindrical and distance joints are the same
  in RV, Rxyz, EP and SE3, in the global and the body constraint form.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from lgbench.runner.mechanism_file import mechanism_data, validate_mechanism
from lgbench.runner.single_run import RunSpec, run_single

DATA = Path(__file__).parent / "data"
TIGHT = (("newton_atol", 1e-13), ("newton_rtol", 1e-12))


def _data(name: str, text: dict | None = None):
    raw = text if text is not None else yaml.safe_load((DATA / f"{name}.yaml").read_text())
    return raw, mechanism_data(validate_mechanism(raw, f"{name}.yaml"))


def _vector(values: dict, name: str) -> np.ndarray:
    return np.array([values[f"{name}_{c}"] for c in "xyz"])


@pytest.mark.parametrize("h", [1e-3, 1e-4, 1e-5])
@pytest.mark.parametrize("integrator, options", [
    ("generalized-alpha", (("index", 3),) + TIGHT), ("generalized-alpha", (("index", 2),) + TIGHT),
    ("hht", TIGHT), ("RK44-index1", ()),
], ids=["ga-index3", "ga-index2", "hht", "rk44-index1"])
def test_the_reaction_of_an_inclined_slider_is_exact_at_every_step_size(integrator, options, h):
    """The rail's force on the block is m (g . a) a - m g and its moment about the joint point (c - p) x force,
    both constant; the error stays at round-off from h = 1e-3 to 1e-5 (index 3 before: 2e-7, 1e-5, 6e-4 N)."""
    raw, data = _data("inclined_slider")
    p = raw["parameters"]
    axis = np.array([np.cos(p["incline"]) * np.cos(p["heading"]), np.cos(p["incline"]) * np.sin(p["heading"]),
                     -np.sin(p["incline"])])
    gravity = np.array([0.0, 0.0, -p["g"]])
    force = p["mass"] * (gravity @ axis) * axis - p["mass"] * gravity
    moment = np.cross(-np.array(raw["joints"][0]["point"]), force)   # centre of mass at the origin
    run = run_single(RunSpec("inclined_slider", "RV", integrator, h, 0.05, params=(("speed", 5.0),),
                             options=tuple(sorted(options)), mechanism=data))
    assert run.status == "ok", run.message
    assert np.abs(_vector(run.final_outputs, "reaction") - force).max() < 1e-10 * np.linalg.norm(force)
    assert np.abs(_vector(run.final_outputs, "moment") - moment).max() < 1e-10 * np.linalg.norm(moment)


def _euler_reaction(raw: dict, centre, omega, R):
    """Force and moment about the fixed joint point (the origin) that the hinge exerts on the bob at a state:
    Newton's law for the centre of mass and Euler's for the angular momentum J_p omega about the point."""
    p = raw["parameters"]
    m = p["mass"]
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    weight = m * np.array([0.0, 0.0, -p["g"]])
    J = R @ np.diag(raw["bodies"][0]["inertia"]) @ R.T + m * (centre @ centre * np.eye(3) - np.outer(centre, centre))
    angular_acceleration = axis @ np.cross(centre, weight) / (axis @ J @ axis) * axis
    acceleration = np.cross(angular_acceleration, centre) + np.cross(omega, np.cross(omega, centre))
    force = m * acceleration - weight
    moment = J @ angular_acceleration + np.cross(omega, J @ omega) - np.cross(centre, weight)
    return force, moment


def _pendulum_errors(formulation: str, integrator: str, options: tuple, h: float) -> tuple[float, float]:
    """Largest relative error of the hinge's force and moment against Newton's and Euler's laws at the run's
    state, over 11 samples of a 0.5 s swing."""
    raw, data = _data("tilted_pendulum")
    run = run_single(RunSpec("tilted_pendulum", formulation, integrator, h, 0.5, options=tuple(sorted(options)),
                             mechanism=data), n_samples=11)
    assert run.status == "ok", run.message
    s = run.series
    errors = []
    for k in range(len(s["t"])):
        at = {name: values[k] for name, values in s.items()}
        R = np.array([[at[f"attitude_{r}{c}"] for c in "123"] for r in "123"])
        force, moment = _euler_reaction(raw, _vector(at, "centre"), _vector(at, "spin"), R)
        assert np.linalg.norm(moment) > 0.1
        errors.append((np.abs(_vector(at, "reaction") - force).max() / np.linalg.norm(force),
                       np.abs(_vector(at, "moment") - moment).max() / np.linalg.norm(moment)))
    return tuple(np.max(errors, axis=0))


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP", "SE3"])
def test_the_reactions_of_a_tilted_pendulum_follow_newton_and_euler(formulation):
    """Along a swing of the compound pendulum on a tilted hinge (the centre of mass off the joint point along
    and across the axis), force and moment agree with Newton's and Euler's laws at the run's state to 1e-10:
    generalized-alpha at index 2 keeps the state on B v = 0, so the state is that of an exact motion."""
    force, moment = _pendulum_errors(formulation, "generalized-alpha", (("index", 2),) + TIGHT, 1e-3)
    assert force < 1e-10 and moment < 1e-10


@pytest.mark.parametrize("integrator, options", [("generalized-alpha", (("index", 3),) + TIGHT), ("hht", TIGHT)],
                         ids=["ga-index3", "hht"])
def test_the_reactions_of_index3_runs_converge_with_their_velocities(integrator, options):
    """Index-3 runs keep B v = 0 only to O(h^2) (1e-6 at h = 1e-3 here), so the laws at their state hold to
    that order: the reactions' error falls by at least 50 from h = 1e-3 to 1e-4 (order 2)."""
    coarse = _pendulum_errors("RV", integrator, options, 1e-3)
    fine = _pendulum_errors("RV", integrator, options, 1e-4)
    assert fine[0] < coarse[0] / 50 and fine[1] < coarse[1] / 50, (coarse, fine)
    assert fine[0] < 1e-8 and fine[1] < 1e-8, fine


def _chain(form: str) -> dict:
    """Three bodies on a spherical joint to ground, a universal, a cylindrical and a distance joint, all turning
    rigidly about the spherical point with omega (the distance joint's ground point on omega's axis), so that
    the written velocities are consistent and every formulation starts from the same physical state."""
    omega = np.array([0.4, 0.6, -2.0])
    positions = {"A": [0.0, 0.0, -0.5], "B": [0.3, 0.1, -0.9], "C": [0.5, -0.2, -1.3]}
    orientations = {"A": [0.3, -0.5, 0.2], "B": [-0.7, 0.4, 1.1], "C": [0.2, 0.9, -0.4]}
    inertias = {"A": [0.02, 0.03, 0.04], "B": [0.05, 0.01, 0.03], "C": [0.01, 0.02, 0.015]}
    bodies = [{"name": name, "mass": 1.0 + k, "inertia": inertias[name], "position": positions[name],
               "orientation": {"rotation_vector": orientations[name]},
               "velocity": np.cross(omega, positions[name]).tolist(), "angular_velocity": omega.tolist()}
              for k, name in enumerate("ABC")]
    joints = [
        {"name": "ball", "type": "spherical", "body1": "ground", "body2": "A", "point": [0, 0, 0]},
        {"name": "cross", "type": "universal", "body1": "B", "body2": "A", "point": [0.1, 0.05, -1.0],
         "axis1": [1, 0, 0], "axis2": [0, 1, 0]},
        {"name": "sleeve", "type": "cylindrical", "body1": "C", "body2": "B", "point": [0.4, 0, -1.2],
         "axis": [1, 1, -1]},
        {"name": "rod", "type": "distance", "body1": "C", "body2": "ground", "point1": [0.6, -0.3, -1.4],
         "point2": (-0.1 * omega).tolist()},
    ]
    outputs = [{"name": f"{joint['name']}_{kind}", "kind": f"joint_{kind}", "joint": joint["name"]}
               for joint in joints for kind in ("force", "torque")]
    return {"name": "reaction_chain", "formulations": ["RV", "Rxyz", "EP", "SE3"], "constraint_form": form,
            "bodies": bodies, "joints": joints, "forces": [{"type": "gravity", "acceleration": [0, 0, -9.81]}],
            "outputs": outputs}


@pytest.mark.parametrize("form", ["global", "body"])
def test_the_reactions_are_the_same_in_every_formulation(form):
    """At the written state (moving), each joint's force and moment about its point agree in RV, Rxyz, EP and
    SE3 to 1e-10 of their size: the torque's W^{-T} map differs in each, the physics does not."""
    raw, data = _data("reaction_chain", _chain(form))
    model = data.model()
    values = {}
    for formulation in ("RV", "Rxyz", "EP", "SE3"):
        built = model.build(formulation)
        nc = int(built.system.sizes[2])
        values[formulation] = built.outputs(built.system, built.q0, built.v0, np.zeros(nc), 0.0)
    scale = np.abs(values["RV"]).max()
    assert scale > 1.0 and np.all(np.isfinite(values["RV"]))
    for formulation in ("Rxyz", "EP", "SE3"):
        assert np.abs(values[formulation] - values["RV"]).max() < 1e-10 * scale, formulation
    torques = [j for j, name in enumerate(model.outputs) if "_torque_" in name and not name.startswith("rod")]
    assert np.abs(values["RV"][torques]).max() > 0.1


def test_a_reference_of_a_mechanism_file_is_keyed_by_the_code_that_evaluates_its_outputs(tmp_path, monkeypatch):
    """The reactions are computed in lgbench/mechanisms, outside the compiled sources: a cached reference of a
    mechanism file computed by other code there is not reused; a built-in model's key does not read it."""
    from lgbench.runner import reference_cache

    _, data = _data("inclined_slider")
    mechanism = RunSpec("inclined_slider", "RV", "RK44-index1", 1e-3, 0.1, mechanism=data)
    builtin = RunSpec("heavy_top", "RV", "RK44", 1e-3, 0.1)
    code = tmp_path / "mechanisms"
    code.mkdir()
    (code / "outputs.py").write_text("REACTIONS = 'index-1'\n")
    monkeypatch.setattr(reference_cache, "MECHANISM_CODE", code)
    before = reference_cache.reference_key(mechanism, 11), reference_cache.reference_key(builtin, 11)
    (code / "outputs.py").write_text("REACTIONS = 'integrator'\n")
    after = reference_cache.reference_key(mechanism, 11), reference_cache.reference_key(builtin, 11)
    assert before[0] != after[0] and before[1] == after[1]
