"""The provenance file of a result folder: ``metadata.json`` with the sessions that wrote it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

METADATA = "metadata.json"


def read_metadata(path: Path) -> dict[str, Any] | None:
    """The provenance in ``path``: {"study": ..., "sessions": [...]}, or None if it is not that."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    sessions = data.get("sessions", []) if isinstance(data, dict) else None
    if not isinstance(sessions, list) or not all(isinstance(item, dict) for item in sessions):
        return None
    return data
