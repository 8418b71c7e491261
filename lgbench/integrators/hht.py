"""HHT-alpha for constrained multibody systems, classical and modified for Euler parameters (paper 004).

One stepper, the variant is data (``variant`` option):

- classical: Newmark (paper 004 eq. 17-18 = 59-60) for every coordinate,
  q_{n+1} = q_n + h v_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1},
  v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1};
- modified: the same, except that the velocity of every EP node follows eq. (34),
  e'_{n+1} = L_{n+1}^T (L_n e'_n + h (1 - gamma) L_n e''_n) + h gamma (I_4 - e_{n+1} e_{n+1}^T) e''_{n+1},
  i.e. Newmark on the body angular velocity (eq. 31) plus the velocity constraint e.e' = 0 (eq. 6).

Forces and constraint forces are weighted between t_n and t_{n+1} (eq. 20 / 61), beta and gamma
follow from alpha in [-1/3, 0] (eq. 19). Newton solves eq. (62)-(63),
R = M a_{n+1} / (1 + alpha) + (B^T lambda - g)_{n+1} - alpha / (1 + alpha) (B^T lambda - g)_n = 0,
Phi(q_{n+1}) = 0, for the position increment dq = h^2 beta a_{n+1} + (known) and lambda_{n+1}; dq is
added to q_n by UAC, so RV nodes get the Newmark formulas in the Lie algebra (Simo and Vu-Quoc,
paper 004 eq. 29-31, body-frame version) and classical nodes (Rxyz, EP, Min) the plain ones.

Iteration matrix (eq. 65): that of generalized-alpha (``iteration_matrix.iteration_matrix_at_residual``,
K_t and C_t of the forces, scaling by beta h^2) with the mass term divided by 1 + alpha, i.e. the
generalized-alpha matrix for alpha_m = alpha_f = 0 with J_0 = h^2 beta I (eq. 66) and
J_1 = h gamma I (eq. 67, classical). For the modified variant the EP columns of C_t J_1 use the
analytical derivative de'_{n+1}/de''_{n+1} of eq. (69) with w-hat of eq. (70) (paper 004 App. B).
Newton options, convergence test and statistics are those of the generalized-alpha entry. For chains
and trees of bodies (option ``linear_algebra``) residual and iteration matrix are assembled from body
and group blocks straight into the banded solver of ``lgbench/mbs/banded.py`` (the V8 crank drive: band
plus border), as for generalized-alpha; otherwise densely. The two solvers have an entry point each
(``integrate_hht``, ``integrate_hht_banded``; ``lgbench.integrators.linear_algebra``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import entry_point, kernel
from lgbench.exceptions import InputError
from lgbench.integrators import generalized_alpha as ga
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.generalized_alpha import ImplicitWorkspace
from lgbench.integrators.implicit import NEWTON_DEFAULTS, implicit_options, linear_solver, solver_kind
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.integrators.linear_algebra import banded, dense
from lgbench.integrators.newton import N_STATISTICS, ST_STEPS, NewtonOptions, at_round_off, newton_solve
from lgbench.integrators.starting_values import consistent_accelerations
from lgbench.mbs.codes import DIVERGED, EP, OK, SINGULAR_MATRIX
from lgbench.mbs.constraints import constraint_residual
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.dense import all_finite, copy_vector
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.mbs.pose import _rot_start
from lgbench.mbs.residual import generalized_forces
from lgbench.mbs.system import B_FORM, SystemArrays

CLASSICAL = 0
MODIFIED = 1
VARIANTS = {"classical": CLASSICAL, "modified": MODIFIED}

# method vector layout: alpha, beta, gamma, variant code
M_ALPHA, M_BETA, M_GAMMA, M_VARIANT = range(4)


def hht_parameters(alpha: float) -> tuple[float, float]:
    """(beta, gamma) of HHT-alpha, paper 004 eq. (19)."""
    return 0.25 * (1.0 - alpha) ** 2, 0.5 * (1.0 - 2.0 * alpha)


@kernel
def ep_rate_matrix(w):
    """w-hat of paper 004 eq. (70): L(e)^T w = w-hat e for every e (L is linear in e)."""
    W = np.zeros((4, 4))
    W[0, 1], W[0, 2], W[0, 3] = -w[0], -w[1], -w[2]
    W[1, 0], W[1, 2], W[1, 3] = w[0], w[2], -w[1]
    W[2, 0], W[2, 1], W[2, 3] = w[1], -w[2], w[0]
    W[3, 0], W[3, 1], W[3, 2] = w[2], w[1], -w[0]
    return W


@kernel
def _body_rate_carry(q, v, a, qr, vr, h, gamma):
    """w = L_n e'_n + h (1 - gamma) L_n e''_n (paper 004 eq. 34 and 70) of the EP node whose e, e', e''
    start at q[qr], v[vr], a[vr], as a tuple; fixed during Newton."""
    e0, e1, e2, e3 = q[qr], q[qr + 1], q[qr + 2], q[qr + 3]
    c = h * (1.0 - gamma)
    x0, x1, x2, x3 = v[vr] + c * a[vr], v[vr + 1] + c * a[vr + 1], v[vr + 2] + c * a[vr + 2], v[vr + 3] + c * a[vr + 3]
    return (-e1 * x0 + e0 * x1 + e3 * x2 - e2 * x3,
            -e2 * x0 - e3 * x1 + e0 * x2 + e1 * x3,
            -e3 * x0 + e2 * x1 - e1 * x2 + e0 * x3)


@kernel
def newmark_velocities(sys, method, q, v, a, q1, a1, h, v1):
    """v_{n+1}: eq. (18)/(60) for every coordinate; eq. (34) for EP nodes of the modified variant
    (L_{n+1}^T w written out, no arrays)."""
    gamma = method[M_GAMMA]
    for k in range(v.shape[0]):
        v1[k] = v[k] + h * (1.0 - gamma) * a[k] + h * gamma * a1[k]
    if method[M_VARIANT] != MODIFIED:
        return
    for i in range(sys.body_int.shape[0]):
        if sys.body_int[i, B_FORM] != EP:
            continue
        qr, vr = _rot_start(sys, i)
        w0, w1, w2 = _body_rate_carry(q, v, a, qr, vr, h, gamma)
        e0, e1, e2, e3 = q1[qr], q1[qr + 1], q1[qr + 2], q1[qr + 3]
        carried = (-e1 * w0 - e2 * w1 - e3 * w2, e0 * w0 - e3 * w1 + e2 * w2,
                   e3 * w0 + e0 * w1 - e1 * w2, -e2 * w0 + e1 * w1 + e0 * w2)
        e_dot_acc = e0 * a1[vr] + e1 * a1[vr + 1] + e2 * a1[vr + 2] + e3 * a1[vr + 3]
        for k in range(4):
            v1[vr + k] = carried[k] + h * gamma * (a1[vr + k] - q1[qr + k] * e_dot_acc)


@kernel
def _ep_velocity_derivative_entry(w, e1, a1, qr, vr, h, beta, gamma, r, c):
    """Entry (r, c) of de'_{n+1}/de''_{n+1}, paper 004 eq. (69), for w of ``_body_rate_carry`` and the EP
    node whose e_{n+1}, e''_{n+1} start at e1[qr], a1[vr]; the w-hat entries of eq. (70) written out."""
    w0, w1, w2 = w
    rate = (0.0, -w0, -w1, -w2, w0, 0.0, w2, -w1, w1, -w2, 0.0, w0, w2, w1, -w0, 0.0)
    d = h * h * beta * rate[4 * r + c]
    if r == c:
        e_dot_acc = e1[qr] * a1[vr] + e1[qr + 1] * a1[vr + 1] + e1[qr + 2] * a1[vr + 2] + e1[qr + 3] * a1[vr + 3]
        d += h * gamma - h ** 3 * gamma * beta * e_dot_acc
    return d - (h * gamma * e1[qr + r] * e1[qr + c] + h ** 3 * gamma * beta * e1[qr + r] * a1[vr + c])


@kernel
def _ep_velocity_correction_column(w, e1, a1, qr, vr, h, beta, gamma, c):
    """Column c of D - h gamma I (D of ``ep_velocity_derivative``) as a 4-tuple: what the modified
    variant puts in place of h gamma I in the EP columns of C_t J_1 (times 1 / (h^2 beta))."""
    d0 = _ep_velocity_derivative_entry(w, e1, a1, qr, vr, h, beta, gamma, 0, c)
    d1 = _ep_velocity_derivative_entry(w, e1, a1, qr, vr, h, beta, gamma, 1, c)
    d2 = _ep_velocity_derivative_entry(w, e1, a1, qr, vr, h, beta, gamma, 2, c)
    d3 = _ep_velocity_derivative_entry(w, e1, a1, qr, vr, h, beta, gamma, 3, c)
    hg = h * gamma
    return (d0 - hg if c == 0 else d0, d1 - hg if c == 1 else d1, d2 - hg if c == 2 else d2,
            d3 - hg if c == 3 else d3)


@kernel
def ep_velocity_derivative(e, e_rate, e_acc, e1, a1, h, beta, gamma):
    """de'_{n+1}/de''_{n+1} of the modified update, paper 004 eq. (69), as a 4x4 matrix."""
    w = _body_rate_carry(e, e_rate, e_acc, 0, 0, h, gamma)
    D = np.empty((4, 4))
    for r in range(4):
        for c in range(4):
            D[r, c] = _ep_velocity_derivative_entry(w, e1, a1, 0, 0, h, beta, gamma, r, c)
    return D


@njit(inline="always")
def force_history(algebra, sys, q, v, lam, t, w, out):
    """(B^T lambda - g)(q, v, t), the t_n part of the HHT weighting (paper 004 eq. 61), in place; g and
    B(q) are left in w (``algebra.constraint_forces``: the dense or the banded B)."""
    generalized_forces(sys, q, v, t, w.force, w.torque, w.g)
    for k in range(out.shape[0]):
        out[k] = -w.g[k]
    algebra.constraint_forces(sys, q, lam, w, out)


@kernel
def _weighted_accelerations(method, a1, out):
    """out = a_{n+1} / (1 + alpha), the accelerations the HHT residual (eq. 62) multiplies M by."""
    alpha = method[M_ALPHA]
    for k in range(a1.shape[0]):
        out[k] = a1[k] / (1.0 + alpha)


@njit(inline="always")
def hht_residual(algebra, sys, method, q1, v1, a1, lam1, t1, history, w, R):
    """R of paper 004 eq. (62) into R, Phi(q_{n+1}) (eq. 63) into w.phi; returns ||[R; Phi]||_2. w.abar
    receives a_{n+1} / (1 + alpha), w.r the residual M a_{n+1} / (1 + alpha) - g + B^T lambda at t_{n+1}
    and w its by-products (``algebra.residual``), which the iteration matrix reads."""
    alpha = method[M_ALPHA]
    _weighted_accelerations(method, a1, w.abar)
    algebra.residual(sys, q1, v1, w.abar, lam1, t1, w)
    s = 0.0
    for k in range(R.shape[0]):
        R[k] = w.r[k] - alpha / (1.0 + alpha) * history[k]
        s += R[k] * R[k]
    phi = w.phi
    if phi.shape[0] > 0:
        constraint_residual(sys, q1, t1, phi)
    for k in range(phi.shape[0]):
        s += phi[k] * phi[k]
    return math.sqrt(s)


@njit(inline="always")
def hht_iteration_matrix(algebra, sys, method, opts, q, v, a, q1, dq, v1, a1, lam1, t1, h, scale, w):
    """Scaled iteration matrix of paper 004 eq. (65), at the iterate ``hht_residual`` has just evaluated,
    into w.S or the band matrix w.bm (``algebra.iteration_matrix``), with the modified variant's EP
    columns (``_add_ep_corrections``)."""
    alpha, beta, gamma = method[M_ALPHA], method[M_BETA], method[M_GAMMA]
    mass_factor = 1.0 / (h * h * beta * (1.0 + alpha))
    velocity_factor = gamma / (h * beta)
    algebra.iteration_matrix(sys, q1, dq, v1, w.abar, lam1, t1, mass_factor, velocity_factor, scale, opts, w)
    if method[M_VARIANT] == MODIFIED:
        _add_ep_corrections(algebra, sys, q, v, a, q1, a1, h, beta, gamma, scale, w)


@njit(inline="always")
def _ep_correction_columns(sys, q, v, a, q1, a1, h, beta, gamma, i):
    """The four columns of D - h gamma I for EP body i (``_ep_velocity_correction_column``): dv/d(dq) =
    D / (h^2 beta) replaces gamma / (h beta) I in the EP columns of C_t J_1 (D of
    ``ep_velocity_derivative`` entry by entry, no array)."""
    qr, vr = _rot_start(sys, i)
    carry = _body_rate_carry(q, v, a, qr, vr, h, gamma)
    return (_ep_velocity_correction_column(carry, q1, a1, qr, vr, h, beta, gamma, 0),
            _ep_velocity_correction_column(carry, q1, a1, qr, vr, h, beta, gamma, 1),
            _ep_velocity_correction_column(carry, q1, a1, qr, vr, h, beta, gamma, 2),
            _ep_velocity_correction_column(carry, q1, a1, qr, vr, h, beta, gamma, 3))


@njit(inline="always")
def _add_ep_corrections(algebra, sys, q, v, a, q1, a1, h, beta, gamma, scale, w):
    """S[:, vr + c] += scale / (h^2 beta) C_t[:, vr:vr + 4] (column c of D - h gamma I), every EP body
    (``algebra.add_damping_columns``)."""
    factor = scale / (h * h * beta)
    for i in range(sys.body_int.shape[0]):
        if sys.body_int[i, B_FORM] != EP:
            continue
        vr = _rot_start(sys, i)[1]
        algebra.add_damping_columns(sys, w, vr, _ep_correction_columns(sys, q, v, a, q1, a1, h, beta, gamma, i),
                                    factor)


class HHTIterate(NamedTuple):
    """What the Newton iterations of one HHT step read (``newton_solve``'s step context)."""

    sys: SystemArrays
    method: np.ndarray
    opts: NewtonOptions
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    lam: np.ndarray
    t1: float
    h: float
    scale: float
    history: np.ndarray
    R: np.ndarray
    w: ImplicitWorkspace


@njit(inline="always")
def _start(it):
    """Predictor: a_{n+1} = a_n, lambda_{n+1} = lambda_n."""
    w, h = it.w, it.h
    for r in range(it.v.shape[0]):
        w.vd1[r] = it.a[r]
        w.dqn[r] = h * it.v[r] + 0.5 * h * h * it.a[r]
    copy_vector(w.lam1, it.lam)


@njit(inline="always")
def _residual(it, algebra):
    w = it.w
    update_coordinates(it.sys, it.q, w.dqn, w.q1)
    newmark_velocities(it.sys, it.method, it.q, it.v, it.a, w.q1, w.vd1, it.h, w.v1)
    return hht_residual(algebra, it.sys, it.method, w.q1, w.v1, w.vd1, w.lam1, it.t1, it.history, w, it.R)


@njit(inline="always")
def _factor(it, algebra):
    w = it.w
    hht_iteration_matrix(algebra, it.sys, it.method, it.opts, it.q, it.v, it.a, w.q1, w.dqn, w.v1, w.vd1, w.lam1,
                         it.t1, it.h, it.scale, w)
    return algebra.factor(w)


@njit(inline="always")
def _round_off(it):
    """[beta h^2 R; Phi], the residual in the units of the coordinates, at the round-off level of the iterate
    (``newton.at_round_off``); R and Phi as ``_residual`` left them."""
    c = it.method[M_BETA] * it.h * it.h
    s = 0.0
    for k in range(it.R.shape[0]):
        s += (c * it.R[k]) ** 2
    phi = it.w.phi
    for k in range(phi.shape[0]):
        s += phi[k] * phi[k]
    return at_round_off(math.sqrt(s), it.w.q1)


@njit(inline="always")
def _correct(it, algebra):
    w, h, scale = it.w, it.h, it.scale
    beta = it.method[M_BETA]
    nv = it.v.shape[0]
    nc = w.lam1.shape[0]
    for r in range(nv):
        w.rhs[r] = -scale * it.R[r]
    for r in range(nc):
        w.rhs[nv + r] = -w.phi[r]
    algebra.solve(w)
    for r in range(nv):
        w.dqn[r] += w.rhs[r]
        w.vd1[r] += w.rhs[r] / (h * h * beta)
    for r in range(nc):
        w.lam1[r] += w.rhs[nv + r] / scale
    return False


@njit(inline="always")
def hht_step(sys, method, opts, q, v, a, lam, t, h, w, stats, history, R, algebra):
    """One HHT step t -> t + h (paper 004 eq. 59-64, modified: eq. 33-34); state updated in place.
    The iterates a_{n+1}, lambda_{n+1}, dq, q_{n+1}, v_{n+1} live in w.vd1, w.lam1, w.dqn, w.q1, w.v1;
    Newton by ``newton_solve``."""
    scale = method[M_BETA] * h * h if opts.scaling else 1.0
    force_history(algebra, sys, q, v, lam, t, w, history)
    iterate = HHTIterate(sys, method, opts, q, v, a, lam, t + h, h, scale, history, R, w)
    status = newton_solve(_start, _residual, _factor, _correct, _round_off, algebra, iterate, opts,
                          w.jacobian_valid, stats)
    if status != OK:
        return status
    copy_vector(q, w.q1)
    copy_vector(v, w.v1)
    copy_vector(a, w.vd1)
    copy_vector(lam, w.lam1)
    if not (all_finite(q) and all_finite(v)):
        return DIVERGED
    return OK


class HHTProblem(NamedTuple):
    """What an HHT step reads: system, method (alpha, beta, gamma, variant), Newton settings, workspace,
    statistics, and the force history and residual arrays of ``hht_step``."""

    sys: SystemArrays
    method: np.ndarray
    opts: NewtonOptions
    w: ImplicitWorkspace
    stats: np.ndarray
    history: np.ndarray
    R: np.ndarray


@njit(inline="always")
def hht_fixed_step(algebra, problem, state, t, h, h_nominal):
    """``hht_step`` on the state (q, v, a, lambda), with the bookkeeping of ``generalized_alpha_fixed_step``."""
    q, v, a, lam = state
    w = problem.w
    stats = problem.stats
    if h != h_nominal:
        w.jacobian_valid[0] = False
    status = hht_step(problem.sys, problem.method, problem.opts, q, v, a, lam, t, h, w, stats, problem.history,
                      problem.R, algebra)
    if status == OK:
        stats[ST_STEPS] += 1
        ga.record_constraint_maxima(algebra, problem.sys, v, w, stats)
    return status


@njit(inline="always")
def _dense_fixed_step(problem, state, t, h, h_nominal):
    return hht_fixed_step(dense, problem, state, t, h, h_nominal)


@njit(inline="always")
def _banded_fixed_step(problem, state, t, h, h_nominal):
    return hht_fixed_step(banded, problem, state, t, h, h_nominal)


@entry_point
def integrate_hht(sys, method, opts, q, v, a, lam, t0, t_end, h, sample_times, q_samples, v_samples,
                  lam_samples, w, stats, history, R, stop):
    """Fixed-step HHT from t0 to t_end (``run_fixed_steps``) with the dense solver, in place; samples and
    the maxima of ||Phi|| and ||B v|| as in ``generalized_alpha.integrate_implicit``; history and R: the
    scratch of ``HHTProblem`` (nv each). Returns (status, steps, t)."""
    if w.band.active:
        raise ValueError("integrate_hht takes a dense workspace (hht.integrate chooses)")
    problem = HHTProblem(sys, method, opts, w, stats, history, R)
    samples = (sample_times, q_samples, v_samples, lam_samples)
    return run_fixed_steps(_dense_fixed_step, problem, (q, v, a, lam), (q, v, lam), samples, t0, t_end, h, stop)


@entry_point
def integrate_hht_banded(sys, method, opts, q, v, a, lam, t0, t_end, h, sample_times, q_samples, v_samples,
                         lam_samples, w, stats, history, R, stop):
    """``integrate_hht`` with the banded solver (w.band.active; ``lgbench.integrators.linear_algebra``)."""
    if not w.band.active:
        raise ValueError("integrate_hht_banded takes a banded workspace (hht.integrate chooses)")
    problem = HHTProblem(sys, method, opts, w, stats, history, R)
    samples = (sample_times, q_samples, v_samples, lam_samples)
    return run_fixed_steps(_banded_fixed_step, problem, (q, v, a, lam), (q, v, lam), samples, t0, t_end, h, stop)


def integrate(w: ImplicitWorkspace):
    """The entry point of ``integrate_hht``'s signature for the solver of workspace ``w``."""
    return integrate_hht_banded if w.band.active else integrate_hht


HHT_DEFAULTS: dict[str, Any] = {
    "alpha": -0.1,             # numerical damping, paper 004: alpha in [-1/3, 0]
    "variant": "classical",    # "classical" (eq. 17-18) or "modified" (eq. 33-34 for EP nodes)
    **{key: value for key, value in NEWTON_DEFAULTS.items()
       if key not in ("rho_inf", "index", "starting_values", "starting_step_fraction")},
    "linear_algebra": "auto",  # as generalized-alpha: banded (with a border for trees) or dense LU
}


@dataclass(frozen=True)
class HHTIntegrator:
    name: str
    description: str
    order: int = 2
    kind: str = "implicit"
    consistent_start: bool = True       # starts from consistent a(0), lambda(0) (paper 002 eq. 19)
    defaults: dict[str, Any] = field(default_factory=dict)
    formulations: tuple[str, ...] = IMPLICIT_FORMULATIONS

    def options(self, options: dict[str, Any]) -> tuple[np.ndarray, NewtonOptions, dict[str, Any]]:
        """(method vector, Newton option vector, merged options) after validation."""
        opts, merged = implicit_options(self, options)
        if not isinstance(merged["variant"], str) or merged["variant"] not in VARIANTS:
            raise InputError(f"invalid value {merged['variant']!r}", field="options.variant",
                             allowed=list(VARIANTS))
        try:
            alpha = float(merged["alpha"])
        except (TypeError, ValueError):
            raise InputError(f"must be a number, got {merged['alpha']!r}", field="options.alpha") from None
        if not -1.0 / 3.0 - 1e-12 <= alpha <= 0.0:
            raise InputError(f"must lie in [-1/3, 0], got {alpha}", field="options.alpha")
        merged["alpha"] = alpha
        beta, gamma = hht_parameters(alpha)
        return np.array([alpha, beta, gamma, VARIANTS[merged["variant"]]]), opts, merged

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return self.options(options)[2]

    def integrate(self, system, q0, v0, options, h, t_end, sample_times) -> Integration:
        """Warm-up (compilation), then the timed run from consistent initial accelerations (paper 002 eq. 19)."""
        return run_hht(system, self, q0, v0, options, h, t_end, sample_times)

    def linear_algebra(self, system, options: dict[str, Any]) -> str:
        """"banded" or "dense": the solver, and so the compiled entry point, of a run on ``system``."""
        return solver_kind(system, 3, self.options(options)[2])


def run_hht(system, integrator: HHTIntegrator, q0, v0, options, h, t_end, sample_times) -> Integration:
    """Compiled HHT run; the timed region includes the consistent initial accelerations."""
    nq, nv, nc = (int(x) for x in system.sizes)
    method, opts, merged = integrator.options(options)
    ns = sample_times.shape[0]
    q_samples, v_samples, lam_samples = sample_arrays(ns, nq, nv, nc)

    def fresh_state():
        q = q0.copy()
        v = v0.copy()
        a = np.zeros(nv)
        lam = np.zeros(nc)
        ok = consistent_accelerations(system, q, v, 0.0, a, lam)
        return q, v, a, lam, ok

    def advance(inputs, q, v, a, lam, t_stop, warm_up, stop):
        workspace, stats, (history, R) = inputs
        times, qs, vs, ls = sampling(warm_up, sample_times, q_samples, v_samples, lam_samples)
        return integrate(workspace)(system, method, opts, q, v, a, lam, 0.0, t_stop, h, times, qs, vs, ls, workspace,
                                    stats, history, R, stop)

    def run(inputs, t_stop, warm_up, stop):
        if warm_up:     # the stepper compiles before the starting values (lgbench/runner/precompile.py)
            advance(inputs, q0.copy(), v0.copy(), np.zeros(nv), np.zeros(nc), t_stop, True, stop)
        q, v, a, lam, ok = fresh_state()
        if not ok:
            return SINGULAR_MATRIX, 0, 0.0, q, v, lam
        code, steps, t_reached = advance(inputs, q, v, a, lam, t_stop, warm_up, stop)
        return code, steps, t_reached, q, v, lam

    (workspace, stats, _), (code, steps, t_reached, q, v, lam), cpu = timed_run(
        lambda: (ga.make_workspace(system, 3, linear_solver(system, merged)),
                 np.zeros(N_STATISTICS), (np.zeros(nv), np.zeros(nv))), run, t_end)
    statistics = {**ga.newton_statistics(stats, steps, code, merged, with_eta=False), "alpha": merged["alpha"]}
    return Integration(int(code), int(steps), float(t_reached), cpu, q, v, lam, q_samples, v_samples,
                       lam_samples, statistics)


HHT = HHTIntegrator(
    "hht",
    "HHT-alpha with force weighting (paper 004 eq. 19, 59-64), variant classical (Newmark eq. 17-18) or "
    "modified (EP velocities by eq. 33-34), Newton options as generalized-alpha",
    defaults=HHT_DEFAULTS,
)

HHT_INTEGRATORS = {HHT.name: HHT}
