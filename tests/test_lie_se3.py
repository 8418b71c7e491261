"""SE(3) exponential, logarithm and tangent operator (paper 002 eqs. 11b, 34, 35) against the matrix
exponential of the 4x4 block representation (eq. 4)."""
import numpy as np
import pytest
from scipy.linalg import expm

from lgbench.lie.se3 import (
    S_SERIES_BELOW, coupling_coefficients_se3, exp_se3, log_se3, tangent_operator_inverse_se3,
    tangent_operator_se3,
)
from lgbench.lie.so3 import hat

ANGLES = [0.0, 1e-7, 1e-3, 0.3, S_SERIES_BELOW * (1 - 1e-9), S_SERIES_BELOW * (1 + 1e-9), 1.0, 2.5, 3.1]


def algebra_matrix(v):
    """4x4 element of se(3) for v = [U, Omega] (paper 002 eq. before 11a)."""
    A = np.zeros((4, 4))
    A[:3, :3] = hat(v[3:])
    A[:3, 3] = v[:3]
    return A


def algebra_vector(A):
    return np.array([A[0, 3], A[1, 3], A[2, 3], A[2, 1], A[0, 2], A[1, 0]])


def sample(angle, seed=3):
    v = np.random.default_rng(seed).normal(size=6)
    v[3:] *= angle / np.linalg.norm(v[3:]) if angle > 0 else 0.0
    return v


@pytest.mark.parametrize("angle", ANGLES)
def test_exp_se3_is_the_matrix_exponential_eq_11b(angle):
    v = sample(angle)
    R, x = exp_se3(v)
    E = expm(algebra_matrix(v))
    np.testing.assert_allclose(R, E[:3, :3], atol=1e-14)
    np.testing.assert_allclose(x, E[:3, 3], atol=1e-14)
    np.testing.assert_allclose(log_se3(R, x), v, atol=1e-13)


@pytest.mark.parametrize("angle", ANGLES)
def test_tangent_operator_se3_is_the_derivative_of_exp_eq_35(angle):
    """d/ds exp(v + s w) = exp(v) (T_SE3(v) w)~ (paper 002 eq. 27, Cor. 2.7)."""
    v = sample(angle)
    w = np.random.default_rng(7).normal(size=6)
    s = 1e-6
    derivative = (expm(algebra_matrix(v + s * w)) - expm(algebra_matrix(v - s * w))) / (2 * s)
    left = np.linalg.solve(expm(algebra_matrix(v)), derivative)
    np.testing.assert_allclose(tangent_operator_se3(v) @ w, algebra_vector(left), atol=2e-9)
    np.testing.assert_allclose(tangent_operator_inverse_se3(v) @ tangent_operator_se3(v), np.eye(6), atol=1e-14)
    # T(v) v = v (Remark 2.8a)
    np.testing.assert_allclose(tangent_operator_se3(v) @ v, v, atol=1e-14)


def test_coupling_coefficients_switch_smoothly_between_series_and_closed_form():
    below = np.array(coupling_coefficients_se3(S_SERIES_BELOW * (1 - 1e-12)))
    above = np.array(coupling_coefficients_se3(S_SERIES_BELOW * (1 + 1e-12)))
    np.testing.assert_allclose(below, above, rtol=5e-13)
    np.testing.assert_allclose(coupling_coefficients_se3(0.0), [-0.5, 1 / 6, 1 / 12, -1 / 60], rtol=1e-15)
