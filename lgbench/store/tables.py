"""The shape every table of a result folder must have, checked whenever one is read: UTF-8 text,
every row as long as the header, the columns a reader needs, numbers where numbers belong. A
damaged table is one line naming the file, the line and the problem, and how to repair it."""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from lgbench.exceptions import InputError

TEXT_COLUMNS = {"run_id", "model", "formulation", "integrator", "integrator_kind", "variant", "status", "message",
                "executor", "quantity", "measure", "parameterisation"}
"""Columns of text; every other column of every table holds numbers (or nothing)."""

REQUIRED = {"runs.csv": ["run_id", "formulation", "integrator", "h", "status"],
            "errors.csv": ["run_id", "quantity", "measure", "value"],
            "reference.csv": ["run_id", "status"]}
"""Columns each table must have, by file name (series tables need ``t``)."""

REPAIR = "repair: run the study again with --force (the damaged file is kept as a backup), or fix that line"


class DamagedTable(InputError):
    """A result table that is not what lgbench wrote."""


def damaged(path: Path, problem: str) -> DamagedTable:
    return DamagedTable(f"{problem}; {REPAIR}", file=str(path))


def checked_rows(path: Path, text: str | bytes) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the table in ``path`` (its complete lines ``text``), or DamagedTable."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            line = text[: error.start].count(b"\n") + 1
            raise damaged(path, f"line {line}: not UTF-8 text") from None
    if not text:
        return [], []
    try:
        lines = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise damaged(path, f"not a CSV table ({error})") from None
    header, rows = lines[0], lines[1:]
    required = ["t"] if path.parent.name == "series" else REQUIRED.get(path.name, [])
    missing = [column for column in required if column not in header]
    if missing:
        raise damaged(path, f"line 1: the header lacks the column(s) {', '.join(missing)}")
    if len(set(header)) != len(header):
        raise damaged(path, "line 1: the header names a column twice")
    numeric = [(index, name) for index, name in enumerate(header) if name not in TEXT_COLUMNS]
    for number, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise damaged(path, f"line {number} has {len(row)} cells, the header {len(header)}")
        for index, name in numeric:
            if row[index] and not _number(row[index]):
                raise damaged(path, f"line {number}, column '{name}': '{row[index][:30]}' is not a number")
    return header, rows


def _number(cell: str) -> bool:
    try:
        value = float(cell)
    except ValueError:
        return False
    return math.isfinite(value) or cell.strip().lower() in ("nan", "inf", "-inf")
