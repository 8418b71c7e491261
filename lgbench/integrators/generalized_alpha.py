"""Generalized-alpha for classical formulation 2 and its Lie group version, one stepper for both.

Paper 000 Alg. 4 (classical) and Alg. 5 (Lie group): the unknowns of Newton's method are the
increment of the local coordinates dq_n and lambda; q_{n+1} = UAC(q_n, dq_n). For classical nodes
UAC adds and T_exp = I, so Alg. 5 reduces to Alg. 4 and a single loop serves RV, Rxyz and EP.
A parameter set (alpha_m, alpha_f, beta, gamma) is data: generalized-alpha from rho_inf (paper 002
eq. 42), HHT-alpha and Newmark are other parameter sets of the same stepper.

Newton (paper 000 Sect. 3.3-3.4): the convergence test and the full/modified policy are those of
``lgbench/integrators/newton.py``, shared with HHT. Iteration matrix S_t (eq. 40) =
[[M beta' + C_t gamma' + K_t T, B^T], [B T, 0]] with T = T_exp(dq_n) or I (option ``texp``); K_t by
forward differences of the forces along UAC (eq. 42) or of the whole residual (eq. 41, option
``tangent = "full"``); C_t by forward differences; scaling (paper 002 eq. 57): equations of motion
multiplied and lambda divided by beta h^2.

Stabilised index-2 formulation (paper 002 eqs. 55-56, option ``index = 2``): the increment gets the
term -h B^T(q_n) eta_n and B(q_{n+1}) v_{n+1} = 0 is imposed. Unknowns (dq_n, beta h^2 lambda, h eta)
with v_{n+1}, v'_{n+1} driven by dq_n + h B^T(q_n) eta (eq. 61); the hidden-constraint rows are
multiplied by h beta / gamma, which gives the bounded iteration matrix of eq. (62):
[[S_11, B^T, (M beta' + C_t gamma') B_n^T], [B T, 0, 0], [B + Z T / gamma', 0, B B_n^T]] (scaled as
above), Z = d(B v)/dq by forward differences along UAC.

Lie group nodes: T = T_SO3 on the rotation block of RV nodes and T_SE3 (paper 002 eq. 35) on the
6-block of SE3 nodes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from lgbench.integrators.newton import has_converged, modified_newton_policy, reference_residual
from lgbench.integrators.stepping import record_due_samples, step_end_time, step_plan
from lgbench.lie.se3 import tangent_operator_se3
from lgbench.lie.so3 import tangent_coefficients
from lgbench.mbs.banded import (
    band_lu_factor, band_lu_solve, band_set, band_set_constraint_rows, band_structure, BandStructure, BODY_BLOCK,
    dense_structure,
)
from lgbench.mbs.borrowed import borrowed
from lgbench.mbs.codes import DIVERGED, NEWTON_FAILED, OK, RV, SE3, SINGULAR_MATRIX
from lgbench.mbs.constraints import constraint_curvature, constraint_matrix, constraint_residual
from lgbench.mbs.coordinate_update import algebra_commutator, update_coordinates, update_coordinates_inline
from lgbench.mbs.dense import all_finite, lu_factor, lu_solve
from lgbench.mbs.pose import _rot_start
from lgbench.mbs.residual import (
    constraint_velocity, dynamic_residual, dynamic_residual_inline, generalized_forces_inline, structured_residual,
)
from lgbench.mbs.system import B_FORM, B_NV, B_VSTART, S_NC

# statistics vector layout (float64)
(ST_NEWTON, ST_JACOBIANS, ST_FACTORIZATIONS, ST_STEPS, ST_MAX_ITERATIONS, ST_MAX_PHI, ST_MAX_BV,
 ST_FULL_NEWTON_FALLBACKS, ST_MAX_ETA) = range(9)
N_STATISTICS = 9


@dataclass(frozen=True)
class SecondOrderMethod:
    """(alpha_m, alpha_f, beta, gamma) of a generalized-alpha type method."""

    name: str
    alpha_m: float
    alpha_f: float
    beta: float
    gamma: float
    description: str
    order: int = 2
    kind: str = "implicit"

    def as_array(self) -> np.ndarray:
        return np.array([self.alpha_m, self.alpha_f, self.beta, self.gamma])


def generalized_alpha(rho_inf: float) -> SecondOrderMethod:
    """Chung-Hulbert parameters from the spectral radius at infinity (paper 002 eq. 42)."""
    if not 0.0 <= rho_inf <= 1.0:
        raise ValueError(f"rho_inf must lie in [0, 1], got {rho_inf}")
    alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    alpha_f = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    beta = 0.25 * (gamma + 0.5) ** 2
    return SecondOrderMethod(f"generalized-alpha(rho_inf={rho_inf:g})", alpha_m, alpha_f, beta, gamma,
                             "generalized-alpha (Chung-Hulbert), second order, numerical damping rho_inf")


@njit(cache=True)
def _write_tangent_so3(psi, k, T, r0):
    """T_exp(psi[k:k+3]) (paper 000 eqs. A2, A7, A8) into T[r0:r0+3, r0:r0+3], entry by entry: the
    arithmetic of ``lgbench.lie.so3.tangent_operator_so3`` without its 3x3 array."""
    x, y, z = psi[k], psi[k + 1], psi[k + 2]
    c1, c2, _ = tangent_coefficients(math.sqrt(x * x + y * y + z * z))
    T[r0, r0] = 1.0 - c2 * (z * z + y * y)
    T[r0 + 1, r0 + 1] = 1.0 - c2 * (z * z + x * x)
    T[r0 + 2, r0 + 2] = 1.0 - c2 * (y * y + x * x)
    T[r0, r0 + 1] = -c1 * z + c2 * (y * x)
    T[r0 + 1, r0] = c1 * z + c2 * (x * y)
    T[r0, r0 + 2] = c1 * y + c2 * (z * x)
    T[r0 + 2, r0] = -c1 * y + c2 * (x * z)
    T[r0 + 1, r0 + 2] = -c1 * x + c2 * (z * y)
    T[r0 + 2, r0 + 1] = c1 * x + c2 * (y * z)


@njit(cache=True)
def _add_body_tangent(sys, i, dq, T, col0):
    """Body i's block of T(dq) into T at col0: T_SO3 on the rotation block of RV nodes (in place),
    T_SE3 (paper 002 eq. 35) on the 6-block of SE3 nodes; the identity entries are left to the caller."""
    vs = sys.body_int[i, B_VSTART]
    if sys.body_int[i, B_FORM] == RV:
        qr, vr = _rot_start(sys, i)
        _write_tangent_so3(dq, qr, T, vr + col0 - vs)
    elif sys.body_int[i, B_FORM] == SE3:
        T[col0:col0 + 6, col0:col0 + 6] = tangent_operator_se3(dq[vs:vs + 6])


@njit(cache=True)
def _tangent_matrix(sys, dq, T):
    """Block-diagonal T(dq): the bodies' blocks of ``_add_body_tangent``, I elsewhere."""
    T[:, :] = 0.0
    for k in range(T.shape[0]):
        T[k, k] = 1.0
    for i in range(sys.body_int.shape[0]):
        _add_body_tangent(sys, i, dq, T, sys.body_int[i, B_VSTART])


@njit(cache=True)
def _tangent_blocks(sys, dq, Tb):
    """T(dq) by bodies: Tb[i] over body i's own velocity coordinates."""
    Tb[:, :, :] = 0.0
    for i in range(sys.body_int.shape[0]):
        for k in range(Tb.shape[1]):
            Tb[i, k, k] = 1.0
        _add_body_tangent(sys, i, dq, Tb[i], 0)


@njit(cache=True)
def _step_sizes(x, rel, floor):
    return rel * max(floor, abs(x))


@njit(inline="always")
def _perturbed_forces(sys, q, v, t, rel, floor, positions, j, z, qp, vp, force, torque, gp):
    """gp = g at the j-th coordinate of every force-coupled group perturbed (``SystemArrays.force_groups``),
    along UAC(q, z) (positions) or v; the steps in z. One site of ``generalized_forces_inline`` for both."""
    z[:] = 0.0
    groups = sys.force_groups
    for grp in range(groups.shape[0]):
        k = groups[grp, j]
        if k >= 0:
            z[k] = _step_sizes(q[k] if positions else v[k], rel, floor)
    if positions:
        update_coordinates_inline(sys, q, z, qp)
    else:
        for r in range(v.shape[0]):
            vp[r] = v[r] + z[r]
    generalized_forces_inline(sys, qp if positions else q, v if positions else vp, t, force, torque, gp)


@njit(inline="always")
def _grouped_force_derivative(sys, q, v, t, rel, floor, positions, z, qp, vp, force, torque, g, gp, out):
    """out = -dg/dz (positions: along UAC(q, z)) or -dg/dv by forward differences, one coordinate
    of every force-coupled group per evaluation (``SystemArrays.force_groups``); g must hold g(q, v, t)
    (left there by the residual the caller evaluated at (q, v, t))."""
    out[:, :] = 0.0
    groups = sys.force_groups
    for j in range(groups.shape[1]):
        _perturbed_forces(sys, q, v, t, rel, floor, positions, j, z, qp, vp, force, torque, gp)
        for grp in range(groups.shape[0]):
            k = groups[grp, j]
            if k < 0:
                continue
            for m in range(groups.shape[1]):
                r = groups[grp, m]
                if r >= 0:
                    out[r, k] = -(gp[r] - g[r]) / z[k]


@njit(cache=True)
def _grouped_force_blocks(sys, q, v, t, rel, floor, positions, z, qp, vp, force, torque, g, gp, out):
    """``_grouped_force_derivative`` by groups: out[grp, m, j] = entry (groups[grp, m], groups[grp, j]);
    g must hold g(q, v, t)."""
    out[:, :, :] = 0.0
    groups = sys.force_groups
    for j in range(groups.shape[1]):
        _perturbed_forces(sys, q, v, t, rel, floor, positions, j, z, qp, vp, force, torque, gp)
        for grp in range(groups.shape[0]):
            k = groups[grp, j]
            if k < 0:
                continue
            for m in range(groups.shape[1]):
                r = groups[grp, m]
                if r >= 0:
                    out[grp, m, j] = -(gp[r] - g[r]) / z[k]


@njit(cache=True)
def iteration_matrix(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    """Assemble the (scaled) iteration matrix S_t of paper 000 eq. (40) into w.S; evaluates the residual
    at (q, v, a, lam, t) first (into w.M, w.C, w.g, w.r)."""
    dynamic_residual(sys, q, v, a, lam, t, w.M, w.C, w.force, w.torque, w.g, w.r)
    iteration_matrix_at_residual(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w)


@njit(inline="always")
def iteration_matrix_at_residual(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    """``iteration_matrix`` when w.M, w.C, w.g and w.r already hold M, B, g and r at (q, v, a, lam, t), as
    after the residual test of the Newton loop at the same iterate: one residual evaluation less."""
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    S = w.S
    S[:, :] = 0.0
    full = opts.full_tangent
    rel = opts.fd_relative_step
    floor = opts.fd_step_floor
    # K_t (eq. 41 or 42): derivative along the local coordinates z of UAC(q, z); C_t along v
    if full:
        _residual_stiffness(sys, q, v, a, lam, t, rel, floor, w.z, w.qp, w.Mp, w.Cp, w.force, w.torque, w.gp,
                            w.r, w.r0, w.rp, w.K)
    for which in range(1 if full else 0, 2):
        positions = which == 0
        _grouped_force_derivative(sys, q, v, t, rel, floor, positions, w.z, w.qp, w.vp, w.force, w.torque, w.g,
                                  w.gp, w.K if positions else w.Ct)
    texp = opts.texp
    if texp:
        _tangent_matrix(sys, dqn, w.T)
    for r in range(nv):
        for c in range(nv):
            S[r, c] = scale * (w.M[r, c] * bp + w.Ct[r, c] * gp + (_times_tangent(w.K, w.T, r, c) if texp
                                                                    else w.K[r, c]))
    for r in range(nc):
        for c in range(nv):
            S[nv + r, c] = _times_tangent(w.C, w.T, r, c) if texp else w.C[r, c]
            S[c, nv + r] = w.C[r, c]


@njit(cache=True)
def _residual_stiffness(sys, q, v, a, lam, t, rel, floor, z, qp, Mp, Cp, force, torque, gp, r, r0, rp, K):
    """K = dr/dz along UAC(q, z) by forward differences of the whole residual (paper 000 eq. 41); r holds
    r(q, v, a, lam, t)."""
    nv = v.shape[0]
    for k in range(nv):
        r0[k] = r[k]
    for k in range(nv):
        eps = _step_sizes(q[k], rel, floor)
        z[:] = 0.0
        z[k] = eps
        update_coordinates(sys, q, z, qp)
        dynamic_residual(sys, qp, v, a, lam, t, Mp, Cp, force, torque, gp, rp)
        for c in range(nv):
            K[c, k] = (rp[c] - r0[c]) / eps


@njit(cache=True)
def _times_tangent(A, T, r, c):
    """(A T)[r, c] without forming A T."""
    s = 0.0
    for k in range(T.shape[0]):
        s += A[r, k] * T[k, c]
    return s


@njit(cache=True)
def band_iteration_matrix(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    """The S_t of ``iteration_matrix`` (K_t from the forces, eq. 42) assembled from body blocks of M, B,
    T and group blocks of K_t, C_t straight into the band storage w.ab, in the ordering w.band
    (lgbench/mbs/banded.py): O(bodies) work. Group columns list each body's coordinates
    contiguously (``SystemBuilder._force_groups``)."""
    st = w.band
    kl = st.bands[0]
    ku = st.bands[1]
    pos = st.position
    rel = opts.fd_relative_step
    floor = opts.fd_step_floor
    texp = opts.texp
    structured_residual(sys, q, v, a, lam, t, st.row_bodies, w.Mb, w.Cb, w.force, w.torque, w.g, w.r)
    _grouped_force_blocks(sys, q, v, t, rel, floor, True, w.z, w.qp, w.vp, w.force, w.torque, w.g, w.gp, w.Kg)
    _grouped_force_blocks(sys, q, v, t, rel, floor, False, w.z, w.qp, w.vp, w.force, w.torque, w.g, w.gp, w.Cg)
    if texp:
        _tangent_blocks(sys, dqn, w.Tb)
    w.ab[:, :] = 0.0
    groups = sys.force_groups
    for grp in range(groups.shape[0]):
        for j in range(groups.shape[1]):
            k = groups[grp, j]
            if k < 0:
                continue
            bk = st.vel_body[k]
            lk = k - sys.body_int[bk, B_VSTART]
            for m in range(groups.shape[1]):
                r = groups[grp, m]
                if r < 0:
                    continue
                if texp:
                    kt = 0.0
                    for l in range(sys.body_int[bk, B_NV]):
                        kt += w.Kg[grp, m, j - lk + l] * w.Tb[bk, l, lk]
                else:
                    kt = w.Kg[grp, m, j]
                mass = 0.0
                if st.vel_body[r] == bk:
                    mass = w.Mb[bk, r - sys.body_int[bk, B_VSTART], lk]
                band_set(w.ab, kl, ku, pos[r], pos[k], scale * (mass * bp + w.Cg[grp, m, j] * gp + kt))
    band_set_constraint_rows(sys.body_int, st, w.Cb, texp, w.Tb, w.ab)


@njit(inline="always")
def _residual_norm(sys, q, v, a, lam, t, index2, band, Mb, Cb, M, C, force, torque, g, r, phi, bv):
    """||[r; Phi]||_2 (index 3) or ||[r; Phi; B v]||_2 (index 2), unscaled; leaves r in r, Phi in phi and
    B(q) v in bv. Banded systems (``band.active``) evaluate r from body blocks (``structured_residual``)."""
    if band.active:
        structured_residual(sys, q, v, a, lam, t, band.row_bodies, Mb, Cb, force, torque, g, r)
    else:
        dynamic_residual_inline(sys, q, v, a, lam, t, M, C, force, torque, g, r)
    if phi.shape[0] > 0:
        constraint_residual(sys, q, t, phi)
    s = 0.0
    for k in range(r.shape[0]):
        s += r[k] * r[k]
    for k in range(phi.shape[0]):
        s += phi[k] * phi[k]
    if index2:
        _matrix_vector(C, v, bv)
        for k in range(bv.shape[0]):
            s += bv[k] * bv[k]
    return math.sqrt(s)


@njit(inline="always")
def _matrix_vector(A, x, out):
    """out = A x, in place."""
    for r in range(A.shape[0]):
        s = 0.0
        for c in range(A.shape[1]):
            s += A[r, c] * x[c]
        out[r] = s


@njit(cache=True)
def stabilisation_blocks(sys, q, v, bp, gp, scale, opts, w):
    """Index-2 blocks of the iteration matrix (paper 002 eq. 62) into w.S, after ``iteration_matrix``.

    eta column: scale (M beta' + C_t gamma') B(q_n)^T; hidden-constraint rows (times 1/gamma'):
    B + Z T / gamma' and B B(q_n)^T, with Z = d(B(q) v)/dq along UAC by forward differences.
    """
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    S = w.S
    rel = opts.fd_relative_step
    floor = opts.fd_step_floor
    texp = opts.texp
    for k in range(nv):
        eps = _step_sizes(q[k], rel, floor)
        w.z[:] = 0.0
        w.z[k] = eps
        update_coordinates(sys, q, w.z, w.qp)
        constraint_matrix(sys, w.qp, w.Cp)
        for r in range(nc):
            bvp = 0.0
            bv = 0.0
            for c in range(nv):
                bvp += w.Cp[r, c] * v[c]
                bv += w.C[r, c] * v[c]
            w.Z[r, k] = (bvp - bv) / eps
    for r in range(nv):
        for c in range(nc):
            s = 0.0
            for m in range(nv):
                s += scale * (bp * w.M[r, m] + gp * w.Ct[r, m]) * w.Cn[c, m]
            S[r, nv + nc + c] = s
    for r in range(nc):
        for c in range(nv):
            S[nv + nc + r, c] = w.C[r, c] + (_times_tangent(w.Z, w.T, r, c) if texp else w.Z[r, c]) / gp
        for c in range(nc):
            s = 0.0
            for m in range(nv):
                s += w.C[r, m] * w.Cn[c, m]
            S[nv + r, nv + nc + c] = 0.0
            S[nv + nc + r, nv + c] = 0.0
            S[nv + nc + r, nv + nc + c] = s


@njit(inline="always")
def _predictor(q, v, a_alg, h, beta, gamma, abar, dqn, v1, vd1, lam1, zeta):
    """dq_n, v_{n+1} of Alg. 5 lines 1-6 (from abar); v'_{n+1}, lambda_{n+1} and h eta_n start at 0."""
    for r in range(v.shape[0]):
        dqn[r] = h * v[r] + h * h * (0.5 - beta) * a_alg[r] + h * h * beta * abar[r]
        v1[r] = v[r] + h * (1.0 - gamma) * a_alg[r] + h * gamma * abar[r]
        vd1[r] = 0.0
    lam1[:] = 0.0
    zeta[:] = 0.0


@njit(inline="always")
def _solve_newton(nv, nc, scale, gp, index2, band, r, phi, bv, ab, brhs, LU, piv, rhs):
    """Newton correction of [r; Phi] (and B v) into rhs with the factors of the iteration matrix (LU, or
    ab in the band ordering when band.active)."""
    if band.active:
        pos = band.position
        for k in range(nv):
            brhs[pos[k]] = -scale * r[k]
        for k in range(nc):
            brhs[pos[nv + k]] = -phi[k]
        band_lu_solve(ab, band.bands[0], band.bands[1], piv, brhs)
        for u in range(nv + nc):
            rhs[u] = brhs[pos[u]]
        return
    for k in range(nv):
        rhs[k] = -scale * r[k]
    for k in range(nc):
        rhs[nv + k] = -phi[k]
    if index2:
        for k in range(nc):
            rhs[nv + nc + k] = -bv[k] / gp
    lu_solve(LU, piv, rhs)


@njit(inline="always")
def _factor_iteration_matrix(sys, q1, dqn, v1, vd1, lam1, t1, bp, gp, scale, opts, index2, w):
    """Assemble and factorise S_t (dense, or banded when w.band is active) at the iterate whose residual
    ``_residual_norm`` has just evaluated (w.M, w.C, w.g, w.r current); False if singular."""
    if w.band.active:
        band_iteration_matrix(sys, q1, dqn, v1, vd1, lam1, t1, bp, gp, scale, opts, w)
        return band_lu_factor(w.ab, w.band.bands[0], w.band.bands[1], w.piv)
    iteration_matrix_at_residual(sys, q1, dqn, v1, vd1, lam1, t1, bp, gp, scale, opts, w)
    if index2:
        stabilisation_blocks(sys, q1, v1, bp, gp, scale, opts, w)
    w.LU[:, :] = w.S
    return lu_factor(w.LU, w.piv)


@njit(inline="always")
def generalized_alpha_step(sys, method, opts, q, v, vd, a_alg, lam, t, h, w, stats):
    """One step t -> t + h of paper 000 Alg. 5 (Alg. 4 for classical nodes) = paper 002 eq. (37), or of
    the stabilised index-2 integrator paper 002 eq. (56) if opts.index == 2; state updated in place.
    Works in the preallocated arrays of w (no allocation per step). Inlined into the step loop, with one
    site per kernel (the residual of the predictor, of each iterate and of a restart share one)."""
    am, af, beta, gamma = method[0], method[1], method[2], method[3]
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    index2 = opts.index == 2 and nc > 0
    bp = (1.0 - am) / (h * h * beta * (1.0 - af))
    gp = gamma / (h * beta)
    scale = beta * h * h if opts.scaling else 1.0
    t1 = t + h
    if index2:
        constraint_matrix(sys, q, w.Cn)
    # predictor (Alg. 5 lines 1-6); w.zeta = h eta_n of eq. (56b)
    for r in range(nv):
        w.abar[r] = (af * vd[r] - am * a_alg[r]) / (1.0 - am)
    dqn, v1, vd1, lam1, q1 = w.dqn, w.v1, w.vd1, w.lam1, w.q1
    modified = opts.modified
    full_now = not modified
    restarted = False
    converged = False
    max_it = opts.max_iterations
    res0 = 0.0
    last = 0.0
    k = 0                   # iterations done
    from_predictor = True   # the iterate is the predictor (k = 0, or a restart)
    while True:
        if from_predictor:
            _predictor(q, v, a_alg, h, beta, gamma, w.abar, dqn, v1, vd1, lam1, w.zeta)
        update_coordinates_inline(sys, q, dqn, q1)
        res = _residual_norm(sys, q1, v1, vd1, lam1, t1, index2, w.band, w.Mb, w.Cb, w.M, w.C, w.force, w.torque,
                             w.g, w.r, w.phi, w.bv)
        if k == 0:
            if not math.isfinite(res):
                return DIVERGED
            res0 = reference_residual(res, opts)
            res = res0
        elif not from_predictor:
            if not math.isfinite(res) and full_now:
                stats[ST_NEWTON] += k
                return DIVERGED
            if math.isfinite(res) and has_converged(res, res0, opts):
                converged = True
                break
            if modified and not full_now:
                refresh, fall_back, restart = modified_newton_policy(k, res, last, restarted, opts)
                if refresh:
                    w.jacobian_valid[0] = False
                if fall_back:
                    full_now = True
                    stats[ST_FULL_NEWTON_FALLBACKS] += 1
                if restart:
                    restarted = True
                    if k < max_it:
                        from_predictor = True
                        continue
        from_predictor = False
        last = res
        if k == max_it:
            break
        k += 1
        if full_now or not w.jacobian_valid[0]:
            stats[ST_JACOBIANS] += 1
            stats[ST_FACTORIZATIONS] += 1
            if not _factor_iteration_matrix(sys, q1, dqn, v1, vd1, lam1, t1, bp, gp, scale, opts, index2, w):
                w.jacobian_valid[0] = False
                stats[ST_NEWTON] += k
                return SINGULAR_MATRIX
            w.jacobian_valid[0] = True
        _solve_newton(nv, nc, scale, gp, index2, w.band, w.r, w.phi, w.bv, w.ab, w.brhs, w.LU, w.piv, w.rhs)
        if index2:
            for r in range(nc):
                w.zeta[r] += w.rhs[nv + nc + r]
            for r in range(nv):
                s = 0.0
                for c in range(nc):
                    s += w.Cn[c, r] * w.rhs[nv + nc + c]
                w.shift[r] = s
        for r in range(nv):
            d = w.rhs[r]
            dqn[r] += d
            if index2:
                d += w.shift[r]
            v1[r] += gp * d
            vd1[r] += bp * d
        for r in range(nc):
            lam1[r] += w.rhs[nv + r] / scale
    stats[ST_NEWTON] += k
    stats[ST_MAX_ITERATIONS] = max(stats[ST_MAX_ITERATIONS], k)
    if not converged:
        return NEWTON_FAILED
    # commit (Alg. 5 line 20)
    for r in range(nv):
        a_alg[r] = w.abar[r] + (1.0 - af) / (1.0 - am) * vd1[r]
    q[:] = q1
    v[:] = v1
    vd[:] = vd1
    lam[:] = lam1
    if index2:
        stats[ST_MAX_ETA] = max(stats[ST_MAX_ETA], _norm2(w.zeta) / h)
    if not (all_finite(q) and all_finite(v)):
        return DIVERGED
    return OK


@njit(cache=True)
def consistent_accelerations(sys, q, v, t, vd, lam):
    """v'(0) and lambda(0) from [[M, B^T], [B, 0]] [v'; lambda] = [g; -B' v] (paper 002 eq. 19)."""
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    nb = sys.body_int.shape[0]
    M = np.zeros((nv, nv))
    C = np.zeros((nc, nv))
    g = np.zeros(nv)
    r = np.zeros(nv)
    force = np.zeros((nb, 3))
    torque = np.zeros((nb, 3))
    dynamic_residual(sys, q, v, np.zeros(nv), np.zeros(nc), t, M, C, force, torque, g, r)
    curvature = np.zeros(nc)
    constraint_curvature(sys, q, v, curvature)
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


@njit(cache=True)
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


class ImplicitWorkspace(NamedTuple):
    """Preallocated arrays of the implicit stepper (a namedtuple, so numba can take it).

    Dense solver: M, C, K, Ct, T, S, LU (n x n). Banded solver (``band.active``): body blocks Mb, Cb,
    Tb, group blocks Kg, Cg and the band matrix ab; the dense matrices are then empty.
    """

    M: np.ndarray
    Mp: np.ndarray
    C: np.ndarray
    Cp: np.ndarray
    K: np.ndarray
    Ct: np.ndarray
    T: np.ndarray
    S: np.ndarray
    LU: np.ndarray
    Cn: np.ndarray
    Z: np.ndarray
    bv: np.ndarray
    piv: np.ndarray
    rhs: np.ndarray
    r: np.ndarray
    r0: np.ndarray
    rp: np.ndarray
    g: np.ndarray
    gp: np.ndarray
    phi: np.ndarray
    z: np.ndarray
    qp: np.ndarray
    vp: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    jacobian_valid: np.ndarray
    abar: np.ndarray
    dqn: np.ndarray
    v1: np.ndarray
    vd1: np.ndarray
    lam1: np.ndarray
    q1: np.ndarray
    zeta: np.ndarray
    shift: np.ndarray
    band: BandStructure
    Mb: np.ndarray
    Cb: np.ndarray
    Tb: np.ndarray
    Kg: np.ndarray
    Cg: np.ndarray
    ab: np.ndarray
    brhs: np.ndarray


def make_workspace(nq: int, nv: int, nc: int, n_bodies: int, index: int = 3, system=None,
                   linear_algebra: str = "dense") -> ImplicitWorkspace:
    """Arrays for the index-3 system (nv + nc unknowns) or the index-2 one (nv + 2 nc).

    ``linear_algebra`` ("dense", "banded", "auto"; banded needs ``system`` and index 3) selects the
    solver through ``lgbench.mbs.banded.band_structure``.
    """
    n = nv + nc if index == 3 or nc == 0 else nv + 2 * nc
    band = dense_structure()
    if system is not None and linear_algebra != "dense" and n == nv + nc:
        band = band_structure(system, linear_algebra)
    if band.active:
        kl, ku = (int(x) for x in band.bands)
        groups = system.force_groups
        ng, gw = groups.shape
        dense_n, dense_v, dense_c = 0, 0, 0
        blocks = dict(Mb=np.zeros((n_bodies, BODY_BLOCK, BODY_BLOCK)), Cb=np.zeros((nc, 2, BODY_BLOCK)),
                      Tb=np.zeros((n_bodies, BODY_BLOCK, BODY_BLOCK)), Kg=np.zeros((ng, gw, gw)),
                      Cg=np.zeros((ng, gw, gw)), ab=np.zeros((n, 2 * kl + ku + 1)), brhs=np.zeros(n))
    else:
        dense_n, dense_v, dense_c = n, nv, nc
        blocks = dict(Mb=np.zeros((0, BODY_BLOCK, BODY_BLOCK)), Cb=np.zeros((0, 2, BODY_BLOCK)),
                      Tb=np.zeros((0, BODY_BLOCK, BODY_BLOCK)), Kg=np.zeros((0, 0, 0)),
                      Cg=np.zeros((0, 0, 0)), ab=np.zeros((0, 0)), brhs=np.zeros(0))
    return ImplicitWorkspace(
        M=np.zeros((dense_v, dense_v)), Mp=np.zeros((dense_v, dense_v)), C=np.zeros((dense_c, dense_v)),
        Cp=np.zeros((dense_c, dense_v)), K=np.zeros((dense_v, dense_v)), Ct=np.zeros((dense_v, dense_v)),
        T=np.zeros((dense_v, dense_v)), S=np.zeros((dense_n, dense_n)), LU=np.zeros((dense_n, dense_n)),
        Cn=np.zeros((dense_c, dense_v)), Z=np.zeros((dense_c, dense_v)), bv=np.zeros(nc),
        piv=np.zeros(n, dtype=np.int64), rhs=np.zeros(n), r=np.zeros(nv),
        r0=np.zeros(nv), rp=np.zeros(nv), g=np.zeros(nv), gp=np.zeros(nv), phi=np.zeros(nc),
        z=np.zeros(nq), qp=np.zeros(nq), vp=np.zeros(nv), force=np.zeros((n_bodies, 3)),
        torque=np.zeros((n_bodies, 3)), jacobian_valid=np.zeros(1, dtype=np.bool_),
        abar=np.zeros(nv), dqn=np.zeros(nv), v1=np.zeros(nv), vd1=np.zeros(nv), lam1=np.zeros(nc),
        q1=np.zeros(nq), zeta=np.zeros(nc), shift=np.zeros(nv), band=band, **blocks,
    )


@njit(inline="always")
def _norm2(x):
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * x[k]
    return math.sqrt(s)


@njit(inline="always")
def record_constraint_maxima(sys, v, band, Cb, C, phi, bv, stats):
    """Raise the running maxima of ||Phi|| and ||B v|| in ``stats`` by the converged step's values
    (``phi`` and the constraint Jacobian of the last iteration: blocks Cb when band.active, else C)."""
    if phi.shape[0] == 0:
        return
    if band.active:
        constraint_velocity(sys, band.row_bodies, Cb, v, bv)
    else:
        _matrix_vector(C, v, bv)
    stats[ST_MAX_PHI] = max(stats[ST_MAX_PHI], _norm2(phi))
    stats[ST_MAX_BV] = max(stats[ST_MAX_BV], _norm2(bv))


@njit(cache=True)
def integrate_implicit(sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                       q_samples, v_samples, lam_samples, w, stats):
    """Fixed-step generalized-alpha from t0 to t_end (last step shortened if needed), in place.

    Records (q, v, lambda) at the first step boundary at or after each sample time, and the maxima
    of ||Phi|| and ||B v|| over all steps in ``stats``. Returns (status, steps, t_reached). The arguments,
    which the caller owns for the call, are ``borrowed`` for the loop (no reference counting per kernel call).
    """
    sys, method, opts, q, v, vd, a_alg, lam, sample_times, q_samples, v_samples, lam_samples, w, stats = borrowed(
        (sys, method, opts, q, v, vd, a_alg, lam, sample_times, q_samples, v_samples, lam_samples, w, stats))
    total, last = step_plan(t0, t_end, h)
    next_sample = record_due_samples(sample_times, 0, t0, h, q, v, lam, q_samples, v_samples, lam_samples)
    steps = 0
    t = t0
    for n in range(total):
        hn = h if n < total - 1 else last
        if hn != h:
            w.jacobian_valid[0] = False
        status = generalized_alpha_step(sys, method, opts, q, v, vd, a_alg, lam, t, hn, w, stats)
        if status != OK:
            return status, steps, t
        steps += 1
        stats[ST_STEPS] += 1
        t = step_end_time(t0, t_end, h, n, total)
        record_constraint_maxima(sys, v, w.band, w.Cb, w.C, w.phi, w.bv, stats)
        next_sample = record_due_samples(sample_times, next_sample, t, h, q, v, lam, q_samples, v_samples,
                                         lam_samples)
    return OK, steps, t
