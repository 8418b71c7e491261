"""Numba cache location keyed by the lgbench sources.

numba's on-disk cache checks only the file that defines a function, not the files it calls; an edited
kernel in one module would leave stale machine code in its callers. Keying the cache directory by a hash
of every source file of the compiled layers makes any change recompile everything once.
``LGBENCH_CACHE_DIR`` moves the root (default: ~/.cache/lgbench).

numba files each module's machine code under a directory named after the module's absolute path, so a
second checkout of the same sources (a fresh clone, a worktree, CI in a new directory) would compile
everything again beside the first. ``CheckoutIndependentLocator`` files lgbench's modules under their
path inside the package instead: the hash directory already says which sources they are, and numba still
checks each file's content hash before it loads anything.
"""
import hashlib
import os
from pathlib import Path


COMPILED_PACKAGES = ("lie", "mbs", "integrators", "models")
HASHED_FILES = ("_compiled.py",)     # how the packages are compiled (lgbench/_compiled.py)


def source_hash(root: Path | None = None) -> str:
    """Hash of the packages that hold compiled kernels and of the settings they are compiled with, in the
    lgbench package at ``root`` (default: this one)."""
    root = Path(__file__).resolve().parent if root is None else root
    digest = hashlib.sha256()
    paths = [p for package in COMPILED_PACKAGES for p in (root / package).rglob("*.py")]
    paths += [root / name for name in HASHED_FILES]
    for path in sorted(paths):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


PACKAGE_ROOT = Path(__file__).resolve().parent


def _checkout_independent_locator():
    """numba's locator for ``numba.config.CACHE_DIR``, with the directory of a module of this package
    named by the module's path inside the package rather than by its absolute path."""
    from numba.core import caching, config

    class CheckoutIndependentLocator(caching.UserProvidedCacheLocator):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            inside = Path(py_file).resolve().relative_to(PACKAGE_ROOT).parent
            self._cache_path = os.path.join(config.CACHE_DIR, "lgbench", *inside.parts)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not config.CACHE_DIR or not Path(py_file).resolve().is_relative_to(PACKAGE_ROOT):
                return None
            return super().from_function(py_func, py_file)

    return CheckoutIndependentLocator


def use_checkout_independent_locator() -> bool:
    """Put ``CheckoutIndependentLocator`` first among numba's cache locators (numba's own
    ``CACHE_LOCATOR_CLASSES`` setting, which a user's ``NUMBA_CACHE_LOCATOR_CLASSES`` overrides). False,
    and numba's defaults, where this numba has no such setting."""
    from numba.core import caching, config

    if not hasattr(config, "CACHE_LOCATOR_CLASSES") or not hasattr(caching, "UserProvidedCacheLocator"):
        return False
    if config.CACHE_LOCATOR_CLASSES:
        return config.CACHE_LOCATOR_CLASSES.split(",")[0].strip() == LOCATOR_PATH
    global CheckoutIndependentLocator
    CheckoutIndependentLocator = _checkout_independent_locator()
    defaults = [cls.__name__ for cls in caching.CacheImpl._locator_classes]
    config.CACHE_LOCATOR_CLASSES = ",".join([LOCATOR_PATH, *defaults])
    return True


LOCATOR_PATH = f"{__name__}.CheckoutIndependentLocator"
CheckoutIndependentLocator = None


def configure_numba_cache() -> str:
    import numba

    base = Path(os.environ.get("LGBENCH_CACHE_DIR", Path.home() / ".cache" / "lgbench"))
    directory = base / "numba" / source_hash()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return str(numba.config.CACHE_DIR)
    numba.config.CACHE_DIR = str(directory)
    use_checkout_independent_locator()
    return str(directory)


COMPILE_MINUTES = "1-2.5 min"
"""How long the first compilation of a study takes on a 2-core machine, in parallel (runner/precompile.py):
the flagship's, with an empty cache, from about 1 min on a fast 2-vCPU machine (generalized-alpha's
free-bodies entry point on one core, the rigid-body RK67, the starting values and the outputs on the
other) to 2.5 min on a slow one (docs/performance.md, "Compile time")."""


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
