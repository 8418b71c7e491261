"""Flat views indexed by unsigned offsets: how the band kernels (``banded.py``) reach their entries without
numba's test for negative indices.

numba takes a signed integer index as possibly negative and emits ``i < 0 ? i + n : i`` at every array
access. In the band LU the indices are differences such as ``kl + ku + i - j``, which LLVM cannot prove
nonnegative, so the test stays in the innermost loops and keeps them scalar. A 1-D view of the same
memory (``flat``) indexed by unsigned offsets (``unsigned``) has no such test. numba types
``uint64 + int64`` as int64, so every term of an offset must be unsigned, loop counters included
(``range(unsigned(a), b)``); an offset that would be negative is a bug either way, now an access far out
of the array instead of a wrapped one.

Measured on the V8 crank drive's band (224 x 43, EP; ``band_lu_factor``, min of 5 x 2000 calls): 52 -> 28
µs, with the same operations in the same order, so the same factors bit for bit
(``tests/test_banded.py``). The dense LU of 9 x 9 matrices did not gain, so ``dense.py`` keeps its
two-index loops.
"""
import numpy as np
from numba import njit


@njit(inline="always")
def flat(A):
    """The C-contiguous array A as a 1-D view of the same memory (no copy)."""
    return A.reshape(A.size)


@njit(inline="always")
def unsigned(i):
    """The offset i as uint64 (see the module docstring)."""
    return np.uint64(i)
