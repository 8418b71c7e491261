"""The shape every table of a result folder must have, checked whenever one is read: UTF-8 text,
every row as long as the header, the columns a reader needs, numbers where numbers belong. A
damaged table is one line naming the file, the line and the problem, and how to repair it;
``inspect_table`` finds every problem of a table at once, for ``lgbench repair``."""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

from lgbench.exceptions import InputError

TEXT_COLUMNS = {"run_id", "model", "formulation", "integrator", "integrator_kind", "variant", "status", "message",
                "executor", "quantity", "measure", "parameterisation"}
"""Columns of text; every other column of every table holds numbers (or nothing)."""

REQUIRED = {"runs.csv": ["run_id", "formulation", "integrator", "h", "status"],
            "errors.csv": ["run_id", "quantity", "measure", "value"],
            "reference.csv": ["run_id", "status"]}
"""Columns each table must have, by file name (series tables need ``t``)."""

KEYS = {"runs.csv": ["run_id", "status"], "errors.csv": ["run_id", "quantity", "measure"],
        "reference.csv": ["run_id", "status"]}
"""Columns that name what a row is, by file name: never empty."""


def result_directory(path: Path) -> Path:
    """The result folder a table belongs to (series tables sit in its ``series/``)."""
    return path.parent.parent if path.parent.name == "series" else path.parent


def repair_advice(path: Path) -> str:
    return (f"repair: lgbench repair {result_directory(path)} (drops the damaged rows, keeps a backup; the next "
            "run computes them again), or run the study again with --force")


class DamagedTable(InputError):
    """A result table that is not what lgbench wrote."""


def damaged(path: Path, problem: str) -> DamagedTable:
    return DamagedTable(f"{problem}; {repair_advice(path)}", file=str(path))


@dataclass
class TableCheck:
    """What ``inspect_table`` found: the header, the sound rows with their line numbers, and the problems
    (line number, text). A damaged header (``header_damaged``) spoils every row; a damaged row only itself."""

    header: list[str] = field(default_factory=list)
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    header_damaged: bool = False


def inspect_table(path: Path, data: bytes) -> TableCheck:
    """Every problem of the table in ``path`` whose complete lines are ``data``. lgbench writes one row
    per line (``csv_store._cell``), so each line is decoded and read on its own: a line that is not UTF-8
    or has unbalanced quotes is a damaged row, as is one with the wrong number of cells or text in a
    column of numbers."""
    found = TableCheck()
    lines = data.split(b"\n")[:-1] if data else []
    texts = []
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            found.problems.append((number, f"line {number}: not UTF-8 text"))
            continue
        if text.count('"') % 2:
            found.problems.append((number, f"line {number}: unbalanced quotes"))
            continue
        texts.append((number, text))
    if not lines:
        return found
    if found.problems and found.problems[0][0] == 1:
        found.header_damaged = True
        return found
    found.header = next(csv.reader([texts[0][1]]), [])
    header_problem = _header_problem(path, found.header)
    if header_problem:
        found.header_damaged = True
        found.problems.insert(0, (1, f"line 1: {header_problem}"))
        return found
    numeric = [(index, name) for index, name in enumerate(found.header) if name not in TEXT_COLUMNS]
    keys = [(found.header.index(name), name) for name in KEYS.get(path.name, []) if path.parent.name != "series"]
    for number, text in texts[1:]:
        row = next(csv.reader([text]), [])
        problem = _row_problem(row, found.header, numeric, keys)
        if problem:
            found.problems.append((number, f"line {number}{problem}"))
        else:
            found.rows.append((number, row))
    found.problems.sort()
    return found


def _header_problem(path: Path, header: list[str]) -> str:
    required = ["t"] if path.parent.name == "series" else REQUIRED.get(path.name, [])
    missing = [column for column in required if column not in header]
    if missing:
        return f"the header lacks the column(s) {', '.join(missing)}"
    if len(set(header)) != len(header):
        return "the header names a column twice"
    return ""


def _row_problem(row: list[str], header: list[str], numeric: list[tuple[int, str]],
                 keys: list[tuple[int, str]]) -> str:
    if len(row) != len(header):
        return f" has {len(row)} cells, the header {len(header)}"
    for index, name in keys:
        if not row[index].strip():
            return f", column '{name}': empty"
    for index, name in numeric:
        if row[index] and not _number(row[index]):
            return f", column '{name}': '{row[index][:30]}' is not a number"
    return ""


def cut_short(data: bytes) -> tuple[bytes, str]:
    """The complete lines of a table's content ``data`` and, if its last line is cut short (an append that
    a kill, a full disk or a power cut interrupted), that problem ("" otherwise)."""
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) == len(data):
        return complete, ""
    line = complete.count(b"\n") + 1
    return complete, f"line {line}: cut short (an interrupted write)"


def checked_rows(path: Path, data: bytes) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the table in ``path`` (its complete lines ``data``), or DamagedTable naming
    the first problem."""
    found = inspect_table(path, data)
    if found.problems:
        raise damaged(path, found.problems[0][1])
    return found.header, [row for _, row in found.rows]


def _number(cell: str) -> bool:
    try:
        value = float(cell)
    except ValueError:
        return False
    return math.isfinite(value) or cell.strip().lower() in ("nan", "inf", "-inf")
