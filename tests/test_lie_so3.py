"""SO(3) kernels (lgbench/lie/so3.py) against paper 000 App. A and against high-precision references.

Reference values of the tangent-operator coefficients f1, f2, f3 (paper 000 eqs. A4-A6) are
computed here with Python's ``decimal`` module at 200 significant digits (power series), so the comparison needs no third-party package and is exact to far below double round-off.

Tolerances are derived, not tuned:

* Taylor branches (phi below the thresholds of eqs. A7-A9): truncation error <= phi^6/40320 (f1),
  phi^6/362880 (f2), phi^6/1209600 (f3), i.e. < 3e-17 absolute at the thresholds, so the
  coefficients must be exact to a few ulps (relative 4 eps).
* Closed-form branches: the numerators cos(phi) - 1, phi - sin(phi) and 1 - (phi/2) cot(phi/2)
  cancel; one rounding of cos/sin/cot (<= eps, absolute, as they are O(1) or O(phi)) turns into an
  absolute error of about eps/phi^2 in the coefficient. The bound used is
  |f - f_ref| <= 4 eps (|f_ref| + 1/phi^2). This is loose in relative terms just above a threshold
  (for f2 at phi = 1e-4 the measured relative error is 3e-8, see test docstrings) but it is what
  the paper's thresholds give.
* Operators: f2 and f3 multiply hat(psi)^2 (norm phi^2), so their eps/phi^2 becomes eps; f1
  multiplies hat(psi) (norm phi), so its eps/phi^2 becomes eps/phi -- up to 100 eps just above the
  f1 threshold 1e-2 (measured: 6 eps). Bound used: 8 eps, plus 4 eps/phi where the closed form of f1
  is in use. (A cancellation-free f1 = -sinc(phi/2)^2 / 2 would remove that term entirely.)
"""
from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lgbench.lie.euler_parameters import ep_from_rotation_vector, ep_product, rotation_vector_from_ep
from lgbench.lie.so3 import (
    F1_TAYLOR_BELOW, F2_TAYLOR_BELOW, F3_TAYLOR_BELOW, compose_rotation_vectors, exp_so3, hat, log_so3,
    tangent_coefficients, tangent_operator_inverse_so3, tangent_operator_so3, vee,
)

EPS = np.finfo(float).eps


# ----------------------------------------------------------------------------------------------
# high-precision references
# ----------------------------------------------------------------------------------------------

PREC = 200  # decimal digits of the reference computations


def _series(x: Decimal, first: Decimal, k0: int) -> Decimal:
    """sum_{k>=0} first * (-x^2)^k * k0! / (k0 + 2k)!, the common shape of all series below."""
    total, term, k = Decimal(0), first, k0
    while term != 0 and abs(term) > Decimal(10) ** -(PREC + 10) * abs(first):
        total += term
        term = -term * x * x / ((k + 1) * (k + 2))
        k += 2
    return total


def _dsin(x: Decimal) -> Decimal:
    return _series(x, x, 1)


def _dcos(x: Decimal) -> Decimal:
    return _series(x, Decimal(1), 0)


def _dnorm(v) -> Decimal:
    """|v| in high-precision decimal (no underflow for components down to 1e-300)."""
    with localcontext() as ctx:
        ctx.prec = PREC
        return sum(Decimal(float(x)) ** 2 for x in v).sqrt()


def reference_coefficients(phi) -> tuple[float, float, float]:
    """f1, f2, f3 of paper 000 eqs. (A4)-(A6) at ``phi`` (a double or a Decimal), to ~1e-100.

    f1 = (cos phi - 1)/phi^2 = sum_k (-1)^(k+1) phi^(2k)/(2k+2)!  and  f2 = (phi - sin phi)/phi^3 =
    sum_k (-1)^k phi^(2k)/(2k+3)! are summed as series (no cancellation at all); f3 is evaluated in its
    closed form (A6) with 200 digits, which leaves > 100 correct digits for phi >= 1e-40, and by
    1/12 + phi^2/720 (error < phi^4/30240 < 1e-160) below.
    """
    with localcontext() as ctx:
        ctx.prec = PREC
        p = phi if isinstance(phi, Decimal) else Decimal(float(phi))
        f1 = -_series(p, Decimal(1) / 2, 2)
        f2 = _series(p, Decimal(1) / 6, 3)
        if p >= Decimal("1e-40"):
            half = p / 2
            f3 = (1 - half * _dcos(half) / _dsin(half)) / (p * p)
        else:
            f3 = Decimal(1) / 12 + p * p / 720
        return float(f1), float(f2), float(f3)


def reference_operators(psi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f1, f2, f3 = reference_coefficients(_dnorm(psi))
    k = np.array([[0, -psi[2], psi[1]], [psi[2], 0, -psi[0]], [-psi[1], psi[0], 0]])
    return np.eye(3) + f1 * k + f2 * (k @ k), np.eye(3) + 0.5 * k + f3 * (k @ k)


def test_decimal_reference_is_right():
    """Cross-check the reference against closed forms evaluated where they are well conditioned."""
    for phi in (0.3, 1.0, 2.5):
        f1, f2, f3 = reference_coefficients(phi)
        assert f1 == pytest.approx(-2 * math.sin(phi / 2) ** 2 / phi ** 2, rel=4 * EPS)
        assert f2 == pytest.approx((phi - math.sin(phi)) / phi ** 3, rel=1e-14)
        assert f3 == pytest.approx((1 - phi / 2 / math.tan(phi / 2)) / phi ** 2, rel=1e-14)
    for phi in (1e-30, 1e-300, 0.0):
        assert reference_coefficients(phi) == (-0.5, 1 / 6, 1 / 12)
    with localcontext() as ctx:       # the series of f1 against the closed form, in high precision
        ctx.prec = PREC
        p = Decimal("0.01")
        assert abs(Decimal(reference_coefficients(p)[0]) - (_dcos(p) - 1) / (p * p)) < Decimal("1e-17")


# ----------------------------------------------------------------------------------------------
# angles across every regime
# ----------------------------------------------------------------------------------------------

def _around(x: float) -> list[float]:
    """Just below, at, and just above x (in ulps and in a relative 1e-9)."""
    return [x * (1 - 1e-9), float(np.nextafter(x, 0.0)), x, float(np.nextafter(x, 1.0)), x * (1 + 1e-9)]


THRESHOLDS = sorted({F1_TAYLOR_BELOW, F2_TAYLOR_BELOW, F3_TAYLOR_BELOW})
ANGLES = sorted({1e-300, 1e-12, 1e-8, 1e-6, 0.5, 1.0, 3.0, math.pi - 1e-9}
                | {a for t in THRESHOLDS for a in _around(t)})
AXES = [np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0]), np.array([1.0, -2.0, 0.5]) / math.sqrt(5.25),
        np.array([0.3, 0.4, -0.866]) / np.linalg.norm([0.3, 0.4, -0.866])]


def _vectors():
    for phi in ANGLES:
        for axis in AXES:
            yield phi * axis


VECTORS = list(_vectors())


def test_thresholds_are_the_papers():
    """Paper 000 eqs. (A7)-(A9): Taylor below 1e-2 (f1), 1e-4 (f2), 1e-2 (f3)."""
    assert (F1_TAYLOR_BELOW, F2_TAYLOR_BELOW, F3_TAYLOR_BELOW) == (1e-2, 1e-4, 1e-2)


# ----------------------------------------------------------------------------------------------
# hat / vee
# ----------------------------------------------------------------------------------------------

finite3 = st.lists(st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False), min_size=3, max_size=3).map(
    np.array)
rotvec = st.lists(st.floats(-1.8, 1.8, allow_nan=False, allow_infinity=False), min_size=3, max_size=3).map(
    np.array)


@settings(max_examples=50, deadline=None)
@given(finite3, finite3)
def test_hat_is_the_cross_product_and_vee_inverts_it(v, y):
    K = hat(v)
    np.testing.assert_array_equal(K, -K.T)
    np.testing.assert_allclose(K @ y, np.cross(v, y), rtol=0, atol=1e-13)
    np.testing.assert_array_equal(vee(K), v)


def test_vee_takes_the_skew_part():
    M = hat(np.array([1.0, 2.0, 3.0])) + np.diag([5.0, 6.0, 7.0]) + np.ones((3, 3))
    np.testing.assert_array_equal(vee(M), [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------------------------
# exp / log
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("psi", VECTORS, ids=lambda p: f"{np.linalg.norm(p):.3e}")
def test_exp_is_a_rotation_and_log_inverts_it(psi):
    R = exp_so3(psi)
    np.testing.assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=4 * EPS)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=4 * EPS)
    back = log_so3(R)
    # log recovers psi (|psi| < pi) to relative round-off -- also for tiny angles, where the axis
    # would be lost by an acos-based log
    assert np.linalg.norm(back - psi) <= 8 * EPS * np.linalg.norm(psi), (back, psi)
    np.testing.assert_allclose(exp_so3(back), R, rtol=0, atol=4 * EPS)


@pytest.mark.parametrize("psi", VECTORS, ids=lambda p: f"{np.linalg.norm(p):.3e}")
def test_exp_matches_the_high_precision_rodrigues_formula(psi):
    with localcontext() as ctx:
        ctx.prec = PREC
        p = _dnorm(psi)
        a = float(_series(p, Decimal(1), 1))           # sin(p)/p
        b = float(_series(p, Decimal(1) / 2, 2))       # (1 - cos p)/p^2
    K = np.array([[0, -psi[2], psi[1]], [psi[2], 0, -psi[0]], [-psi[1], psi[0], 0]])
    np.testing.assert_allclose(exp_so3(psi), np.eye(3) + a * K + b * (K @ K), rtol=0, atol=4 * EPS)


def test_log_near_pi_returns_the_representative_within_pi():
    axis = AXES[2]
    for phi in (math.pi - 1e-6, math.pi - 1e-9, math.pi):
        back = log_so3(exp_so3(phi * axis))
        assert np.linalg.norm(back) <= math.pi + 4 * EPS
        assert abs(np.linalg.norm(back) - phi) <= 1e-14
        np.testing.assert_allclose(exp_so3(back), exp_so3(phi * axis), rtol=0, atol=8 * EPS)
    # beyond pi the log returns the antipodal vector of angle 2 pi - phi
    back = log_so3(exp_so3(3.5 * axis))
    np.testing.assert_allclose(back, -(2 * math.pi - 3.5) * axis, rtol=0, atol=1e-14)


@settings(max_examples=50, deadline=None)
@given(rotvec)
def test_log_exp_round_trip_random(psi):
    back = log_so3(exp_so3(psi))
    if np.linalg.norm(psi) < math.pi - 1e-6:
        np.testing.assert_allclose(back, psi, rtol=0, atol=1e-14 * max(1.0, np.linalg.norm(psi)))
    np.testing.assert_allclose(exp_so3(back), exp_so3(psi), rtol=0, atol=1e-14)


# ----------------------------------------------------------------------------------------------
# tangent-operator coefficients (paper 000 App. A.2)
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("phi", ANGLES, ids=lambda p: f"{p:.17g}")
def test_tangent_coefficients_match_high_precision_reference(phi):
    got = tangent_coefficients(phi)
    ref = reference_coefficients(phi)
    thresholds = (F1_TAYLOR_BELOW, F2_TAYLOR_BELOW, F3_TAYLOR_BELOW)
    for name, g, r, th in zip(("f1", "f2", "f3"), got, ref, thresholds):
        if phi < th:       # Taylor branch: exact to a few ulps
            bound = 4 * EPS * abs(r)
        else:              # closed form: cancellation costs eps/phi^2 (absolute)
            bound = 4 * EPS * (abs(r) + 1.0 / phi ** 2)
        assert abs(g - r) <= bound, f"{name}({phi!r}) = {g!r}, reference {r!r}, |err| {abs(g - r):.3e} > {bound:.3e}"


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_tangent_coefficients_are_continuous_across_each_threshold(threshold):
    """Value just below (Taylor) vs at the threshold (closed form).

    Allowed jump = the closed form's own cancellation bound 4 eps (|f| + 1/phi^2): relative 1.8e-11
    (f1), 1.1e-10 (f3) at 1e-2, and 5.3e-7 for f2 at 1e-4 (measured: 3e-13, 1.1e-11, 3.1e-8). The jump
    in the *operators* (coefficient times phi or phi^2) is tested to a few eps below."""
    below = tangent_coefficients(float(np.nextafter(threshold, 0.0)))
    at = tangent_coefficients(threshold)
    for fb, fa in zip(below, at):
        assert abs(fb - fa) <= 4 * EPS * (abs(fa) + 1.0 / threshold ** 2)
    # relative jumps, for the record (visible with pytest -s)
    print(f"threshold {threshold:g}: relative jumps",
          " ".join(f"{abs(fb - fa) / abs(fa):.1e}" for fb, fa in zip(below, at)))


def test_closed_forms_alone_would_fail_at_tiny_angles():
    """Why the Taylor branches exist: in double precision cos(1e-8) == 1, so the closed form of f1
    gives 0 instead of -1/2; lgbench must return -1/2."""
    phi = 1e-8
    assert (math.cos(phi) - 1.0) / phi ** 2 == 0.0
    assert tangent_coefficients(phi)[0] == pytest.approx(-0.5, rel=EPS)
    assert tangent_coefficients(0.0) == (-0.5, 1 / 6, 1 / 12)


# ----------------------------------------------------------------------------------------------
# tangent operators
# ----------------------------------------------------------------------------------------------

def operator_bound(psi) -> float:
    """Round-off bound of T_exp (see module docstring)."""
    phi = float(_dnorm(psi))
    # within a few ulps of the threshold either branch may be taken (|psi| rounds either way)
    closed_form_f1 = phi >= F1_TAYLOR_BELOW * (1 - 1e-12)
    return 8 * EPS + (4 * EPS / phi if closed_form_f1 else 0.0)


@pytest.mark.parametrize("psi", VECTORS, ids=lambda p: f"{np.linalg.norm(p):.3e}")
def test_tangent_operators_match_high_precision_reference(psi):
    T_ref, Tinv_ref = reference_operators(psi)
    np.testing.assert_allclose(tangent_operator_so3(psi), T_ref, rtol=0, atol=operator_bound(psi))
    np.testing.assert_allclose(tangent_operator_inverse_so3(psi), Tinv_ref, rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("psi", VECTORS, ids=lambda p: f"{np.linalg.norm(p):.3e}")
def test_tangent_operator_times_its_inverse_is_identity(psi):
    T = tangent_operator_so3(psi)
    Ti = tangent_operator_inverse_so3(psi)
    # entries of T and T^-1 are O(1) for phi <= pi; the error of T (operator_bound) carries over
    bound = 16 * EPS + 2 * operator_bound(psi)
    np.testing.assert_allclose(T @ Ti, np.eye(3), rtol=0, atol=bound)
    np.testing.assert_allclose(Ti @ T, np.eye(3), rtol=0, atol=bound)


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_tangent_operators_are_continuous_across_each_threshold(threshold):
    axis = AXES[3]
    lo, hi = float(np.nextafter(threshold, 0.0)) * axis, threshold * axis
    # the true operators differ by O(|hi - lo|) ~ 1e-18 here; everything else is round-off
    np.testing.assert_allclose(tangent_operator_so3(lo), tangent_operator_so3(hi), rtol=0,
                               atol=operator_bound(hi))
    np.testing.assert_allclose(tangent_operator_inverse_so3(lo), tangent_operator_inverse_so3(hi),
                               rtol=0, atol=8 * EPS)


@settings(max_examples=50, deadline=None)
@given(rotvec)
def test_tangent_operator_identities(psi):
    """T(psi) psi = psi, T(psi)^T = T(-psi), and T^-1 is the matrix inverse of T."""
    T = tangent_operator_so3(psi)
    np.testing.assert_allclose(T @ psi, psi, rtol=0, atol=1e-14)
    np.testing.assert_allclose(T.T, tangent_operator_so3(-psi), rtol=0, atol=1e-15)
    np.testing.assert_allclose(tangent_operator_inverse_so3(psi), np.linalg.inv(T), rtol=0, atol=1e-13)


DELTAS = [np.array([0.3, -0.7, 0.2]), np.array([0.0, 0.0, 1.0])]
FD_PSIS = [0.0 * AXES[0], 1e-12 * AXES[2], 1e-6 * AXES[3], float(np.nextafter(1e-4, 0)) * AXES[2],
           1e-4 * AXES[2], float(np.nextafter(1e-2, 0)) * AXES[3], 1e-2 * AXES[3], 0.5 * AXES[1],
           2.0 * AXES[2], 3.0 * AXES[3]]


@pytest.mark.parametrize("psi", FD_PSIS, ids=lambda p: f"{np.linalg.norm(p):.3e}")
@pytest.mark.parametrize("delta", DELTAS, ids=["delta_a", "delta_b"])
def test_tangent_operator_is_the_derivative_of_exp(psi, delta):
    """d/de exp(psi + e delta)|_{e=0} = exp(psi) hat(T_exp(psi) delta) (lgbench's convention,
    paper 000 Sect. 2.2), by central differences with step 1e-5: truncation O(e^2) ~ 1e-10,
    round-off ~ eps/e ~ 1e-11, so 1e-8 is a safe bound that still catches a wrong sign/transpose
    (which would be wrong by O(phi))."""
    e = 1e-5
    fd = (exp_so3(psi + e * delta) - exp_so3(psi - e * delta)) / (2 * e)
    expected = exp_so3(psi) @ hat(tangent_operator_so3(psi) @ delta)
    np.testing.assert_allclose(fd, expected, rtol=0, atol=1e-8)


@pytest.mark.parametrize("psi", FD_PSIS[7:], ids=lambda p: f"{np.linalg.norm(p):.3e}")
def test_transposed_convention_would_be_detected(psi):
    """The FD test above can fail: the wrong-sided variant T(-psi) = T(psi)^T differs by O(phi)."""
    e = 1e-5
    delta = DELTAS[0]
    fd = (exp_so3(psi + e * delta) - exp_so3(psi - e * delta)) / (2 * e)
    wrong = exp_so3(psi) @ hat(tangent_operator_so3(psi).T @ delta)
    assert np.max(np.abs(fd - wrong)) > 1e-2


# ----------------------------------------------------------------------------------------------
# composition of rotation vectors (paper 000 App. A.3)
# ----------------------------------------------------------------------------------------------

def _check_composition(psi0, dpsi):
    psi = compose_rotation_vectors(psi0, dpsi)
    assert np.linalg.norm(psi) <= math.pi + 8 * EPS
    # matrix product: exp(psi) = exp(psi0) exp(dpsi)
    np.testing.assert_allclose(exp_so3(psi), exp_so3(psi0) @ exp_so3(dpsi), rtol=0, atol=1e-14)
    # quaternion product of Euler parameters
    ep = ep_product(ep_from_rotation_vector(psi0), ep_from_rotation_vector(dpsi))
    via_ep = rotation_vector_from_ep(ep)
    if np.linalg.norm(via_ep) < math.pi - 1e-6:   # away from the +-pi ambiguity
        np.testing.assert_allclose(psi, via_ep, rtol=0, atol=1e-14)
    return psi


COMPOSITION_CASES = [
    (np.zeros(3), np.zeros(3)),
    (np.zeros(3), np.array([1e-13, 0.0, 0.0])),
    (np.array([1e-9, -2e-9, 3e-9]), np.array([-1e-9, 2e-9, -3e-9])),       # cancel to identity
    (np.array([0.1, 0.2, 0.3]), np.array([1e-6, 0.0, -1e-6])),
    (np.array([0.1, 0.2, 0.3]), np.zeros(3)),
    (np.zeros(3), np.array([0.1, 0.2, 0.3])),
    (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])),               # non-commuting
    (2.9 * AXES[2], 0.2 * AXES[3]),
    (-3.0 * AXES[1], 0.15 * AXES[0]),
]


@pytest.mark.parametrize("psi0,dpsi", COMPOSITION_CASES)
def test_composition_equals_matrix_and_quaternion_products(psi0, dpsi):
    _check_composition(psi0, dpsi)


def test_composition_is_ordered_as_exp_psi0_times_exp_dpsi():
    psi0, dpsi = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    ab = compose_rotation_vectors(psi0, dpsi)
    ba = compose_rotation_vectors(dpsi, psi0)
    assert np.linalg.norm(ab - ba) > 0.1
    np.testing.assert_allclose(exp_so3(ab), exp_so3(psi0) @ exp_so3(dpsi), rtol=0, atol=1e-14)


@pytest.mark.parametrize("axis", AXES, ids=range(len(AXES)))
def test_composition_through_pi_continues_from_the_antipodal_vector(axis):
    """psi0 = 3.1 a, dpsi = 0.1 a: the rotation by 3.2 rad is represented with |psi| <= pi as
    -(2 pi - 3.2) a (same rotation, A.3 'singularity-free update')."""
    psi = _check_composition(3.1 * axis, 0.1 * axis)
    np.testing.assert_allclose(psi, -(2 * math.pi - 3.2) * axis, rtol=0, atol=1e-14)
    # and it keeps composing smoothly: 3.1 + 0.1 + 0.1 -> 3.3 rad
    psi2 = _check_composition(psi, 0.1 * axis)
    np.testing.assert_allclose(psi2, -(2 * math.pi - 3.3) * axis, rtol=0, atol=1e-14)


def test_composition_of_small_increments_accumulates_the_angle():
    """Many small increments about a fixed axis add up exactly (no drift from the Taylor guards)."""
    axis = AXES[3]
    psi = np.zeros(3)
    for _ in range(1000):
        psi = compose_rotation_vectors(psi, 1e-3 * axis)
    np.testing.assert_allclose(psi, 1.0 * axis, rtol=0, atol=1e-13)


@settings(max_examples=50, deadline=None)
@given(rotvec, rotvec)
def test_composition_random(psi0, dpsi):
    _check_composition(psi0, dpsi)
