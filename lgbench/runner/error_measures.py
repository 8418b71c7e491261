"""Error measures: how far a run is from the reference in a group of outputs.

A measure is a small function ``(run, reference, outputs) -> float`` registered by name in
``MEASURES``; study files refer to it by that name. Adding a measure (maximum over time, relative,
integrated) means writing one such function with the ``@measure`` decorator.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lgbench.runner.single_run import RunResult

MeasureFunction = Callable[[RunResult, RunResult, list[str]], float]


@dataclass(frozen=True)
class Measure:
    name: str
    description: str
    function: MeasureFunction
    needs_series: bool = False   # True if the measure reads RunResult.series, not final values


MEASURES: dict[str, Measure] = {}


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
def norm_at_t_end(run: RunResult, reference: RunResult, outputs: list[str]) -> float:
    difference = [run.final_outputs[name] - reference.final_outputs[name] for name in outputs]
    return float(np.linalg.norm(difference))
