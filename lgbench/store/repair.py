"""``lgbench repair``: a damaged result folder made sound, so that ``lgbench run`` resumes and computes
again what was lost.

Every table is read with the checks of ``tables.inspect_table``. A damaged row (not UTF-8, unbalanced
quotes, too few or too many cells, text where a number belongs) is dropped; a table whose header is
damaged starts anew; a damaged series table, ``reference.csv`` or ``metadata.json`` is set aside whole (a new metadata.json starts without sessions).
Then the ok runs of the study that lack an error row or their series lose their runs row, and error
rows of runs that runs.csv does not hold are dropped: the next run computes those runs again. Each file
changed is first kept as ``NAME.damaged-TIME`` (``metadata.json.invalid-TIME``).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lgbench.store import atomic
from lgbench.store.csv_store import (
    ERROR_COLUMNS, RUN_COLUMNS, ResultStore, backup_path, missing_parts, set_aside, write_table,
)
from lgbench.store.metadata import METADATA, read_metadata
from lgbench.store.tables import cut_short, inspect_table


@dataclass(frozen=True)
class Needs:
    """The study's name and what it asks of each of its ok runs: error rows (quantity, measure) and a
    series file."""

    study: str
    run_ids: set[str]
    errors: set[tuple[str, str]]
    series: bool


@dataclass(frozen=True)
class Finding:
    """One problem of a result folder and what repair does (or did) about it."""

    file: str
    problem: str
    action: str

    def __str__(self) -> str:
        return f"{self.file}: {self.problem}: {self.action}"


@dataclass
class _Table:
    path: Path
    header: list[str]
    rows: list[list[str]]
    changed: bool = False
    set_aside: bool = False

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.header, row)) for row in self.rows]

    def keep_runs(self, identifiers: set[str]) -> None:
        column = self.header.index("run_id")
        self.rows = [row for row in self.rows if row[column] in identifiers]
        self.changed = True


def _listed(identifiers: Iterable[str], limit: int = 3) -> str:
    identifiers = sorted(identifiers)
    shown = ", ".join(identifiers[:limit])
    return shown + (f" and {len(identifiers) - limit} more" if len(identifiers) > limit else "")


class _Repair:
    def __init__(self, directory: Path):
        self.directory = directory
        self.findings: list[Finding] = []

    def name(self, path: Path) -> str:
        return str(path.relative_to(self.directory))

    def found(self, path: Path, problem: str, action: str) -> None:
        self.findings.append(Finding(self.name(path), problem, action))

    def table(self, path: Path, whole: bool = False) -> _Table | None:
        """``path`` read row by row, its damaged rows noted and dropped; None if it is missing. A damaged
        header (or any damage, with ``whole``) sets the whole table aside."""
        if not path.exists():
            return None
        complete, cut = cut_short(path.read_bytes())
        found = inspect_table(path, complete)
        problems = [problem for _, problem in found.problems] + ([cut] if cut else [])
        spoilt = found.header_damaged or (whole and bool(problems))
        action = ("set aside; the next run writes it again" if whole else "table set aside, it starts anew")
        for problem in problems:
            self.found(path, problem, action if spoilt else "row dropped")
        if spoilt:
            return _Table(path, [], [], changed=True, set_aside=True)
        return _Table(path, found.header, [row for _, row in found.rows], changed=bool(problems))


def diagnose_and_repair(directory: Path, needs: Needs, apply: bool = True) -> list[Finding]:
    """The problems of the result folder ``directory`` (one Finding each), repaired unless ``apply`` is
    false. The caller holds the folder's lock."""
    store = ResultStore(directory)
    store.require_runs()
    work = _Repair(directory)
    if apply:
        for path in atomic.clean_leftovers(directory):
            work.found(path, "temporary file of an interrupted write", "removed")
    runs = work.table(store.runs_path)
    errors = work.table(store.errors_path)
    reference = work.table(store.reference_path, whole=True)
    spoilt = [reference.path] if reference and reference.set_aside else []
    for path in sorted(store.series_directory.glob("*.csv")):
        if work.table(path, whole=True).set_aside:
            spoilt.append(path)
    metadata = directory / METADATA
    metadata_invalid = metadata.exists() and read_metadata(metadata) is None
    if metadata_invalid:
        work.found(metadata, "not valid provenance (JSON with a list of sessions)",
                   f"set aside as {METADATA}.invalid-TIME, a new one started")

    with_series = store.series_ids() - {path.stem for path in spoilt if path.parent.name == "series"}
    error_rows = errors.records() if errors else []
    stored = {row["run_id"]: row for row in runs.records() if row["run_id"] in needs.run_ids}
    lacking = missing_parts(stored, error_rows, needs.errors, with_series if needs.series else None)
    by_reason: dict[str, list[str]] = {}
    for identifier, what in lacking.items():
        by_reason.setdefault(what, []).append(identifier)
    for what, identifiers in by_reason.items():
        work.found(store.runs_path, f"{len(identifiers)} ok run(s) without {what} ({_listed(identifiers)})",
                   "dropped; the next run computes them again")
    if lacking:
        runs.keep_runs({row["run_id"] for row in runs.records()} - set(lacking))
    held = {row["run_id"] for row in runs.records()}
    orphans = [row["run_id"] for row in error_rows if row["run_id"] not in held]
    if orphans:
        work.found(store.errors_path, f"{len(orphans)} row(s) of run(s) without a row in runs.csv "
                   f"({_listed(set(orphans))})", "dropped")
        errors.keep_runs(held)

    if apply:
        for table, columns in ((runs, RUN_COLUMNS), (errors, ERROR_COLUMNS)):
            if table is not None and table.changed:
                atomic.write_bytes(backup_path(table.path), table.path.read_bytes())
                write_table(table.path, table.header or columns, table.records())
        for path in spoilt:
            set_aside(path)
        if metadata_invalid:
            set_aside(metadata, "invalid")
            atomic.write_text(metadata, json.dumps({"study": needs.study, "sessions": []}, indent=1))
    return work.findings
