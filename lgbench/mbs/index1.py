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

Chains of bodies (``lgbench.mbs.banded``): the saddle-point matrix is assembled from the bodies' blocks
of M and B in the body-by-body ordering and factorised as a band matrix, so a solve costs O(bodies)
instead of O(bodies^3).
"""
from typing import NamedTuple

import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.mbs.banded import (
    band_clear, band_factor, band_index, band_layout, band_matrix, band_set_constraint_rows, band_solve, band_structure,
    BandMatrix, BandStructure, BODY_BLOCK, dense_structure,
)
from lgbench.mbs.constraints import (
    constraint_blocks, constraint_curvature_inline, constraint_matrix, constraint_residual,
)
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.dense import lu_factor, lu_solve
from lgbench.mbs.residual import constraint_velocity, generalized_forces, mass_blocks, mass_matrix_inline
from lgbench.mbs.scope import multibody
from lgbench.mbs.system import B_NV, B_VSTART

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
    bv: np.ndarray
    band: BandStructure   # banded solver (``band.active``): blocks Mb, Cb and band matrix bm; M, C, A empty
    Mb: np.ndarray
    Cb: np.ndarray
    bm: BandMatrix


def make_saddle_point_workspace(nq: int, nv: int, nc: int, n_bodies: int, system=None,
                                linear_algebra: str = "dense") -> SaddlePointWorkspace:
    """Arrays of the saddle-point solves; ``linear_algebra`` ("dense", "banded", "auto"; the latter two
    need ``system``) selects the solver through ``lgbench.mbs.banded.band_structure``."""
    n = nv + nc
    band = dense_structure()
    if system is not None and linear_algebra != "dense" and nc > 0:
        band = band_structure(system, linear_algebra)
    if band.active:
        dense_v, dense_c, dense_n = 0, 0, 0
        blocks = dict(Mb=np.zeros((n_bodies, BODY_BLOCK, BODY_BLOCK)), Cb=np.zeros((nc, 2, BODY_BLOCK)))
    else:
        dense_v, dense_c, dense_n = nv, nc, n
        blocks = dict(Mb=np.zeros((0, BODY_BLOCK, BODY_BLOCK)), Cb=np.zeros((0, 2, BODY_BLOCK)))
    return SaddlePointWorkspace(
        M=np.zeros((dense_v, dense_v)), C=np.zeros((dense_c, dense_v)), A=np.zeros((dense_n, dense_n)),
        piv=np.zeros(n, dtype=np.int64), b=np.zeros(n), g=np.zeros(nv), curvature=np.zeros(nc), phi=np.zeros(nc),
        dq=np.zeros(nq), moved=np.zeros(nq), force=np.zeros((n_bodies, 3)), torque=np.zeros((n_bodies, 3)),
        bv=np.zeros(nc), band=band, bm=band_matrix(band), **blocks,
    )


@kernel
def _factor_band_saddle_point(sys, q, w):
    """[M B^T; B 0] from the body blocks of M and B into the band matrix w.bm (ordering w.band.position),
    factorised in place; False if singular."""
    st = w.band
    pos = st.position
    layout = band_layout(st)
    data = w.bm.data
    mass_blocks(sys, q, w.Mb)
    constraint_blocks(sys, q, w.Cb)
    band_clear(w.bm)
    for i in range(sys.body_int.shape[0]):
        vs = sys.body_int[i, B_VSTART]
        for r in range(sys.body_int[i, B_NV]):
            for c in range(sys.body_int[i, B_NV]):
                data[band_index(layout, pos[vs + r], pos[vs + c])] = w.Mb[i, r, c]
    band_set_constraint_rows(sys.body_int, st, w.Cb, False, w.Mb, w.bm)
    return band_factor(w.bm, st)


@kernel
def _solve_saddle_point(w):
    """w.b <- [M B^T; B 0]^{-1} w.b with the factors of ``_factor_saddle_point`` (dense or banded)."""
    if w.band.active:
        band_solve(w.bm, w.band, w.b)
    else:
        lu_solve(w.A, w.piv, w.b)


@kernel
def _constraint_velocities(sys, q, v, w, fresh):
    """B(q) v into w.bv (B evaluated here unless ``fresh`` is False: then the last factorisation's)."""
    if w.band.active:
        if fresh:
            constraint_blocks(sys, q, w.Cb)
        constraint_velocity(sys, w.band.row_bodies, w.Cb, v, w.bv)
        return
    if fresh:
        constraint_matrix(sys, q, w.C)
    for r in range(w.C.shape[0]):
        s = 0.0
        for c in range(v.shape[0]):
            s += w.C[r, c] * v[c]
        w.bv[r] = s


@kernel
def _factor_saddle_point(sys, q, w):
    """LU factors of [M(q) B(q)^T; B(q) 0] in w.A (M and B left in w.M, w.C), or in band storage; False if
    singular."""
    if w.band.active:
        return _factor_band_saddle_point(sys, q, w)
    nv = w.M.shape[0]
    nc = w.C.shape[0]
    mass_matrix_inline(multibody, sys, q, w.M)
    constraint_matrix(sys, q, w.C)
    w.A[:, :] = 0.0
    w.A[:nv, :nv] = w.M
    for r in range(nc):
        for c in range(nv):
            w.A[nv + r, c] = w.C[r, c]
            w.A[c, nv + r] = w.C[r, c]
    return lu_factor(w.A, w.piv)


@kernel
def index1_accelerations(sys, q, v, t, w, a, lam):
    """v' and lambda from paper 001 eq. (10); returns False if the saddle-point matrix is singular."""
    nv = v.shape[0]
    nc = lam.shape[0]
    if not _factor_saddle_point(sys, q, w):
        return False
    generalized_forces(sys, q, v, t, w.force, w.torque, w.g)
    constraint_curvature_inline(sys, q, v, w.curvature)
    w.b[:nv] = w.g
    for r in range(nc):
        w.b[nv + r] = -w.curvature[r]
    _solve_saddle_point(w)
    a[:] = w.b[:nv]
    lam[:] = w.b[nv:]
    return True


@kernel
def constraint_norm(sys, q, w):
    """||Phi(q)||_2 (Phi left in w.phi)."""
    constraint_residual(sys, q, 0.0, w.phi)
    s = 0.0
    for r in range(w.phi.shape[0]):
        s += w.phi[r] * w.phi[r]
    return math.sqrt(s)


@kernel
def velocity_constraint_norm(sys, q, v, w):
    """||B(q) v||_2 (B v left in w.bv)."""
    _constraint_velocities(sys, q, v, w, True)
    s = 0.0
    for r in range(w.bv.shape[0]):
        s += w.bv[r] * w.bv[r]
    return math.sqrt(s)


@kernel
def project_positions(sys, q, w, tolerance, max_iterations):
    """q moved onto Phi(q) = 0 in place (paper 001 eq. 12, position part).

    At least one Gauss-Newton iteration (so Phi ends at round-off, not just below ``tolerance``),
    then more while ||Phi||_2 > ``tolerance``. Returns the number of iterations, or -1 if
    ``max_iterations`` do not reach the tolerance (or the saddle-point matrix is singular).
    """
    nv = w.g.shape[0]
    nc = w.phi.shape[0]
    if nc == 0:
        return 0
    constraint_norm(sys, q, w)
    for it in range(1, max_iterations + 1):
        if not _factor_saddle_point(sys, q, w):
            return -1
        w.b[:nv] = 0.0
        for r in range(nc):
            w.b[nv + r] = -w.phi[r]
        _solve_saddle_point(w)
        w.dq[:] = w.b[:nv]
        update_coordinates(sys, q, w.dq, w.moved)
        q[:] = w.moved
        if constraint_norm(sys, q, w) <= tolerance:
            return it
    return -1


@kernel
def project_velocities(sys, q, v, w):
    """v moved onto B(q) v = 0 in place (paper 001 eq. 12, velocity part); False if singular."""
    nv = v.shape[0]
    nc = w.phi.shape[0]
    if not _factor_saddle_point(sys, q, w):
        return False
    _constraint_velocities(sys, q, v, w, False)
    w.b[:nv] = 0.0
    for r in range(nc):
        w.b[nv + r] = -w.bv[r]
    _solve_saddle_point(w)
    for c in range(nv):
        v[c] += w.b[c]
    return True
