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
from lgbench.integrators.interface import Integration, sampling, timed_run
from lgbench.mbs.codes import DIVERGED, OK, UNRESOLVED_ROTATION
from lgbench.mbs.coordinate_update import (
    kinematic_rates, largest_rotation_increment, rigid_base_rotations, rigid_stage_coordinates, update_coordinates,
)
from lgbench.mbs.dense import all_finite, copy_vector
from lgbench.mbs.dynamics import is_rigid_body_system, rhs_work, rigid_body_stage, state_accelerations
from lgbench.mbs.system import SystemArrays


@njit(inline="always")
def rk_stages(sys, rigid, A, C, q, v, t, h, Ks, ks, dq, qs, vs, work):
    """Stage slopes of one step (paper 000 Alg. 2/3): Ks[i] = coordinate rates, ks[i] = accelerations.

    dq, qs, vs and ``work`` (an ``RhsWork``) are preallocated scratch arrays: a stage allocates nothing.
    ``rigid`` (``is_rigid_body_system``) selects ``rigid_body_stage``, which takes the arrays one by one;
    otherwise the stage calls the general kernels with the ``SystemArrays`` tuple."""
    s = C.shape[0]
    nq = q.shape[0]
    nv = v.shape[0]
    body_int, body_real, force_int, force_real = sys.body_int, sys.body_real, sys.force_int, sys.force_real
    force, torque, rate_map, mass, piv, rhs = work.force, work.torque, work.rate_map, work.mass, work.piv, work.rhs
    rate, acc, base, rotation = work.rate, work.acc, work.base, work.rotation
    if rigid:
        rigid_base_rotations(body_int, q, base)
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
        if rigid:
            status = rigid_body_stage(body_int, body_real, force_int, force_real, base, q, dq, vs, qs, rate, rotation,
                                      force, torque, rate_map, mass, piv, rhs, acc)
        else:
            update_coordinates(sys, q, dq, qs)
            status = kinematic_rates(sys, qs, dq, vs, rate)
            if status == OK:
                status = state_accelerations(sys, qs, vs, t + C[i] * h, work, acc)
        if status != OK:
            return status
        for k in range(nq):
            Ks[i, k] = rate[k]
        for k in range(nv):
            ks[i, k] = acc[k]
    return OK


@njit(inline="always")
def combine_stages(sys, rigid, weights, q, v, h, Ks, ks, dq, q_out, v_out, work):
    """q_out = UAC(q, h sum_j w_j K_j), v_out = v + h sum_j w_j k_j (weights B, or embedded E); a rigid-body
    system composes from the Euler parameters of q left in ``work.base`` by ``rk_stages``."""
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
    if rigid:
        rigid_stage_coordinates(sys.body_int, work.base, q, dq, q_out, work.rotation)
    else:
        update_coordinates(sys, q, dq, q_out)


@njit(inline="always")
def explicit_rk_step(sys, rigid, A, B, C, q, v, t, h, Ks, ks, dq, qs, vs, work):
    """Advance (q, v) in place by one step of size h; returns a status code.

    A step whose rotation-vector increment exceeds pi is reported as UNRESOLVED_ROTATION: beyond pi
    the exponential map is not injective, so the step cannot represent the body's rotation; an
    unstable step size reaches it long before the state overflows."""
    status = rk_stages(sys, rigid, A, C, q, v, t, h, Ks, ks, dq, qs, vs, work)
    if status != OK:
        return status
    combine_stages(sys, rigid, B, q, v, h, Ks, ks, dq, qs, vs, work)
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
def explicit_fixed_step(problem, state, t, h, h_nominal):
    """``explicit_rk_step`` on the state (q, v)."""
    q, v = state
    Ks, ks, dq, qs, vs, work = problem.scratch
    return explicit_rk_step(problem.sys, problem.rigid, problem.A, problem.B, problem.C, q, v, t, h, Ks, ks, dq, qs,
                            vs, work)


@allocating_entry_point
def integrate_explicit(sys, A, B, C, q, v, t0, t_end, h, sample_times, q_samples, v_samples, stop):
    """Fixed-step integration from t0 to t_end (``run_fixed_steps``), (q, v) in place.

    Records (q, v) at the first step boundary at or after each of ``sample_times``.
    Returns (status, steps, t_reached).
    """
    s = B.shape[0]
    nq = q.shape[0]
    nv = v.shape[0]
    scratch = (np.zeros((s, nq)), np.zeros((s, nv)), np.zeros(nq), np.zeros(nq), np.zeros(nv), rhs_work(sys))
    problem = ExplicitProblem(sys, is_rigid_body_system(sys), A, B, C, scratch)
    no_lam = np.zeros(0)
    samples = (sample_times, q_samples, v_samples, np.zeros((sample_times.shape[0], 0)))
    return run_fixed_steps(explicit_fixed_step, problem, (q, v), (q, v, no_lam), samples, t0, t_end, h, stop)


def require_unconstrained(system) -> None:
    """Explicit RK/RKMK integrates ODEs: a model with constraints needs the index-1 entries instead."""
    if system.sizes[2] > 0:
        raise InputError("the model has constraints; explicit integrators need an unconstrained model "
                         "(or the index-1 formulation with projection)", field="integrator")


def run_explicit(system, tableau, q0, v0, h, t_end, sample_times) -> Integration:
    """The fixed-step run, timed by ``timed_run``."""
    ns = sample_times.shape[0]
    q_samples = np.zeros((ns, q0.shape[0]))
    v_samples = np.zeros((ns, v0.shape[0]))

    def run(state, t_stop, warm_up, stop):
        times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
        return integrate_explicit(system, tableau.A, tableau.B, tableau.C, *state, 0.0, t_stop, h, times, qs, vs,
                                  stop)

    (q, v), (code, steps, t_reached), cpu = timed_run(lambda: (q0.copy(), v0.copy()), run, t_end)
    return Integration(int(code), int(steps), float(t_reached), cpu, q, v, np.zeros(0), q_samples,
                       v_samples, np.zeros((ns, 0)))
