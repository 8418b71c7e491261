"""Small dense linear algebra for the compiled kernels (no LAPACK call overhead for 3x3)."""
import numpy as np
from numba import njit


@njit(cache=True)
def solve_small(A, b):
    """Solve A x = b by Gaussian elimination with partial pivoting; returns (x, ok)."""
    n = b.shape[0]
    M = A.copy()
    x = b.copy()
    for k in range(n):
        p = k
        big = abs(M[k, k])
        for i in range(k + 1, n):
            if abs(M[i, k]) > big:
                big = abs(M[i, k])
                p = i
        if big == 0.0:
            return x, False
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            x[k], x[p] = x[p], x[k]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            for j in range(k, n):
                M[i, j] -= f * M[k, j]
            x[i] -= f * x[k]
    for k in range(n - 1, -1, -1):
        s = x[k]
        for j in range(k + 1, n):
            s -= M[k, j] * x[j]
        x[k] = s / M[k, k]
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
