"""Banded LU for the saddle-point iteration matrices of chain-like systems, and the ordering that makes
them banded.

In absolute coordinates a body couples only to the bodies it shares a joint or a force element with.
Ordering the unknowns body by body -- a body's velocity coordinates, then its Euler-parameter norm
row, then the rows of the joints whose later body it is -- turns the iteration matrix
[[S_11, B^T], [B T, 0]] (paper 000 eq. 40) of a chain into a band matrix whose half-bandwidths do
not grow with the number of bodies. Gaussian elimination with partial pivoting inside the band (the
algorithm of LAPACK dgbtrf/dgbtrs, unblocked; G. H. Golub, C. F. Van Loan, Matrix Computations,
4th ed., Sect. 4.3.5) then costs O(n kl (kl + ku)) instead of O(n^3). Pivoting is needed: the
constraint rows have a zero diagonal block.

Storage: ``ab[j, kl + ku + i - j] = A[i, j]`` (column j of A is row j of ab, contiguous), width
2 kl + ku + 1; the extra kl diagonals receive the fill of row interchanges.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from lgbench.mbs.constraints import constraint_row_bodies
from lgbench.mbs.system import B_NV, B_VSTART, SystemArrays

# largest number of velocity coordinates of a body (FREE EP node: 3 + 4): the size of the per-body blocks
# of M, B and T from which the banded solvers assemble their matrices
BODY_BLOCK = 7
# ``band_structure`` chooses the banded solver when the band storage is at most this fraction of a
# dense row: a storage rule, to be replaced by the measured crossover of benchmarks/scaling.py.
BAND_FRACTION = 0.5


class BandStructure(NamedTuple):
    """Ordering and half-bandwidths of the iteration matrix of one system (static data).

    position[u] = place of unknown u (velocity coordinates 0..nv-1, then constraint rows) in the band
    ordering; bands = [kl, ku]; row_bodies[row] = (body1, body2) of constraint row ``row``;
    vel_body[k] = body of velocity coordinate k. ``active`` is False for the dense solver.
    """

    active: bool
    position: np.ndarray
    bands: np.ndarray
    row_bodies: np.ndarray
    vel_body: np.ndarray


def dense_structure() -> BandStructure:
    """The structure of the dense solver (nothing to store)."""
    empty = np.zeros(0, dtype=np.int64)
    return BandStructure(False, empty, np.zeros(2, dtype=np.int64), np.zeros((0, 2), dtype=np.int64), empty)


def chain_ordering(system: SystemArrays) -> np.ndarray:
    """position[u] of every unknown: bodies in builder order, each followed by its own norm row and the
    rows of joints whose highest-numbered body it is."""
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    rows = constraint_row_bodies(system)
    last = rows.max(axis=1) if nc else np.zeros(0, dtype=np.int64)
    order = []
    for i, row in enumerate(system.body_int):
        order.extend(range(int(row[B_VSTART]), int(row[B_VSTART] + row[B_NV])))
        order.extend(nv + r for r in np.flatnonzero(last == i))
    position = np.empty(nv + nc, dtype=np.int64)
    position[np.asarray(order, dtype=np.int64)] = np.arange(nv + nc)
    return position


def half_bandwidth(system: SystemArrays, position: np.ndarray) -> int:
    """Half-bandwidth kl = ku of the iteration matrix in the ordering ``position`` (its pattern is
    symmetric): velocity coordinates of one force group couple with each other, a constraint row
    with its bodies' velocity coordinates (B and B^T)."""
    nv = int(system.sizes[1])
    width = 0
    for group in system.force_groups:
        p = position[group[group >= 0]]
        if p.size:
            width = max(width, int(p.max() - p.min()))
    for row, bodies in enumerate(constraint_row_bodies(system)):
        for body in bodies[bodies >= 0]:
            start, n = int(system.body_int[body, B_VSTART]), int(system.body_int[body, B_NV])
            distance = np.abs(position[start:start + n] - position[nv + row])
            width = max(width, int(distance.max()))
    return width


def band_structure(system: SystemArrays, mode: str = "auto") -> BandStructure:
    """The banded solver's structure for ``system`` (mode "banded"), the dense one (mode "dense"), or
    whichever is cheaper (mode "auto": banded when the band storage 2 kl + ku + 1 is at most
    BAND_FRACTION of the n unknowns). Minimal-coordinate chains (dense M) are always dense."""
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    if mode == "dense" or system.chain_int.shape[0] > 0 or nv + nc == 0:
        return dense_structure()
    position = chain_ordering(system)
    kl = ku = half_bandwidth(system, position)
    if mode == "auto" and 2 * kl + ku + 1 > BAND_FRACTION * (nv + nc):
        return dense_structure()
    vel_body = np.empty(nv, dtype=np.int64)
    for i, row in enumerate(system.body_int):
        vel_body[row[B_VSTART]:row[B_VSTART] + row[B_NV]] = i
    return BandStructure(True, position, np.array([kl, ku], dtype=np.int64), constraint_row_bodies(system),
                         vel_body)


@njit(cache=True)
def band_lu_factor(ab, kl, ku, piv):
    """In-place LU with partial pivoting of the band matrix ``ab`` (module storage); False if singular.

    A pivot below 1e-13 times the largest entry counts as singular (as ``dense.lu_factor``).
    """
    n = ab.shape[0]
    diag = kl + ku
    scale = 0.0
    for j in range(n):
        for d in range(ab.shape[1]):
            scale = max(scale, abs(ab[j, d]))
    if scale == 0.0 or not np.isfinite(scale):
        return False
    for k in range(n):
        last_row = min(n - 1, k + kl)
        p = k
        big = abs(ab[k, diag])
        for i in range(k + 1, last_row + 1):
            if abs(ab[k, diag + i - k]) > big:
                big = abs(ab[k, diag + i - k])
                p = i
        piv[k] = p
        if big <= 1e-13 * scale:
            return False
        last_col = min(n - 1, k + kl + ku)
        if p != k:
            for j in range(k, last_col + 1):
                a = ab[j, diag + k - j]
                ab[j, diag + k - j] = ab[j, diag + p - j]
                ab[j, diag + p - j] = a
        inv = 1.0 / ab[k, diag]
        for i in range(k + 1, last_row + 1):
            ab[k, diag + i - k] *= inv
        for j in range(k + 1, last_col + 1):
            f = ab[j, diag + k - j]
            if f != 0.0:
                for i in range(k + 1, last_row + 1):
                    ab[j, diag + i - j] -= ab[k, diag + i - k] * f
    return True


@njit(cache=True)
def band_lu_solve(ab, kl, ku, piv, b):
    """Solve with the factors of ``band_lu_factor``; b is overwritten with the solution."""
    n = ab.shape[0]
    diag = kl + ku
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
        bk = b[k]
        if bk != 0.0:
            for i in range(k + 1, min(n - 1, k + kl) + 1):
                b[i] -= ab[k, diag + i - k] * bk
    for k in range(n - 1, -1, -1):
        b[k] /= ab[k, diag]
        bk = b[k]
        for i in range(max(0, k - kl - ku), k):
            b[i] -= ab[k, diag + i - k] * bk


@njit(cache=True)
def band_set(ab, kl, ku, i, j, value):
    """A[i, j] = value in band storage (i, j inside the band)."""
    ab[j, kl + ku + i - j] = value


@njit(cache=True)
def band_set_constraint_rows(body_int, st, Cb, texp, Tb, ab):
    """The columns B^T and the rows B (B T with T = blockdiag(Tb[body]) if ``texp``) of a saddle-point
    iteration matrix into the band storage ab, ordering ``st``, from the row blocks Cb of
    ``constraints.constraint_blocks``."""
    kl = st.bands[0]
    ku = st.bands[1]
    pos = st.position
    nv = pos.shape[0] - st.row_bodies.shape[0]
    for row in range(st.row_bodies.shape[0]):
        prow = pos[nv + row]
        for side in range(2):
            b = st.row_bodies[row, side]
            if b < 0:
                continue
            vs = body_int[b, B_VSTART]
            for c in range(body_int[b, B_NV]):
                band_set(ab, kl, ku, pos[vs + c], prow, Cb[row, side, c])
                if texp:
                    ct = 0.0
                    for l in range(body_int[b, B_NV]):
                        ct += Cb[row, side, l] * Tb[b, l, c]
                else:
                    ct = Cb[row, side, c]
                band_set(ab, kl, ku, prow, pos[vs + c], ct)


def band_from_dense(A: np.ndarray, kl: int, ku: int) -> np.ndarray:
    """Band storage of a dense matrix (for tests and diagnostics)."""
    n = A.shape[0]
    ab = np.zeros((n, 2 * kl + ku + 1))
    for j in range(n):
        for i in range(max(0, j - ku), min(n, j + kl + 1)):
            ab[j, kl + ku + i - j] = A[i, j]
    return ab
