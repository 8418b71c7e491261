"""Redundant constraint rows: found from the rank of B(q) at the assembled state and removed.

A planar linkage written with spatial revolute joints, or an over-constrained spatial linkage (Bricard's), has
more constraint rows than independent ones: its B(q) (paper 000 eq. 10) has rank r < rows on the whole
constraint manifold, so every iteration matrix [[M, B^T], [B, 0]] is singular. As ADAMS/Solver does, the
dependent rows are removed once, at the assembled initial state, and the mechanism runs on r independent
rows that describe the same motion: every kept row is implied by the joints as written, and near the
assembled state r independent implied rows define the same manifold as all of them.

The rows are taken in order, Euler-parameter norms first, then the joints' point primitives (3 and 2 rows),
then their one-row primitives (axis perpendicularities, distances), each primitive's rows in the file's order;
a primitive whose rows add nothing to the rank of those kept before it is removed, one whose rows add less
than their number is replaced by the independent combinations of its rows (a point primitive's rows are
the projections of p2 - p1 on vectors of body 1, so the combinations are POINT_ON_LINE or POINT_ON_PLANE
rows with the combined vectors). The rank tolerance is relative to each primitive's own rows.

The multipliers of removed rows are zero: the reactions of an over-constrained loop are carried by the kept
rows, one of the many force distributions that satisfy the equations of motion (with rigid bodies they are
not unique). The residual of every written row is still reported along the run (``all_rows``), so a
configuration where the removed rows stop being implied (a change of rank) shows as a constraint residual.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lgbench.mbs.assembly import constraint_state
from lgbench.mbs.codes import (
    BODY_FRAME_COINCIDENT, BODY_FRAME_POINT, COINCIDENT, POINT_ON_LINE, POINT_ON_PLANE, JointPrimitive,
)
from lgbench.mbs.pose import body_pose
from lgbench.mbs.system import (
    B_CROW, GROUND, J_BODY1, J_BODY2, J_FIRST, J_NORMALS, J_NROWS, J_ROW, J_SECOND, J_TYPE, S_NC, SystemArrays,
)

RANK_TOLERANCE = 1e-9
"""A primitive's projected rows count as independent when their singular value exceeds this fraction of the
largest singular value of the primitive's own rows: assembled positions satisfy Phi to 1e-14, so dependent rows
project to ~1e-15 of their size, while rows a singular configuration makes nearly dependent stay far above."""


@dataclass(frozen=True)
class RemovedRows:
    """What the reduction did to one primitive: ``kept`` of its ``rows`` (0: removed)."""

    primitive: int
    kind: int
    rows: int
    kept: int


@dataclass(frozen=True)
class Reduction:
    """The system on independent rows, the rank of B at the assembled state, and what was removed."""

    system: SystemArrays
    all_rows: SystemArrays
    rank: int
    changes: tuple[RemovedRows, ...] = field(default=())
    first_rows: tuple[int, ...] = field(default=())
    """Each primitive's first row in ``system`` (its kept rows follow it)."""

    @property
    def redundant(self) -> int:
        return int(self.all_rows.sizes[S_NC]) - int(self.system.sizes[S_NC])

    def rows_of(self, first: int, count: int) -> tuple[int, int]:
        """The (first, count) in ``system`` of the written rows first .. first + count - 1 of whole primitives."""
        kept = [j for j in range(self.all_rows.joint_int.shape[0])
                if first <= self.all_rows.joint_int[j, J_ROW] < first + count]
        starts = [self.first_rows[j] for j in kept]
        counts = [int(self.system_rows[j]) for j in kept]
        return (min(starts) if starts else 0), sum(counts)

    @property
    def system_rows(self) -> tuple[int, ...]:
        """Each written primitive's rows in ``system`` (0: removed)."""
        kept = {change.primitive: change.kept for change in self.changes}
        return tuple(kept.get(j, int(self.all_rows.joint_int[j, J_NROWS]))
                     for j in range(self.all_rows.joint_int.shape[0]))


def independent_rows(system: SystemArrays, q: np.ndarray) -> Reduction:
    """``system`` with its redundant constraint rows at the state q removed (module note)."""
    nc = int(system.sizes[S_NC])
    if nc == 0:
        return Reduction(system, system, 0)
    _, B = constraint_state(system, q)
    if not np.all(np.isfinite(B)):        # the run reports the state that is not finite
        return Reduction(system, system, nc)
    basis = np.zeros((0, B.shape[1]))
    joint_int, joint_real = system.joint_int, system.joint_real
    for row in system.body_int[:, B_CROW]:
        if row >= 0:
            basis = _extend(basis, B[row:row + 1])
    order = sorted(range(joint_int.shape[0]), key=lambda j: (joint_int[j, J_NROWS] == 1, j))
    new_int, new_real = joint_int.copy(), joint_real.copy()
    changes = []
    for j in order:
        first, rows = int(joint_int[j, J_ROW]), int(joint_int[j, J_NROWS])
        block = B[first:first + rows]
        combinations = _new_directions(basis, block)
        kept = combinations.shape[1]
        if kept == rows:
            basis = _extend(basis, block)
            continue
        changes.append(RemovedRows(j, int(joint_int[j, J_TYPE]), rows, kept))
        if kept == 0:
            new_int[j, J_NROWS] = 0
            continue
        basis = _extend(basis, combinations.T @ block)
        _project(system, q, j, combinations, new_int, new_real)
    return _renumbered(system, new_int, new_real, basis.shape[0], tuple(sorted(changes, key=lambda c: c.primitive)))


def _extend(basis: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The orthonormal basis of the span of ``basis`` and ``rows`` (rows independent of it, by the caller)."""
    residual = rows - (rows @ basis.T) @ basis
    residual -= (residual @ basis.T) @ basis
    q, _ = np.linalg.qr(residual.T)
    return np.vstack([basis, q.T])


def _new_directions(basis: np.ndarray, block: np.ndarray) -> np.ndarray:
    """Columns u (block rows x kept) such that the rows u^T block are independent of ``basis`` and of each
    other: the left singular vectors of the block's part outside the span of ``basis`` with singular values
    above ``RANK_TOLERANCE`` of the block's largest."""
    scale = np.linalg.norm(block, 2)
    if not scale > 0.0:
        return np.zeros((block.shape[0], 0))
    residual = block - (block @ basis.T) @ basis
    residual -= (residual @ basis.T) @ basis
    u, s, _ = np.linalg.svd(residual, full_matrices=False)
    return u[:, s > RANK_TOLERANCE * scale]


def _project(system: SystemArrays, q: np.ndarray, j: int, combinations: np.ndarray, new_int: np.ndarray,
             new_real: np.ndarray) -> None:
    """Primitive j replaced by the combinations u^T of its rows: a point primitive's rows are projections of
    p2 - p1 on body-1 vectors, so the combinations are a POINT_ON_LINE (2) or POINT_ON_PLANE (1) primitive
    with the combined vectors in body 1's frame."""
    kind = int(system.joint_int[j, J_TYPE])
    body1, body2 = int(system.joint_int[j, J_BODY1]), int(system.joint_int[j, J_BODY2])
    real = system.joint_real[j]
    if kind == COINCIDENT:             # rows p1 - p2, global: u^T (p1 - p2) = -(p2 - p1) . (R1 R1^T u)
        R1 = np.eye(3) if body1 == GROUND else body_pose(system, body1, q)[0]
        vectors = [R1.T @ u for u in combinations.T]
    elif kind == BODY_FRAME_COINCIDENT:  # rows R1^T (p2 - p1): u^T R1^T (p2 - p1) = (p2 - p1) . (R1 u)
        vectors = list(combinations.T)
    elif kind == BODY_FRAME_POINT:     # rows R1^T (g - p1): p2 = the ground point g
        vectors = list(combinations.T)
        body2 = GROUND
    elif kind == POINT_ON_LINE:        # rows (p2 - p1) . (R1 t_k)
        normals = np.array([real[J_NORMALS:J_NORMALS + 3], real[J_NORMALS + 3:J_NORMALS + 6]])
        vectors = [normals.T @ u for u in combinations.T]
    else:
        raise AssertionError(f"a {JointPrimitive(kind).name} primitive has one row: kept whole or removed")
    new_int[j, J_TYPE] = POINT_ON_LINE if len(vectors) == 2 else POINT_ON_PLANE
    new_int[j, J_NROWS] = len(vectors)
    new_int[j, J_BODY2] = body2
    projected = np.zeros_like(real)
    projected[J_FIRST:J_FIRST + 3] = real[J_FIRST:J_FIRST + 3]
    projected[J_SECOND:J_SECOND + 3] = real[J_SECOND:J_SECOND + 3]
    for k, vector in enumerate(vectors):
        projected[J_NORMALS + 3 * k:J_NORMALS + 3 * k + 3] = vector / np.linalg.norm(vector)
    new_real[j] = projected


def _renumbered(system: SystemArrays, new_int: np.ndarray, new_real: np.ndarray, rank: int,
                changes: tuple[RemovedRows, ...]) -> Reduction:
    """The system with the primitives' new row counts, rows renumbered in their written order and removed
    primitives dropped (``first_rows``: each written primitive's first row in the new numbering)."""
    if not changes:
        return Reduction(system, system, rank, (), tuple(int(r) for r in system.joint_int[:, J_ROW]))
    body_int = system.body_int.copy()
    units = [(int(row), "body", i, 1) for i, row in enumerate(system.body_int[:, B_CROW]) if row >= 0]
    units += [(int(system.joint_int[j, J_ROW]), "joint", j, int(new_int[j, J_NROWS]))
              for j in range(new_int.shape[0])]
    row = 0
    first_rows = [0] * new_int.shape[0]
    for _, kind, index, count in sorted(units):
        if kind == "body":
            body_int[index, B_CROW] = row
        else:
            new_int[index, J_ROW] = row
            first_rows[index] = row
        row += count
    present = new_int[:, J_NROWS] > 0
    sizes = system.sizes.copy()
    sizes[S_NC] = row
    reduced = system._replace(sizes=sizes, body_int=body_int, joint_int=np.ascontiguousarray(new_int[present]),
                              joint_real=np.ascontiguousarray(new_real[present]))
    return Reduction(reduced, system, rank, changes, tuple(first_rows))
