"""Consistent initial conditions: positions on Phi(q) = 0, velocities on B(q) v = 0 (paper 002 Sect. 2).

Computed, not typed in. The position correction is a Gauss-Newton iteration with minimum-norm
steps in the local coordinates of the update (UAC), dq = -B^T (B B^T)^+ Phi; the velocity
projection removes the component of v normal to the constraint manifold, v -= B^T (B B^T)^+ B v.
With ``keep`` a set of velocity coordinates (e.g. a driving crank rate) is held fixed and the
others are adjusted instead.
"""
from __future__ import annotations

import numpy as np

from lgbench.exceptions import InputError
from lgbench.mbs.constraints import constraint_matrix, constraint_residual
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.system import SystemArrays


def constraint_state(system: SystemArrays, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nc, nv = int(system.sizes[2]), int(system.sizes[1])
    phi = np.zeros(nc)
    B = np.zeros((nc, nv))
    constraint_residual(system, q, 0.0, phi)
    constraint_matrix(system, q, B)
    return phi, B


def assemble_positions(system: SystemArrays, q: np.ndarray, tolerance: float = 1e-14,
                       max_iterations: int = 50, keep: list[int] | None = None) -> np.ndarray:
    """q moved onto Phi(q) = 0 (to ``tolerance`` in the max norm); the local coordinates of the update
    listed in ``keep`` (velocity indices) are not moved."""
    q = q.astype(float).copy()
    moved = np.empty_like(q)
    free = np.ones(int(system.sizes[1]), dtype=bool)
    if keep:
        free[list(keep)] = False
    for _ in range(max_iterations):
        phi, B = constraint_state(system, q)
        if phi.size == 0 or np.max(np.abs(phi)) <= tolerance:
            return q
        if not (np.all(np.isfinite(phi)) and np.all(np.isfinite(B))):
            break
        step = np.zeros(B.shape[1])
        step[free] = -np.linalg.lstsq(B[:, free], phi, rcond=None)[0]
        if q.shape[0] != step.shape[0]:
            raise ValueError("position assembly needs nq == nv (formulations with v = q' or Lie nodes)")
        size, norm = 1.0, np.linalg.norm(phi)
        while size > 1e-4:   # backtracking: accept the first step that reduces ||Phi||
            update_coordinates(system, q, size * step, moved)
            if np.linalg.norm(constraint_state(system, moved)[0]) < norm:
                break
            size *= 0.5
        q = moved.copy()
    phi, _ = constraint_state(system, q)
    raise InputError(f"the initial positions cannot be assembled: ||Phi|| = {np.max(np.abs(phi)):.2e} "
                     f"(check joint points, axes and lengths: can the joints close at all?)", field="initial state")


def project_velocities(system: SystemArrays, q: np.ndarray, v: np.ndarray,
                       keep: list[int] | None = None) -> np.ndarray:
    """v with B(q) v = 0; coordinates listed in ``keep`` are left unchanged where possible."""
    _, B = constraint_state(system, q)
    v = v.astype(float).copy()
    if B.shape[0] == 0:
        return v
    free = np.ones(v.shape[0], dtype=bool)
    if keep:
        free[list(keep)] = False
    correction = np.zeros_like(v)
    correction[free] = -np.linalg.lstsq(B[:, free], B @ v, rcond=None)[0]
    v += correction
    residual = np.max(np.abs(B @ v))
    if residual > 1e-10 * max(1.0, np.max(np.abs(v))):
        raise InputError(f"the initial velocities cannot satisfy the constraints with the kept "
                         f"coordinates fixed (||B v|| = {residual:.2e})", field="initial state")
    return v
