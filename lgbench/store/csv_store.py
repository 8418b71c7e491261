"""Append-only CSV tables that survive crashes, and the result directory that holds them.

Every append writes whole lines with a single ``os.write`` followed by ``fsync``. A last line cut
short (an append that a kill, a full disk or a power cut interrupted) is removed before the next
append, and the writer's reads (``read_rows``) ignore it; to every other reader (``read_frame``:
check, plot, report) it is damage, reported like any other, never a table with a row silently
missing, unless a writer holds the folder's lock: then it is the row being written, and the reader
sees the table without it, as it was a moment before. The header is fixed by the first row; a later row with new columns rewrites the file once
(temporary file + ``os.replace``) with the widened header, so old rows read the new columns as empty.
"""
from __future__ import annotations

import csv
import datetime
import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lgbench.exceptions import printable
from lgbench.store import atomic
from lgbench.store.lock import folder_in_use
from lgbench.store.tables import DamagedTable, checked_rows, cut_short, damaged, result_directory

RUN_COLUMNS = ["run_id", "model", "formulation", "integrator", "integrator_kind", "variant", "h", "t_end",
               "status", "message", "steps", "cpu_s"]
ERROR_COLUMNS = ["run_id", "quantity", "measure", "value"]


def _checked(path: Path, writing: bool) -> tuple[list[str], list[list[str]], str]:
    complete, cut = cut_short(path.read_bytes() if path.exists() else b"")
    header, rows = checked_rows(path, complete)
    if cut and header and not writing and not folder_in_use(result_directory(path)):
        raise damaged(path, cut)
    return header, rows, complete.decode("utf-8")


def read_rows(path: str | Path) -> list[dict[str, str]]:
    """All complete rows of a CSV table as dicts of strings, for the writer, which holds the folder's lock:
    a last line cut short is ignored (the next append removes it); a damaged table is a ``DamagedTable``
    error naming the line."""
    header, rows, _ = _checked(Path(path), writing=True)
    return [dict(zip(header, row)) for row in rows]


def read_frame(path: str | Path):
    """A CSV table as a pandas DataFrame (empty frame if it has no rows); a damaged table, also one whose
    last line is cut short while no writer holds the folder, is a ``DamagedTable`` error naming the line."""
    import pandas as pd

    header, _, text = _checked(Path(path), writing=False)
    return pd.read_csv(io.StringIO(text)) if header else pd.DataFrame()


def _header(path: Path) -> list[str]:
    """The column names of an existing table ([] if the file is missing or has no complete line)."""
    if not path.exists():
        return []
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        line = handle.readline()
    return next(csv.reader([line]), []) if line.endswith("\n") else []


def _cell(value: Any) -> Any:
    """One CSV cell: text on a single line (so that lines and rows stay the same thing)."""
    if isinstance(value, str):
        return " ".join(value.splitlines())
    return "" if value is None else value


def _lines(columns: list[str], rows: Iterable[Mapping[str, Any]], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows({key: _cell(row.get(key)) for key in columns} for row in rows)
    return buffer.getvalue()


def write_table(path: str | Path, columns: list[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Write a whole table atomically (temporary file in the same folder, then renamed)."""
    atomic.write_text(path, _lines(columns, rows, header=True))


def write_series(path: str | Path, series: Mapping[str, Any], comment: str | None = None) -> None:
    """A time-series table: column ``t`` first, then every named output, one row per sample; with ``comment``
    (one line) a first line ``# comment`` (read with ``comment="#"``)."""
    names = ["t"] + [name for name in series if name != "t"]
    length = len(series["t"])
    rows = ({name: float(series[name][k]) for name in names} for k in range(length))
    first = "" if comment is None else f"# {printable(comment)}\n"
    atomic.write_text(path, first + _lines(names, rows, header=True))


def _drop_partial_line(path: Path) -> None:
    size = path.stat().st_size
    if size == 0:
        return
    with open(path, "rb+") as handle:
        handle.seek(size - 1)
        if handle.read(1) != b"\n":
            handle.truncate(len(cut_short(path.read_bytes())[0]))


def append_rows(path: str | Path, rows: list[Mapping[str, Any]],
                columns: list[str] | None = None) -> None:
    """Append rows in one write (header first if the file is new); widen the header if needed. A write
    that fails (a full disk) is taken back whole.

    ``columns`` gives the preferred order of a new header; keys of ``rows`` not in it follow.
    """
    if not rows:
        return
    path = Path(path)
    header = _header(path)
    wanted = list(header or columns or [])
    for row in rows:
        wanted += [key for key in row if key not in wanted]
    if not header:
        write_table(path, wanted, rows)
        return
    if wanted != header:
        write_table(path, wanted, read_rows(path))
    else:
        _drop_partial_line(path)
    data = memoryview(_lines(wanted, rows, header=False).encode("utf-8"))
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)
    size = os.fstat(descriptor).st_size
    try:
        while data:                               # one write, unless the system splits it
            data = data[os.write(descriptor, data):]
        os.fsync(descriptor)
    except OSError:
        os.ftruncate(descriptor, size)            # a full disk leaves whole rows: none of these
        raise
    finally:
        os.close(descriptor)


def backup_path(path: Path, kind: str = "damaged") -> Path:
    """A free name for a backup of ``path``: ``NAME.KIND-TIME`` (``-2``, ``-3``, ... if taken)."""
    stem = f"{path.name}.{kind}-{datetime.datetime.now():%Y%m%dT%H%M%S}"
    backup, number = path.with_name(stem), 1
    while backup.exists():
        number += 1
        backup = path.with_name(f"{stem}-{number}")
    return backup


def set_aside(path: Path, kind: str = "damaged") -> Path:
    """Move ``path`` to its ``backup_path`` and return that."""
    backup = backup_path(path, kind)
    os.replace(path, backup)
    return backup


def missing_parts(runs: Mapping[str, Mapping[str, str]], errors: Iterable[Mapping[str, str]],
                  wanted: set[tuple[str, str]], series: set[str] | None) -> dict[str, str]:
    """What each ok run of ``runs`` (rows by run id) lacks: error rows for the ``wanted`` (quantity,
    measure) pairs among ``errors``, or, when ``series`` (the run ids that have a series file) is given,
    its series file. Runs that lack nothing are left out."""
    recorded: dict[str, set[tuple[str, str]]] = {}
    for row in errors:
        recorded.setdefault(row["run_id"], set()).add((row["quantity"], row["measure"]))
    missing = {}
    for identifier, row in runs.items():
        if row.get("status") != "ok":
            continue
        lacking = sorted(wanted - recorded.get(identifier, set()))
        if lacking:
            missing[identifier] = "error rows for " + ", ".join(f"{q} ({m})" for q, m in lacking)
        elif series is not None and identifier not in series:
            missing[identifier] = "its series file"
    return missing


class ResultStore:
    """A study's result folder: ``runs.csv``, ``errors.csv``, ``reference.csv``, ``series/``.

    Writers hold the folder's lock (``lgbench.store.lock``); the header-widening rewrite of
    ``append_rows`` is then never concurrent with an append.
    """

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.runs_path = self.directory / "runs.csv"
        self.errors_path = self.directory / "errors.csv"
        self.reference_path = self.directory / "reference.csv"
        self.series_directory = self.directory / "series"

    def runs(self) -> list[dict[str, str]]:
        return read_rows(self.runs_path)

    def errors(self) -> list[dict[str, str]]:
        return read_rows(self.errors_path)

    def require_runs(self) -> None:
        """One-line InputError unless the folder is a result folder (it has a runs.csv)."""
        from lgbench.exceptions import InputError

        if not self.directory.is_dir():
            raise InputError("no such folder", file=str(self.directory))
        if not self.runs_path.exists():
            raise InputError("no runs.csv here: not a result folder (run 'lgbench run STUDY.yaml' first)",
                             file=str(self.directory))

    def runs_frame(self):
        """runs.csv as a DataFrame, one row per run_id (the last wins); one-line InputError if the
        folder has no runs.csv or no complete row yet."""
        from lgbench.exceptions import InputError

        self.require_runs()
        runs = read_frame(self.runs_path)
        if runs.empty:
            raise InputError("runs.csv has no complete rows yet", file=str(self.runs_path))
        return runs.drop_duplicates("run_id", keep="last")

    def errors_frame(self):
        """errors.csv as a DataFrame; an empty one with ERROR_COLUMNS if there is none yet."""
        errors = read_frame(self.errors_path) if self.errors_path.exists() else None
        if errors is None or errors.empty:
            import pandas as pd
            errors = pd.DataFrame(columns=ERROR_COLUMNS)
        return errors

    def require_error_rows(self, runs, errors, run_ids: set[str], wanted: set[tuple[str, str]]) -> None:
        """``DamagedTable`` naming errors.csv if an ok run among ``run_ids`` (``runs``: ``runs_frame``) lacks an
        error row of ``wanted`` (quantity, measure) in ``errors`` (``errors_frame``). ``record`` stores a run's
        error rows before its runs row, so that is damage, not a missing point of a verdict."""
        stored = {row["run_id"]: row for row in runs.to_dict("records") if row["run_id"] in run_ids}
        lacking = sorted(missing_parts(stored, errors.to_dict("records"), wanted, None).items())
        if lacking:
            identifier, what = lacking[0]
            more = f" (and {len(lacking) - 1} more ok run(s))" if len(lacking) > 1 else ""
            raise damaged(self.errors_path, f"no {what} of the ok run {identifier}{more}")

    def drop_cut_lines(self) -> list[str]:
        """Remove a last line cut short from runs.csv and errors.csv, as the next append would: the run it
        held is not stored, so it is computed again. One "FILE: line N: cut short ..." per line removed."""
        dropped = []
        for path in (self.runs_path, self.errors_path):
            cut = cut_short(path.read_bytes())[1] if path.exists() else ""
            if cut:
                _drop_partial_line(path)
                dropped.append(f"{path.name}: {cut}")
        return dropped

    def finished_runs(self) -> dict[str, dict[str, str]]:
        """Rows of runs.csv by run_id (the last row wins)."""
        return {row["run_id"]: row for row in self.runs()}

    def series_ids(self) -> set[str]:
        """The run ids that have a series file."""
        return {path.stem for path in self.series_directory.glob("*.csv")}

    def series_frame(self, run_id: str):
        """A run's time series (column ``t`` and one per output) as a DataFrame; None without a file."""
        path = self.series_directory / f"{run_id}.csv"
        return read_frame(path) if path.exists() else None

    def record(self, run_row: Mapping[str, Any], error_rows: list[Mapping[str, Any]]) -> None:
        """Store one finished run: its error rows first, then its runs row, which marks it done.

        A crash in between leaves error rows without a runs row; the next run removes them
        (``forget``) before it computes the run again (``runner.execute``).
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        append_rows(self.errors_path, list(error_rows), ERROR_COLUMNS)
        append_rows(self.runs_path, [run_row], RUN_COLUMNS)

    def forget(self, run_ids: set[str]) -> list[Path]:
        """Remove every row of these runs from runs.csv and errors.csv. A damaged table is moved
        aside as ``NAME.damaged-TIME`` (returned) and starts anew."""
        backups = []
        for path in (self.runs_path, self.errors_path):
            if not path.exists():
                continue
            try:
                kept = [row for row in read_rows(path) if row["run_id"] not in run_ids]
            except DamagedTable:
                backups.append(set_aside(path))
                continue
            write_table(path, _header(path), kept)
        return backups

    def write_reference(self, row: Mapping[str, Any]) -> None:
        write_table(self.reference_path, list(row), [row])

    def write_series(self, run_id: str, series: Mapping[str, Any]) -> Path:
        path = self.series_directory / f"{run_id}.csv"
        write_series(path, series)
        return path

