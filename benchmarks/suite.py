"""The per-step benchmark suite: model x formulation x integrator family, CPU microseconds per step.

Every case runs through the engine (``run_single``), which compiles or loads the kernels with a
warm-up that takes no step and then times only the integration loop (the CPU time of ``timed_run``'s worker thread). A case is
measured as follows:

1. first call: a 3-step run in a fresh process state for this case (import, JIT compilation or
   numba cache load, model build); its wall time is reported as ``first_call_s`` and enters
   nothing else;
2. calibration: a short warm run gives the cost per step, from which the step count is chosen so
   that one timed run takes about ``target_s`` of CPU (between ``MIN_STEPS`` and the case's limit);
3. ``repeats`` timed runs of that length; the minimum of CPU time / steps is the result (noise on a
   CPU-bound loop only adds time), the median is reported beside it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

MIN_STEPS = 20


@dataclass(frozen=True)
class Case:
    """One benchmark row: what runs, at which step size, for how many steps at most."""

    group: str                     # table section
    model: str
    formulation: str
    integrator: str
    h: float
    label: str = ""                # variant shown in the table (e.g. "full Newton")
    options: tuple[tuple[str, Any], ...] = ()
    max_steps: int = 200_000       # cap of the calibrated step count (t_end = max_steps h stays where every
                                   # formulation runs: Rxyz reaches gimbal lock on the constrained top at 1.1 s)

    @property
    def name(self) -> str:
        variant = f" ({self.label})" if self.label else ""
        return f"{self.model} {self.formulation} {self.integrator}{variant}"


def _ga(group, model, formulation, h, newton, max_steps, **extra):
    options = tuple(sorted({"newton": newton, **extra}.items()))
    return Case(group, model, formulation, "generalized-alpha", h, f"{newton} Newton", options, max_steps)


def cases() -> list[Case]:
    """Every case of the issue's list: heavy top explicit and implicit, constrained heavy top,
    slider-crank (implicit, and explicit with projection), Puma 560 (absolute and minimal coordinates),
    V8 crank drive; SE3 nodes beside RV on the rotor, the chain of bodies and the mechanisms above."""
    out = []
    for integrator in ("RK44", "DOPRI5", "RK67"):
        for formulation in ("RV", "Rxyz", "F1", "EP-F1"):
            out.append(Case("heavy top, explicit", "heavy_top", formulation, integrator, 1e-5))
    for formulation in ("RV", "EP", "Rxyz"):
        for newton in ("full", "modified"):
            out.append(_ga("heavy top, generalized-alpha", "heavy_top", formulation, 2.5e-5, newton, 40_000))
    for formulation in ("RV", "EP", "Rxyz", "SE3"):
        for newton in ("full", "modified"):
            out.append(_ga("constrained heavy top, generalized-alpha", "heavy_top_constrained", formulation, 1e-4,
                           newton, 10_000))
    for formulation in ("RV", "EP", "Rxyz", "SE3"):
        out.append(_ga("slider-crank, generalized-alpha", "slider_crank", formulation, 1e-3, "full", 5_000))
    for formulation in ("RV", "EP", "SE3"):
        out.append(Case("slider-crank, RKMK with projection", "slider_crank", formulation, "RK44-index1", 1e-3,
                        max_steps=5_000))
    for formulation in ("RV", "SE3"):
        out.append(Case("rotor, explicit", "rotor", formulation, "RK44", 2e-5, max_steps=100_000))
        out.append(_ga("chain of bodies, generalized-alpha", "chain_of_bodies", formulation, 1e-3, "full", 5_000))
    out.append(Case("Puma 560", "puma560", "Min", "RK44", 1e-4, "minimal coordinates", max_steps=10_000))
    out.append(Case("Puma 560", "puma560", "RV", "RK44-index1", 1e-4, "RKMK with projection", max_steps=2_000))
    for formulation in ("Min", "RV", "EP", "Rxyz", "SE3"):
        out.append(_ga("Puma 560", "puma560", formulation, 1e-3, "full", 1_000))
    for scheme in ("energy-momentum", "energy-decaying", "generalized-alpha"):
        out.append(Case("manufactured body, intrinsic (paper 003)", "manufactured_body", "RV", f"intrinsic-{scheme}",
                        1e-3, max_steps=20_000))
    for variant in ("modified", "classical"):
        out.append(Case("V8 crank drive", "v8_crank", "EP", "hht", 1e-4, f"{variant} HHT, alpha = -0.3",
                        (("alpha", -0.3), ("newton_atol", 1e-8), ("newton_rtol", 1e-10), ("variant", variant)),
                        max_steps=200))
    for formulation in ("EP", "RV", "SE3"):
        out.append(_ga("V8 crank drive", "v8_crank", formulation, 1e-4, "full", 200, newton_atol=1e-8,
                       newton_rtol=1e-10))
    return out


def _run(case: Case, steps: int):
    from lgbench.runner.single_run import RunSpec, run_single

    return run_single(RunSpec(case.model, case.formulation, case.integrator, case.h, steps * case.h,
                              options=case.options))


def measure(case: Case, repeats: int, target_s: float) -> dict[str, Any]:
    """Time one case (see the module docstring); raises RuntimeError if a run does not finish."""
    wall = time.perf_counter()
    first = _run(case, 3)
    first_call = time.perf_counter() - wall
    if first.status != "ok":
        raise RuntimeError(f"{case.name}: {first.status}: {first.message}")
    probe = _run(case, MIN_STEPS)
    per_step = max(probe.cpu_s / max(probe.steps, 1), 1e-8)
    steps = int(min(case.max_steps, max(MIN_STEPS, target_s / per_step)))
    times, last = [], None
    for _ in range(repeats):
        last = _run(case, steps)
        if last.status != "ok" or last.steps != steps:
            raise RuntimeError(f"{case.name}: {last.status} after {last.steps} of {steps} steps: {last.message}")
        times.append(last.cpu_s)
    times = np.array(times)
    stats = last.statistics
    return {
        "group": case.group, "model": case.model, "formulation": case.formulation, "integrator": case.integrator,
        "variant": case.label, "options": ";".join(f"{k}={v}" for k, v in case.options), "h": case.h,
        "steps": steps, "t_end": steps * case.h, "repeats": repeats,
        "us_per_step_min": 1e6 * times.min() / steps, "us_per_step_median": 1e6 * float(np.median(times)) / steps,
        "newton_per_step": stats.get("newton_per_step", ""), "first_call_s": first_call,
    }
