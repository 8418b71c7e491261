"""The hidden-constraint Jacobian Z = d(B(q) v)/dz of the stabilised index-2 iteration matrix (paper 002
eq. 62; ``lgbench/mbs/constraint_tangent.py``) equals central differences of B(q) v along UAC on every
constrained model and implicit node type, and index-2 generalized-alpha needs the same Newton iterations
with it as with the forward differences it replaces."""
from pathlib import Path

import numpy as np
import pytest
import yaml

from lgbench.mbs.constraint_tangent import velocity_constraint_tangent
from lgbench.mbs.constraints import constraint_matrix
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.force_tangent import tangent_workspace
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.runner.mechanism_file import mechanism_data, validate_mechanism
from lgbench.runner.single_run import RunSpec, run_single
from shipped_models import ALL_MODELS as MODELS, run_fields

CASES = [(name, formulation) for name, model in MODELS.items() for formulation in model.formulations
         if formulation in IMPLICIT_FORMULATIONS and formulation != "Min"
         and int(model.build(formulation).system.sizes[2]) > 0]


def _state(built, seed):
    """The initial state moved along UAC by a random increment, with random velocities (Z needs no
    consistent state)."""
    chance = np.random.default_rng(seed)
    q = np.empty_like(built.q0)
    update_coordinates(built.system, built.q0, 0.3 * chance.standard_normal(built.v0.shape[0]), q)
    return q, built.v0 + chance.standard_normal(built.v0.shape[0])


def _differences(system, q, v, step=1e-6):
    nv, nc = v.shape[0], int(system.sizes[2])
    C = np.zeros((nc, nv))
    out = np.zeros((nc, nv))
    for k in range(nv):
        rates = []
        for sign in (1.0, -1.0):
            z = np.zeros(nv)
            z[k] = sign * step
            moved = np.empty_like(q)
            update_coordinates(system, q, z, moved)
            constraint_matrix(system, moved, C)
            rates.append(C @ v)
        out[:, k] = (rates[0] - rates[1]) / (2.0 * step)
    return out


def _analytic(system, q, v):
    tw = tangent_workspace(system)
    Z = np.full((int(system.sizes[2]), v.shape[0]), np.nan)
    velocity_constraint_tangent(system, q, v, tw.kinematics, tw.load_map, Z)
    return Z


@pytest.mark.parametrize("name, formulation", CASES, ids=[f"{n}-{f}" for n, f in CASES])
@pytest.mark.parametrize("seed", [4, 17])
def test_hidden_constraint_jacobian_equals_differences_of_the_constraint_velocities(name, formulation, seed):
    built = MODELS[name].build(formulation)
    q, v = _state(built, seed)
    expected = _differences(built.system, q, v)
    scale = max(np.abs(expected).max(), 1e-12)
    assert np.abs(_analytic(built.system, q, v) - expected).max() <= 1e-6 * scale


@pytest.mark.parametrize("name", ["heavy_top_constrained", "slider_crank"])
@pytest.mark.parametrize("formulation", ["RV", "SE3", "EP"])
def test_body_frame_joint_rows_are_differentiated(name, formulation):
    """Paper 002's body-frame joints: the top's point X - R^T x = 0, and the slider-crank's spherical,
    revolute and universal joints as R1^T (p2 - p1) = 0 between two bodies (``constraint_form: body``)."""
    built = MODELS[name].build(formulation, {"constraint_form": "body"})
    for seed in (1, 2):
        q, v = _state(built, seed)
        expected = _differences(built.system, q, v)
        assert np.abs(_analytic(built.system, q, v) - expected).max() <= 1e-6 * np.abs(expected).max()


def _welded_plate(formulation, constraint_form):
    """tests/data/welded_plate.yaml: point rows kept in part, as POINT_ON_LINE and POINT_ON_PLANE rows
    (``lgbench/mbs/redundancy.py``)."""
    document = yaml.safe_load((Path(__file__).resolve().parent / "data" / "welded_plate.yaml").read_text())
    document["constraint_form"] = constraint_form
    return mechanism_data(validate_mechanism(document, "welded_plate.yaml")).model().build(formulation)


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP", "SE3"])
@pytest.mark.parametrize("constraint_form", ["global", "body"])
def test_point_rows_kept_in_part_are_differentiated(formulation, constraint_form):
    built = _welded_plate(formulation, constraint_form)
    for seed in (1, 2):
        q, v = _state(built, seed)
        expected = _differences(built.system, q, v)
        assert np.abs(_analytic(built.system, q, v) - expected).max() <= 1e-6 * np.abs(expected).max()


def test_every_joint_primitive_is_covered():
    from lgbench.mbs.codes import JointPrimitive
    from lgbench.mbs.system import J_TYPE
    seen = set()
    for name, formulation in CASES:
        seen |= {int(kind) for kind in MODELS[name].build(formulation).system.joint_int[:, J_TYPE]}
    seen |= {int(kind) for kind in MODELS["heavy_top_constrained"].build("RV", {"constraint_form": "body"})
             .system.joint_int[:, J_TYPE]}
    seen |= {int(kind) for kind in _welded_plate("RV", "global").system.joint_int[:, J_TYPE]}
    assert seen == {int(kind) for kind in JointPrimitive}, seen


INDEX2 = [("slider_crank", f) for f in ("RV", "SE3", "Rxyz", "EP")] + [("puma560", "RV"), ("double_pendulum", "SE3"),
                                                                       ("heavy_top_constrained", "EP")]


@pytest.mark.parametrize("name, formulation", INDEX2, ids=[f"{n}-{f}" for n, f in INDEX2])
def test_index2_newton_counts_unchanged_by_the_analytic_hidden_constraint_jacobian(name, formulation):
    runs = [run_single(RunSpec(name, formulation, "generalized-alpha", 1e-3, 0.05,
                               options=(("index", 2), ("jacobian", jacobian)), **run_fields(name)))
            for jacobian in ("analytic", "finite-difference")]
    assert all(run.status == "ok" for run in runs), [run.message for run in runs]
    assert abs(runs[0].statistics["newton_per_step"] - runs[1].statistics["newton_per_step"]) <= 0.05
    for key, value in runs[0].final_outputs.items():
        assert value == pytest.approx(runs[1].final_outputs[key], rel=1e-6, abs=1e-8), key
