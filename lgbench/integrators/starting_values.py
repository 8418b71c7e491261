"""Starting values of the implicit integrators: consistent v'(0), lambda(0) (paper 002 eq. 19) and the
corrected starting values of paper 002 Tables 1 (index 2) and 2 (index 3).
"""
import numpy as np
from numba import njit

from lgbench._compiled import kernel
from lgbench.mbs.coordinate_update import algebra_commutator, update_coordinates
from lgbench.mbs.dense import lu_factor, lu_solve
from lgbench.mbs.residual import dynamic_residual, dynamic_residual_inline
from lgbench.mbs.scope import free_bodies, multibody
from lgbench.mbs.system import S_NC


@njit(inline="always")
def scoped_consistent_accelerations(scope, sys, q, v, t, vd, lam):
    """v'(0) and lambda(0) from [[M, B^T], [B, 0]] [v'; lambda] = [g; -B' v] (paper 002 eq. 19), with
    what free rigid bodies do not have evaluated by the ``scope`` (``lgbench.mbs.scope``)."""
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    nb = sys.body_int.shape[0]
    M = np.zeros((nv, nv))
    C = np.zeros((nc, nv))
    g = np.zeros(nv)
    r = np.zeros(nv)
    force = np.zeros((nb, 3))
    torque = np.zeros((nb, 3))
    dynamic_residual_inline(scope, sys, q, v, np.zeros(nv), np.zeros(nc), t, M, C, force, torque, g, r)
    curvature = np.zeros(nc)
    scope.constraint_curvature(sys, q, v, curvature)
    A = np.zeros((nv + nc, nv + nc))
    A[:nv, :nv] = M
    A[:nv, nv:] = C.T
    A[nv:, :nv] = C
    b = np.zeros(nv + nc)
    b[:nv] = g
    b[nv:] = -curvature
    piv = np.zeros(nv + nc, dtype=np.int64)
    if not lu_factor(A, piv):
        return False
    lu_solve(A, piv, b)
    vd[:] = b[:nv]
    lam[:] = b[nv:]
    return True


@kernel
def consistent_accelerations(sys, q, v, t, vd, lam):
    """``scoped_consistent_accelerations`` of any model."""
    return scoped_consistent_accelerations(multibody, sys, q, v, t, vd, lam)


@kernel
def consistent_accelerations_free_bodies(sys, q, v, t, vd, lam):
    """``scoped_consistent_accelerations`` of free rigid bodies under elementary loads (the systems of
    ``implicit.free_bodies_apply``), which compiles none of the other models' code."""
    return scoped_consistent_accelerations(free_bodies, sys, q, v, t, vd, lam)


def consistent_accelerations_of(solver: str):
    """The consistent accelerations that a run whose Newton iterations use ``solver`` (its linear algebra,
    ``implicit.compiled_solver``) starts from: the free-bodies ones with the free-bodies solver, which serves
    the same systems."""
    return consistent_accelerations_free_bodies if solver == "free-bodies" else consistent_accelerations


@kernel
def corrected_starting_values(sys, method, q, v, vd, a, h, s, perturb_velocity):
    """Starting values of paper 002 Table 1 (a0) and, with ``perturb_velocity``, Table 2 (a0 and v0).

    On entry q, v are consistent and vd = v'(0) from eq. (19); on return
    a = v'(0) + Delta_alpha h (v'_{sh} - v'_{-sh}) / (2 s h) (eq. 141) and, for the index-3 method,
    v = v(0) + Delta_v with [[M, B^T], [B, 0]] [Delta_v; x] = [0; h^2 B (C_q v'' + hat(v) v' / 12)]
    (eq. 142), v'' approximated by the same central difference. Returns False on a singular system.
    """
    am, af, beta = method[0], method[1], method[2]
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    sh = s * h
    vd_plus = np.zeros(nv)
    vd_minus = np.zeros(nv)
    lam_work = np.zeros(nc)
    q_shift = np.empty_like(q)
    for sign in (1.0, -1.0):
        update_coordinates(sys, q, sign * sh * v + 0.5 * sh * sh * vd, q_shift)
        out = vd_plus if sign > 0.0 else vd_minus
        if not consistent_accelerations(sys, q_shift, v + sign * sh * vd, sign * sh, out, lam_work):
            return False
    vdd = (vd_plus - vd_minus) / (2.0 * sh)
    a[:] = vd + (am - af) * h * vdd
    if not perturb_velocity or nc == 0:
        return True
    cq = (1.0 - 6.0 * beta - 3.0 * (am - af)) / 6.0   # paper 002 eq. (40a), Lemma 4.2
    bracket = np.zeros(nv)
    algebra_commutator(sys, v, vd, bracket)
    M = np.zeros((nv, nv))
    C = np.zeros((nc, nv))
    g = np.zeros(nv)
    r = np.zeros(nv)
    nb = sys.body_int.shape[0]
    dynamic_residual(sys, q, v, np.zeros(nv), np.zeros(nc), 0.0, M, C, np.zeros((nb, 3)), np.zeros((nb, 3)),
                     g, r)
    A = np.zeros((nv + nc, nv + nc))
    A[:nv, :nv] = M
    A[:nv, nv:] = C.T
    A[nv:, :nv] = C
    b = np.zeros(nv + nc)
    b[nv:] = h * h * (C @ (cq * vdd + bracket / 12.0))
    piv = np.zeros(nv + nc, dtype=np.int64)
    if not lu_factor(A, piv):
        return False
    lu_solve(A, piv, b)
    v += b[:nv]
    return True
