"""The scope of every model: chains, constraints and all force elements (``lgbench.mbs.scope``)."""
from numba import njit

from lgbench.mbs.chain import chain_generalized_forces as _chain_generalized_forces
from lgbench.mbs.chain import chain_mass_matrix as _chain_mass_matrix
from lgbench.mbs.chain_tangent import chain_force_tangent as _chain_force_tangent
from lgbench.mbs.constraints import constraint_curvature as _constraint_curvature
from lgbench.mbs.constraints import constraint_matrix_inline, constraint_residual_inline
from lgbench.mbs.force_tangent import _element_loads, other_load_tangent as _other_load_tangent
from lgbench.mbs.loads import applied_loads as _applied_loads


@njit(inline="always")
def applied_loads(sys, q, v, t, force, torque):
    _applied_loads(sys, q, v, t, force, torque)


@njit(inline="always")
def chain_mass_matrix(sys, q, M):
    if sys.chain_int.shape[0] > 0:
        _chain_mass_matrix(sys, q, M)


@njit(inline="always")
def chain_generalized_forces(sys, q, v, t, g):
    if sys.chain_int.shape[0] > 0:
        _chain_generalized_forces(sys, q, v, t, g)


@njit(inline="always")
def constraint_residual(sys, q, t, phi):
    if phi.shape[0] > 0:
        constraint_residual_inline(sys, q, t, phi)


@njit(inline="always")
def constraint_matrix(sys, q, C):
    if C.shape[0] > 0:
        constraint_matrix_inline(sys, q, C)


@njit(inline="always")
def constraint_curvature(sys, q, v, out):
    if out.shape[0] > 0:
        _constraint_curvature(sys, q, v, out)


@njit(inline="always")
def other_load_tangent(sys, k, q, v, t, tw, Kg, Cg, with_damper_position):
    _other_load_tangent(sys, k, q, v, t, tw, Kg, Cg, with_damper_position)


@njit(inline="always")
def chain_force_tangent(sys, q, v, tw, Kg, Cg):
    if sys.chain_int.shape[0] > 0:
        _chain_force_tangent(sys, q, v, tw.chain, tw.chain_tangent, tw.chain_torque, tw.slot, Kg, Cg)


@njit(inline="always")
def element_loads(sys, q, v, t, tw):
    _element_loads(sys, q, v, t, tw.rotation, tw.element_force, tw.element_torque)
