"""Reference solutions computed once and kept on disk, keyed by their full specification.

The key hashes the reference's inputs (``reference_inputs``): its RunSpec (model, formulation, integrator,
h, t_end, parameters, options), the number of output samples, the lgbench version, the hash of the compiled
sources (``lgbench._compile_cache.source_hash``), for a mechanism file the hash of the code that builds it and
evaluates its outputs (``mechanism_code_hash``), and the package, version and code hash of every plugin the
run uses. Any change of the specification or of the numerical code gives a new key, so a stale reference is
never reused. Entries live under ``$LGBENCH_REFERENCE_CACHE`` if set, else ``$LGBENCH_CACHE_DIR/references``
(default ``~/.cache/lgbench/references``), one folder per key with ``result.json`` (status, counters, final
outputs, statistics, the inputs and the checksums) and ``series.npz``.

An entry proves itself: its inputs hash to its key, ``sha256`` is the checksum of everything else in
``result.json`` and ``series_sha256`` that of ``series.npz``. An entry that fails a check, lacks a field or has
one of the wrong type is damaged: a miss that is warned about, recomputed and replaced, never used.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from lgbench.runner.single_run import RunResult, RunSpec

FORMAT = 2
"""The layout of an entry; part of the key, so entries of another layout are not looked at."""
MECHANISM_CODE = Path(__file__).resolve().parent.parent / "mechanisms"


class DamagedEntry(Exception):
    """A cache entry that is there but does not prove its content; the message says why."""


def cache_root() -> Path:
    if os.environ.get("LGBENCH_REFERENCE_CACHE"):
        return Path(os.environ["LGBENCH_REFERENCE_CACHE"])
    base = Path(os.environ.get("LGBENCH_CACHE_DIR", Path.home() / ".cache" / "lgbench"))
    return base / "references"


def mechanism_code_hash() -> str:
    """Hash of ``lgbench/mechanisms``, which builds a mechanism file's system and evaluates its outputs (joint
    reactions included) in Python, outside the compiled sources."""
    digest = hashlib.sha256()
    for path in sorted(MECHANISM_CODE.rglob("*.py")):
        digest.update(path.relative_to(MECHANISM_CODE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def reference_inputs(spec: RunSpec, samples: int | None) -> dict[str, Any]:
    """Everything that determines the reference's numbers, as JSON data."""
    import lgbench
    from lgbench._compile_cache import source_hash
    from lgbench.runner.grid import plugins_of

    document = {"format": FORMAT, "spec": asdict(spec), "samples": samples, "version": lgbench.__version__,
                "sources": source_hash(), "plugins": plugins_of(spec)}
    if spec.mechanism is not None:
        document["mechanism_code"] = mechanism_code_hash()
    return json.loads(json.dumps(document, default=str))


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def reference_key(spec: RunSpec, samples: int | None) -> str:
    """Hash of everything that determines the reference's numbers (``reference_inputs``)."""
    return _digest(reference_inputs(spec, samples))[:24]


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


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _numbers(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(name, str) and _number(x) for name, x in value.items())


FIELDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "status": ("'ok'", lambda value: value == "ok"),
    "message": ("a text", lambda value: isinstance(value, str)),
    "steps": ("a whole number >= 0", lambda value: _number(value) and isinstance(value, int) and value >= 0),
    "cpu_s": ("a number", _number),
    "t_final": ("a finite number", lambda value: _number(value) and math.isfinite(value)),
    "final_outputs": ("output names and numbers", lambda value: bool(value) and _numbers(value)),
    "statistics": ("names and numbers", _numbers),
    "has_series": ("true or false", lambda value: isinstance(value, bool)),
    "series_sha256": ("a checksum or null", lambda value: value is None or isinstance(value, str)),
    "inputs": ("the inputs of the reference", lambda value: isinstance(value, dict)),
    "sha256": ("a checksum", lambda value: isinstance(value, str)),
}
"""Every field of result.json: what it must be and the test of it."""
RESULT_FIELDS = ("status", "message", "steps", "cpu_s", "t_final", "final_outputs", "statistics")


def _checked(data: Any, key: str) -> dict[str, Any]:
    """``data``, the content of result.json, if it is a whole entry for ``key``; else DamagedEntry."""
    if not isinstance(data, dict):
        raise DamagedEntry(f"result.json holds a {type(data).__name__}, not an entry")
    for name, (meaning, test) in FIELDS.items():
        if name not in data:
            raise DamagedEntry(f"result.json lacks '{name}'")
        if not test(data[name]):
            raise DamagedEntry(f"'{name}' of result.json is not {meaning}")
    unexpected = sorted(set(data) - set(FIELDS))
    if unexpected:
        raise DamagedEntry(f"result.json has the unknown field '{unexpected[0]}'")
    if _digest(data["inputs"])[:24] != key:
        raise DamagedEntry("its inputs are not those of its key")
    if _digest({name: value for name, value in data.items() if name != "sha256"}) != data["sha256"]:
        raise DamagedEntry("result.json does not match its checksum")
    if data["has_series"] != (data["series_sha256"] is not None):
        raise DamagedEntry("'has_series' and 'series_sha256' of result.json disagree")
    return data


def _series(folder: Path, data: dict[str, Any]) -> dict[str, np.ndarray] | None:
    """The entry's series.npz, checked against result.json; DamagedEntry if it is not that."""
    if not data["has_series"]:
        return None
    try:
        with np.load(folder / "series.npz", allow_pickle=False) as stored:
            series = {name: stored[name] for name in stored.files}
    except Exception as error:      # a damaged file fails in many ways (zip, zlib, header, memory): all damage
        raise DamagedEntry(f"series.npz cannot be read ({type(error).__name__})") from None
    if _checksum(series) != data["series_sha256"]:
        raise DamagedEntry("series.npz does not match its checksum")
    return series


def read(key: str, root: Path | None = None) -> RunResult | None:
    """The cached result under ``key``; None if there is no entry; DamagedEntry if there is one that does
    not prove its content (module docstring)."""
    folder = (root or cache_root()) / key
    if not folder.exists():
        return None
    try:
        text = (folder / "result.json").read_text(encoding="utf-8")
    except (OSError, ValueError) as error:
        raise DamagedEntry(f"result.json cannot be read ({type(error).__name__})") from None
    try:
        data = _checked(json.loads(text), key)
    except (ValueError, RecursionError):
        raise DamagedEntry("result.json is not JSON") from None
    series = _series(folder, data)
    return RunResult(series=series, **{name: data[name] for name in RESULT_FIELDS})


def load(key: str, root: Path | None = None) -> RunResult | None:
    """The cached result under ``key``, or None: a missing entry and a damaged one are misses."""
    try:
        return read(key, root)
    except DamagedEntry:
        return None


def save(key: str, spec: RunSpec, samples: int | None, result: RunResult, root: Path | None = None) -> Path:
    """Store ``result`` under ``key`` atomically (a folder renamed into place), replacing an entry
    that is there already."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    target = root / key
    staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
    try:
        data = {"status": result.status, "message": result.message, "steps": int(result.steps),
                "cpu_s": result.cpu_s, "t_final": result.t_final, "final_outputs": result.final_outputs,
                "statistics": result.statistics, "has_series": result.series is not None,
                "series_sha256": _checksum(result.series), "inputs": reference_inputs(spec, samples)}
        data = json.loads(json.dumps(data, default=float))      # the numbers as result.json gives them back
        data["sha256"] = _digest(data)
        if result.series is not None:
            np.savez(staging / "series.npz", **result.series)
        (staging / "result.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
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
    ``use_cache`` false the cache is not read but the fresh result replaces the entry. A damaged entry
    gives a warning and is replaced; a cache that cannot be written (read-only, full) gives a warning and
    the run goes on with the result in memory."""
    key = reference_key(spec, samples)
    if use_cache:
        try:
            hit = read(key)
        except DamagedEntry as damage:
            hit = None
            if warn is not None:
                warn(f"warning: the reference cache entry {cache_root() / key} is damaged ({damage}); "
                     "computing the reference again")
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
