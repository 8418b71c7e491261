"""Small dense linear algebra for the compiled kernels (no LAPACK call overhead for 3x3)."""
import math

import numpy as np
from numba import njit

from lgbench._compiled import kernel


@kernel
def solve_small(A, b):
    """Solve A x = b with ``lu_factor``/``lu_solve`` (A, b untouched); returns (x, ok)."""
    LU = A.copy()
    piv = np.zeros(b.shape[0], dtype=np.int64)
    x = b.copy()
    if not lu_factor(LU, piv):
        return x, False
    lu_solve(LU, piv, x)
    return x, True


@kernel
def mat3_vec(M, v):
    out = np.empty(3)
    for i in range(3):
        out[i] = M[i, 0] * v[0] + M[i, 1] * v[1] + M[i, 2] * v[2]
    return out


@kernel
def mat3t_vec(M, v):
    out = np.empty(3)
    for i in range(3):
        out[i] = M[0, i] * v[0] + M[1, i] * v[1] + M[2, i] * v[2]
    return out


@kernel
def cross(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@njit(inline="always")
def largest_magnitude(A):
    """max |A[i, j]| over the entries of the 2-D array A that are not NaN (0 for an empty or all-NaN A), the
    scale of the singularity test of ``lu_factor`` and ``banded.band_lu_factor``. Four running maxima: one
    serial chain of comparisons over the V8's 224 x 43 band storage took 13 µs, a third of its band LU;
    four take 4 µs. The maximum does not depend on the order, so the value is that of the plain loop.
    Inlined: as a call it made the 3 x 3 LU of every explicit Rxyz stage 4 % dearer per step."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    m = A.shape[1]
    for i in range(A.shape[0]):
        j = 0
        while j + 3 < m:
            a0, a1, a2, a3 = abs(A[i, j]), abs(A[i, j + 1]), abs(A[i, j + 2]), abs(A[i, j + 3])
            if a0 > s0:
                s0 = a0
            if a1 > s1:
                s1 = a1
            if a2 > s2:
                s2 = a2
            if a3 > s3:
                s3 = a3
            j += 4
        while j < m:
            a0 = abs(A[i, j])
            if a0 > s0:
                s0 = a0
            j += 1
    return max(s0, s1, s2, s3)


@kernel
def lu_factor(A, piv):
    """In-place LU factorisation with partial pivoting; returns False if A is (numerically) singular.

    A pivot below 1e-13 times the largest entry of A counts as singular.
    """
    n = A.shape[0]
    scale = largest_magnitude(A)
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
                subtract_multiple(A, i, k + 1, A, k, k + 1, f, n - k - 1)
    return True


@njit(inline="always")
def subtract_multiple(target, row, start, source, source_row, source_start, f, count):
    """target[row, start + m] -= f source[source_row, source_start + m] for m < count, four entries per
    pass: the elimination step of ``lu_factor``. The same operations, entry by entry, as the plain loop.
    LLVM leaves the plain loop scalar and serial (the rows may alias); unrolled, the 9 x 9 LU of the
    constrained top runs 2x and the 35 x 35 of the slider-crank 1.6x faster. The band kernels index
    through ``flat.py`` instead (docs/notes/implicit_speed.md). Within one array the rows must differ
    (row > source_row or row < source_row in every caller)."""
    m = 0
    while m + 3 < count:
        s0 = source[source_row, source_start + m]
        s1 = source[source_row, source_start + m + 1]
        s2 = source[source_row, source_start + m + 2]
        s3 = source[source_row, source_start + m + 3]
        target[row, start + m] -= f * s0
        target[row, start + m + 1] -= f * s1
        target[row, start + m + 2] -= f * s2
        target[row, start + m + 3] -= f * s3
        m += 4
    while m < count:
        target[row, start + m] -= f * source[source_row, source_start + m]
        m += 1


@kernel
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


@kernel
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


@njit(inline="always")
def add_transpose_product(A, x, out):
    """out += A^T x, in place, row of A by row (the order of the residual's B^T lambda)."""
    for row in range(A.shape[0]):
        for k in range(out.shape[0]):
            out[k] += A[row, k] * x[row]


@njit(inline="always")
def copy_vector(dst, src):
    """dst[:] = src, element by element: no overlap check, no temporary (``lgbench/_compiled.py``)."""
    for k in range(dst.shape[0]):
        dst[k] = src[k]


@njit(inline="always")
def copy_matrix(dst, src):
    """dst[:, :] = src, element by element (2.4x faster than the slice assignment on 200 x 200)."""
    for i in range(dst.shape[0]):
        for j in range(dst.shape[1]):
            dst[i, j] = src[i, j]
