"""The paper's numbers for a study (``published:`` in a study file), shown next to lgbench's by
``lgbench report``.

Methods are named as in the tables (``formulation-integrator[.label]``); step sizes are keys
``{h: value}``, where ``failed`` stands for the paper's "–" cell. Error keys are an error quantity
of the study (``com``) or quantity and errors.csv measure (``lambda:max_relative_over_time@0.5-1``).
"""
from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

FAILED = "failed"
"""A published cell whose run failed ("–" in the paper's tables)."""


def _cell(value: float | str) -> float | str:
    """A number, or ``failed``; numbers written as YAML text (``1e-3``) are read as numbers."""
    if isinstance(value, float) or value == FAILED:
        return value
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"expected a number or '{FAILED}' (the paper's '–' cell), got '{value}'") from None


PublishedCell = Annotated[float | str, AfterValidator(_cell)]
StepValues = dict[float, PublishedCell]          # h -> value
MethodValues = dict[str, StepValues]             # method -> h -> value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PublishedFact(_Strict):
    """A published number that is no table cell, e.g. a period read off a figure."""

    name: Annotated[str, Field(min_length=1)]
    published: str | float
    note: str = ""


class Published(_Strict):
    """The paper's numbers for one study."""

    source: str = ""                               # e.g. "000 Table 4, Fig. 3"
    columns: dict[str, MethodValues] = {}          # runs.csv column -> method -> {h: value}
    errors: dict[str, MethodValues] = {}           # quantity[:measure] -> method -> {h: value}
    orders: dict[str, float | dict[str, float]] = {}   # method -> order, or {quantity[:measure]: order}
    values: list[PublishedFact] = []

    def methods(self) -> list[tuple[str, str]]:
        """(field, method) for every method named anywhere in the tables and orders."""
        named = [(f"columns.{column}", method) for column, table in self.columns.items() for method in table]
        named += [(f"errors.{key}", method) for key, table in self.errors.items() for method in table]
        return named + [("orders", method) for method in self.orders]

    def error_keys(self) -> list[tuple[str, str]]:
        """(field, quantity[:measure]) for every error key of ``errors`` and per-quantity ``orders``."""
        keys = [("errors", key) for key in self.errors]
        return keys + [(f"orders.{method}", key) for method, value in self.orders.items()
                       if isinstance(value, dict) for key in value]

    def steps(self) -> list[tuple[str, float]]:
        """(field, h) for every step size of the tables."""
        return [(f"{kind}.{key}.{method}", h) for kind, tables in (("columns", self.columns), ("errors", self.errors))
                for key, table in tables.items() for method, values in table.items() for h in values]

    def order(self, method: str, quantity: str, measure: str) -> float | None:
        """The published order of ``method`` for an error, the most specific entry first."""
        value = self.orders.get(method)
        if isinstance(value, dict):
            return value.get(f"{quantity}:{measure}", value.get(quantity))
        return value

    def error_values(self, quantity: str, measure: str) -> MethodValues:
        """Published errors of a quantity and measure, the most specific entry first."""
        return self.errors.get(f"{quantity}:{measure}", self.errors.get(quantity, {}))

    def narrowed(self, methods: list[str], steps: list[float], errors: list[tuple[str, str]]) -> Published:
        """The entries that concern these methods, step sizes and (quantity, measure) errors, for a
        profile that runs part of the study."""
        keys = {quantity for quantity, _ in errors} | {f"{quantity}:{measure}" for quantity, measure in errors}

        def table(values: MethodValues) -> MethodValues:
            kept = {method: {h: v for h, v in cells.items() if on_grid(h, steps)}
                    for method, cells in values.items() if method in methods}
            return {method: cells for method, cells in kept.items() if cells}

        columns = {column: table(values) for column, values in self.columns.items()}
        error_tables = {key: table(values) for key, values in self.errors.items() if key in keys}
        orders = {method: ({key: order for key, order in value.items() if key in keys}
                           if isinstance(value, dict) else value)
                  for method, value in self.orders.items() if method in methods}
        return self.model_copy(update={
            "columns": {key: values for key, values in columns.items() if values},
            "errors": {key: values for key, values in error_tables.items() if values},
            "orders": {method: value for method, value in orders.items() if value != {}}})


def on_grid(h: float, steps: list[float]) -> bool:
    """Whether ``h`` is one of ``steps`` (to rounding)."""
    return any(math.isclose(h, step, rel_tol=1e-9) for step in steps)


def published_cell(values: StepValues, h: float) -> PublishedCell | None:
    """The published value at step size ``h``, or None."""
    return next((value for step, value in values.items() if math.isclose(step, h, rel_tol=1e-9)), None)
