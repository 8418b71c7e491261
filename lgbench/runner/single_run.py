"""One run: model x formulation x integrator x step size -> RunResult.

This is the only place where a model (layer 3) meets an integrator (layer 4). Everything above
(studies, grids, stores, plots, CLI) talks to the engine through ``RunSpec`` and ``run_single``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import time
from typing import Any

import numpy as np


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines one run's numbers (hashable for reference caching)."""

    model: str                                   # registry name, e.g. "heavy_top"
    formulation: str                             # "RV", "Rxyz", "EP", "F1" ...
    integrator: str                              # "RK44", "DOPRI5", "ODE23", "RK67", ...
    h: float                                     # fixed step size
    t_end: float
    params: tuple[tuple[str, Any], ...] = ()     # model parameter overrides, sorted (key, value)
    options: tuple[tuple[str, Any], ...] = ()    # integrator options, sorted (key, value)

    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def options_dict(self) -> dict[str, Any]:
        return dict(self.options)


@dataclass
class RunResult:
    """Outcome of one run. ``status`` is "ok", "diverged", "singular" or "failed"."""

    status: str
    message: str
    steps: int
    cpu_s: float
    t_final: float
    final_outputs: dict[str, float]              # named model outputs at t_final
    series: dict[str, np.ndarray] | None = None  # "t" and every named output, if requested
    statistics: dict[str, float] = field(default_factory=dict)



STATUS_NAMES = {0: "ok", 1: "diverged", 2: "singular", 3: "failed", 4: "failed"}
STATUS_MESSAGES = {
    1: "non-finite state (NaN/Inf): the integration diverged",
    2: "rotation parameterisation singular (Tait-Bryan pitch at +-pi/2: G(theta) not invertible)",
    3: "Newton iteration did not converge within the iteration limit",
    4: "singular iteration matrix",
}


def _build(spec: RunSpec):
    from lgbench.exceptions import InputError
    from lgbench.integrators import INTEGRATORS
    from lgbench.mbs.formulations import EXPLICIT_FORMULATIONS, IMPLICIT_FORMULATIONS
    from lgbench.models import MODELS

    if spec.model not in MODELS:
        raise InputError(f"unknown model '{spec.model}'", field="model", allowed=sorted(MODELS))
    if spec.integrator not in INTEGRATORS:
        raise InputError(f"unknown integrator '{spec.integrator}'", field="integrator",
                         allowed=sorted(INTEGRATORS))
    if not (np.isfinite(spec.h) and spec.h > 0):
        raise InputError(f"step size must be positive, got {spec.h}", field="h")
    if not (np.isfinite(spec.t_end) and spec.t_end > 0):
        raise InputError(f"t_end must be positive, got {spec.t_end}", field="t_end")
    integrator = INTEGRATORS[spec.integrator]
    allowed = EXPLICIT_FORMULATIONS if integrator.kind == "explicit" else IMPLICIT_FORMULATIONS
    if spec.formulation not in allowed:
        raise InputError(f"formulation '{spec.formulation}' cannot be used with the {integrator.kind} "
                         f"integrator '{spec.integrator}'", field="formulation", allowed=list(allowed))
    model = MODELS[spec.model].build(spec.formulation, spec.params_dict())
    if integrator.kind == "explicit":
        if spec.options:
            raise InputError(f"integrator '{spec.integrator}' takes no options", field="options")
        if model.system.sizes[2] > 0:
            raise InputError(f"model '{spec.model}' has constraints; explicit integrators need an "
                             "unconstrained model", field="integrator")
    return model, integrator


def _sample_times(spec: RunSpec, n_samples: int | None) -> np.ndarray:
    if n_samples and n_samples > 1:
        return np.linspace(0.0, spec.t_end, n_samples)
    return np.array([spec.t_end])


def _run_explicit(spec, model, tableau, sample_times):
    from lgbench.integrators.explicit import integrate_explicit

    sys = model.system
    ns = sample_times.shape[0]
    q_samples = np.zeros((ns, model.q0.shape[0]))
    v_samples = np.zeros((ns, model.v0.shape[0]))
    # warm-up: compile (or load from cache) outside the timed region
    integrate_explicit(sys, tableau.A, tableau.B, tableau.C, model.q0.copy(), model.v0.copy(), 0.0,
                       spec.h, spec.h, np.zeros(0), q_samples[:0], v_samples[:0])
    q = model.q0.copy()
    v = model.v0.copy()
    start = time.process_time()
    code, steps, t_reached = integrate_explicit(sys, tableau.A, tableau.B, tableau.C, q, v, 0.0,
                                                spec.t_end, spec.h, sample_times, q_samples, v_samples)
    cpu = time.process_time() - start
    lam_samples = np.zeros((ns, 0))
    return code, steps, t_reached, cpu, q, v, np.zeros(0), q_samples, v_samples, lam_samples, {}


def _run_implicit(spec, model, integrator, sample_times):
    from lgbench.integrators import generalized_alpha as ga
    from lgbench.integrators.implicit import option_vector

    sys = model.system
    nq, nv, nc = (int(x) for x in sys.sizes)
    opts, merged = option_vector(integrator, spec.options_dict())
    method = integrator.method(merged).as_array()
    ns = sample_times.shape[0]
    q_samples = np.zeros((ns, nq))
    v_samples = np.zeros((ns, nv))
    lam_samples = np.zeros((ns, nc))

    def fresh_state():
        q = model.q0.copy()
        v = model.v0.copy()
        vd = np.zeros(nv)
        lam = np.zeros(nc)
        ok = ga.consistent_accelerations(sys, q, v, 0.0, vd, lam)
        return q, v, vd, vd.copy(), lam, ok

    # warm-up: compile (or load from cache) outside the timed region
    q, v, vd, a_alg, lam, _ = fresh_state()
    ga.integrate_implicit(sys, method, opts, q, v, vd, a_alg, lam, 0.0, spec.h, spec.h, np.zeros(0),
                          q_samples[:0], v_samples[:0], lam_samples[:0],
                          ga.make_workspace(nq, nv, nc, sys.body_int.shape[0]), np.zeros(ga.N_STATISTICS))
    workspace = ga.make_workspace(nq, nv, nc, sys.body_int.shape[0])
    stats = np.zeros(ga.N_STATISTICS)
    start = time.process_time()
    q, v, vd, a_alg, lam, ok = fresh_state()
    if not ok:
        return 4, 0, 0.0, time.process_time() - start, q, v, lam, q_samples, v_samples, lam_samples, {}
    code, steps, t_reached = ga.integrate_implicit(sys, method, opts, q, v, vd, a_alg, lam, 0.0,
                                                   spec.t_end, spec.h, sample_times, q_samples,
                                                   v_samples, lam_samples, workspace, stats)
    cpu = time.process_time() - start
    done = max(int(stats[ga.ST_STEPS]), 1)
    statistics = {
        "newton_iterations": int(stats[ga.ST_NEWTON]),
        "newton_per_step": stats[ga.ST_NEWTON] / done if steps else float("nan"),
        "jacobians": int(stats[ga.ST_JACOBIANS]),
        "factorizations": int(stats[ga.ST_FACTORIZATIONS]),
        "max_newton_in_step": int(stats[ga.ST_MAX_ITERATIONS]),
        "full_newton_fallbacks": int(stats[ga.ST_FULL_NEWTON_FALLBACKS]),
        "max_constraint_residual": stats[ga.ST_MAX_PHI],
        "max_velocity_constraint_residual": stats[ga.ST_MAX_BV],
        "failed_steps": 0 if code == 0 else 1,
        "newton_rtol": merged["newton_rtol"],
        "newton_atol": merged["newton_atol"],
    }
    return code, steps, t_reached, cpu, q, v, lam, q_samples, v_samples, lam_samples, statistics


def _failure_message(code: int, t: float, steps: int, system, q: np.ndarray) -> str:
    """What failed, when, and whether a Tait-Bryan body was near gimbal lock at the last good state."""
    from lgbench.mbs.system import tait_bryan_pitch_cosines

    message = f"{STATUS_MESSAGES[code]} at t = {t:.6g} s (step {steps + 1})"
    cosines = tait_bryan_pitch_cosines(system, q)
    if cosines and all(np.isfinite(cosines)):
        closest = min(cosines)
        near = "; near the gimbal-lock singularity" if closest < 0.5 else ""
        message += f"; Tait-Bryan |cos(pitch)| = {closest:.2e} at the last accepted step (0 = gimbal lock){near}"
    return message


def run_single(spec: RunSpec, n_samples: int | None = None) -> RunResult:
    """Integrate one configuration; numerical failure is a status, bad input an InputError.

    The CPU time (``time.process_time``) covers the compiled integration loop only (for implicit
    methods also the consistent initial accelerations); compilation is triggered (and cached) by a
    one-step warm-up run before the timed region.
    """
    model, integrator = _build(spec)
    sys = model.system
    sample_times = _sample_times(spec, n_samples)
    runner = _run_explicit if integrator.kind == "explicit" else _run_implicit
    (code, steps, t_reached, cpu, q, v, lam, q_samples, v_samples, lam_samples,
     statistics) = runner(spec, model, integrator, sample_times)

    status = STATUS_NAMES[code]
    message = "" if code == 0 else _failure_message(code, t_reached, steps, sys, q)
    final = {}
    if code == 0:
        values = model.outputs(sys, q, v, lam, t_reached)
        final = {name: float(x) for name, x in zip(model.output_names, values)}
    series = None
    if n_samples:
        reached = sample_times <= t_reached + 1e-6 * spec.h
        rows = [model.outputs(sys, q_samples[k], v_samples[k], lam_samples[k], sample_times[k])
                for k in range(sample_times.shape[0]) if reached[k]]
        data = np.array(rows).reshape(-1, len(model.output_names))
        series = {"t": sample_times[reached]}
        series.update({name: data[:, j] for j, name in enumerate(model.output_names)})
    statistics["us_per_step"] = 1e6 * cpu / steps if steps else float("nan")
    return RunResult(status=status, message=message, steps=int(steps), cpu_s=cpu,
                     t_final=float(t_reached), final_outputs=final, series=series,
                     statistics=statistics)
