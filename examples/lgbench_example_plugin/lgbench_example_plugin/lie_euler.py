"""An integrator family of its own, compiled: the symplectic Euler method on the Lie group of RV nodes.

    v_{n+1} = v_n + h M^{-1} g(q_n, v_n, t_n),    q_{n+1} = UAC(q_n, h v_{n+1})

(UAC: paper 000 Alg. 1, x + h u and R exp(h omega~) for an RV node), first order. It is built the way
lgbench's own families are (docs/architecture.md, "an integrator family"): a step function inlined into
lgbench's one fixed-step loop (``run_fixed_steps``) inside a cached entry point of this package, lgbench's
kernels for the accelerations and the update, and ``timed_run`` for the CPU time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from lgbench.exceptions import InputError
from lgbench.integrators.fixed_step import run_fixed_steps
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.mbs.codes import DIVERGED, OK
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.dense import all_finite, copy_vector
from lgbench.mbs.dynamics import RhsWork, rhs_work, state_accelerations
from lgbench.mbs.system import SystemArrays


class LieEulerProblem(NamedTuple):
    """What a step reads: the system and its scratch arrays."""

    sys: SystemArrays
    a: np.ndarray          # v' at (q_n, v_n)
    dq: np.ndarray         # h v_{n+1}, the increment of UAC
    q_next: np.ndarray
    work: RhsWork


@njit(inline="always")
def lie_euler_step(problem, state, t, h, h_nominal):
    """One step of the symplectic Lie-Euler method on the state (q, v), in place."""
    q, v = state
    status = state_accelerations(problem.sys, q, v, t, problem.work, problem.a)
    if status != OK:
        return status
    for k in range(v.shape[0]):
        v[k] += h * problem.a[k]
        problem.dq[k] = h * v[k]
    update_coordinates(problem.sys, q, problem.dq, problem.q_next)
    copy_vector(q, problem.q_next)
    return OK if all_finite(q) and all_finite(v) else DIVERGED


@njit(cache=True, nogil=True)
def integrate_lie_euler(sys, q, v, t0, t_end, h, sample_times, q_samples, v_samples, stop):
    """Fixed steps from t0 to t_end, (q, v) in place; returns (status, steps, t_reached)."""
    problem = LieEulerProblem(sys, np.zeros(v.shape[0]), np.zeros(v.shape[0]), np.zeros(q.shape[0]), rhs_work(sys))
    samples = (sample_times, q_samples, v_samples, np.zeros((sample_times.shape[0], 0)))
    return run_fixed_steps(lie_euler_step, problem, (q, v), (q, v, np.zeros(0)), samples, t0, t_end, h, stop)


@dataclass(frozen=True)
class LieEuler:
    """The registry entry: lgbench's integrator interface (``lgbench.integrators.interface.Integrator``)."""

    name: str = "lie-euler"
    description: str = "symplectic Euler on the Lie group of RV nodes, first order (example plugin)"
    kind: str = "explicit"
    order: int = 1
    formulations: tuple[str, ...] = ("RV",)
    constraints: bool = False           # unconstrained models only: lgbench validate refuses it on joints

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]:
        if options:
            raise InputError(f"unknown option '{next(iter(options))}' of integrator '{self.name}'",
                             field=f"options.{next(iter(options))}", allowed=[])
        return {}

    def integrate(self, system, q0, v0, options, h, t_end, sample_times) -> Integration:
        if system.sizes[2] > 0:
            raise InputError("lie-euler integrates unconstrained models only", field="integrator")
        q_samples, v_samples = sample_arrays(sample_times.shape[0], q0.shape[0], v0.shape[0])

        def run(state, t_stop, warm_up, stop):
            times, qs, vs = sampling(warm_up, sample_times, q_samples, v_samples)
            return integrate_lie_euler(system, *state, 0.0, t_stop, h, times, qs, vs, stop)

        (q, v), (code, steps, t_reached), cpu = timed_run(lambda: (q0.copy(), v0.copy()), run, t_end)
        return Integration(int(code), int(steps), float(t_reached), cpu, q, v, np.zeros(0), q_samples, v_samples,
                           np.zeros((sample_times.shape[0], 0)))


LIE_EULER = LieEuler()
