"""Joint primitives: Phi, B = dPhi'/dv and the curvature term against finite differences, for every
formulation that an implicit integrator accepts (paper 000 eq. 10, paper 002 eqs. 16-18)."""
import numpy as np
import pytest

from lgbench.lie.euler_parameters import body_ep_matrix, ep_from_rotation_vector
from lgbench.lie.so3 import exp_so3
from lgbench.lie.tait_bryan import body_rate_matrix_rxyz, rxyz_from_rotation_matrix
from lgbench.mbs.assembly import assemble_positions, constraint_state, project_velocities
from lgbench.mbs.codes import FREE
from lgbench.mbs.constraints import constraint_curvature
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.system import GROUND, SystemBuilder

RNG = np.random.default_rng(7)


def body_coordinates(formulation, x, R, u, omega):
    if formulation == "RV":
        from lgbench.lie.so3 import log_so3
        return np.concatenate([x, log_so3(R)]), np.concatenate([u, omega])
    if formulation == "Rxyz":
        theta = rxyz_from_rotation_matrix(R)
        return np.concatenate([x, theta]), np.concatenate([u, np.linalg.solve(body_rate_matrix_rxyz(theta), omega)])
    e = ep_from_rotation_vector(np.zeros(3))
    from lgbench.lie.euler_parameters import ep_from_rotation_matrix
    e = ep_from_rotation_matrix(R)
    return np.concatenate([x, e]), np.concatenate([u, 0.5 * body_ep_matrix(e).T @ omega])


def random_system(formulations, consistent=False, constraint_form="global"):
    """Three free bodies chained to ground by revolute, spherical, universal and prismatic joints, their
    point rows in global components or in body 1's frame (``constraint_form``).

    With ``consistent`` the joint data are derived from the random poses, so that they are an
    assembled configuration; otherwise points and axes are random (fine for derivative checks).
    """
    poses = [(RNG.normal(size=3), exp_so3(RNG.normal(size=3))) for _ in formulations]

    def local(body, point):       # global point -> body frame (ground: global)
        x, R = poses[body]
        return R.T @ (point - x)

    def direction(body, vector):  # global vector -> body frame
        return poses[body][1].T @ vector

    builder = SystemBuilder(constraint_form)
    bodies = [builder.add_body(FREE, f, 1.0 + k, [1.0, 2.0, 3.0]) for k, f in enumerate(formulations)]
    b0, b1, b2 = bodies
    pts = RNG.normal(size=(4, 3))
    axis = RNG.normal(size=3)
    axis /= np.linalg.norm(axis)
    if consistent:
        builder.add_revolute_joint(b0, local(0, pts[0]), direction(0, axis), GROUND, pts[0], axis)
        builder.add_spherical_joint(b0, local(0, pts[1]), b1, local(1, pts[1]))
        other = np.cross(axis, [0.0, 0.0, 1.0])
        builder.add_universal_joint(b1, local(1, pts[2]), direction(1, axis), b2, local(2, pts[2]),
                                    direction(2, other))
        builder.add_prismatic_joint(b2, local(2, pts[3]), direction(2, axis), GROUND, pts[3],
                                    relative_rotation=poses[2][1].T)
    else:
        builder.add_revolute_joint(b0, pts[0], axis, GROUND, pts[1], [0.2, 0.1, 1.0])
        builder.add_spherical_joint(b0, pts[2], b1, pts[3])
        builder.add_universal_joint(b1, pts[1], [1.0, 0.0, 0.0], b2, pts[0], [0.0, 1.0, 0.2])
        builder.add_prismatic_joint(b2, pts[3], [0.3, 1.0, 0.0], GROUND, pts[2],
                                    relative_rotation=exp_so3(np.array([0.3, -0.2, 0.5])))
    system = builder.build()
    q, v = [], []
    for f, (x, R) in zip(formulations, poses):
        qi, vi = body_coordinates(f, x, R, RNG.normal(size=3), RNG.normal(size=3))
        q.append(qi)
        v.append(vi)
    return system, np.concatenate(q), np.concatenate(v)


@pytest.mark.parametrize("constraint_form", ["global", "body"])
@pytest.mark.parametrize("formulations", [("RV", "RV", "RV"), ("Rxyz", "EP", "RV"), ("EP", "EP", "Rxyz")])
def test_constraint_matrix_is_the_velocity_derivative_of_phi(formulations, constraint_form):
    system, q, v = random_system(formulations, constraint_form=constraint_form)
    phi0, B = constraint_state(system, q)
    eps = 1e-6
    plus, minus = np.empty_like(q), np.empty_like(q)
    update_coordinates(system, q, eps * v, plus)
    update_coordinates(system, q, -eps * v, minus)
    derivative = (constraint_state(system, plus)[0] - constraint_state(system, minus)[0]) / (2 * eps)
    np.testing.assert_allclose(B @ v, derivative, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("constraint_form", ["global", "body"])
@pytest.mark.parametrize("formulations", [("RV", "RV", "RV"), ("Rxyz", "EP", "RV"), ("EP", "EP", "Rxyz")])
def test_curvature_term_is_the_time_derivative_of_b_v_at_constant_velocity(formulations, constraint_form):
    system, q, v = random_system(formulations, constraint_form=constraint_form)
    curvature = np.zeros(int(system.sizes[2]))
    constraint_curvature(system, q, v, curvature)
    eps = 1e-6
    plus, minus = np.empty_like(q), np.empty_like(q)
    update_coordinates(system, q, eps * v, plus)
    update_coordinates(system, q, -eps * v, minus)
    derivative = (constraint_state(system, plus)[1] @ v - constraint_state(system, minus)[1] @ v) / (2 * eps)
    np.testing.assert_allclose(curvature, derivative, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("constraint_form", ["global", "body"])
@pytest.mark.parametrize("formulations", [("RV", "RV", "RV"), ("Rxyz", "EP", "RV")])
def test_assembly_puts_positions_on_phi_zero_and_velocities_on_b_v_zero(formulations, constraint_form):
    system, q, v = random_system(formulations, consistent=True, constraint_form=constraint_form)
    assert np.max(np.abs(constraint_state(system, q)[0])) < 1e-12
    perturbed = np.empty_like(q)
    update_coordinates(system, q, 1e-2 * RNG.normal(size=q.shape[0]), perturbed)
    assert np.max(np.abs(constraint_state(system, perturbed)[0])) > 1e-3
    q = assemble_positions(system, perturbed)
    v = project_velocities(system, q, v)
    phi, B = constraint_state(system, q)
    assert np.max(np.abs(phi)) < 1e-13
    assert np.max(np.abs(B @ v)) < 1e-12
    # 3 free bodies (18 DOF) - revolute 5 - spherical 3 - universal 4 - prismatic 5 = 1 DOF
    # (EP bodies add one coordinate and one norm constraint each)
    n_ep = formulations.count("EP")
    assert np.linalg.matrix_rank(B) == 17 + n_ep
    assert B.shape == (17 + n_ep, 18 + n_ep)
