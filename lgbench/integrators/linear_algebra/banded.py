"""Banded linear algebra of the implicit steppers: body blocks of M and B, S_t assembled from body and
group blocks into the band (plus border) matrix of ``lgbench/mbs/banded.py``, O(bodies) work.

The functions of ``lgbench.integrators.linear_algebra.FUNCTIONS`` (see there), all inlined.
"""
from numba import njit

from lgbench.integrators.iteration_matrix import band_iteration_matrix
from lgbench.mbs.banded import band_factor, band_solve
from lgbench.mbs.constraints import constraint_blocks
from lgbench.mbs.residual import add_constraint_forces, constraint_velocity as blocks_times_velocity
from lgbench.mbs.residual import structured_residual
from lgbench.mbs.scope import multibody


@njit(inline="always")
def residual(sys, q, v, a, lam, t, w):
    structured_residual(sys, q, v, a, lam, t, w.band.row_bodies, w.Mb, w.Cb, w.force, w.torque, w.g, w.r)


@njit(inline="always")
def iteration_matrix(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    band_iteration_matrix(sys, q, dqn, v, t, bp, gp, scale, opts, w)


@njit(inline="always")
def add_damping_columns(sys, w, first, columns, factor):
    """The rows of C_t coupled to the node's columns are those of its force-coupled group, where the
    columns stand contiguously (``SystemBuilder._force_groups``); C_t from its group blocks w.Cg."""
    places = w.band.group_places
    groups = sys.force_groups
    home, member = -1, -1
    for grp in range(groups.shape[0]):
        for j in range(groups.shape[1]):
            if groups[grp, j] == first:
                home, member = grp, j
    n = len(columns)
    for c in range(n):
        column = columns[c]
        for m in range(groups.shape[1]):
            r = groups[home, m]
            if r >= 0:
                s = 0.0
                for k in range(n):
                    s += w.Cg[home, m, member + k] * column[k]
                w.bm.data[places[home, m, member + c]] += factor * s


@njit(inline="always")
def factor(w):
    return band_factor(w.bm, w.band)


@njit(inline="always")
def solve(w):
    band_solve(w.bm, w.band, w.rhs)


@njit(inline="always")
def constraint_forces(sys, q, lam, w, out):
    constraint_blocks(sys, q, w.Cb)
    add_constraint_forces(sys, w.band.row_bodies, w.Cb, lam, out)


@njit(inline="always")
def constraint_velocity(sys, v, w, out):
    blocks_times_velocity(sys, w.band.row_bodies, w.Cb, v, out)


@njit(inline="always")
def constraint_residual(sys, q, t, phi):
    multibody.constraint_residual(sys, q, t, phi)


@njit(inline="always")
def index2_step_start(sys, q, w):
    """Not reached: the banded solver takes index 3 only (``implicit.implicit_options``)."""


@njit(inline="always")
def index2_blocks(sys, q, v, bp, gp, scale, opts, w):
    """Not reached: the banded solver takes index 3 only (``implicit.implicit_options``)."""
