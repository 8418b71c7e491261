"""The scope of free rigid bodies under elementary loads: no chain, no joint, no force element but
``loads.is_elementary_load`` ones (``lgbench.mbs.scope``; ``implicit.free_bodies_apply`` says which systems).
The constraints are the Euler parameters' norms alone; the chain functions add nothing, since such a system
has no chain."""
from numba import njit

from lgbench.mbs.constraints import norm_curvature, norm_jacobian, norm_rows
from lgbench.mbs.loads import elementary_applied_loads


@njit(inline="always")
def applied_loads(sys, q, v, t, force, torque):
    elementary_applied_loads(sys, q, v, force, torque)


@njit(inline="always")
def chain_mass_matrix(sys, q, M):
    pass


@njit(inline="always")
def chain_generalized_forces(sys, q, v, t, g):
    pass


@njit(inline="always")
def constraint_residual(sys, q, t, phi):
    norm_rows(sys.body_int, q, phi)


@njit(inline="always")
def constraint_matrix(sys, q, C):
    if C.shape[0] > 0:
        C[:, :] = 0.0
        norm_jacobian(sys.body_int, q, C, True)


@njit(inline="always")
def constraint_curvature(sys, q, v, out):
    out[:] = 0.0
    norm_curvature(sys.body_int, v, out)


@njit(inline="always")
def other_load_tangent(sys, k, q, v, t, tw, Kg, Cg, with_damper_position):
    raise ValueError("the free-bodies scope takes elementary loads only (implicit.free_bodies_apply)")


@njit(inline="always")
def chain_force_tangent(sys, q, v, tw, Kg, Cg):
    pass


@njit(inline="always")
def element_loads(sys, q, v, t, tw):
    raise ValueError("the free-bodies scope differentiates the loads as well (loads_jacobian = true)")
