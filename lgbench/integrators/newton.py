"""Newton's method of the implicit integrators: options, convergence test and the modified-Newton policy.

One policy serves generalized-alpha (paper 000 Sect. 3.3-3.4, paper 002 eq. 37/56) and HHT (paper 004):

- convergence: ||[r; Phi]||_2 <= rtol * ||[r; Phi]||_2 of the predictor, or <= atol, after at least one
  iteration (the rule of paper 000's code); a predictor residual below atol counts as 2 atol;
- full Newton: a new iteration matrix every iteration; a non-finite residual ends the step as diverged;
- modified Newton (paper 000 Sect. 3.4, as in its code): the iteration matrix is kept across
  iterations and steps and refreshed after ``max_modified_iterations`` iterations, or when the
  residual contracts by less than ``contractivity`` per iteration (checked from iteration
  ``CONTRACTION_CHECK_FROM`` on); a residual that grows by more than ``RESTART_GROWTH`` (or is not
  finite) restarts the step from the predictor with a fresh matrix; a second failure after a restart,
  or more than ``max_modified_iterations + FULL_NEWTON_AFTER`` iterations, continues the step with
  full Newton (counted as a fallback);
- attainable accuracy: near a singular configuration of a mechanism (e.g. the horizontal passes of the
  IFToMM double four-bar) the iteration matrix is nearly singular, the multipliers are ill-determined,
  and the round-off of the residual, amplified by the iteration matrix's conditioning, leaves a
  residual floor above rtol * ||[r; Phi]|| of the predictor (docs/notes/singular_configurations.md).
  A step whose residual makes no new minimum for ``STALL_ITERATIONS`` iterations, and whose equations,
  in the units of the coordinates (paper 002 eq. 57: the equations of motion times beta h^2), hold to
  ``ROUND_OFF_ULPS`` ulps of the largest coordinate, is accepted at its attainable accuracy and counted
  (ST_ROUND_OFF_STEPS). An iteration that still contracts makes new minima; one that grows or stalls
  above that level is not at the round-off level: neither is accepted.

``newton_solve`` is the one loop that applies these rules; a family supplies five small inlined
functions (start from the predictor, residual norm at the iterate, factorise the iteration matrix, apply
the correction, the iterate's residual at the round-off level) on a step context of its own.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

from numba import njit

from lgbench.mbs.codes import DIVERGED, NEWTON_FAILED, OK, SINGULAR_MATRIX

CONTRACTION_CHECK_FROM = 3
"""First iteration whose contraction rate is tested (the first two may contract slowly)."""
RESTART_GROWTH = 2.0
"""A residual that grows by more than this factor in one modified iteration restarts the step."""
FULL_NEWTON_AFTER = 7
"""Modified iterations beyond ``max_modified_iterations`` after which the step falls back to full Newton."""
STALL_ITERATIONS = 3
"""Iterations without a new smallest residual after which a step at the round-off level is accepted."""
ROUND_OFF_ULPS = 64.0
"""The round-off level: the scaled residual within this many ulps (machine epsilon times the largest
coordinate, at least 1) of the iterate's coordinates."""
EPSILON = 2.0 ** -52
"""Machine epsilon of float64."""

# statistics vector of the implicit steppers (float64), read by ``generalized_alpha.newton_statistics``
(ST_NEWTON, ST_JACOBIANS, ST_FACTORIZATIONS, ST_STEPS, ST_MAX_ITERATIONS, ST_MAX_PHI, ST_MAX_BV,
 ST_FULL_NEWTON_FALLBACKS, ST_MAX_ETA, ST_ROUND_OFF_STEPS) = range(10)
N_STATISTICS = 10


def newton_counts(stats, steps: int) -> dict[str, Any]:
    """Newton iterations (total and per accepted step), iteration matrices, factorisations and the most
    iterations in one step from a ``stats`` vector (ST_* layout), as they go to runs.csv."""
    done = max(int(stats[ST_STEPS]), 1)
    return {
        "newton_iterations": int(stats[ST_NEWTON]),
        "newton_per_step": stats[ST_NEWTON] / done if steps else float("nan"),
        "jacobians": int(stats[ST_JACOBIANS]),
        "factorizations": int(stats[ST_FACTORIZATIONS]),
        "max_newton_in_step": int(stats[ST_MAX_ITERATIONS]),
    }


class NewtonOptions(NamedTuple):
    """Newton settings as the compiled steppers read them (built by ``newton_options``)."""

    modified: bool            # modified Newton (else full)
    texp: bool                # T_exp in the iteration matrix (paper 000 eq. 40)
    full_tangent: bool        # K_t from the full residual (eq. 41) instead of the forces (eq. 42)
    analytic_tangent: bool    # K_t, C_t of the forces analytic (lgbench/mbs/force_tangent.py), else differences
    loads_jacobian: bool      # the applied loads' derivatives in K_t, C_t (force_tangent.LOADS)
    damper_position_jacobian: bool  # point dampers' force differentiated by the coordinates too (force_tangent)
    rtol: float
    atol: float
    max_iterations: int
    max_modified_iterations: int
    contractivity: float
    fd_relative_step: float   # forward differences: step = fd_relative_step * max(fd_step_floor, |x|)
    fd_step_floor: float
    scaling: bool             # equations of motion times beta h^2, lambda divided by it (paper 002 eq. 57)
    index: int                # 3: paper 002 eq. (37); 2: the stabilised index-2 form, eq. (56)


def newton_options(merged: dict[str, Any]) -> NewtonOptions:
    """The compiled-side settings from validated integrator options."""
    return NewtonOptions(
        modified=merged["newton"] == "modified", texp=bool(merged["texp"]), full_tangent=merged["tangent"] == "full",
        analytic_tangent=merged["jacobian"] == "analytic", loads_jacobian=bool(merged["loads_jacobian"]),
        damper_position_jacobian=bool(merged["damper_position_jacobian"]),
        rtol=float(merged["newton_rtol"]), atol=float(merged["newton_atol"]),
        max_iterations=int(merged["max_iterations"]), max_modified_iterations=int(merged["max_modified_iterations"]),
        contractivity=float(merged["contractivity"]), fd_relative_step=float(merged["fd_relative_step"]),
        fd_step_floor=float(merged["fd_step_floor"]), scaling=bool(merged["scaling"]),
        index=int(merged.get("index", 3)),
    )


@njit(inline="always")
def reference_residual(res, newton):
    """The predictor's residual as the reference of the relative test (2 atol if it is already below atol)."""
    return res if res > newton.atol else 2.0 * newton.atol


@njit(inline="always")
def has_converged(res, res0, newton):
    return res <= newton.rtol * res0 or res <= newton.atol


@njit(inline="always")
def at_round_off(scaled_residual, q):
    """True if ``scaled_residual``, the residual norm in the units of the coordinates q, is within
    ROUND_OFF_ULPS ulps of the largest coordinate: the equations hold as well as q can be represented."""
    largest = 1.0
    for k in range(q.shape[0]):
        largest = max(largest, abs(q[k]))
    return scaled_residual <= ROUND_OFF_ULPS * EPSILON * largest


@njit(inline="always")
def modified_newton_policy(k, res, last, restarted, newton):
    """(refresh, fall back to full Newton, restart from the predictor) after modified iteration k with
    residual res (last: the previous one), by the rules of the module note."""
    diverged = not math.isfinite(res)
    contraction = res / last if not diverged else math.inf
    switch = k > newton.max_modified_iterations + FULL_NEWTON_AFTER
    refresh = k > newton.max_modified_iterations
    fall_back = False
    restart = False
    if diverged or switch or (k >= CONTRACTION_CHECK_FROM and contraction > newton.contractivity):
        refresh = True
        fall_back = restarted or switch
        restart = diverged or contraction > RESTART_GROWTH or fall_back
    return refresh, fall_back, restart


@njit(inline="always")
def newton_solve(start, residual, factor, correct, round_off, algebra, step, newton, jacobian_valid, stats):
    """Newton's method for one step by the rules of the module note; returns a status code.

    ``start(step)`` sets the iterate to the predictor, ``residual(step, algebra)`` evaluates the iterate
    and returns its residual norm, ``factor(step, algebra)`` assembles and factorises the iteration matrix
    at the iterate just evaluated (False if singular), ``correct(step, algebra)`` solves with the factors,
    updates the iterate and returns True if the correction itself meets the family's test (the intrinsic
    schemes of paper 003 test ||dV||; generalized-alpha and HHT return False and test the residual),
    ``round_off(step)`` tells whether the iterate just evaluated satisfies its equations at the round-off
    level (``at_round_off``; False where the family has no such test).
    ``algebra`` is the module of ``lgbench.integrators.linear_algebra`` (dense or banded) that the
    functions solve with, an argument of its own so that numba inlines its functions (see there); None for
    the intrinsic schemes, whose block-diagonal solves are their own.
    ``jacobian_valid[0]`` carries the modified-Newton matrix across steps. Counts iterations,
    matrices, fallbacks and steps accepted at the round-off level in ``stats`` (ST_* layout)."""
    modified = newton.modified
    full_now = not modified
    restarted = False
    converged = False
    max_it = newton.max_iterations
    res0 = 0.0
    last = 0.0
    best = math.inf         # smallest residual of an iterate after a correction
    since_best = 0          # iterations since then
    k = 0                   # iterations done
    from_predictor = True   # the iterate is the predictor (k = 0, or a restart)
    while True:
        if from_predictor:
            start(step)
        res = residual(step, algebra)
        if k == 0:
            if not math.isfinite(res):
                return DIVERGED
            res0 = reference_residual(res, newton)
            res = res0
        elif not from_predictor:
            if not math.isfinite(res) and full_now:
                stats[ST_NEWTON] += k
                jacobian_valid[0] = False
                return DIVERGED
            if math.isfinite(res) and has_converged(res, res0, newton):
                converged = True
                break
            if res < best:
                best = res
                since_best = 0
            else:
                since_best += 1
                if since_best >= STALL_ITERATIONS and round_off(step):
                    stats[ST_ROUND_OFF_STEPS] += 1
                    converged = True
                    break
            if modified and not full_now:
                refresh, fall_back, restart = modified_newton_policy(k, res, last, restarted, newton)
                if refresh:
                    jacobian_valid[0] = False
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
        if full_now or not jacobian_valid[0]:
            stats[ST_JACOBIANS] += 1
            stats[ST_FACTORIZATIONS] += 1
            if not factor(step, algebra):
                jacobian_valid[0] = False
                stats[ST_NEWTON] += k
                return SINGULAR_MATRIX
            jacobian_valid[0] = True
        if correct(step, algebra):
            converged = True
            break
    stats[ST_NEWTON] += k
    stats[ST_MAX_ITERATIONS] = max(stats[ST_MAX_ITERATIONS], k)
    return OK if converged else NEWTON_FAILED
