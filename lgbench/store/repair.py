"""``lgbench repair``: a damaged result folder made sound, so that ``lgbench run`` resumes and computes
again what was lost.

What a crash, a kill or two writers at once (lgbench before the folder lock) can leave, and what repair does:

- temporary files of interrupted writes: removed;
- a damaged row of a table (not UTF-8, unbalanced quotes, too few or too many cells, text where a number
  belongs, an empty run id, status, quantity or measure, a last line cut short): dropped; a table whose
  header is damaged starts anew; a damaged series table or ``reference.csv`` is set aside whole;
- a run with two rows in runs.csv, or an error row twice: every row of the run dropped (which rows belong
  together cannot be told);
- an ok run of the study without an error row it asks for, without its series file, or whose series does
  not hold the study's samples: its runs row dropped;
- error rows of runs that runs.csv does not hold or that did not end ok: dropped;
- series files of runs that runs.csv does not hold: set aside;
- ``metadata.json`` that is not valid provenance, is missing beside stored runs, or names another study:
  set aside (if there is one) and a new one started, without sessions.

The runs dropped are computed again by the next run. Each file changed is first kept as
``NAME.damaged-TIME`` (``metadata.json.invalid-TIME``).
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lgbench.exceptions import printable
from lgbench.store import atomic
from lgbench.store.csv_store import (
    ERROR_COLUMNS, RUN_COLUMNS, ResultStore, backup_path, missing_parts, set_aside, write_table,
)
from lgbench.store.metadata import METADATA, read_metadata
from lgbench.store.tables import cut_short, inspect_table


@dataclass(frozen=True)
class Needs:
    """The study's name and what it asks of each of its ok runs: error rows (quantity, measure) and a
    series file of ``samples`` rows (none if 0)."""

    study: str
    run_ids: set[str]
    errors: set[tuple[str, str]]
    samples: int


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
    for path in atomic.leftovers(directory):
        work.found(path, "temporary file of an interrupted write", "removed")
    runs = work.table(store.runs_path)
    errors = work.table(store.errors_path)
    reference = work.table(store.reference_path, whole=True)
    spoilt = [reference.path] if reference and reference.set_aside else []
    series_rows = {}
    for path in sorted(store.series_directory.glob("*.csv")):
        table = work.table(path, whole=True)
        if table.set_aside:
            spoilt.append(path)
        else:
            series_rows[path.stem] = len(table.rows)
    metadata = directory / METADATA
    metadata_problem = _metadata_problem(metadata, needs.study, bool(runs.rows))
    if metadata_problem:
        kept = f"set aside as {METADATA}.invalid-TIME, " if metadata.exists() else ""
        work.found(metadata, metadata_problem, f"{kept}a new one started")

    error_rows = errors.records() if errors else []
    dropped = _twice(work, store, runs.records(), error_rows)
    stored = {row["run_id"]: row for row in runs.records() if row["run_id"] in needs.run_ids}
    stored = {identifier: row for identifier, row in stored.items() if identifier not in dropped}
    with_series = set(series_rows) if needs.samples else None
    lacking = missing_parts(stored, error_rows, needs.errors, with_series)
    for identifier, row in stored.items():
        if with_series and identifier not in lacking and row.get("status") == "ok" \
                and series_rows.get(identifier) != needs.samples:
            lacking[identifier] = f"a series of the study's {needs.samples} samples"
    by_reason: dict[str, list[str]] = {}
    for identifier, what in lacking.items():
        by_reason.setdefault(what, []).append(identifier)
    for what, identifiers in by_reason.items():
        work.found(store.runs_path, f"{len(identifiers)} ok run(s) without {what} ({_listed(identifiers)})",
                   "dropped; the next run computes them again")
    dropped |= set(lacking)
    if dropped:
        runs.keep_runs({row["run_id"] for row in runs.records()} - dropped)
    held = {row["run_id"]: row for row in runs.records()}
    orphans = [row["run_id"] for row in error_rows if row["run_id"] not in held and row["run_id"] not in dropped]
    if orphans:
        work.found(store.errors_path, f"{len(orphans)} row(s) of run(s) without a row in runs.csv "
                   f"({_listed(set(orphans))})", "dropped")
    failed = [row["run_id"] for row in error_rows
              if row["run_id"] in held and held[row["run_id"]].get("status") != "ok"]
    if failed:
        work.found(store.errors_path, f"{len(failed)} row(s) of run(s) that did not end ok ({_listed(set(failed))})",
                   "dropped")
    if errors is not None and (orphans or failed or dropped & {row["run_id"] for row in error_rows}):
        errors.keep_runs({identifier for identifier, row in held.items() if row.get("status") == "ok"})
    strays = sorted(set(series_rows) - set(held) - {"reference"})
    if strays:
        work.found(store.series_directory, f"{len(strays)} file(s) of run(s) without a row in runs.csv "
                   f"({_listed(strays)})", "set aside")
        spoilt += [store.series_directory / f"{identifier}.csv" for identifier in strays]

    if apply:
        atomic.clean_leftovers(directory)
        for table, columns in ((runs, RUN_COLUMNS), (errors, ERROR_COLUMNS)):
            if table is not None and table.changed:
                atomic.write_bytes(backup_path(table.path), table.path.read_bytes())
                write_table(table.path, table.header or columns, table.records())
        for path in spoilt:
            set_aside(path)
        if metadata_problem:
            if metadata.exists():
                set_aside(metadata, "invalid")
            atomic.write_text(metadata, json.dumps({"study": needs.study, "sessions": []}, indent=1))
    return work.findings


def _metadata_problem(path: Path, study: str, runs_stored: bool) -> str:
    """What is wrong with the folder's ``metadata.json`` ("" if nothing): not provenance, missing while runs
    are stored, or the provenance of another study."""
    if not path.exists():
        return "missing: the sessions that computed the stored runs are unknown" if runs_stored else ""
    data = read_metadata(path)
    if data is None:
        return "not valid provenance (JSON with a list of sessions)"
    if data.get("study") not in (None, study):
        return f"the provenance of study '{printable(str(data['study']))}', not of '{printable(study)}'"
    return ""


def _twice(work: _Repair, store: ResultStore, runs: list[dict[str, str]], errors: list[dict[str, str]]) -> set[str]:
    """The runs with two rows in runs.csv or an error row twice in errors.csv (two writers stored them), noted."""
    in_runs = [identifier for identifier, count in Counter(row["run_id"] for row in runs).items() if count > 1]
    keys = Counter((row["run_id"], row["quantity"], row["measure"]) for row in errors)
    in_errors = sorted({key[0] for key, count in keys.items() if count > 1} - set(in_runs))
    for path, identifiers, what in ((store.runs_path, in_runs, "more than one row"),
                                    (store.errors_path, in_errors, "an error row twice")):
        if identifiers:
            work.found(path, f"{len(identifiers)} run(s) with {what} ({_listed(identifiers)})",
                       "every row of them dropped; the next run computes them again")
    return set(in_runs) | set(in_errors)
