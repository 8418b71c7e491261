"""Index-1 form of the constrained equations of motion and projection onto the constraint manifold.

Paper 001 eq. (10): the accelerations and multipliers solve the saddle-point system

    [M  B^T] [v'    ]   [g        ]
    [B  0  ] [lambda] = [-B'(q,v) v],   i.e. Phi'' = 0 replaces Phi = 0 (paper 002 eq. 19 sign convention),

so an explicit (RK or RKMK) method integrates an ODE whose solutions keep Phi'' = 0 but let Phi and
B v drift. Paper 001 eq. (12) removes the drift after each step by a projection that is closest in
a weighted norm; lgbench weights with the mass matrix (the kinetic-energy metric, as in the
coordinate projection of Eich 1993, paper 001 ref. [6]):

- positions: Gauss-Newton steps in the local coordinates of the update (UAC, paper 000 Alg. 1),
  [M B^T; B 0] [dq; mu] = [0; -Phi(q)], q <- UAC(q, dq), until ||Phi||_2 <= tolerance; on the Lie
  group the update is exp-based, so R stays orthogonal (the R R^T = I conditions of eq. 12 hold by
  construction); at least one iteration per call, then until ||Phi||_2 <= tolerance;
- velocities: one linear solve [M B^T; B 0] [dv; mu] = [0; -B v], v <- v + dv.

Needs nq == nv (RV, Rxyz, EP nodes), so that a velocity-space correction is a coordinate increment.
"""
from typing import NamedTuple

import math

import numpy as np
from numba import njit

from lgbench.mbs.constraints import constraint_curvature, constraint_matrix, constraint_residual
from lgbench.mbs.dense import lu_factor, lu_solve
from lgbench.mbs.kernels import update_coordinates
from lgbench.mbs.residual import generalized_forces, mass_matrix


class SaddlePointWorkspace(NamedTuple):
    """Preallocated arrays of the index-1 solves and projections (a namedtuple, so numba takes it)."""

    M: np.ndarray
    C: np.ndarray
    A: np.ndarray
    piv: np.ndarray
    b: np.ndarray
    g: np.ndarray
    curvature: np.ndarray
    phi: np.ndarray
    dq: np.ndarray
    moved: np.ndarray
    force: np.ndarray
    torque: np.ndarray


def make_saddle_point_workspace(nq: int, nv: int, nc: int, n_bodies: int) -> SaddlePointWorkspace:
    n = nv + nc
    return SaddlePointWorkspace(
        M=np.zeros((nv, nv)), C=np.zeros((nc, nv)), A=np.zeros((n, n)), piv=np.zeros(n, dtype=np.int64),
        b=np.zeros(n), g=np.zeros(nv), curvature=np.zeros(nc), phi=np.zeros(nc), dq=np.zeros(nq),
        moved=np.zeros(nq), force=np.zeros((n_bodies, 3)), torque=np.zeros((n_bodies, 3)),
    )


@njit(cache=True)
def _factor_saddle_point(sys, q, w):
    """LU factors of [M(q) B(q)^T; B(q) 0] in w.A (M and B left in w.M, w.C); False if singular."""
    nv = w.M.shape[0]
    nc = w.C.shape[0]
    mass_matrix(sys, q, w.M)
    constraint_matrix(sys, q, w.C)
    w.A[:, :] = 0.0
    w.A[:nv, :nv] = w.M
    for r in range(nc):
        for c in range(nv):
            w.A[nv + r, c] = w.C[r, c]
            w.A[c, nv + r] = w.C[r, c]
    return lu_factor(w.A, w.piv)


@njit(cache=True)
def index1_accelerations(sys, q, v, t, w, a, lam):
    """v' and lambda from paper 001 eq. (10); returns False if the saddle-point matrix is singular."""
    nv = v.shape[0]
    nc = lam.shape[0]
    if not _factor_saddle_point(sys, q, w):
        return False
    generalized_forces(sys, q, v, t, w.force, w.torque, w.g)
    constraint_curvature(sys, q, v, w.curvature)
    w.b[:nv] = w.g
    for r in range(nc):
        w.b[nv + r] = -w.curvature[r]
    lu_solve(w.A, w.piv, w.b)
    a[:] = w.b[:nv]
    lam[:] = w.b[nv:]
    return True


@njit(cache=True)
def constraint_norm(sys, q, w):
    """||Phi(q)||_2 (Phi left in w.phi)."""
    constraint_residual(sys, q, 0.0, w.phi)
    s = 0.0
    for r in range(w.phi.shape[0]):
        s += w.phi[r] * w.phi[r]
    return math.sqrt(s)


@njit(cache=True)
def velocity_constraint_norm(sys, q, v, w):
    """||B(q) v||_2 (B left in w.C)."""
    constraint_matrix(sys, q, w.C)
    s = 0.0
    for r in range(w.C.shape[0]):
        bv = 0.0
        for c in range(v.shape[0]):
            bv += w.C[r, c] * v[c]
        s += bv * bv
    return math.sqrt(s)


@njit(cache=True)
def project_positions(sys, q, w, tolerance, max_iterations):
    """q moved onto Phi(q) = 0 in place (paper 001 eq. 12, position part).

    At least one Gauss-Newton iteration (so Phi ends at round-off, not just below ``tolerance``),
    then more while ||Phi||_2 > ``tolerance``. Returns the number of iterations, or -1 if
    ``max_iterations`` do not reach the tolerance (or the saddle-point matrix is singular).
    """
    nv = w.M.shape[0]
    nc = w.C.shape[0]
    if nc == 0:
        return 0
    constraint_norm(sys, q, w)
    for it in range(1, max_iterations + 1):
        if not _factor_saddle_point(sys, q, w):
            return -1
        w.b[:nv] = 0.0
        for r in range(nc):
            w.b[nv + r] = -w.phi[r]
        lu_solve(w.A, w.piv, w.b)
        w.dq[:] = w.b[:nv]
        update_coordinates(sys, q, w.dq, w.moved)
        q[:] = w.moved
        if constraint_norm(sys, q, w) <= tolerance:
            return it
    return -1


@njit(cache=True)
def project_velocities(sys, q, v, w):
    """v moved onto B(q) v = 0 in place (paper 001 eq. 12, velocity part); False if singular."""
    nv = v.shape[0]
    nc = w.C.shape[0]
    if not _factor_saddle_point(sys, q, w):
        return False
    w.b[:nv] = 0.0
    for r in range(nc):
        bv = 0.0
        for c in range(nv):
            bv += w.C[r, c] * v[c]
        w.b[nv + r] = -bv
    lu_solve(w.A, w.piv, w.b)
    for c in range(nv):
        v[c] += w.b[c]
    return True
