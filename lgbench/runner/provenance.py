"""Provenance of a result folder: what produced its numbers, recorded in ``DIR/metadata.json``.

Every ``lgbench run`` session appends one entry (lgbench version, git commit if the sources are a
git checkout, Python/numpy/numba/scipy versions, CPU model and count, platform, start time,
executor and worker count, and the package, version and code hash of every plugin the study uses) so
that timings and results can be traced to the machine and code.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from lgbench.store import METADATA, read_metadata


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str | None:
    source = Path(__file__).resolve().parent.parent
    try:
        done = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=5, check=False)
        dirty = subprocess.run(["git", "-C", str(source), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() + ("+modified" if dirty.stdout.strip() else "")


def session_record(executor: str, workers: int, plugins: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The provenance of one session on this machine; ``plugins``: those the study uses
    (``grid.study_plugins``)."""
    import numba
    import numpy
    import scipy

    import lgbench
    from lgbench._compile_cache import source_hash

    return {
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "lgbench": lgbench.__version__, "git_commit": _git_commit(), "sources": source_hash(),
        "python": platform.python_version(), "numpy": numpy.__version__, "numba": numba.__version__,
        "scipy": scipy.__version__, "cpu": _cpu_model(), "cpu_count": os.cpu_count(),
        "platform": platform.platform(), "executor": executor, "workers": workers, "plugins": plugins or [],
        "timing": "time.thread_time of the thread that ran the integration loop, per run, subnormal numbers "
                  "flushed to zero",
    }


def record_session(directory: Path, study_name: str, record: dict[str, Any]) -> Path | None:
    """Append ``record`` to ``directory/metadata.json`` (written atomically). A file that is not
    valid provenance is kept as ``metadata.json.invalid-TIME`` (returned) and a new one started."""
    from lgbench.store import atomic
    from lgbench.store.csv_store import set_aside

    path = directory / METADATA
    data: dict[str, Any] = {"study": study_name, "sessions": []}
    backup = None
    if path.exists():
        found = read_metadata(path)
        if found is None:
            backup = set_aside(path, "invalid")
        else:
            data = found
    data.setdefault("sessions", []).append(record)
    data["study"] = study_name
    atomic.write_text(path, json.dumps(data, indent=1))
    return backup
