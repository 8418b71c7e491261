"""Vectorial parameterisations of rotation and motion (paper 003 Sect. 2, 4; lgbench/lie/vectorial.py).

Checked against their definitions: R(p) is the rotation of angle phi = p^-1(|p|) about p/|p|
(so3.exp_so3), omega = H(p) p' with omega~ = R' R^T (central finite differences, step 1e-6,
tolerance 1e-8), H^-1 H = I, p -> R -> p round trips, and for motion the eigenvector property
C*(Q) Q = Q, the SE(3) exponential (exponential map) and the Cayley transform of the 6x6 Q~
(Cayley-Gibbs-Rodrigues, paper 003 Sect. 4.1 with Z = I).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from lgbench.lie.so3 import exp_so3, hat, vee
from lgbench.lie.vectorial import (
    PARAMETERISATIONS, SERIES_BELOW, generating_function, motion_increment, motion_tensor,
    parameters_of_rotation, rotation_angle, rotation_tensor, tangent_tensor, tangent_tensor_inverse,
)

KINDS = list(PARAMETERISATIONS.items())
RNG = np.random.default_rng(3)
# directions and angles: series branch (1e-5, just below/above the switch), moderate and large angles
ANGLES = [1e-5, 0.99 * SERIES_BELOW, 1.01 * SERIES_BELOW, 0.3, 1.7, 2.5]   # Euler-Rodrigues is singular at pi
AXES = [a / np.linalg.norm(a) for a in RNG.normal(size=(3, 3))]


def parameters(kind: int, phi: float, axis: np.ndarray) -> np.ndarray:
    return generating_function(kind, phi) * axis


@pytest.mark.parametrize("name, kind", KINDS)
def test_rotation_tensor_is_the_rotation_of_angle_phi_about_the_axis_eq3(name, kind):
    for phi in ANGLES:
        for axis in AXES:
            p = parameters(kind, phi, axis)
            R = rotation_tensor(kind, p)
            assert np.allclose(R, exp_so3(phi * axis), rtol=0, atol=1e-14), (phi, axis)
            assert np.allclose(R.T @ R, np.eye(3), rtol=0, atol=1e-14)
            assert rotation_angle(kind, np.linalg.norm(p)) == pytest.approx(phi, rel=1e-12)


@pytest.mark.parametrize("name, kind", KINDS)
def test_tangent_tensor_matches_finite_differences_of_R(name, kind):
    step = 1e-6
    for phi in ANGLES:
        for axis in AXES:
            p = parameters(kind, phi, axis)
            pdot = RNG.normal(size=3)
            Rdot = (rotation_tensor(kind, p + step * pdot) - rotation_tensor(kind, p - step * pdot)) / (2 * step)
            omega = vee(Rdot @ rotation_tensor(kind, p).T)
            assert np.allclose(tangent_tensor(kind, p) @ pdot, omega, rtol=0, atol=1e-8), (phi, axis)


@pytest.mark.parametrize("name, kind", KINDS)
def test_tangent_tensor_inverse_and_round_trip(name, kind):
    for phi in ANGLES:
        for axis in AXES:
            p = parameters(kind, phi, axis)
            assert np.allclose(tangent_tensor_inverse(kind, p) @ tangent_tensor(kind, p), np.eye(3),
                               rtol=0, atol=1e-13)
            assert np.allclose(parameters_of_rotation(kind, rotation_tensor(kind, p)), p, rtol=1e-13, atol=1e-15)


def twist_6x6(Q: np.ndarray) -> np.ndarray:
    """Q~ = [[p~, q~], [0, p~]] (paper 003 Sect. 4.1)."""
    out = np.zeros((6, 6))
    out[0:3, 0:3] = hat(Q[3:6])
    out[3:6, 3:6] = hat(Q[3:6])
    out[0:3, 3:6] = hat(Q[0:3])
    return out


def motions():
    for phi in ANGLES:
        for axis in AXES:
            yield phi, axis, RNG.normal(size=3)


@pytest.mark.parametrize("name, kind", KINDS)
def test_motion_parameters_are_an_eigenvector_of_the_motion_tensor(name, kind):
    for phi, axis, q in motions():
        Q = np.concatenate([q, parameters(kind, phi, axis)])
        R, u = motion_increment(kind, Q)
        assert np.allclose(R, rotation_tensor(kind, Q[3:6]), rtol=0, atol=1e-15)
        assert np.allclose(motion_tensor(R, u) @ Q, Q, rtol=0, atol=1e-13)


def test_exponential_motion_is_the_se3_exponential():
    kind = PARAMETERISATIONS["exponential"]
    for phi, axis, q in motions():
        Q = np.concatenate([q, phi * axis])
        R, u = motion_increment(kind, Q)
        assert np.allclose(motion_tensor(R, u), expm(twist_6x6(Q)), rtol=0, atol=1e-13)


def test_cayley_gibbs_rodrigues_motion_is_the_cayley_transform_of_the_twist():
    kind = PARAMETERISATIONS["cayley-gibbs-rodrigues"]
    for phi, axis, q in motions():
        Q = np.concatenate([q, 2 * np.tan(phi / 2) * axis])
        R, u = motion_increment(kind, Q)
        X = twist_6x6(Q) / 2
        cayley = (np.eye(6) + X) @ np.linalg.inv(np.eye(6) - X)
        assert np.allclose(motion_tensor(R, u), cayley, rtol=0, atol=1e-12)
