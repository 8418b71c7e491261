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
gives an object of the wrong kind or takes a built-in name is one InputError naming the package and the
entry point. ``ORIGINS`` records where every plugin entry comes from (``lgbench list``).
"""
from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from lgbench.exceptions import InputError

BUILT_IN = "lgbench"
ORIGINS: dict[tuple[str, str], str] = {}
"""(group, registry name) -> "plugin DISTRIBUTION VERSION (entry point NAME = MODULE:OBJECT)"."""


def origin(group: str, name: str) -> str:
    """Where registry entry ``name`` of ``group`` comes from: "lgbench" or its plugin."""
    return ORIGINS.get((group, name), BUILT_IN)


def _origin_of(point: Any) -> str:
    distribution = getattr(point, "dist", None)
    package = f"{distribution.name} {distribution.version}" if distribution is not None else "an unnamed package"
    return f"plugin {package} (entry point {point.name} = {point.value})"


def extend_registry(registry: dict[str, Any], group: str, entries: Callable[[str, Any], dict[str, Any]]) -> None:
    """Add to ``registry`` the entries of every installed entry point of ``group``: ``entries(entry point
    name, loaded object)`` gives them by registry name, or raises TypeError for an object of the wrong
    kind."""
    for point in sorted(entry_points(group=group), key=lambda point: (point.value, point.name)):
        source = _origin_of(point)
        try:
            loaded = point.load()
        except Exception as error:     # a third-party import: any failure is the plugin's
            lines = str(error).strip().splitlines()
            raise InputError(f"{source} cannot be loaded: {type(error).__name__}: {lines[0] if lines else ''}",
                             field=group) from None
        try:
            found = entries(point.name, loaded)
        except (TypeError, ValueError) as error:
            raise InputError(f"{source}: {error}", field=group) from None
        for name, value in found.items():
            if dict.__contains__(registry, name):
                taken = origin(group, name)
                raise InputError(f"{source} registers '{name}', which {taken} has registered already", field=group,
                                 allowed="a name no built-in entry and no other plugin has")
            dict.__setitem__(registry, name, value)
            ORIGINS[(group, name)] = source


class Registry(dict):
    """Name -> entry, the built-in entries first; the entries of the plugins of ``groups`` ((entry point
    group, conversion) pairs, see ``extend_registry``) are added when the registry is first read."""

    def __init__(self, entries: dict[str, Any], *groups: tuple[str, Callable[[str, Any], dict[str, Any]]]):
        super().__init__(entries)
        self._groups = list(groups)

    def _load(self) -> None:
        groups, self._groups = self._groups, []
        for group, entries in groups:
            extend_registry(self, group, entries)

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
