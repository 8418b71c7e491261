"""Banded LU with a dense border for the saddle-point iteration matrices of chains and trees of bodies,
and the ordering that gives them this shape.

In absolute coordinates a body couples only to the bodies it shares a joint or a force element with.
Ordering the unknowns body by body -- the rows of the joints to the previous bodies, then a body's
velocity coordinates, then its own rows (Euler-parameter norm, joints to ground) -- turns the
iteration matrix
[[S_11, B^T], [B T, 0]] (paper 000 eq. 40) of a chain into a band matrix whose half-bandwidths do
not grow with the number of bodies. A tree such as the V8 crank drive (eight connecting rods and
pistons on one crankshaft) is not a chain, but it is one once its hubs -- the bodies coupled to three
or more others -- are taken out: the hubs' coordinates and the rows of their joints with ground then
form a small dense border placed last (one level of nested dissection; A. George, J. W. Liu,
Computer Solution of Large Sparse Positive Definite Systems, 1981, Ch. 6),

    A = [[A11, A12], [A21, A22]],  A11 banded (the branches with the hubs held fixed).

Gaussian elimination with partial pivoting inside the band of A11 (the algorithm of LAPACK
dgbtrf/dgbtrs, unblocked; G. H. Golub, C. F. Van Loan, Matrix Computations, 4th ed., Sect. 4.3.5)
costs O(n kl (kl + ku)) instead of O(n^3); the border follows by block LU (ibid. Sect. 3.2.10),

    A = [[P^T L, 0], [A21 U^{-1}, I]] [[U, L^{-1} P A12], [0, S]],  S = A22 - (A21 U^{-1}) (L^{-1} P A12),

with the Schur complement S factorised densely. In a tree the rows of the joints to a hub close each
branch (``band_ordering``), so A12 and A21 are nonzero only in the last places of each diagonal block
of A11: L^{-1} P A12 (a forward sweep down the block) and A21 U^{-1} (a forward sweep along it) stay
zero before those places, where A11^{-1} A12 would fill the whole block. Pivoting is needed: the
constraint rows have a zero diagonal block. A11 is nonsingular when the branches are determined
by their joints once the hubs are held (true of every shipped tree; a singular A11 is reported as a
singular iteration matrix, and ``linear_algebra: dense`` avoids the border).

Storage: ``ab[j, kl + ku + i - j] = A11[i, j]`` (column j of A11 is row j of ab, contiguous), width
2 kl + ku + 1; the extra kl diagonals receive the fill of row interchanges. The border blocks are
dense: ``upper = A12`` (overwritten by L^{-1} P A12), ``lower = A21`` (overwritten by A21 U^{-1}) and
``corner = A22`` (overwritten by the LU factors of the Schur complement). The four blocks are views of
one flat array ``data``; assembly loops place an entry with the integer arithmetic of ``band_index``
rather than a function that takes the blocks, because every array passed to a compiled function (even an
inlined one) costs a reference-count increment and decrement: ~110 ns an entry, 0.3-0.5 ms per V8
iteration matrix, before this was measured. The places of the entries that every iteration matrix
writes (B and B^T of each constraint row, the force groups' blocks) do not change from one matrix to the
next and are listed once in the structure (``row_places``, ``group_places``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from lgbench._compiled import kernel
from lgbench.mbs.constraints import constraint_row_bodies
from lgbench.mbs.dense import largest_magnitude, lu_factor, lu_solve
from lgbench.mbs.flat import flat, unsigned
from lgbench.mbs.system import B_NV, B_VSTART, SystemArrays

# largest number of velocity coordinates of a body (FREE EP node: 3 + 4): the size of the per-body blocks
# of M, B and T from which the banded solvers assemble their matrices
BODY_BLOCK = 7
# a body coupled (by joints or force elements) to at least this many other bodies goes into the border
HUB_DEGREE = 3
# last index of ``BandStructure.row_places``: the place in ``BandMatrix.data`` of the entry of B^T
# (A[coordinate, row]) and of B (A[row, coordinate])
COLUMN_ENTRY = 0
ROW_ENTRY = 1
# ``band_structure`` (mode "auto") chooses the banded solver when its multiply-adds (``factor_cost``)
# are at most this fraction of the dense LU's n^3 / 3: the measured crossover of assembling, factorising
# and solving once with random matrices of the systems' patterns (banded faster from a cost ratio of
# about 0.1: chains of 10 RV or 8 EP bodies, 1.0-1.2x either side; the V8 crank drive at 0.056 in 0.4x
# the dense time), not the flop ratio, because the band kernel does less work per multiply-add.
COST_FRACTION = 0.1


class BandStructure(NamedTuple):
    """Ordering, half-bandwidths and border of the iteration matrix of one system (static data).

    position[u] = place of unknown u (velocity coordinates 0..nv-1, then constraint rows) in the band
    ordering; the last ``n_border`` places are the dense border; bands = [kl, ku] of the leading block;
    unknown = the inverse of position; row_bodies[row] = (body1, body2) of constraint row ``row``;
    vel_body[k] = body of velocity coordinate k. ``active`` is False for the dense solver.
    segment_start[p], segment_end[p] = first and last place of the diagonal block of the leading block
    that holds place p (``band_segments``); the first ``n_coupled`` border unknowns are the ones coupled
    to the leading block (A12 and A21 are zero in the others). row_places[row, side, c, COLUMN_ENTRY or
    ROW_ENTRY] = index in ``BandMatrix.data`` of A[coordinate c of the row's body on that side, row] or
    A[row, coordinate]; group_places[group, m, j] = index of A[member m, member j] of a force group.
    """

    active: bool
    position: np.ndarray
    bands: np.ndarray
    n_border: int
    unknown: np.ndarray
    row_bodies: np.ndarray
    vel_body: np.ndarray
    segment_start: np.ndarray
    segment_end: np.ndarray
    n_coupled: int
    row_places: np.ndarray
    group_places: np.ndarray


class BandMatrix(NamedTuple):
    """A matrix in the ordering of a ``BandStructure``, and its factors after ``band_factor`` (see the
    module docstring for the blocks; ``data`` holds ab, upper, lower and corner in this order);
    ``rhs`` is the right-hand side in the band ordering."""

    data: np.ndarray
    ab: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    corner: np.ndarray
    piv: np.ndarray
    corner_piv: np.ndarray
    rhs: np.ndarray


def dense_structure() -> BandStructure:
    """The structure of the dense solver (nothing to store)."""
    empty = np.zeros(0, dtype=np.int64)
    return BandStructure(False, empty, np.zeros(2, dtype=np.int64), 0, empty, np.zeros((0, 2), dtype=np.int64),
                         empty, empty, empty, 0, np.zeros((0, 2, BODY_BLOCK, 2), dtype=np.int64),
                         np.zeros((0, 0, 0), dtype=np.int64))


def band_matrix(structure: BandStructure) -> BandMatrix:
    """Zeroed storage for a matrix of ``structure`` (empty arrays for the dense solver)."""
    n = structure.position.shape[0]
    nb = structure.n_border
    n1 = n - nb
    kl, ku = (int(x) for x in structure.bands)
    width = 2 * kl + ku + 1 if structure.active else 0
    shapes = ((n1, width), (n1, nb), (nb, n1), (nb, nb))
    data = np.zeros(sum(r * c for r, c in shapes))
    blocks, start = [], 0
    for r, c in shapes:
        blocks.append(data[start:start + r * c].reshape(r, c))
        start += r * c
    return BandMatrix(data, *blocks, np.zeros(n1, dtype=np.int64), np.zeros(nb, dtype=np.int64), np.zeros(n))


def coupled_bodies(system: SystemArrays) -> list[set[int]]:
    """For every body, the other bodies it shares a joint row or a force-coupled group with."""
    n_bodies = system.body_int.shape[0]
    nv = int(system.sizes[1])
    vel_body = np.empty(nv, dtype=np.int64)
    for i, row in enumerate(system.body_int):
        vel_body[row[B_VSTART]:row[B_VSTART] + row[B_NV]] = i
    neighbours: list[set[int]] = [set() for _ in range(n_bodies)]
    links = [tuple(b for b in pair if b >= 0) for pair in constraint_row_bodies(system)]
    links += [tuple(set(vel_body[group[group >= 0]].tolist())) for group in system.force_groups]
    for bodies in links:
        for b in bodies:
            neighbours[b].update(x for x in bodies if x != b)
    return neighbours


def band_ordering(system: SystemArrays, border: set[int]) -> tuple[np.ndarray, int]:
    """(position[u] of every unknown, size of the border) with the bodies in ``border`` last.

    The other bodies are visited component by component, breadth first from a body with fewest
    coupled bodies (a chain built in order keeps its order) and, among those, the farthest from the
    border: a branch of a tree then ends at its hub, and the rows of its joints to the hub, the only
    places coupled to the border, are the last of its block (see the module docstring). Each body is
    preceded by the rows of its joints to bodies visited before it and followed by the rows that touch
    no other visited body (its Euler-parameter norm row, joints to ground or to a border body): a joint
    row then sits between the coordinates of its two bodies. The first body of a component has no rows
    before it and puts its own rows there instead, away from the next body (a chain's half-bandwidth:
    EP 13 -> 10). The border holds the border bodies' coordinates and the rows that touch no other body.
    """
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    neighbours = coupled_bodies(system)
    inner = [b for b in range(len(neighbours)) if b not in border]
    distance = _distances(neighbours, border)
    visited: list[int] = []
    seen: set[int] = set()
    while len(visited) < len(inner):
        start = min((b for b in inner if b not in seen),
                    key=lambda b: (len(neighbours[b] - border), -distance[b], b))
        queue = [start]
        seen.add(start)
        while queue:
            b = queue.pop(0)
            visited.append(b)
            for x in sorted(neighbours[b] - border - seen):
                seen.add(x)
                queue.append(x)
    rank = {b: k for k, b in enumerate(visited)}
    ranks = [sorted(rank[b] for b in pair if b >= 0 and b not in border) for pair in constraint_row_bodies(system)]
    last = np.array([r[-1] if r else -1 for r in ranks], dtype=np.int64)
    between = np.array([len(r) == 2 and r[0] != r[1] for r in ranks], dtype=bool)
    order: list[int] = []
    for k, b in enumerate(visited):
        start, n = int(system.body_int[b, B_VSTART]), int(system.body_int[b, B_NV])
        own = [nv + r for r in np.flatnonzero((last == k) & ~between)]
        joined = [nv + r for r in np.flatnonzero((last == k) & between)]
        if not joined:
            order.extend(own)       # the first body of a component: its own rows away from the next body
        order.extend(joined)
        order.extend(range(start, start + n))
        if joined:
            order.extend(own)
    for b in sorted(border):
        start, n = int(system.body_int[b, B_VSTART]), int(system.body_int[b, B_NV])
        order.extend(range(start, start + n))
    order.extend(nv + r for r in np.flatnonzero(last < 0))
    position = np.empty(nv + nc, dtype=np.int64)
    position[np.asarray(order, dtype=np.int64)] = np.arange(nv + nc)
    n_border = sum(int(system.body_int[b, B_NV]) for b in border) + int(np.count_nonzero(last < 0))
    return position, n_border


def _distances(neighbours: list[set[int]], sources: set[int]) -> list[int]:
    """Number of couplings from each body to the nearest body of ``sources`` (breadth first; 0 for all
    bodies when there is none, and for bodies it does not reach)."""
    distance = [0] * len(neighbours)
    frontier = sorted(sources)
    seen = set(sources)
    level = 0
    while frontier:
        level += 1
        following = []
        for b in frontier:
            for x in sorted(neighbours[b] - seen):
                seen.add(x)
                distance[x] = level
                following.append(x)
        frontier = following
    return distance


def _coupled_places(system: SystemArrays, position: np.ndarray, n1: int):
    """For each coupling of the leading block (places below n1) of the iteration matrix: the anchor place
    and the places it couples with. The velocity coordinates of one force group couple with each other
    (anchor: the group's first place), a constraint row with its bodies' velocity coordinates (B and B^T;
    anchor: the row; the derivative of B^T lambda couples the two bodies' coordinates as well)."""
    nv = int(system.sizes[1])
    for group in system.force_groups:
        p = position[group[group >= 0]]
        p = p[p < n1]
        if p.size:
            yield int(p.min()), p
    for row, bodies in enumerate(constraint_row_bodies(system)):
        anchor = int(position[nv + row])
        if anchor >= n1:
            continue
        places = [position[start:start + n] for start, n in
                  ((int(system.body_int[b, B_VSTART]), int(system.body_int[b, B_NV])) for b in bodies[bodies >= 0])]
        p = np.concatenate(places) if places else np.zeros(0, dtype=np.int64)
        yield anchor, p[p < n1]


def half_bandwidth(system: SystemArrays, position: np.ndarray, n_border: int = 0) -> int:
    """Half-bandwidth kl = ku of the leading (non-border) block of the iteration matrix in the ordering
    ``position`` (its pattern is symmetric): the largest distance of a place from the anchor of a
    coupling it belongs to (``_coupled_places``)."""
    width = 0
    for anchor, places in _coupled_places(system, position, position.shape[0] - n_border):
        if places.size:
            width = max(width, int(np.abs(places - anchor).max()))
    return width


def band_segments(system: SystemArrays, position: np.ndarray, n_border: int) -> tuple[np.ndarray, np.ndarray]:
    """(segment_start, segment_end) of every place of the leading block: the first and last place of the
    run of places that couplings link to it (``_coupled_places``, and each body's own coordinates).

    The leading block is block diagonal with these runs as blocks (the V8 crank drive: one block per
    rod-piston branch once the crankshaft is the border; a chain: one block). LU with partial pivoting
    inside the band never leaves a block: its pivot rows, row interchanges and fill stay in the block,
    so ``band_lu_factor`` and the solves stop there instead of at the band's edge."""
    n1 = position.shape[0] - n_border
    reach = np.arange(n1)
    for anchor, places in _coupled_places(system, position, n1):
        if places.size:
            low, high = min(anchor, int(places.min())), max(anchor, int(places.max()))
            reach[low] = max(reach[low], high)
    for row in system.body_int:
        p = position[row[B_VSTART]:row[B_VSTART] + row[B_NV]]
        p = p[p < n1]
        if p.size:
            reach[p.min()] = max(reach[p.min()], p.max())
    start = np.empty(n1, dtype=np.int64)
    end = np.empty(n1, dtype=np.int64)
    first, last = 0, -1
    for p in range(n1):
        if p > last:
            first = p
        last = max(last, int(reach[p]))
        start[p] = first
        if p == last:
            end[first:p + 1] = p
    return start, end


def factor_cost(n: int, kl: int, ku: int, n_border: int) -> float:
    """Multiply-adds of ``band_factor``: band LU of the leading block, the border columns' solves, the
    Schur complement and its dense LU (for comparison, the dense LU takes n^3 / 3)."""
    n1 = n - n_border
    return (n1 * kl * (kl + ku) + n_border * n1 * (2 * kl + ku) + n_border * n_border * n1
            + n_border ** 3 / 3.0)


def band_structure(system: SystemArrays, mode: str = "auto") -> BandStructure:
    """The banded solver's structure for ``system`` (mode "banded"), the dense one (mode "dense"), or
    whichever is cheaper (mode "auto": banded when ``factor_cost`` is at most COST_FRACTION of the
    dense LU's). The banded ordering is the plain chain ordering or the one with the hubs (bodies
    coupled to HUB_DEGREE or more others) in the border, whichever costs less. Minimal-coordinate
    chains (dense M) are always dense."""
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    if mode == "dense" or system.chain_int.shape[0] > 0 or nv + nc == 0:
        return dense_structure()
    n = nv + nc
    neighbours = coupled_bodies(system)
    hubs = {b for b, others in enumerate(neighbours) if len(others) >= HUB_DEGREE}
    candidates = []
    for border in ([set(), hubs] if hubs else [set()]):
        position, n_border = band_ordering(system, border)
        kl = half_bandwidth(system, position, n_border)
        candidates.append((factor_cost(n, kl, kl, n_border), position, kl, n_border))
    cost, position, kl, n_border = min(candidates, key=lambda c: c[0])
    if mode == "auto" and cost > COST_FRACTION * n ** 3 / 3.0:
        return dense_structure()
    vel_body = np.empty(nv, dtype=np.int64)
    for i, row in enumerate(system.body_int):
        vel_body[row[B_VSTART]:row[B_VSTART] + row[B_NV]] = i
    segment_start, segment_end = band_segments(system, position, n_border)
    row_bodies = constraint_row_bodies(system)
    layout = (kl, kl, n - n_border, n_border)
    return BandStructure(True, position, np.array([kl, kl], dtype=np.int64), n_border, np.argsort(position),
                         row_bodies, vel_body, segment_start, segment_end, coupled_border(system, position, n_border),
                         _row_places(system, row_bodies, position, layout),
                         _group_places(system, position, layout))


def _row_places(system: SystemArrays, row_bodies: np.ndarray, position: np.ndarray, layout) -> np.ndarray:
    """``BandStructure.row_places`` (-1 where a row has no body on a side or the body fewer coordinates)."""
    nv = int(system.sizes[1])
    places = np.full((row_bodies.shape[0], 2, BODY_BLOCK, 2), -1, dtype=np.int64)
    for row, bodies in enumerate(row_bodies):
        row_place = int(position[nv + row])
        for side, b in enumerate(bodies):
            if b < 0:
                continue
            start = int(system.body_int[b, B_VSTART])
            for c in range(int(system.body_int[b, B_NV])):
                place = int(position[start + c])
                places[row, side, c, COLUMN_ENTRY] = band_index.py_func(layout, place, row_place)
                places[row, side, c, ROW_ENTRY] = band_index.py_func(layout, row_place, place)
    return places


def _group_places(system: SystemArrays, position: np.ndarray, layout) -> np.ndarray:
    """``BandStructure.group_places`` (-1 where a group has fewer members)."""
    groups = system.force_groups
    places = np.full((groups.shape[0], groups.shape[1], groups.shape[1]), -1, dtype=np.int64)
    for g, members in enumerate(groups):
        for m, r in enumerate(members):
            for j, k in enumerate(members):
                if r >= 0 and k >= 0:
                    places[g, m, j] = band_index.py_func(layout, int(position[r]), int(position[k]))
    return places


def coupled_border(system: SystemArrays, position: np.ndarray, n_border: int) -> int:
    """How many border unknowns, counted from the border's first place, are coupled to the leading block:
    ``band_ordering`` places the border bodies' coordinates first and then the rows that touch no body of
    the leading block, whose columns of A12 and rows of A21 are zero. 1 + the last coupled place."""
    n1 = position.shape[0] - n_border
    last = -1
    for anchor, places in _coupled_places(system, position, position.shape[0]):
        if anchor < n1 or places.min(initial=n1) < n1:
            border = places[places >= n1]
            if anchor >= n1:
                last = max(last, anchor - n1)
            if border.size:
                last = max(last, int(border.max()) - n1)
    return last + 1


@njit(inline="always")
def _band_view(ab, kl, ku):
    """(n, width, kl + ku, the flat view) of the band storage ab: what the band kernels index with
    (``flat.py``)."""
    return ab.shape[0], ab.shape[1], kl + ku, flat(ab)


@njit(inline="always")
def _column_offset(width, diag, k):
    """Offset of A11[0, k] in the flat band storage: a[offset + i] = A11[i, k] (module storage)."""
    return unsigned(k * width + diag - k)


@kernel
def band_lu_factor(ab, kl, ku, piv, segment_end):
    """In-place LU with partial pivoting of the band matrix ``ab`` (module storage); False if singular.

    A pivot below 1e-13 times the largest entry counts as singular (as ``dense.lu_factor``). Column k is
    eliminated only down to its last nonzero entry below the diagonal: the rows past it would subtract
    zeros. The V8's band is block-diagonal between its hubs (17 % nonzero after fill-in), so this and the
    faster ``largest_magnitude`` took its band LU from 44 to 36 µs (docs/notes/implicit_speed.md).
    Rows, row interchanges and updates stop at ``segment_end[k]``, the last place of k's diagonal block
    (``band_segments``; ``full_segments`` for a matrix without that knowledge): the entries beyond are
    zeros, which the loops would otherwise read and skip one by one. The entries are reached through
    ``flat``'s unsigned offsets (``_column_offset``).
    """
    n, width, diag, a = _band_view(ab, kl, ku)
    scale = largest_magnitude(ab)
    if scale == 0.0 or not np.isfinite(scale):
        return False
    for k in range(n):
        end = min(n - 1, segment_end[k])
        last_row = min(end, k + kl)
        column_k = _column_offset(width, diag, k)
        while last_row > k and a[column_k + unsigned(last_row)] == 0.0:
            last_row -= 1       # zeros at the foot of column k: rows that need no elimination
        p = k
        big = abs(a[column_k + unsigned(k)])
        for i in range(k + 1, last_row + 1):
            entry = abs(a[column_k + unsigned(i)])
            if entry > big:
                big = entry
                p = i
        piv[k] = p
        if big <= 1e-13 * scale:
            return False
        last_col = min(end, k + kl + ku)
        if p != k:
            for j in range(k, last_col + 1):
                column_j = _column_offset(width, diag, j)
                entry = a[column_j + unsigned(k)]
                a[column_j + unsigned(k)] = a[column_j + unsigned(p)]
                a[column_j + unsigned(p)] = entry
        inv = 1.0 / a[column_k + unsigned(k)]
        for i in range(k + 1, last_row + 1):
            a[column_k + unsigned(i)] *= inv
        if last_row == k:
            continue
        first = unsigned(k + 1)
        stop = unsigned(last_row + 1)
        for j in range(k + 1, last_col + 1):
            column_j = _column_offset(width, diag, j)
            f = a[column_j + unsigned(k)]
            if f != 0.0:
                for i in range(first, stop):
                    a[column_j + i] -= a[column_k + i] * f
    return True


@kernel
def band_lu_solve(ab, kl, ku, piv, b, segment_start, segment_end):
    """Solve with the factors of ``band_lu_factor``; b is overwritten with the solution. The sweeps stay in
    each place's diagonal block (``band_segments``)."""
    band_lu_forward(ab, kl, ku, piv, b, segment_end)
    band_lu_backward(ab, kl, ku, b, segment_start)


@kernel
def band_lu_forward(ab, kl, ku, piv, b, segment_end):
    """b <- L^{-1} P b with the factors of ``band_lu_factor`` (the row interchanges and the unit lower
    triangle), staying in each place's diagonal block."""
    n, width, diag, a = _band_view(ab, kl, ku)
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
        bk = b[k]
        if bk != 0.0:
            column_k = _column_offset(width, diag, k)
            for i in range(unsigned(k + 1), unsigned(min(n - 1, k + kl, segment_end[k]) + 1)):
                b[i] -= a[column_k + i] * bk


@kernel
def band_lu_backward(ab, kl, ku, b, segment_start):
    """b <- U^{-1} b with the upper triangle of ``band_lu_factor``, staying in each place's diagonal block."""
    n, width, diag, a = _band_view(ab, kl, ku)
    for k in range(n - 1, -1, -1):
        column_k = _column_offset(width, diag, k)
        b[k] /= a[column_k + unsigned(k)]
        bk = b[k]
        if bk != 0.0:
            for i in range(unsigned(max(0, k - kl - ku, segment_start[k])), unsigned(k)):
                b[i] -= a[column_k + i] * bk


@kernel
def band_lu_forward_columns(ab, kl, ku, piv, B, n_columns, segment_end):
    """B[:, :n_columns] <- L^{-1} P B[:, :n_columns] with the factors of ``band_lu_factor`` (the loop of
    ``band_lu_forward`` with the columns innermost: contiguous, and a zero row is skipped whole, so rows
    before a block's first nonzero of B cost a test). The columns past ``n_columns`` are zero (the border
    unknowns not coupled to A11) and left alone."""
    n, width, diag, a = _band_view(ab, kl, ku)
    b = flat(B)
    b_width = B.shape[1]
    columns = unsigned(n_columns)
    for k in range(n):
        row_k = unsigned(k * b_width)
        p = piv[k]
        if p != k:
            row_p = unsigned(p * b_width)
            for c in range(unsigned(0), columns):
                entry = b[row_k + c]
                b[row_k + c] = b[row_p + c]
                b[row_p + c] = entry
        if _zero_row(b, row_k, columns):
            continue
        column_k = _column_offset(width, diag, k)
        for i in range(k + 1, min(n - 1, k + kl, segment_end[k]) + 1):
            f = a[column_k + unsigned(i)]
            if f != 0.0:
                row_i = unsigned(i * b_width)
                for c in range(unsigned(0), columns):
                    b[row_i + c] -= f * b[row_k + c]


@kernel
def band_right_upper_solve(ab, kl, ku, C, n_rows, segment_start):
    """C[:n_rows] <- C[:n_rows] U^{-1} with the upper triangle of ``band_lu_factor``: for each row y of C,
    y_j = (c_j - sum_{i<j} y_i U_ij) / U_jj, j ascending. Within each diagonal block the entries before
    the row's first nonzero stay zero and are skipped."""
    n, width, diag, a = _band_view(ab, kl, ku)
    c = flat(C)
    c_width = C.shape[1]
    for r in range(n_rows):
        row = unsigned(r * c_width)
        first = -1                      # the row's first nonzero place in the current block
        for j in range(n):
            if j == segment_start[j]:
                first = -1
            if first < 0:
                if c[row + unsigned(j)] == 0.0:
                    continue
                first = j
            column_j = _column_offset(width, diag, j)
            total = c[row + unsigned(j)]
            for i in range(unsigned(max(first, j - kl - ku)), unsigned(j)):
                total -= c[row + i] * a[column_j + i]
            c[row + unsigned(j)] = total / a[column_j + unsigned(j)]


@njit(inline="always")
def _zero_row(b, row, n_columns):
    """True if the n_columns entries of b from offset ``row`` are all zero: the forward pass skips the row
    (B = A12 is zero outside the rows of the joints to the hubs until elimination fills it)."""
    for c in range(unsigned(0), n_columns):
        if b[row + c] != 0.0:
            return False
    return True


@kernel
def band_layout(st):
    """(kl, ku, n1, nb) of the structure st: the integers ``band_index`` needs."""
    nb = st.n_border
    return st.bands[0], st.bands[1], st.position.shape[0] - nb, nb


@kernel
def band_index(layout, i, j):
    """Index in ``BandMatrix.data`` of A[i, j] for the places i, j of the band ordering (inside the band
    of A11, or in the border); layout from ``band_layout``."""
    kl, ku, n1, nb = layout
    width = 2 * kl + ku + 1
    if i < n1 and j < n1:
        return j * width + kl + ku + i - j
    if i < n1:
        return n1 * width + i * nb + j - n1
    if j < n1:
        return n1 * width + nb * n1 + (i - n1) * n1 + j
    return n1 * width + 2 * nb * n1 + (i - n1) * nb + j - n1


@kernel
def band_clear(m):
    """Zero every block of the band matrix m."""
    m.data[:] = 0.0


@kernel
def band_gather(S, st, m):
    """The dense matrix S (unknowns in their own order) into the band matrix m of ``st`` (for tests and
    diagnostics: the integrators assemble from blocks). Only the entries of the structure's pattern are
    read: the others must be zero."""
    kl = st.bands[0]
    ku = st.bands[1]
    unknown = st.unknown
    n1 = m.ab.shape[0]
    nb = m.corner.shape[0]
    m.ab[:, :] = 0.0
    for pc in range(n1):
        c = unknown[pc]
        for pr in range(max(0, pc - ku), min(n1, pc + kl + 1)):
            m.ab[pc, kl + ku + pr - pc] = S[unknown[pr], c]
        for b in range(nb):
            m.lower[b, pc] = S[unknown[n1 + b], c]
            m.upper[pc, b] = S[c, unknown[n1 + b]]
    for r in range(nb):
        for c in range(nb):
            m.corner[r, c] = S[unknown[n1 + r], unknown[n1 + c]]


@kernel
def band_factor(m, st):
    """Factorise the band matrix m in place: band LU of A11, upper <- L^{-1} P A12, lower <- A21 U^{-1},
    corner <- LU of the Schur complement A22 - lower upper (the block LU of the module docstring); False
    if singular."""
    kl = st.bands[0]
    ku = st.bands[1]
    n1 = m.ab.shape[0]
    nb = m.corner.shape[0]
    if n1 > 0 and not band_lu_factor(m.ab, kl, ku, m.piv, st.segment_end):
        return False
    if nb == 0:
        return True
    coupled = st.n_coupled        # A12's columns and A21's rows past it are zero
    band_lu_forward_columns(m.ab, kl, ku, m.piv, m.upper, coupled, st.segment_end)
    band_right_upper_solve(m.ab, kl, ku, m.lower, coupled, st.segment_start)
    for r in range(coupled):
        for k in range(n1):
            f = m.lower[r, k]
            if f != 0.0:      # A21 U^{-1} is zero before the rows of the joints to the hubs
                for c in range(coupled):
                    m.corner[r, c] -= f * m.upper[k, c]
    return lu_factor(m.corner, m.corner_piv)


@kernel
def band_solve(m, st, b):
    """b <- A^{-1} b with the factors of ``band_factor``; b in the unknowns' own order (permuted into
    m.rhs and back). With a border: z1 = L^{-1} P b1, x2 = S^{-1} (b2 - lower z1),
    x1 = U^{-1} (z1 - upper x2)."""
    pos = st.position
    x = m.rhs
    for u in range(b.shape[0]):
        x[pos[u]] = b[u]
    n1 = m.ab.shape[0]
    nb = m.corner.shape[0]
    kl = st.bands[0]
    ku = st.bands[1]
    head = x[:n1]
    if nb == 0:
        if n1 > 0:
            band_lu_solve(m.ab, kl, ku, m.piv, head, st.segment_start, st.segment_end)
    else:
        coupled = st.n_coupled    # lower's rows and upper's columns past it are zero
        tail = x[n1:]
        if n1 > 0:
            band_lu_forward(m.ab, kl, ku, m.piv, head, st.segment_end)
        for r in range(coupled):
            total = 0.0
            for k in range(n1):
                total += m.lower[r, k] * head[k]
            tail[r] -= total
        lu_solve(m.corner, m.corner_piv, tail)
        for k in range(n1):
            total = 0.0
            for c in range(coupled):
                total += m.upper[k, c] * tail[c]
            head[k] -= total
        if n1 > 0:
            band_lu_backward(m.ab, kl, ku, head, st.segment_start)
    for u in range(b.shape[0]):
        b[u] = x[pos[u]]


@kernel
def band_set_constraint_rows(body_int, st, Cb, texp, Tb, m):
    """The columns B^T and the rows B (B T with T = blockdiag(Tb[body]) if ``texp``) of a saddle-point
    iteration matrix into the band matrix m of ``st``, from the row blocks Cb of
    ``constraints.constraint_blocks``, at the places listed in ``st.row_places``."""
    places = st.row_places
    data = m.data
    for row in range(st.row_bodies.shape[0]):
        for side in range(2):
            b = st.row_bodies[row, side]
            if b < 0:
                continue
            n = body_int[b, B_NV]
            for c in range(n):
                data[places[row, side, c, COLUMN_ENTRY]] = Cb[row, side, c]
                if texp:
                    ct = 0.0
                    for l in range(n):
                        ct += Cb[row, side, l] * Tb[b, l, c]
                else:
                    ct = Cb[row, side, c]
                data[places[row, side, c, ROW_ENTRY]] = ct


def full_segments(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(segment_start, segment_end) of a band matrix of order n taken as one diagonal block."""
    return np.zeros(n, dtype=np.int64), np.full(n, n - 1, dtype=np.int64)


def band_from_dense(A: np.ndarray, kl: int, ku: int) -> np.ndarray:
    """Band storage of a dense matrix (for tests and diagnostics)."""
    n = A.shape[0]
    ab = np.zeros((n, 2 * kl + ku + 1))
    for j in range(n):
        for i in range(max(0, j - ku), min(n, j + kl + 1)):
            ab[j, kl + ku + i - j] = A[i, j]
    return ab
