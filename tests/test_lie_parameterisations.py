"""Rotation parameterisations: Tait-Bryan xyz angles and Euler parameters (lgbench/lie/).

Every kinematic matrix is checked against central finite differences of the rotation matrix,
which is the definition it has to satisfy:

* Tait-Bryan: omega_body = vee(R^T R') = G(theta) theta', and G' = d/dt G(theta(t)).
* Euler parameters: omega_body = vee(R^T R') = 2 L(e) e', omega_global = vee(R' R^T) = 2 G(e) e'.

Finite-difference tolerance: step 1e-6 on O(1) quantities gives truncation ~1e-12 and round-off
~eps/1e-6 ~ 2e-10, so 1e-8 is safe and still ~1e6 below the size of any sign or index error.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lgbench.lie.euler_parameters import (
    body_ep_matrix, ep_from_rotation_matrix, ep_from_rotation_vector, ep_product, global_ep_matrix,
    rotation_matrix_ep, rotation_vector_from_ep,
)
from lgbench.lie.so3 import exp_so3, vee
from lgbench.lie.tait_bryan import (
    SINGULAR_COS_PITCH, body_rate_matrix_dot_rxyz, body_rate_matrix_rxyz, rotation_matrix_rxyz,
    rxyz_from_rotation_matrix, rxyz_is_singular,
)

EPS = np.finfo(float).eps
FD_STEP = 1e-6
FD_TOL = 1e-8


def fd(fun, x, xdot, step=FD_STEP):
    """Central difference of fun along the straight path x + t xdot at t = 0."""
    return (fun(x + step * xdot) - fun(x - step * xdot)) / (2 * step)


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


angle = st.floats(-3.1, 3.1, allow_nan=False)           # away from the +-pi branch cut of atan2
pitch = st.floats(-1.5, 1.5, allow_nan=False)          # |cos(pitch)| >= 0.07: well away from the lock
rate = st.floats(-3.0, 3.0, allow_nan=False)
theta_st = st.tuples(angle, pitch, angle).map(np.array)
rates_st = st.tuples(rate, rate, rate).map(np.array)
quat_st = (st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=4, max_size=4).map(np.array)
           .filter(lambda e: np.linalg.norm(e) > 0.1).map(lambda e: e / np.linalg.norm(e)))
rotvec_st = st.lists(st.floats(-1.8, 1.8, allow_nan=False), min_size=3, max_size=3).map(np.array)


# ----------------------------------------------------------------------------------------------
# Tait-Bryan xyz
# ----------------------------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(theta_st)
def test_rxyz_is_the_product_of_elementary_rotations(theta):
    R = rotation_matrix_rxyz(theta)
    np.testing.assert_allclose(R, _rx(theta[0]) @ _ry(theta[1]) @ _rz(theta[2]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=4 * EPS)


@settings(max_examples=50, deadline=None)
@given(theta_st, rates_st)
def test_rxyz_body_rate_matrix_maps_angle_rates_to_body_angular_velocity(theta, theta_dot):
    R = rotation_matrix_rxyz(theta)
    Rdot = fd(rotation_matrix_rxyz, theta, theta_dot)
    omega_fd = vee(R.T @ Rdot)
    np.testing.assert_allclose(body_rate_matrix_rxyz(theta) @ theta_dot, omega_fd, rtol=0, atol=FD_TOL)
    # R^T R' is skew (R' is tangent to SO(3) at R): a sanity check of the FD itself
    np.testing.assert_allclose(R.T @ Rdot + (R.T @ Rdot).T, 0.0, rtol=0, atol=FD_TOL)


@settings(max_examples=50, deadline=None)
@given(theta_st, rates_st)
def test_rxyz_body_rate_matrix_derivative_matches_finite_differences(theta, theta_dot):
    Gd = body_rate_matrix_dot_rxyz(theta, theta_dot)
    np.testing.assert_allclose(Gd, fd(body_rate_matrix_rxyz, theta, theta_dot), rtol=0, atol=FD_TOL)


def test_rxyz_rate_check_can_fail():
    """A transposed G (a plausible bug) is far off the finite-difference reference."""
    theta, theta_dot = np.array([0.3, -0.7, 1.1]), np.array([1.0, -2.0, 0.5])
    R = rotation_matrix_rxyz(theta)
    omega_fd = vee(R.T @ fd(rotation_matrix_rxyz, theta, theta_dot))
    assert np.linalg.norm(body_rate_matrix_rxyz(theta).T @ theta_dot - omega_fd) > 0.1


@settings(max_examples=50, deadline=None)
@given(theta_st)
def test_rxyz_from_rotation_matrix_round_trip(theta):
    back = rxyz_from_rotation_matrix(rotation_matrix_rxyz(theta))
    # |cos(pitch)| >= 0.07, so the angles are well conditioned (error ~ eps / cos(pitch))
    np.testing.assert_allclose(back, theta, rtol=0, atol=1e-13)


@settings(max_examples=50, deadline=None)
@given(rotvec_st)
def test_rxyz_from_rotation_matrix_reproduces_any_rotation(psi):
    R = exp_so3(psi)
    theta = rxyz_from_rotation_matrix(R)
    assert -math.pi / 2 <= theta[1] <= math.pi / 2
    if abs(math.cos(theta[1])) > 1e-3:
        np.testing.assert_allclose(rotation_matrix_rxyz(theta), R, rtol=0, atol=1e-12)


def test_rxyz_gimbal_lock_is_detected_at_pitch_half_pi():
    for p in (math.pi / 2, -math.pi / 2):
        theta = np.array([0.4, p, -1.2])
        assert rxyz_is_singular(theta)
        # det G = cos(pitch): G is (numerically) singular exactly there
        assert abs(np.linalg.det(body_rate_matrix_rxyz(theta))) < SINGULAR_COS_PITCH
    for p in (0.0, 1.0, math.pi / 2 - 1e-6, -math.pi / 2 + 1e-6):
        assert not rxyz_is_singular(np.array([0.4, p, -1.2]))


@settings(max_examples=50, deadline=None)
@given(theta_st)
def test_rxyz_det_G_is_cos_pitch(theta):
    assert np.linalg.det(body_rate_matrix_rxyz(theta)) == pytest.approx(math.cos(theta[1]), abs=1e-14)


# ----------------------------------------------------------------------------------------------
# Euler parameters
# ----------------------------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(quat_st)
def test_ep_rotation_matrix_is_orthogonal_for_unit_parameters(e):
    R = rotation_matrix_ep(e)
    np.testing.assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=8 * EPS)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=8 * EPS)
    # e and -e are the same rotation
    np.testing.assert_array_equal(rotation_matrix_ep(-e), R)


@settings(max_examples=50, deadline=None)
@given(quat_st)
def test_ep_matrices_satisfy_the_standard_identities(e):
    """L e = G e = 0, L L^T = G G^T = I, R = G L^T (Nikravesh)."""
    L, G = body_ep_matrix(e), global_ep_matrix(e)
    np.testing.assert_allclose(L @ e, 0.0, atol=4 * EPS)
    np.testing.assert_allclose(G @ e, 0.0, atol=4 * EPS)
    np.testing.assert_allclose(L @ L.T, np.eye(3), atol=4 * EPS)
    np.testing.assert_allclose(G @ G.T, np.eye(3), atol=4 * EPS)
    np.testing.assert_allclose(G @ L.T, rotation_matrix_ep(e), atol=4 * EPS)


def _unit_path(e, d):
    """A curve on the unit sphere through e with tangent d projected: e(t) = (e + t d)/|e + t d|."""
    return lambda t: (e + t * d) / np.linalg.norm(e + t * d)


@settings(max_examples=50, deadline=None)
@given(quat_st, st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=4, max_size=4).map(np.array))
def test_ep_body_and_global_matrices_match_finite_differences(e, d):
    path = _unit_path(e, d)
    h = FD_STEP
    edot = (path(h) - path(-h)) / (2 * h)
    R = rotation_matrix_ep(e)
    Rdot = (rotation_matrix_ep(path(h)) - rotation_matrix_ep(path(-h))) / (2 * h)
    np.testing.assert_allclose(2 * body_ep_matrix(e) @ edot, vee(R.T @ Rdot), rtol=0, atol=FD_TOL)
    np.testing.assert_allclose(2 * global_ep_matrix(e) @ edot, vee(Rdot @ R.T), rtol=0, atol=FD_TOL)


def test_ep_body_and_global_matrices_are_not_interchangeable():
    """The FD test can fail: for a generic rotation, L and G give different angular velocities."""
    e = ep_from_rotation_vector(np.array([0.5, -0.3, 1.0]))
    d = np.array([0.1, 0.7, -0.2, 0.4])
    path = _unit_path(e, d)
    edot = (path(FD_STEP) - path(-FD_STEP)) / (2 * FD_STEP)
    assert np.linalg.norm((body_ep_matrix(e) - global_ep_matrix(e)) @ edot) > 0.1


@settings(max_examples=50, deadline=None)
@given(rotvec_st)
def test_ep_of_rotation_vector_gives_the_exponential(psi):
    e = ep_from_rotation_vector(psi)
    assert np.linalg.norm(e) == pytest.approx(1.0, abs=2 * EPS)
    np.testing.assert_allclose(rotation_matrix_ep(e), exp_so3(psi), rtol=0, atol=1e-15)


@pytest.mark.parametrize("phi", [0.0, 1e-300, 1e-12, 1e-5, 0.5, 3.0, math.pi - 1e-9])
def test_ep_rotation_vector_round_trip(phi):
    axis = np.array([2.0, -1.0, 0.5]) / math.sqrt(5.25)
    psi = phi * axis
    back = rotation_vector_from_ep(ep_from_rotation_vector(psi))
    assert np.linalg.norm(back - psi) <= 8 * EPS * np.linalg.norm(psi)
    # rotation_vector_from_ep normalises its input and is blind to the sign of e
    e = ep_from_rotation_vector(psi)
    np.testing.assert_allclose(rotation_vector_from_ep(3.0 * e), back, rtol=0, atol=8 * EPS * phi)
    np.testing.assert_allclose(rotation_vector_from_ep(-e), back, rtol=0, atol=8 * EPS * phi)


@settings(max_examples=50, deadline=None)
@given(quat_st, quat_st)
def test_ep_product_composes_rotation_matrices(a, b):
    np.testing.assert_allclose(rotation_matrix_ep(ep_product(a, b)),
                               rotation_matrix_ep(a) @ rotation_matrix_ep(b), rtol=0, atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(quat_st)
def test_ep_from_rotation_matrix_recovers_the_parameters_up_to_sign(e):
    back = ep_from_rotation_matrix(rotation_matrix_ep(e))
    assert min(np.linalg.norm(back - e), np.linalg.norm(back + e)) < 1e-14
