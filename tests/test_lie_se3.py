"""SE(3) exponential, logarithm and tangent operator (paper 002 eqs. 11b, 34, 35) against the matrix
exponential of the 4x4 block representation (eq. 4); the allocation-free kernels of a step against the
matrix formulas they replace."""
import numpy as np
import pytest
from scipy.linalg import expm

from lgbench.lie.se3 import (
    S_SERIES_BELOW, compose_se3, coupling_coefficients_se3, coupling_entries_se3, exp_se3, log_se3,
    tangent_operator_inverse_se3, tangent_operator_inverse_se3_apply, tangent_operator_se3,
)
from lgbench.lie.so3 import compose_rotation_vectors, exp_so3, hat

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


def _vectors(angle):
    v = sample(angle)
    return v, np.random.default_rng(11).normal(size=6)


def _coupling_by_hats(U, W):
    """S_SE3 of paper 002 eq. (35) by its matrix products."""
    a1, a2, a3, a4 = coupling_coefficients_se3(np.linalg.norm(W))
    hu, hw = hat(U), hat(W)
    return a1 * hu + a2 * (hu @ hw + hw @ hu) + a3 * (W @ U) * hw + a4 * (W @ U) * (hw @ hw)


@pytest.mark.parametrize("angle", ANGLES)
def test_se3_tuple_kernels_equal_the_matrix_formulas(angle):
    """The allocation-free kernels a step calls against the matrices they replace, to a few ulps."""
    v, w = _vectors(angle)
    U, W = v[:3], v[3:]
    eps = np.finfo(float).eps
    scale = 8 * eps * (1 + np.linalg.norm(v)) ** 3 * np.linalg.norm(w)
    np.testing.assert_allclose(np.reshape(coupling_entries_se3(U, W), (3, 3)), _coupling_by_hats(U, W), rtol=0,
                               atol=8 * eps * (1 + np.linalg.norm(v)) ** 2)
    np.testing.assert_allclose(tangent_operator_inverse_se3_apply(U, W, w[:3], w[3:]),
                               tangent_operator_inverse_se3(v) @ w, rtol=0, atol=scale)
    np.testing.assert_allclose(tangent_operator_inverse_se3_apply(tuple(U), tuple(W), tuple(w[:3]), tuple(w[3:])),
                               tangent_operator_inverse_se3(v) @ w, rtol=0, atol=scale)
    x0, psi0 = w[:3], w[3:]
    x, psi = compose_se3(x0, psi0, U, W)
    R, dx = exp_se3(v)
    np.testing.assert_allclose(x, x0 + exp_so3(psi0) @ dx, rtol=0, atol=scale)
    np.testing.assert_array_equal(psi, compose_rotation_vectors(psi0, W))


@pytest.mark.parametrize("angle", ANGLES)
def test_tangent_block_of_the_iteration_matrix_is_t_se3(angle):
    """T_SE3 written entry by entry into the iteration matrix's T (at an offset) is tangent_operator_se3."""
    from lgbench.integrators.iteration_matrix import _write_tangent_se3

    v, _ = _vectors(angle)
    dq = np.concatenate([np.ones(2), v])
    T = np.full((9, 9), 7.0)
    _write_tangent_se3(dq, 2, T, 1)
    np.testing.assert_allclose(T[1:7, 1:7], tangent_operator_se3(v), rtol=0,
                               atol=8 * np.finfo(float).eps * (1 + np.linalg.norm(v)) ** 2)
    assert (T[0] == 7.0).all() and (T[7:] == 7.0).all()


def test_se3_translational_force_is_eq_22b():
    """R^T f - m omega x U of an SE3 node (paper 002 eq. 22b)."""
    from lgbench.mbs.dynamics import se3_translational_force

    rng = np.random.default_rng(5)
    q, v, force, m = rng.normal(size=8), rng.normal(size=9), rng.normal(size=(2, 3)), 2.5
    expected = exp_so3(q[4:7]).T @ force[1] - m * np.cross(v[5:8], v[2:5])
    np.testing.assert_allclose(se3_translational_force(q, v, force, 1, m, 4, 5, 2), expected, rtol=0,
                               atol=16 * np.finfo(float).eps * (np.abs(force).max() + m * np.abs(v).max() ** 2))
