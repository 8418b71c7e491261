"""Joints written in body 1's frame, R1^T (p2 - p1) = 0 (``constraint_form: body``, paper 002's form of
eq. 21c between two bodies): the same constraint manifold and the same row space of B as p1 - p2 = 0, so
generalized-alpha's solution is the same and only lambda turns into body 1's frame; for a joint to ground
on SE3 nodes B is constant on the manifold (Lemma 3.5), which modified Newton feels."""
import json

import numpy as np
import pytest

from lgbench.lie.so3 import exp_so3
from lgbench.mbs.constraints import constraint_curvature, constraint_matrix
from lgbench.runner.mechanism_file import mechanism_data, validate_mechanism
from lgbench.runner.single_run import RunSpec, run_single
from shipped_models import run_fields


def _sprung_pendulum(form: str) -> dict:
    """The shipped sprung pendulum (one spherical joint, rod to ground) with its joint in ``form``."""
    document = json.loads(run_fields("sprung_pendulum")["mechanism"].text)
    document["constraint_form"] = form
    return {"mechanism": mechanism_data(validate_mechanism(document, "sprung_pendulum.yaml"))}


@pytest.mark.parametrize("formulation", ["RV", "SE3", "EP"])
@pytest.mark.parametrize("index", [3, 2])
def test_the_body_frame_form_turns_lambda_and_leaves_the_motion(formulation, index):
    """Slider-crank (a revolute joint to ground, a spherical and a universal joint between bodies):
    both forms give the same positions and velocities to the Newton tolerance, and the same ||B v||."""
    runs = [run_single(RunSpec("slider_crank", formulation, "generalized-alpha", 1e-3, 0.1,
                               params=(("constraint_form", form),), options=(("index", index),)))
            for form in ("global", "body")]
    assert [run.status for run in runs] == ["ok", "ok"], [run.message for run in runs]
    for name, value in runs[0].final_outputs.items():
        assert runs[1].final_outputs[name] == pytest.approx(value, rel=1e-8, abs=1e-10), name
    bv = [run.statistics["max_velocity_constraint_residual"] for run in runs]
    assert bv[1] == pytest.approx(bv[0], rel=1e-3) if index == 3 else max(bv) < 1e-10


def test_se3_joint_to_ground_in_the_body_frame_has_a_constant_b_on_the_manifold_lemma_3_5():
    """The rod's socket R^T (g - x - R b) = 0 on SE3: B = [-I, hat(b)] in (U, Omega) at the assembled
    state, and (B' v) v = 0 there; in global components B = -R [-I, hat(b)] turns with the rod."""
    rows = slice(0, 3)
    for form, constant in (("body", True), ("global", False)):
        built = _sprung_pendulum(form)["mechanism"].model().build("SE3")
        nc, nv = int(built.system.sizes[2]), built.v0.shape[0]
        B = np.zeros((nc, nv))
        constraint_matrix(built.system, built.q0, B)
        curvature = np.zeros(nc)
        constraint_curvature(built.system, built.q0, built.v0, curvature)
        b = -exp_so3(built.q0[3:6]).T @ built.q0[0:3]      # the socket (global origin) in the rod's frame
        assert np.linalg.norm(b) == pytest.approx(0.4, rel=1e-4)
        hat = np.array([[0.0, -b[2], b[1]], [b[2], 0.0, -b[0]], [-b[1], b[0], 0.0]])
        expected = np.hstack([-np.eye(3), hat])
        if constant:
            np.testing.assert_allclose(B[rows, 0:6], expected, atol=1e-14)
            np.testing.assert_allclose(curvature[rows], 0.0, atol=1e-12)
        else:
            np.testing.assert_allclose(B[rows, 0:6], -exp_so3(built.q0[3:6]) @ expected, atol=1e-14)


@pytest.mark.parametrize("formulation", ["RV", "SE3", "EP"])
def test_the_joint_force_is_the_same_global_force_in_either_form(formulation):
    """lambda of the body form is body 1's frame force; the ``joint_force`` output (-B^T lambda on body 1,
    global) is the socket's force on the rod in both forms, to the Newton tolerance on lambda."""
    runs = [run_single(RunSpec("sprung_pendulum", formulation, "generalized-alpha", 1e-3, 0.1,
                               **_sprung_pendulum(form))) for form in ("global", "body")]
    assert [run.status for run in runs] == ["ok", "ok"], [run.message for run in runs]
    for axis in "xyz":
        name = f"socket_force_{axis}"
        assert runs[1].final_outputs[name] == pytest.approx(runs[0].final_outputs[name], abs=1e-4), name
    assert abs(runs[0].final_outputs["socket_force_z"]) > 1.0


def test_modified_newton_keeps_its_matrix_on_se3_with_body_frame_joints_to_ground():
    """Paper 002 Sect. 3.5 (after Brüls et al. 2011): constant M and B need very few Jacobian updates. The
    sprung pendulum on SE3 nodes, modified Newton, h = 1e-3 over 0.1 s: one iteration matrix for the whole
    run in the body form against five in global components, half the iterations per step."""
    runs = {form: run_single(RunSpec("sprung_pendulum", "SE3", "generalized-alpha", 1e-3, 0.1,
                                     options=(("newton", "modified"),), **_sprung_pendulum(form)))
            for form in ("global", "body")}
    assert all(run.status == "ok" for run in runs.values())
    assert runs["body"].statistics["jacobians"] == 1 < runs["global"].statistics["jacobians"]
    assert runs["body"].statistics["newton_per_step"] < 0.6 * runs["global"].statistics["newton_per_step"]


@pytest.mark.parametrize("formulation", ["RV", "SE3"])
def test_the_heavy_top_reports_the_body_form_multiplier_of_paper_002(formulation):
    """lambda_body_x..z is the multiplier of X - R^T x = 0 (paper 002 eq. 21c): what the global form turns
    into the body frame is what the body form computes (to the index-3 discretisation's difference
    between the forms, 4e-4 relative after 50 steps on RV), and it is not the global multiplier."""
    runs = [run_single(RunSpec("heavy_top_constrained", formulation, "generalized-alpha", 1e-3, 0.05,
                               params=(("constraint_form", form),))) for form in ("global", "body")]
    assert [run.status for run in runs] == ["ok", "ok"]
    body = [np.array([run.final_outputs[f"lambda_body_{a}"] for a in "xyz"]) for run in runs]
    np.testing.assert_allclose(body[0], body[1], rtol=1e-3)
    inertial = np.array([runs[1].final_outputs[f"lambda_{a}"] for a in "xyz"])
    assert np.linalg.norm(body[1] - inertial) > 1e-2 * np.linalg.norm(inertial)
    assert np.linalg.norm(body[1]) == pytest.approx(np.linalg.norm(inertial), rel=1e-12)
