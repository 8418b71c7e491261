"""Plugins: models, integrators, tableaus and error measures from other installed packages.

A package registers entries through Python entry points in these groups (``pyproject.toml``:
``[project.entry-points."lgbench.models"]``), each pointing at an object of the same kind as the
built-in ones, or at a list of them:

| group | object |
|---|---|
| ``lgbench.models`` | a ``lgbench.models.Model`` (its ``build`` gives a ``BuiltModel``; ``lgbench.mechanisms.build.mechanism_model`` makes one from a mechanism) |
| ``lgbench.integrators`` | an integrator: ``name``, ``kind``, ``order``, ``formulations``, ``validate_options``, ``integrate`` (as ``ImplicitIntegrator``) |
| ``lgbench.tableaus`` | a ``lgbench.integrators.ButcherTableau``: registered as NAME (RK, RKMK, adaptive with E) and NAME-index1 |
| ``lgbench.error_measures`` | a function ``(run, reference, outputs, window) -> float``, named by the entry point (``needs_series`` attribute if it reads the series) |

Each registry (``MODELS``, ``INTEGRATORS``, ``MEASURES``) is a ``Registry``: it takes its plugins' entries
when it is first read, in every process (worker processes find the same installed entry points), so
that a plugin may import lgbench's modules (and so the registries') while it is being loaded. A plugin that cannot be loaded,
gives an object of the wrong kind or takes a built-in name is one PluginError (an InputError) naming the package and the
entry point; so is a plugin that raises anything while it is loaded, ``SystemExit`` and ``KeyboardInterrupt``
included, and every later read of that registry raises it again. ``ORIGINS`` records where every plugin entry
comes from (``lgbench list``), ``PLUGINS`` the package and code behind it (``Plugin.identity``: part of the
run ids and reference-cache keys of the runs that use it).
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from lgbench.exceptions import InputError, PluginError

BUILT_IN = "lgbench"
ORIGINS: dict[tuple[str, str], str] = {}
"""(group, registry name) -> "plugin DISTRIBUTION VERSION (entry point NAME = MODULE:OBJECT)"."""
CACHE_SUFFIXES = (".pyc", ".pyo", ".nbi", ".nbc")
"""Files a package's code leaves next to itself when it runs (Python's and numba's caches), not code."""


@dataclass(frozen=True)
class Plugin:
    """The installed package behind a plugin entry and the module its entry point names."""

    package: str | None
    version: str | None
    module: str

    def identity(self) -> dict[str, str | None]:
        """Package, version and ``code_hash`` of the entry point's top-level package."""
        return {"package": self.package, "version": self.version, "code": code_hash(self.module.partition(".")[0])}


PLUGINS: dict[tuple[str, str], Plugin] = {}
"""(group, registry name) -> the Plugin that registered it."""


@lru_cache(maxsize=None)
def code_hash(module: str) -> str:
    """sha256 (16 hex digits) over the paths and bytes of the files of the importable package (or single
    module) ``module``, caches left out: any edit of its code or data changes it."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = None
    if found is None:
        return "not found"
    if found.submodule_search_locations:
        roots = [Path(location) for location in found.submodule_search_locations]
        files = [(root, path) for root in roots for path in root.rglob("*")
                 if path.is_file() and "__pycache__" not in path.relative_to(root).parts
                 and path.suffix not in CACHE_SUFFIXES]
    elif found.origin and Path(found.origin).is_file():
        files = [(Path(found.origin).parent, Path(found.origin))]
    else:
        return "built in"
    digest = hashlib.sha256()
    for root, path in sorted(files, key=lambda pair: pair[1].relative_to(pair[0]).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def identities(plugins: Iterable[Plugin | None]) -> list[dict[str, str | None]]:
    """``Plugin.identity`` of each distinct plugin of ``plugins`` (None: a built-in entry, left out), sorted."""
    unique = {tuple(plugin.identity().items()) for plugin in plugins if plugin is not None}
    return [dict(items) for items in sorted(unique, key=str)]


def origin(group: str, name: str) -> str:
    """Where registry entry ``name`` of ``group`` comes from: "lgbench" or its plugin."""
    return ORIGINS.get((group, name), BUILT_IN)


def _origin_of(point: Any) -> str:
    distribution = getattr(point, "dist", None)
    package = f"{distribution.name} {distribution.version}" if distribution is not None else "an unnamed package"
    return f"plugin {package} (entry point {point.name} = {point.value})"


def _plugin_of(point: Any) -> Plugin:
    distribution = getattr(point, "dist", None)
    return Plugin(distribution.name if distribution is not None else None,
                  distribution.version if distribution is not None else None, point.module)


def _described(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def _reraise_signal(error: BaseException) -> None:
    """Raise ``error`` again if it is a Ctrl-C or SIGTERM of the command line (``cli_progress.Interrupted``, if
    the command line is running), not something the plugin raised."""
    progress = sys.modules.get("lgbench.cli_progress")
    if progress is not None and isinstance(error, progress.Interrupted):
        raise error


def extend_registry(registry: dict[str, Any], group: str, entries: Callable[[str, Any], dict[str, Any]]) -> None:
    """Add to ``registry`` the entries of every installed entry point of ``group``: ``entries(entry point
    name, loaded object)`` gives them by registry name, or raises TypeError for an object of the wrong
    kind."""
    for point in sorted(entry_points(group=group), key=lambda point: (point.value, point.name)):
        source = _origin_of(point)
        try:
            loaded = point.load()
        except BaseException as error:     # third-party code: whatever it raises, an exit too, is the plugin's
            _reraise_signal(error)
            raise PluginError(f"{source} cannot be loaded: {_described(error)}", field=group) from None
        try:
            found = entries(point.name, loaded)
        except (TypeError, ValueError) as error:
            raise PluginError(f"{source}: {error}", field=group) from None
        except BaseException as error:     # the plugin's object raised while it was read
            _reraise_signal(error)
            raise PluginError(f"{source} cannot be loaded: {_described(error)}", field=group) from None
        for name, value in found.items():
            if dict.__contains__(registry, name):
                taken = origin(group, name)
                raise PluginError(f"{source} registers '{name}', which {taken} has registered already", field=group,
                                 allowed="a name no built-in entry and no other plugin has")
            dict.__setitem__(registry, name, value)
            ORIGINS[(group, name)] = source
            PLUGINS[(group, name)] = _plugin_of(point)


class Registry(dict):
    """Name -> entry, the built-in entries first; the entries of the plugins of ``groups`` ((entry point
    group, conversion) pairs, see ``extend_registry``) are added when the registry is first read. A plugin
    that cannot be loaded makes that read and every later one raise its InputError."""

    def __init__(self, entries: dict[str, Any], *groups: tuple[str, Callable[[str, Any], dict[str, Any]]]):
        super().__init__(entries)
        self._groups = list(groups)
        self.groups = tuple(group for group, _ in groups)
        self._failure: InputError | None = None

    def _load(self) -> None:
        if self._failure is not None:
            raise self._failure
        groups, self._groups = self._groups, []
        try:
            for group, entries in groups:
                extend_registry(self, group, entries)
        except InputError as error:
            self._failure = error
            raise

    def plugin(self, name: str) -> Plugin | None:
        """The plugin that registered ``name``; None for a built-in entry or an unknown name."""
        self._load()
        return next((PLUGINS[(group, name)] for group in self.groups if (group, name) in PLUGINS), None)

    def __getitem__(self, name):
        self._load()
        return super().__getitem__(name)

    def __contains__(self, name) -> bool:
        self._load()
        return super().__contains__(name)

    def __iter__(self):
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def get(self, name, default=None):
        self._load()
        return super().get(name, default)

    def keys(self):
        self._load()
        return super().keys()

    def values(self):
        self._load()
        return super().values()

    def items(self):
        self._load()
        return super().items()


def each(loaded: Any, kind: type, what: str) -> list[Any]:
    """The loaded object, or the members of a loaded list, all instances of ``kind``."""
    items = list(loaded) if isinstance(loaded, list | tuple) else [loaded]
    for item in items:
        if not isinstance(item, kind):
            raise TypeError(f"expected {what}, got {type(item).__name__}")
    return items
