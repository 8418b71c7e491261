"""Where results may go: a result folder is a named folder, never the filesystem root, never a file."""
from __future__ import annotations

from pathlib import Path

from lgbench.exceptions import InputError


def result_folder(out: str | Path, field: str = "--out") -> Path:
    """``out`` as a result folder; one-line InputError for '', the filesystem root or a file."""
    text = str(out)
    if not text.strip():
        raise InputError("empty folder name", field=field, allowed="a folder other than the filesystem root")
    path = Path(text)
    resolved = path.resolve()
    if resolved == Path(resolved.anchor):
        raise InputError(f"'{text}' is the filesystem root", field=field,
                         allowed="a folder other than the filesystem root")
    if path.exists() and not path.is_dir():
        raise InputError(f"'{text}' is a file, not a folder", field=field)
    return path
