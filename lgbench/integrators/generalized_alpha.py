"""Generalized-alpha for classical formulation 2 and its Lie group version, one stepper for both.

Paper 000 Alg. 4 (classical) and Alg. 5 (Lie group): the unknowns of Newton's method are the
increment of the local coordinates dq_n and lambda; q_{n+1} = UAC(q_n, dq_n). For classical nodes
UAC adds and T_exp = I, so Alg. 5 reduces to Alg. 4 and a single loop serves RV, Rxyz and EP.
A parameter set (alpha_m, alpha_f, beta, gamma) is data: generalized-alpha from rho_inf (paper 002
eq. 42), HHT-alpha and Newmark are other parameter sets of the same stepper.

Newton (paper 000 Sect. 3.3-3.4): the convergence test and the full/modified policy are those of
``lgbench/integrators/newton.py``, shared with HHT. Iteration matrix S_t (eq. 40) =
[[M beta' + C_t gamma' + K_t T, B^T], [B T, 0]] with T = T_exp(dq_n) or I (option ``texp``); K_t and C_t
of the forces (eq. 42) analytic (option ``jacobian``, default "analytic"; "finite-difference": forward
differences along UAC) or K_t by forward differences of the whole residual (eq. 41, option
``tangent = "full"``); scaling (paper 002 eq. 57): equations of motion
multiplied and lambda divided by beta h^2.

Stabilised index-2 formulation (paper 002 eqs. 55-56, option ``index = 2``): the increment gets the
term -h B^T(q_n) eta_n and B(q_{n+1}) v_{n+1} = 0 is imposed. Unknowns (dq_n, beta h^2 lambda, h eta)
with v_{n+1}, v'_{n+1} driven by dq_n + h B^T(q_n) eta (eq. 61); the hidden-constraint rows are
multiplied by h beta / gamma, which gives the bounded iteration matrix of eq. (62):
[[S_11, B^T, (M beta' + C_t gamma') B_n^T], [B T, 0, 0], [B + Z T / gamma', 0, B B_n^T]] (scaled as
above), Z = d(B v)/dq along UAC (``mbs/constraint_tangent``; forward differences with ``jacobian:
finite-difference``).

Lie group nodes: T = T_SO3 on the rotation block of RV nodes and T_SE3 (paper 002 eq. 35) on the
6-block of SE3 nodes.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import entry_point
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.linear_algebra import banded, dense, free_bodies
from lgbench.integrators.newton import (
    ST_FULL_NEWTON_FALLBACKS, ST_MAX_BV, ST_MAX_ETA, ST_MAX_PHI, ST_ROUND_OFF_STEPS, ST_STEPS, NewtonOptions,
    at_round_off, newton_counts, newton_solve,
)
from lgbench.mbs.banded import BODY_BLOCK, BandMatrix, BandStructure, band_matrix, band_structure, dense_structure
from lgbench.mbs.codes import DIVERGED, OK
from lgbench.mbs.coordinate_update import update_coordinates_inline
from lgbench.mbs.dense import all_finite, copy_vector, matrix_vector_into
from lgbench.mbs.force_tangent import TangentWorkspace, tangent_workspace
from lgbench.mbs.system import S_NC, SystemArrays


@njit(inline="always")
def _residual_norm(algebra, sys, q, v, a, lam, t, index2, w):
    """||[r; Phi]||_2 (index 3) or ||[r; Phi; B v]||_2 (index 2), unscaled; leaves r in w.r, Phi in w.phi
    and B(q) v in w.bv (``algebra.residual``: the dense or the banded by-products)."""
    algebra.residual(sys, q, v, a, lam, t, w)
    r, phi, bv = w.r, w.phi, w.bv
    algebra.constraint_residual(sys, q, t, phi)
    s = 0.0
    for k in range(r.shape[0]):
        s += r[k] * r[k]
    for k in range(phi.shape[0]):
        s += phi[k] * phi[k]
    if index2:
        matrix_vector_into(w.C, v, bv)
        for k in range(bv.shape[0]):
            s += bv[k] * bv[k]
    return math.sqrt(s)


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
def _solve_newton(algebra, nv, nc, scale, gp, index2, w):
    """Newton correction of [r; Phi] (and B v) into w.rhs with the factors of the iteration matrix."""
    rhs = w.rhs
    for k in range(nv):
        rhs[k] = -scale * w.r[k]
    for k in range(nc):
        rhs[nv + k] = -w.phi[k]
    if index2:
        for k in range(nc):
            rhs[nv + nc + k] = -w.bv[k] / gp
    algebra.solve(w)


@njit(inline="always")
def _factor_iteration_matrix(algebra, sys, q1, dqn, v1, vd1, lam1, t1, bp, gp, scale, opts, index2, w):
    """Assemble and factorise S_t (with the index-2 blocks of paper 002 eq. 62 if ``index2``; dense only)
    at the iterate whose residual ``_residual_norm`` has just evaluated; False if singular."""
    algebra.iteration_matrix(sys, q1, dqn, v1, vd1, lam1, t1, bp, gp, scale, opts, w)
    if index2:
        algebra.index2_blocks(sys, q1, v1, bp, gp, scale, opts, w)
    return algebra.factor(w)


class GeneralizedAlphaIterate(NamedTuple):
    """What the Newton iterations of one step read (``newton_solve``'s step context)."""

    sys: SystemArrays
    q: np.ndarray
    v: np.ndarray
    a_alg: np.ndarray
    t1: float
    h: float
    beta: float
    gamma: float
    bp: float          # beta' of paper 000 eq. (40)
    gp: float          # gamma'
    scale: float
    index2: bool
    opts: NewtonOptions
    w: tuple


@njit(inline="always")
def _start(it):
    w = it.w
    _predictor(it.q, it.v, it.a_alg, it.h, it.beta, it.gamma, w.abar, w.dqn, w.v1, w.vd1, w.lam1, w.zeta)


@njit(inline="always")
def _residual(it, algebra):
    w = it.w
    update_coordinates_inline(it.sys, it.q, w.dqn, w.q1)
    return _residual_norm(algebra, it.sys, w.q1, w.v1, w.vd1, w.lam1, it.t1, it.index2, w)


@njit(inline="always")
def _factor(it, algebra):
    w = it.w
    return _factor_iteration_matrix(algebra, it.sys, w.q1, w.dqn, w.v1, w.vd1, w.lam1, it.t1, it.bp, it.gp,
                                    it.scale, it.opts, it.index2, w)


@njit(inline="always")
def _round_off(it):
    """[beta h^2 r; Phi] (and h B v at index 2), the residual in the units of the coordinates, at the
    round-off level of the iterate (``newton.at_round_off``); r, Phi, B v as ``_residual`` left them."""
    w = it.w
    c = it.beta * it.h * it.h
    s = 0.0
    for k in range(w.r.shape[0]):
        s += (c * w.r[k]) ** 2
    for k in range(w.phi.shape[0]):
        s += w.phi[k] * w.phi[k]
    if it.index2:
        for k in range(w.bv.shape[0]):
            s += (it.h * w.bv[k]) ** 2
    return at_round_off(math.sqrt(s), w.q1)


@njit(inline="always")
def _correct(it, algebra):
    """Solve for the correction (Alg. 5 lines 11-16) and update dq_n, v_{n+1}, v'_{n+1}, lambda (and h eta)."""
    w = it.w
    nv = it.v.shape[0]
    nc = w.lam1.shape[0]
    gp, bp, scale, index2 = it.gp, it.bp, it.scale, it.index2
    _solve_newton(algebra, nv, nc, scale, gp, index2, w)
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
        w.dqn[r] += d
        if index2:
            d += w.shift[r]
        w.v1[r] += gp * d
        w.vd1[r] += bp * d
    for r in range(nc):
        w.lam1[r] += w.rhs[nv + r] / scale
    return False


@njit(inline="always")
def generalized_alpha_step(sys, method, opts, q, v, vd, a_alg, lam, t, h, w, stats, algebra):
    """One step t -> t + h of paper 000 Alg. 5 (Alg. 4 for classical nodes) = paper 002 eq. (37), or of
    the stabilised index-2 integrator paper 002 eq. (56) if opts.index == 2; state updated in place.
    Works in the preallocated arrays of w (no allocation per step); Newton by ``newton_solve``, its linear
    algebra by the module ``algebra`` (``lgbench.integrators.linear_algebra``: dense or banded)."""
    am, af, beta, gamma = method[0], method[1], method[2], method[3]
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    index2 = opts.index == 2 and nc > 0
    if index2:
        algebra.index2_step_start(sys, q, w)
    # predictor (Alg. 5 lines 1-6); w.zeta = h eta_n of eq. (56b)
    for r in range(nv):
        w.abar[r] = (af * vd[r] - am * a_alg[r]) / (1.0 - am)
    iterate = GeneralizedAlphaIterate(sys, q, v, a_alg, t + h, h, beta, gamma,
                                      (1.0 - am) / (h * h * beta * (1.0 - af)), gamma / (h * beta),
                                      beta * h * h if opts.scaling else 1.0, index2, opts, w)
    status = newton_solve(_start, _residual, _factor, _correct, _round_off, algebra, iterate, opts,
                          w.jacobian_valid, stats)
    if status != OK:
        return status
    # commit (Alg. 5 line 20)
    for r in range(nv):
        a_alg[r] = w.abar[r] + (1.0 - af) / (1.0 - am) * w.vd1[r]
    copy_vector(q, w.q1)
    copy_vector(v, w.v1)
    copy_vector(vd, w.vd1)
    copy_vector(lam, w.lam1)
    if index2:
        stats[ST_MAX_ETA] = max(stats[ST_MAX_ETA], _norm2(w.zeta) / h)
    if not (all_finite(q) and all_finite(v)):
        return DIVERGED
    return OK


class ImplicitWorkspace(NamedTuple):
    """Preallocated arrays of the implicit stepper (a namedtuple, so numba can take it).

    Dense solver: M, C, K, Ct, T, S, LU (n x n). Banded solver (``band.active``): the band matrix bm,
    body blocks Mb, Cb, Tb, the dense matrices empty. Both: group blocks Kg, Cg of K_t, C_t (analytic or
    differenced) and the scratch arrays of the analytic tangent (empty where ``analytic_tangent_applies`` is
    False: finite differences).
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
    bm: BandMatrix
    tangent: TangentWorkspace


def solver_structure(system, index: int = 3, linear_algebra: str = "dense") -> BandStructure:
    """The band structure of ``make_workspace``'s solver (``band.active``: banded, which needs index 3 or
    no constraints)."""
    if linear_algebra == "dense" or (index == 2 and int(system.sizes[2]) > 0):
        return dense_structure()
    return band_structure(system, linear_algebra)


def make_workspace(system, index: int = 3, linear_algebra: str = "dense",
                   band: BandStructure | None = None) -> ImplicitWorkspace:
    """Arrays for the index-3 system (nv + nc unknowns) or the index-2 one (nv + 2 nc) of ``system``.

    ``linear_algebra`` ("dense", "banded", "auto"; banded needs index 3) selects the solver through
    ``lgbench.mbs.banded.band_structure``, unless ``band`` gives its ``solver_structure`` (read only, so
    a run's workspaces share it); the banded solver assembles its matrix from body and group blocks. The
    group blocks Kg, Cg of K_t and C_t serve both solvers, analytic or differenced.
    """
    nq, nv, nc = (int(x) for x in system.sizes)
    n_bodies = system.body_int.shape[0]
    n = nv + nc if index == 3 or nc == 0 else nv + 2 * nc
    if band is None:
        band = solver_structure(system, index, linear_algebra)
    ng, gw = system.force_groups.shape
    blocks = dict(Kg=np.zeros((ng, gw, gw)), Cg=np.zeros((ng, gw, gw)), tangent=tangent_workspace(system))
    if band.active:
        dense_n, dense_v, dense_c = 0, 0, 0
        blocks.update(Mb=np.zeros((n_bodies, BODY_BLOCK, BODY_BLOCK)), Cb=np.zeros((nc, 2, BODY_BLOCK)),
                      Tb=np.zeros((n_bodies, BODY_BLOCK, BODY_BLOCK)))
    else:
        dense_n, dense_v, dense_c = n, nv, nc
        blocks.update(Mb=np.zeros((0, BODY_BLOCK, BODY_BLOCK)), Cb=np.zeros((0, 2, BODY_BLOCK)),
                      Tb=np.zeros((0, BODY_BLOCK, BODY_BLOCK)))
    return ImplicitWorkspace(
        M=np.zeros((dense_v, dense_v)), Mp=np.zeros((dense_v, dense_v)), C=np.zeros((dense_c, dense_v)),
        Cp=np.zeros((dense_c, dense_v)), K=np.zeros((dense_v, dense_v)), Ct=np.zeros((dense_v, dense_v)),
        T=np.zeros((dense_v, dense_v)), S=np.zeros((dense_n, dense_n)),
        LU=np.zeros((0, 0) if band.active else (dense_n, dense_n)),
        Cn=np.zeros((dense_c, dense_v)), Z=np.zeros((dense_c, dense_v)), bv=np.zeros(nc),
        piv=np.zeros(n, dtype=np.int64), rhs=np.zeros(n), r=np.zeros(nv),
        r0=np.zeros(nv), rp=np.zeros(nv), g=np.zeros(nv), gp=np.zeros(nv), phi=np.zeros(nc),
        z=np.zeros(nq), qp=np.zeros(nq), vp=np.zeros(nv), force=np.zeros((n_bodies, 3)),
        torque=np.zeros((n_bodies, 3)), jacobian_valid=np.zeros(1, dtype=np.bool_),
        abar=np.zeros(nv), dqn=np.zeros(nv), v1=np.zeros(nv), vd1=np.zeros(nv), lam1=np.zeros(nc),
        q1=np.zeros(nq), zeta=np.zeros(nc), shift=np.zeros(nv), band=band, bm=band_matrix(band), **blocks,
    )


@njit(inline="always")
def _norm2(x):
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * x[k]
    return math.sqrt(s)


@njit(inline="always")
def record_constraint_maxima(algebra, sys, v, w, stats):
    """Raise the running maxima of ||Phi|| and ||B v|| in ``stats`` by the converged step's values (w.phi,
    and B v with the constraint Jacobian of the last iteration)."""
    if w.phi.shape[0] == 0:
        return
    algebra.constraint_velocity(sys, v, w, w.bv)
    stats[ST_MAX_PHI] = max(stats[ST_MAX_PHI], _norm2(w.phi))
    stats[ST_MAX_BV] = max(stats[ST_MAX_BV], _norm2(w.bv))


def newton_statistics(stats, steps: int, code: int, merged: dict, with_eta: bool) -> dict:
    """The statistics of a generalized-alpha or HHT run from its ``stats`` vector (ST_* layout), as they
    go to runs.csv; ``with_eta``: the stabilised index-2 multiplier maximum (generalized-alpha)."""
    statistics = {
        **newton_counts(stats, steps),
        "full_newton_fallbacks": int(stats[ST_FULL_NEWTON_FALLBACKS]),
        "steps_at_round_off": int(stats[ST_ROUND_OFF_STEPS]),
        "max_constraint_residual": stats[ST_MAX_PHI],
        "max_velocity_constraint_residual": stats[ST_MAX_BV],
    }
    if with_eta:
        statistics["max_eta"] = stats[ST_MAX_ETA]
    statistics.update(failed_steps=0 if code == 0 else 1, newton_rtol=merged["newton_rtol"],
                      newton_atol=merged["newton_atol"])
    return statistics


class GeneralizedAlphaProblem(NamedTuple):
    """What a generalized-alpha step reads: system, method parameters, Newton settings, workspace, statistics."""

    sys: SystemArrays
    method: np.ndarray     # (alpha_m, alpha_f, beta, gamma)
    opts: NewtonOptions
    w: ImplicitWorkspace
    stats: np.ndarray      # ST_* layout


@njit(inline="always")
def generalized_alpha_fixed_step(algebra, problem, state, t, h, h_nominal):
    """``generalized_alpha_step`` on the state (q, v, v', a, lambda); a shortened last step needs a new
    iteration matrix; the maxima of ||Phi|| and ||B v|| are recorded after every accepted step."""
    q, v, vd, a_alg, lam = state
    w = problem.w
    stats = problem.stats
    if h != h_nominal:
        w.jacobian_valid[0] = False
    status = generalized_alpha_step(problem.sys, problem.method, problem.opts, q, v, vd, a_alg, lam, t, h, w, stats,
                                    algebra)
    if status == OK:
        stats[ST_STEPS] += 1
        record_constraint_maxima(algebra, problem.sys, v, w, stats)
    return status


@njit(inline="always")
def _dense_fixed_step(problem, state, t, h, h_nominal):
    return generalized_alpha_fixed_step(dense, problem, state, t, h, h_nominal)


@njit(inline="always")
def _banded_fixed_step(problem, state, t, h, h_nominal):
    return generalized_alpha_fixed_step(banded, problem, state, t, h, h_nominal)


@njit(inline="always")
def _free_bodies_fixed_step(problem, state, t, h, h_nominal):
    return generalized_alpha_fixed_step(free_bodies, problem, state, t, h, h_nominal)


@njit(inline="always")
def _integrate(fixed_step, sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times, q_samples, v_samples,
               lam_samples, w, stats, stop):
    """``run_fixed_steps`` of ``fixed_step`` (one solver's ``generalized_alpha_fixed_step``)."""
    problem = GeneralizedAlphaProblem(sys, method, opts, w, stats)
    samples = (sample_times, q_samples, v_samples, lam_samples)
    return run_fixed_steps(fixed_step, problem, (q, v, vd, a_alg, lam), (q, v, lam), samples, t0, t_end, h, stop)


@entry_point
def integrate_implicit(sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                       q_samples, v_samples, lam_samples, w, stats, stop):
    """Fixed-step generalized-alpha from t0 to t_end (``run_fixed_steps``) with the dense solver, in place.

    Records (q, v, lambda) at the first step boundary at or after each sample time, and the maxima
    of ||Phi|| and ||B v|| over all steps in ``stats``. Returns (status, steps, t_reached).
    """
    if w.band.active:
        raise ValueError("integrate_implicit takes a dense workspace (implicit.compiled_solver chooses)")
    return _integrate(_dense_fixed_step, sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                      q_samples, v_samples, lam_samples, w, stats, stop)


@entry_point
def integrate_implicit_banded(sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                              q_samples, v_samples, lam_samples, w, stats, stop):
    """``integrate_implicit`` with the banded solver (w.band.active; ``lgbench.integrators.linear_algebra``)."""
    if not w.band.active:
        raise ValueError("integrate_implicit_banded takes a banded workspace (implicit.compiled_solver chooses)")
    return _integrate(_banded_fixed_step, sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                      q_samples, v_samples, lam_samples, w, stats, stop)


@entry_point
def integrate_implicit_free_bodies(sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                                   q_samples, v_samples, lam_samples, w, stats, stop):
    """``integrate_implicit`` for free rigid bodies under elementary loads (``linear_algebra.free_bodies``;
    ``implicit.free_bodies_apply`` says which runs)."""
    if w.band.active:
        raise ValueError("integrate_implicit_free_bodies takes a dense workspace (implicit.compiled_solver chooses)")
    return _integrate(_free_bodies_fixed_step, sys, method, opts, q, v, vd, a_alg, lam, t0, t_end, h, sample_times,
                      q_samples, v_samples, lam_samples, w, stats, stop)


ENTRY_POINTS = {"dense": integrate_implicit, "banded": integrate_implicit_banded,
                "free-bodies": integrate_implicit_free_bodies}
"""The entry point of each solver (``implicit.compiled_solver``)."""
