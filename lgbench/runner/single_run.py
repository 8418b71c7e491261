"""One run: model x formulation x integrator x step size -> RunResult.

This is the only place where a model (layer 3) meets an integrator (layer 4). Everything above
(studies, grids, stores, plots, CLI) talks to the engine through ``RunSpec`` and ``run_single``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
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


STATUS_NAMES = {0: "ok", 1: "diverged", 2: "singular"}
STATUS_MESSAGES = {
    1: "non-finite state (NaN/Inf): the integration diverged",
    2: "rotation parameterisation singular (Tait-Bryan pitch at +-pi/2: G(theta) not invertible)",
}


def _build(spec: RunSpec):
    from lgbench.exceptions import InputError
    from lgbench.integrators import INTEGRATORS
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
    return MODELS[spec.model].build(spec.formulation, spec.params_dict()), INTEGRATORS[spec.integrator]


def run_single(spec: RunSpec, n_samples: int | None = None) -> RunResult:
    """Integrate one configuration; numerical failure is a status, bad input an InputError.

    The CPU time (``time.process_time``) covers the compiled integration loop only; compilation
    is triggered (and cached) by a one-step warm-up run before the timed region.
    """
    import time

    from lgbench.integrators.explicit import integrate_explicit

    model, tableau = _build(spec)
    sys = model.system
    sample_times = (np.linspace(0.0, spec.t_end, n_samples) if n_samples and n_samples > 1
                    else np.array([spec.t_end]))
    ns = sample_times.shape[0]
    q_samples = np.zeros((ns, model.q0.shape[0]))
    v_samples = np.zeros((ns, model.v0.shape[0]))

    # warm-up: compile (or load from cache) outside the timed region
    integrate_explicit(sys, tableau.A, tableau.B, tableau.C, model.q0.copy(), model.v0.copy(), 0.0,
                       spec.h, spec.h, np.zeros(0), q_samples[:0], v_samples[:0])
    model.outputs(sys, model.q0, model.v0, 0.0)

    q = model.q0.copy()
    v = model.v0.copy()
    start = time.process_time()
    code, steps, t_reached = integrate_explicit(sys, tableau.A, tableau.B, tableau.C, q, v, 0.0,
                                                spec.t_end, spec.h, sample_times, q_samples, v_samples)
    cpu = time.process_time() - start

    status = STATUS_NAMES[code]
    message = "" if code == 0 else f"{STATUS_MESSAGES[code]} at t = {t_reached:.6g} s (step {steps + 1})"
    final = {}
    if code == 0:
        values = model.outputs(sys, q, v, t_reached)
        final = {name: float(x) for name, x in zip(model.output_names, values)}
    series = None
    if n_samples:
        reached = sample_times <= t_reached + 1e-12 * spec.h
        rows = [model.outputs(sys, q_samples[k], v_samples[k], sample_times[k])
                for k in range(ns) if reached[k]]
        data = np.array(rows).reshape(-1, len(model.output_names))
        series = {"t": sample_times[reached]}
        series.update({name: data[:, j] for j, name in enumerate(model.output_names)})
    return RunResult(status=status, message=message, steps=int(steps), cpu_s=cpu,
                     t_final=float(t_reached), final_outputs=final, series=series,
                     statistics={"us_per_step": 1e6 * cpu / steps if steps else float("nan")})
