"""Reference solutions computed once and kept on disk, keyed by their full specification.

The key hashes the reference's RunSpec (model, formulation, integrator, h, t_end, parameters,
options), the number of output samples, the lgbench version and the hash of the compiled sources
(``lgbench._compile_cache.source_hash``): any change of the specification or of the numerical code
gives a new key, so a stale reference is never reused. Entries live under
``$LGBENCH_REFERENCE_CACHE`` if set, else ``$LGBENCH_CACHE_DIR/references`` (default
``~/.cache/lgbench/references``), one folder per key with
``result.json`` (status, counters, final outputs, statistics, specification) and ``series.npz``.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from lgbench.runner.single_run import RunResult, RunSpec


def cache_root() -> Path:
    if os.environ.get("LGBENCH_REFERENCE_CACHE"):
        return Path(os.environ["LGBENCH_REFERENCE_CACHE"])
    base = Path(os.environ.get("LGBENCH_CACHE_DIR", Path.home() / ".cache" / "lgbench"))
    return base / "references"


def reference_key(spec: RunSpec, samples: int | None) -> str:
    """Hash of everything that determines the reference's numbers."""
    import lgbench
    from lgbench._compile_cache import source_hash

    document = {"spec": asdict(spec), "samples": samples, "version": lgbench.__version__,
                "sources": source_hash()}
    text = json.dumps(document, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _checksum(series: dict[str, np.ndarray] | None) -> str | None:
    """sha256 over the names, shapes, types and bytes of the series arrays."""
    if series is None:
        return None
    digest = hashlib.sha256()
    for name in sorted(series):
        array = np.ascontiguousarray(series[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


RESULT_FIELDS = {"status", "message", "steps", "cpu_s", "t_final", "final_outputs", "statistics"}


def load(key: str, root: Path | None = None) -> RunResult | None:
    """The cached result under ``key``, or None: a missing entry, and a damaged one (unreadable,
    truncated, unexpected keys, wrong checksum) are misses."""
    folder = (root or cache_root()) / key
    try:
        data = json.loads((folder / "result.json").read_text(encoding="utf-8"))
        series = None
        if data["has_series"]:
            with np.load(folder / "series.npz", allow_pickle=False) as stored:
                series = {name: stored[name] for name in stored.files}
        if _checksum(series) != data["series_sha256"] or data["status"] != "ok":
            return None
        return RunResult(series=series, **{name: data[name] for name in RESULT_FIELDS})
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None


def save(key: str, spec: RunSpec, samples: int | None, result: RunResult, root: Path | None = None) -> Path:
    """Store ``result`` under ``key`` atomically (a folder renamed into place), replacing an entry
    that is there already."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    target = root / key
    staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
    try:
        data = {"status": result.status, "message": result.message, "steps": result.steps,
                "cpu_s": result.cpu_s, "t_final": result.t_final, "final_outputs": result.final_outputs,
                "statistics": result.statistics, "has_series": result.series is not None,
                "series_sha256": _checksum(result.series), "spec": asdict(spec), "samples": samples}
        if result.series is not None:
            np.savez(staging / "series.npz", **result.series)
        (staging / "result.json").write_text(json.dumps(data, default=float, indent=1), encoding="utf-8")
        if target.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{key}-old-", dir=root))
            os.replace(target, retired / key)
            shutil.rmtree(retired, ignore_errors=True)
        os.replace(staging, target)
    except OSError:
        if not target.exists():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def cached_reference(spec: RunSpec, samples: int | None, compute: Callable[[], RunResult],
                     use_cache: bool = True, warn: Callable[[str], object] | None = None) -> tuple[RunResult, bool]:
    """(result, True) from the cache, or (computed result, False), stored if it succeeded. With
    ``use_cache`` false the cache is not read but the fresh result replaces the entry. A cache that
    cannot be written (read-only, full) gives a warning; the run goes on with the result in memory."""
    key = reference_key(spec, samples)
    if use_cache:
        hit = load(key)
        if hit is not None:
            return hit, True
    result = compute()
    if result.status == "ok":
        try:
            save(key, spec, samples, result)
        except OSError as error:
            if warn is not None:
                warn(f"warning: the reference cache {cache_root()} cannot be written ({error.strerror or error}); "
                     "going on with the reference in memory")
    return result, False
