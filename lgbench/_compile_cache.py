"""Numba cache location keyed by the lgbench sources.

numba's on-disk cache checks only the timestamp of the file that defines a function, not of the
files it calls; an edited kernel in one module would leave stale machine code in its callers.
Keying the cache directory by a hash of every source file of the compiled layers makes any change recompile
everything once. ``LGBENCH_CACHE_DIR`` moves the root (default: ~/.cache/lgbench).
"""
import hashlib
import os
from pathlib import Path


COMPILED_PACKAGES = ("lie", "mbs", "integrators", "models")


def source_hash() -> str:
    """Hash of the packages that hold compiled kernels."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    paths = [p for package in COMPILED_PACKAGES for p in (root / package).rglob("*.py")]
    for path in sorted(paths):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure_numba_cache() -> str:
    import numba

    base = Path(os.environ.get("LGBENCH_CACHE_DIR", Path.home() / ".cache" / "lgbench"))
    directory = base / "numba" / source_hash()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return str(numba.config.CACHE_DIR)
    numba.config.CACHE_DIR = str(directory)
    return str(directory)


COMPILE_MINUTES = "2 min"
"""How long the first compilation of a study takes on a 2-core machine, in parallel (runner/precompile.py;
flagship, measured 2026-11-26 at stop 33: 103 s of wall time, of which 100 s the generalized-alpha entry
point)."""


def is_cold(directory: str | None = None) -> bool:
    """Whether the cache for these sources holds no compiled code yet (the next run compiles)."""
    import lgbench

    root = Path(directory or lgbench.NUMBA_CACHE_DIR)
    return not any(root.rglob("*.nbi"))


def compile_notice() -> str | None:
    """The line to show before a first run compiles the engine, or None with a warm cache."""
    if not is_cold():
        return None
    return f"compiling the engine for this machine, once, about {COMPILE_MINUTES} (later runs start at once)"
