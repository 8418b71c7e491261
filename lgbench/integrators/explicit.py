"""One generic explicit Runge-Kutta stepper for every tableau and every formulation.

Classical nodes follow paper 000 Alg. 2, Lie group nodes Alg. 3 (RKMK): the stage coordinates are
UAC(q_n, dq_i) and the coordinate slopes T_exp^{-1}(dq_i) v_i. The difference lives in the
multibody kernels (``update_coordinates``, ``kinematic_rates``), so one loop serves both.
"""
import math
from typing import NamedTuple

from numba import njit
import numpy as np

from lgbench._compiled import allocating_entry_point
from lgbench.exceptions import InputError
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.integrators.right_hand_side import multibody, rigid_bodies
from lgbench.mbs.codes import DIVERGED, OK, UNRESOLVED_ROTATION
from lgbench.mbs.coordinate_update import largest_rotation_increment
from lgbench.mbs.dense import all_finite, copy_vector
from lgbench.mbs.dynamics import is_rigid_body_system, rhs_work
from lgbench.mbs.system import SystemArrays


@njit(inline="always")
def rk_stages(rhs, sys, rigid, A, C, q, v, t, h, Ks, ks, dq, qs, vs, work):
    """Stage slopes of one step (paper 000 Alg. 2/3): Ks[i] = coordinate rates, ks[i] = accelerations.

    ``rhs`` is a right-hand-side module (``lgbench.integrators.right_hand_side``; ``rigid`` =
    ``is_rigid_body_system``); dq, qs, vs and ``work`` (an ``RhsWork``) are preallocated scratch arrays: a
    stage allocates nothing."""
    s = C.shape[0]
    nq = q.shape[0]
    nv = v.shape[0]
    rate, acc = work.rate, work.acc
    rhs.stage_start(sys, rigid, q, work)
    for i in range(s):
        for k in range(nq):
            total = 0.0
            for j in range(i):
                total += A[i, j] * Ks[j, k]
            dq[k] = h * total
        for k in range(nv):
            total = 0.0
            for j in range(i):
                total += A[i, j] * ks[j, k]
            vs[k] = v[k] + h * total
        status = rhs.stage(sys, rigid, q, dq, vs, t + C[i] * h, qs, work)
        if status != OK:
            return status
        for k in range(nq):
            Ks[i, k] = rate[k]
        for k in range(nv):
            ks[i, k] = acc[k]
    return OK


@njit(inline="always")
def combine_stages(rhs, sys, rigid, weights, q, v, h, Ks, ks, dq, q_out, v_out, work):
    """q_out = UAC(q, h sum_j w_j K_j), v_out = v + h sum_j w_j k_j (weights B, or embedded E), after
    ``rk_stages`` from the same q (``rhs.compose``)."""
    s = weights.shape[0]
    for k in range(q.shape[0]):
        total = 0.0
        for j in range(s):
            total += weights[j] * Ks[j, k]
        dq[k] = h * total
    for k in range(v.shape[0]):
        total = 0.0
        for j in range(s):
            total += weights[j] * ks[j, k]
        v_out[k] = v[k] + h * total
    rhs.compose(sys, rigid, q, dq, q_out, work)


@njit(inline="always")
def explicit_rk_step(rhs, sys, rigid, A, B, C, q, v, t, h, Ks, ks, dq, qs, vs, work):
    """Advance (q, v) in place by one step of size h; returns a status code.

    A step whose rotation-vector increment exceeds pi is reported as UNRESOLVED_ROTATION: beyond pi
    the exponential map is not injective, so the step cannot represent the body's rotation; an
    unstable step size reaches it long before the state overflows."""
    status = rk_stages(rhs, sys, rigid, A, C, q, v, t, h, Ks, ks, dq, qs, vs, work)
    if status != OK:
        return status
    combine_stages(rhs, sys, rigid, B, q, v, h, Ks, ks, dq, qs, vs, work)
    if not (all_finite(qs) and all_finite(vs)):
        return DIVERGED
    if largest_rotation_increment(sys.body_int, dq) > math.pi:
        return UNRESOLVED_ROTATION
    copy_vector(q, qs)
    copy_vector(v, vs)
    return OK


class ExplicitProblem(NamedTuple):
    """What a fixed explicit step reads: the system, the tableau and the stage scratch arrays."""

    sys: SystemArrays
    rigid: bool          # ``is_rigid_body_system``: the fused rigid-body stage applies
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    scratch: tuple       # (Ks, ks, dq, qs, vs, RhsWork) of ``explicit_rk_step``


@njit(inline="always")
def explicit_fixed_step(rhs, problem, state, t, h, h_nominal):
    """``explicit_rk_step`` on the state (q, v) with the right-hand-side module ``rhs``."""
    q, v = state
    Ks, ks, dq, qs, vs, work = problem.scratch
    return explicit_rk_step(rhs, problem.sys, problem.rigid, problem.A, problem.B, problem.C, q, v, t, h, Ks, ks, dq,
                            qs, vs, work)


@njit(inline="always")
def _multibody_fixed_step(problem, state, t, h, h_nominal):
    return explicit_fixed_step(multibody, problem, state, t, h, h_nominal)


@njit(inline="always")
def _rigid_bodies_fixed_step(problem, state, t, h, h_nominal):
    return explicit_fixed_step(rigid_bodies, problem, state, t, h, h_nominal)


@njit(inline="always")
def _integrate(fixed_step, sys, A, B, C, q, v, t0, t_end, h, sample_times, q_samples, v_samples, stop):
    """``run_fixed_steps`` of ``fixed_step`` (one right-hand side's ``explicit_fixed_step``)."""
    s = B.shape[0]
    nq = q.shape[0]
    nv = v.shape[0]
    scratch = (np.zeros((s, nq)), np.zeros((s, nv)), np.zeros(nq), np.zeros(nq), np.zeros(nv), rhs_work(sys))
    problem = ExplicitProblem(sys, is_rigid_body_system(sys), A, B, C, scratch)
    no_lam = np.zeros(0)
    samples = (sample_times, q_samples, v_samples, np.zeros((sample_times.shape[0], 0)))
    return run_fixed_steps(fixed_step, problem, (q, v), (q, v, no_lam), samples, t0, t_end, h, stop)


@allocating_entry_point
def integrate_explicit(sys, A, B, C, q, v, t0, t_end, h, sample_times, q_samples, v_samples, stop):
    """Fixed-step integration from t0 to t_end (``run_fixed_steps``), (q, v) in place, for any unconstrained
    system (``right_hand_side.multibody``).

    Records (q, v) at the first step boundary at or after each of ``sample_times``.
    Returns (status, steps, t_reached).
    """
    return _integrate(_multibody_fixed_step, sys, A, B, C, q, v, t0, t_end, h, sample_times, q_samples, v_samples,
                      stop)


@allocating_entry_point
def integrate_explicit_rigid_bodies(sys, A, B, C, q, v, t0, t_end, h, sample_times, q_samples, v_samples, stop):
    """``integrate_explicit`` for an ``is_rigid_body_system`` (``right_hand_side.rigid_bodies``), which it
    checks: the entry point compiles none of the general kernels."""
    if not is_rigid_body_system(sys):
        raise ValueError("integrate_explicit_rigid_bodies takes a system of rigid bodies under elementary loads")
    return _integrate(_rigid_bodies_fixed_step, sys, A, B, C, q, v, t0, t_end, h, sample_times, q_samples, v_samples,
                      stop)


def require_unconstrained(system) -> None:
    """Explicit RK/RKMK integrates ODEs: a model with constraints needs the index-1 entries instead."""
    if system.sizes[2] > 0:
        raise InputError("the model has constraints; explicit integrators need an unconstrained model "
                         "(or the index-1 formulation with projection)", field="integrator")


ENTRY_POINTS = {"multibody": integrate_explicit, "rigid-bodies": integrate_explicit_rigid_bodies}
"""The fixed-step entry point of each right-hand side (``right_hand_side_of``)."""


def right_hand_side_of(system) -> str:
    """"rigid-bodies" for an ``is_rigid_body_system``, else "multibody": the right-hand side, and so the
    fixed-step entry point, of a run on ``system``."""
    return "rigid-bodies" if is_rigid_body_system(system) else "multibody"


def run_explicit(system, tableau, q0, v0, h, t_end, sample_times) -> Integration:
    """The fixed-step run, timed by ``timed_run``."""
    integrate = ENTRY_POINTS[right_hand_side_of(system)]
    ns = sample_times.shape[0]
    q_samples, v_samples = sample_arrays(ns, q0.shape[0], v0.shape[0])

    def run(state, t_stop, warm_up, stop):
        times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
        return integrate(system, tableau.A, tableau.B, tableau.C, *state, 0.0, t_stop, h, times, qs, vs, stop)

    (q, v), (code, steps, t_reached), cpu = timed_run(lambda: (q0.copy(), v0.copy()), run, t_end)
    return Integration(int(code), int(steps), float(t_reached), cpu, q, v, np.zeros(0), q_samples,
                       v_samples, np.zeros((ns, 0)))
