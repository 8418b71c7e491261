"""Dense linear algebra of the implicit steppers: the full M, B and S_t, LU with partial pivoting.

The functions of ``lgbench.integrators.linear_algebra.FUNCTIONS`` (see there), all inlined.
"""
from numba import njit

from lgbench.integrators.iteration_matrix import iteration_matrix_at_residual, stabilisation_blocks
from lgbench.mbs.constraints import constraint_matrix
from lgbench.mbs.dense import add_transpose_product, copy_matrix, lu_factor, lu_solve, matrix_vector_into
from lgbench.mbs.residual import dynamic_residual_inline
from lgbench.mbs.scope import multibody


@njit(inline="always")
def residual(sys, q, v, a, lam, t, w):
    dynamic_residual_inline(multibody, sys, q, v, a, lam, t, w.M, w.C, w.force, w.torque, w.g, w.r)


@njit(inline="always")
def iteration_matrix(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    iteration_matrix_at_residual(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w)


@njit(inline="always")
def add_damping_columns(sys, w, first, columns, factor):
    Ct, S = w.Ct, w.S
    n = len(columns)
    for c in range(n):
        column = columns[c]
        for row in range(Ct.shape[0]):
            s = 0.0
            for k in range(n):
                s += Ct[row, first + k] * column[k]
            S[row, first + c] += factor * s


@njit(inline="always")
def factor(w):
    copy_matrix(w.LU, w.S)
    return lu_factor(w.LU, w.piv)


@njit(inline="always")
def solve(w):
    lu_solve(w.LU, w.piv, w.rhs)


@njit(inline="always")
def scoped_constraint_forces(scope, sys, q, lam, w, out):
    """B(q) of the ``lgbench.mbs.scope`` module ``scope`` into w.C, out += B(q)^T lam."""
    scope.constraint_matrix(sys, q, w.C)
    add_transpose_product(w.C, lam, out)


@njit(inline="always")
def constraint_forces(sys, q, lam, w, out):
    scoped_constraint_forces(multibody, sys, q, lam, w, out)


@njit(inline="always")
def constraint_velocity(sys, v, w, out):
    matrix_vector_into(w.C, v, out)


@njit(inline="always")
def constraint_residual(sys, q, t, phi):
    multibody.constraint_residual(sys, q, t, phi)


@njit(inline="always")
def index2_step_start(sys, q, w):
    constraint_matrix(sys, q, w.Cn)


@njit(inline="always")
def index2_blocks(sys, q, v, bp, gp, scale, opts, w):
    stabilisation_blocks(sys, q, v, bp, gp, scale, opts, w)
