"""What a benchmark model module provides: defaults, a builder, named outputs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from lgbench.exceptions import InputError
from lgbench.mbs.redundancy import Reduction
from lgbench.mbs.system import CONSTRAINT_FORMS, SystemArrays


@dataclass(frozen=True)
class BuiltModel:
    """A system ready to integrate: arrays, consistent initial state, output evaluator."""

    system: SystemArrays
    q0: np.ndarray
    v0: np.ndarray
    outputs: Callable       # compiled f(system, q, v, lam, t) -> 1-D array in the order of ``output_names``
    output_names: tuple[str, ...]
    reduction: Reduction | None = None
    """The redundant constraint rows removed from the written ones (lgbench/mbs/redundancy.py), if any."""
    redundant_rows: tuple[str, ...] = ()
    """Which joints' rows were removed, one entry per joint (``lgbench validate`` prints them)."""

    @property
    def all_rows(self) -> SystemArrays:
        """The system with every written constraint row: its residual is the run's constraint residual."""
        return self.system if self.reduction is None else self.reduction.all_rows


@dataclass(frozen=True)
class Model:
    name: str
    description: str
    defaults: dict[str, Any]
    formulations: list[str]
    outputs: list[str]
    output_groups: dict[str, list[str]]
    builder: Callable[[str, dict[str, Any]], BuiltModel]
    sources: str = ""
    exact: Callable[[dict[str, Any], np.ndarray], np.ndarray] | None = None   # (params, times) -> outputs
    continuous: tuple[str, ...] = ()
    """Angle outputs counted on over the samples of a run (``numpy.unwrap``, runner/single_run.py): their
    series, and their value at t_end when the samples reach it, include whole turns."""
    conservative: bool = False
    """True when every load is conservative (gravity, springs, ideal joints; no damping, drives, controllers
    or prescribed loads): the total energy, the sum of the outputs named ``energy`` or ``energy_*``, is then
    constant along the exact motion."""

    def parameters(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """The defaults with ``overrides`` applied; unknown keys are an InputError."""
        params = dict(self.defaults)
        for key, value in (overrides or {}).items():
            if key not in self.defaults:
                raise InputError(f"unknown parameter '{key}' of model '{self.name}'",
                                 field=f"params.{key}", allowed=sorted(self.defaults))
            params[key] = value
        return params

    def exact_outputs(self, overrides: dict[str, Any] | None, times: np.ndarray) -> np.ndarray:
        """The closed-form solution's outputs, shape (len(times), len(outputs)), if the model has one."""
        if self.exact is None:
            raise InputError(f"model '{self.name}' has no exact solution", field="reference.exact")
        return np.asarray(self.exact(self.parameters(overrides), np.asarray(times, dtype=float)))

    def build(self, formulation: str, overrides: dict[str, Any] | None = None) -> BuiltModel:
        if formulation not in self.formulations:
            raise InputError(f"model '{self.name}' has no formulation '{formulation}'",
                             field="formulation", allowed=self.formulations)
        return self.builder(formulation, self.parameters(overrides))


def constraint_form(params: dict) -> str:
    """The model parameter ``constraint_form``, one of ``CONSTRAINT_FORMS`` (``SystemBuilder``): the joints'
    point rows in global components or in body 1's frame (paper 002)."""
    form = params["constraint_form"]
    if form not in CONSTRAINT_FORMS:
        raise InputError(f"invalid value {form!r}", field="params.constraint_form", allowed=list(CONSTRAINT_FORMS))
    return form


def positive_scalar(params: dict, key: str) -> float:
    try:
        value = float(params[key])
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {params[key]!r}", field=f"params.{key}") from None
    if not np.isfinite(value) or value <= 0.0:
        raise InputError(f"must be positive, got {value}", field=f"params.{key}")
    return value


def vector3(params: dict, key: str) -> np.ndarray:
    try:
        value = np.asarray(params[key], dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"must be a list of 3 numbers, got {params[key]!r}", field=f"params.{key}") from None
    if value.shape != (3,) or not np.all(np.isfinite(value)):
        raise InputError(f"must be a list of 3 finite numbers, got {params[key]!r}", field=f"params.{key}")
    return value
