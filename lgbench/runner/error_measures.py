"""Error measures: how far a run is from the reference in a group of outputs.

A measure is a small function ``(run, reference, outputs, window) -> float`` registered by name in
``MEASURES``; study files refer to it by that name. ``window`` is ``None`` (the whole run) or a time
interval ``(t0, t1)`` for the measures over time. Adding a measure means writing one such function
with the ``@measure`` decorator, or, outside lgbench, registering it through the entry point group
``lgbench.error_measures`` (lgbench/plugins.py).

Measures over time compare the run's samples with the reference's samples at the same sample times
(``samples`` in the study file); both are taken at the first step boundary at or after each sample time.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lgbench.plugins import Registry
from lgbench.runner.single_run import RunResult

Window = tuple[float, float] | None
MeasureFunction = Callable[[RunResult, RunResult, list[str], Window], float]


@dataclass(frozen=True)
class Measure:
    name: str
    description: str
    function: MeasureFunction
    needs_series: bool = False   # True if the measure reads RunResult.series, not final values


MEASURES: dict[str, Measure] = Registry({}, ("lgbench.error_measures", lambda name, loaded: _plugin_measures(name, loaded)))
"""The measures by name; plugins' measures (entry point group ``lgbench.error_measures``) join when it is
first read, after the built-in ones below have registered."""


def measure(name: str, description: str, needs_series: bool = False):
    """Register the decorated function as the error measure ``name``."""
    def register(function: MeasureFunction) -> MeasureFunction:
        MEASURES[name] = Measure(name, description, function, needs_series)
        return function
    return register


def quantity_outputs(quantity: str, outputs: list[str], groups: dict[str, list[str]]) -> list[str]:
    """The output names a quantity stands for: a group's members or the single output itself."""
    return list(groups[quantity]) if quantity in groups else [quantity] if quantity in outputs else []


@measure("norm_at_t_end", "Euclidean norm of run minus reference over the quantity's outputs at t_end")
def norm_at_t_end(run: RunResult, reference: RunResult, outputs: list[str], window: Window = None) -> float:
    difference = [run.final_outputs[name] - reference.final_outputs[name] for name in outputs]
    return float(np.linalg.norm(difference))


@measure("relative_norm_at_t_end",
         "||run - reference|| / ||reference|| at t_end (e_D of paper 003 Sect. 5)")
def relative_norm_at_t_end(run: RunResult, reference: RunResult, outputs: list[str],
                           window: Window = None) -> float:
    exact = np.array([reference.final_outputs[name] for name in outputs])
    scale = np.linalg.norm(exact)
    absolute = norm_at_t_end(run, reference, outputs)
    return float(absolute / scale) if scale > 0.0 else float("nan")


def aligned_series(run: RunResult, reference: RunResult, outputs: list[str],
                   window: Window) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, run values, reference values) at the sample times both have, restricted to ``window``.

    A run that stopped early has fewer samples: its measure is over the samples it reached."""
    if run.series is None or reference.series is None:
        raise ValueError("this error measure needs time series: set 'samples' in the study file")
    n = min(run.series["t"].shape[0], reference.series["t"].shape[0])
    t = reference.series["t"][:n]
    if not np.allclose(run.series["t"][:n], t, rtol=0.0, atol=1e-9 * max(1.0, abs(t[-1]) if n else 1.0)):
        raise ValueError("run and reference were sampled at different times")
    keep = np.ones(n, dtype=bool)
    if window is not None:
        span = max(abs(window[1] - window[0]), 1.0)
        keep = (t >= window[0] - 1e-9 * span) & (t <= window[1] + 1e-9 * span)
    values = np.column_stack([run.series[name][:n] for name in outputs])[keep]
    exact = np.column_stack([reference.series[name][:n] for name in outputs])[keep]
    return t[keep], values, exact


@measure("max_over_time", "maximum over the sample times of ||run - reference||", needs_series=True)
def max_over_time(run: RunResult, reference: RunResult, outputs: list[str], window: Window = None) -> float:
    _, values, exact = aligned_series(run, reference, outputs, window)
    return float(np.max(np.linalg.norm(values - exact, axis=1))) if values.size else float("nan")


@measure("max_relative_over_time",
         "maximum over the sample times of ||run - reference|| / ||reference|| (paper 002 Figs. 6, 11)",
         needs_series=True)
def max_relative_over_time(run: RunResult, reference: RunResult, outputs: list[str],
                           window: Window = None) -> float:
    _, values, exact = aligned_series(run, reference, outputs, window)
    if not values.size:
        return float("nan")
    nominal = np.linalg.norm(exact, axis=1)
    floor = 1e-12 * float(np.max(nominal)) if np.max(nominal) > 0.0 else 1.0
    return float(np.max(np.linalg.norm(values - exact, axis=1) / np.maximum(nominal, floor)))


@measure("integrated_abs",
         "sum over the outputs of the time integral of |run - reference| (trapezoidal rule over the "
         "samples; e_omega of paper 004 Sect. 10)", needs_series=True)
def integrated_abs(run: RunResult, reference: RunResult, outputs: list[str], window: Window = None) -> float:
    t, values, exact = aligned_series(run, reference, outputs, window)
    if t.shape[0] < 2:
        return float("nan")
    difference = np.abs(values - exact)
    return float(np.sum(0.5 * (difference[1:] + difference[:-1]) * np.diff(t)[:, None]))


def _plugin_measures(name: str, loaded) -> dict[str, Measure]:
    """An entry point names its measure; the function's first docstring line describes it."""
    if not callable(loaded):
        raise TypeError(f"an error measure is a function (run, reference, outputs, window) -> float, got "
                        f"{type(loaded).__name__}")
    description = ((loaded.__doc__ or "").strip().splitlines() or [f"error measure {name} (a plugin's)"])[0]
    return {name: Measure(name, description, loaded, bool(getattr(loaded, "needs_series", False)))}

