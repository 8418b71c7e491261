"""Small dense linear algebra for the compiled kernels (no LAPACK call overhead for 3x3)."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def solve_small(A, b):
    """Solve A x = b with ``lu_factor``/``lu_solve`` (A, b untouched); returns (x, ok)."""
    LU = A.copy()
    piv = np.zeros(b.shape[0], dtype=np.int64)
    x = b.copy()
    if not lu_factor(LU, piv):
        return x, False
    lu_solve(LU, piv, x)
    return x, True


@njit(cache=True)
def mat3_vec(M, v):
    out = np.empty(3)
    for i in range(3):
        out[i] = M[i, 0] * v[0] + M[i, 1] * v[1] + M[i, 2] * v[2]
    return out


@njit(cache=True)
def mat3t_vec(M, v):
    out = np.empty(3)
    for i in range(3):
        out[i] = M[0, i] * v[0] + M[1, i] * v[1] + M[2, i] * v[2]
    return out


@njit(cache=True)
def cross(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@njit(cache=True)
def lu_factor(A, piv):
    """In-place LU factorisation with partial pivoting; returns False if A is (numerically) singular.

    A pivot below 1e-13 times the largest entry of A counts as singular.
    """
    n = A.shape[0]
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(A[i, j]))
    if scale == 0.0 or not np.isfinite(scale):
        return False
    for k in range(n):
        p = k
        big = abs(A[k, k])
        for i in range(k + 1, n):
            if abs(A[i, k]) > big:
                big = abs(A[i, k])
                p = i
        piv[k] = p
        if big <= 1e-13 * scale:
            return False
        if p != k:
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            A[i, k] *= inv
            f = A[i, k]
            if f != 0.0:
                _subtract_row_multiple(A, i, k, f, k + 1, n)
    return True


@njit(inline="always")
def _subtract_row_multiple(A, i, k, f, j0, n):
    """A[i, j0:n] -= f A[k, j0:n], four entries per pass. The same operations, in the same order per entry,
    as the plain loop; LLVM does not vectorise the plain loop (rows i and k of one array may alias), and
    the unrolled form makes the 35 x 35 LU of the slider-crank 1.6x and the 9 x 9 of the constrained top
    2x faster (docs/notes/implicit_speed.md)."""
    j = j0
    while j + 3 < n:
        a0, a1, a2, a3 = A[k, j], A[k, j + 1], A[k, j + 2], A[k, j + 3]
        A[i, j] -= f * a0
        A[i, j + 1] -= f * a1
        A[i, j + 2] -= f * a2
        A[i, j + 3] -= f * a3
        j += 4
    while j < n:
        A[i, j] -= f * A[k, j]
        j += 1


@njit(cache=True)
def lu_solve(LU, piv, b):
    """Solve with the factors of ``lu_factor``; b is overwritten with the solution."""
    n = LU.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]


@njit(cache=True)
def all_finite(x):
    """True if no entry of the vector x is NaN or infinite."""
    for k in range(x.shape[0]):
        if not math.isfinite(x[k]):
            return False
    return True


@njit(inline="always")
def matrix_vector_into(A, x, out):
    """out = A x, in place."""
    for r in range(A.shape[0]):
        s = 0.0
        for c in range(A.shape[1]):
            s += A[r, c] * x[c]
        out[r] = s
