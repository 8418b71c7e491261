"""Atomic file writes: every file lgbench writes goes to a temporary name in the same folder
(``.NAME.PID.lgbench-tmp``), is flushed to disk and renamed over the target, so a reader or a crash
sees the old file or the new one, never a part. Leftovers of a process that died are removed by
``clean_leftovers`` on the next run."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUFFIX = ".lgbench-tmp"


def temporary_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}{SUFFIX}")


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write; renamed to ``path`` when the block ends without error, removed
    otherwise. A file-system error (a full disk, a read-only folder) names ``path``, not the temporary
    name, whatever raised it."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = temporary_name(path)
        try:
            yield temporary
            _fsync(temporary)
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
    except OSError as error:
        if error.filename == str(path):
            raise
        raise OSError(error.errno, f"cannot be written ({error.strerror or error})", str(path)) from error


def write_bytes(path: str | Path, data: bytes) -> Path:
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def leftovers(directory: str | Path) -> list[Path]:
    """The temporary files under ``directory`` whose writing process is gone (or is this one)."""
    found = []
    for path in sorted(Path(directory).rglob(f".*{SUFFIX}")):
        pid = path.name.removesuffix(SUFFIX).rpartition(".")[2]
        if pid.isdigit() and _alive(int(pid)) and int(pid) != os.getpid():
            continue
        found.append(path)
    return found


def clean_leftovers(directory: str | Path) -> list[Path]:
    """Remove the temporary files under ``directory`` whose writing process is gone."""
    removed = []
    for path in leftovers(directory):
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass
    return removed
