"""Dense linear algebra of the implicit steppers for free rigid bodies under elementary loads.

The functions of ``lgbench.integrators.linear_algebra.FUNCTIONS`` (see there), all inlined: those of
``dense`` with the residual and the force tangent of the free-bodies scope (``lgbench.mbs.scope``), so that
the entry point that takes this module compiles no chain, constraint or other force element; K_t and C_t
analytic (``implicit.free_bodies_apply`` says which systems and options it serves). The only constraints
are the Euler parameters' norms (index 3).
"""
from numba import njit

from lgbench.integrators.iteration_matrix import assemble_iteration_matrix, force_tangent_matrices
from lgbench.integrators.linear_algebra.dense import (
    add_damping_columns, constraint_velocity, factor, scoped_constraint_forces, solve,
)
from lgbench.mbs.residual import dynamic_residual_inline
from lgbench.mbs.scope import free_bodies as free_bodies_scope

__all__ = ["add_damping_columns", "constraint_velocity", "factor", "solve"]


@njit(inline="always")
def residual(sys, q, v, a, lam, t, w):
    dynamic_residual_inline(free_bodies_scope, sys, q, v, a, lam, t, w.M, w.C, w.force, w.torque, w.g, w.r)


@njit(inline="always")
def iteration_matrix(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    force_tangent_matrices(free_bodies_scope, sys, q, v, t, opts, w)
    assemble_iteration_matrix(sys, dqn, bp, gp, scale, opts, w)


@njit(inline="always")
def constraint_forces(sys, q, lam, w, out):
    scoped_constraint_forces(free_bodies_scope, sys, q, lam, w, out)


@njit(inline="always")
def constraint_residual(sys, q, t, phi):
    free_bodies_scope.constraint_residual(sys, q, t, phi)


@njit(inline="always")
def index2_step_start(sys, q, w):
    """Not reached: free bodies with constraints (Euler parameters) take index 3 (``free_bodies_apply``)."""


@njit(inline="always")
def index2_blocks(sys, q, v, bp, gp, scale, opts, w):
    """Not reached: free bodies with constraints (Euler parameters) take index 3 (``free_bodies_apply``)."""
