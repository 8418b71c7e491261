"""The inverse of the differential of the exponential as a truncated Bernoulli series (paper 001).

Paper 001 (RKMK algorithm, after eq. 11) uses, for an RK method of order n,

    dexpinv(u, k, n) = k - [u, k]/2 + sum_{p=2}^{n-1} B_p/p! ad_u^p k,

with the Bernoulli numbers B_p, for the right trivialisation Y' = A(Y) Y (paper 001 eq. 3). lgbench
writes rotations with body angular velocities, R' = R hat(omega) (left trivialisation), whose
inverse differential is dexpinv(-u, k, n): the odd term changes sign and the even terms stay, so
that for n -> infinity the series is the closed form T_exp^{-1}(u) k of paper 000 eq. (A3) (``so3``).
On so(3) ~ R^3 the commutator is the cross product, [u, k] = u x k.
"""
import math

import numpy as np

from lgbench._compiled import kernel

# B_0 ... B_11 (B_1 = -1/2 convention; the odd ones beyond B_1 vanish).
BERNOULLI_NUMBERS = np.array([1.0, -0.5, 1.0 / 6.0, 0.0, -1.0 / 30.0, 0.0, 1.0 / 42.0, 0.0, -1.0 / 30.0,
                              0.0, 5.0 / 66.0, 0.0])
MAX_SERIES_ORDER = BERNOULLI_NUMBERS.shape[0]


@kernel
def dexpinv_series_coefficients(order):
    """c_p = (-1)^p B_p / p!, p = 0 .. order-1: dexpinv(-u, k, order) = sum_p c_p ad_u^p k."""
    c = np.empty(series_terms(order))
    for p in range(c.shape[0]):
        c[p] = series_coefficient(p)
    return c


@kernel
def series_terms(order):
    """Number of terms of the series for an RK method of order ``order`` (1 .. MAX_SERIES_ORDER)."""
    return max(1, min(order, MAX_SERIES_ORDER))


@kernel
def series_coefficient(p):
    """c_p = (-1)^p B_p / p! of ``dexpinv_series_coefficients``."""
    return (-1.0) ** p * BERNOULLI_NUMBERS[p] / math.gamma(p + 1.0)


@kernel
def dexpinv_so3_series_apply(u, k, order):
    """dexpinv of paper 001 (left trivialisation) on so(3) for an RK method of order ``order`` as a tuple:
    k + (u x k)/2 + sum_{p=2}^{order-1} B_p/p! ad_u^p k (order 1 gives k); u and k have 3 entries."""
    c = series_coefficient(0)
    o0, o1, o2 = c * k[0], c * k[1], c * k[2]
    t0, t1, t2 = k[0], k[1], k[2]
    for p in range(1, series_terms(order)):
        t0, t1, t2 = u[1] * t2 - u[2] * t1, u[2] * t0 - u[0] * t2, u[0] * t1 - u[1] * t0
        c = series_coefficient(p)
        if c != 0.0:
            o0, o1, o2 = o0 + c * t0, o1 + c * t1, o2 + c * t2
    return o0, o1, o2


@kernel
def dexpinv_so3_series(u, k, order):
    """``dexpinv_so3_series_apply`` as an array."""
    out = np.empty(3)
    out[0], out[1], out[2] = dexpinv_so3_series_apply(u, k, order)
    return out


@kernel
def dexpinv_so3_series_matrix(u, order):
    """The 3x3 matrix of ``dexpinv_so3_series(u, ., order)`` (columns: images of the unit vectors)."""
    m = np.empty((3, 3))
    e = np.zeros(3)
    for j in range(3):
        e[:] = 0.0
        e[j] = 1.0
        m[:, j] = dexpinv_so3_series(u, e, order)
    return m
