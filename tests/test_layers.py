"""Data flows down the layers (DESIGN.md "Layers"), checked on the import statements of the sources.

The analysis reads result folders and imports no engine module and nothing of the runner; plots and
reports read result folders through the analysis and the store, never the runner; the runner uses
the analysis but none of the layers that read its results (plots, report, CLI, campaign).
"""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lgbench"

ENGINE = {"lie", "mbs", "models", "mechanisms", "integrators"}
READERS = {"plots", "report", "cli", "cli_progress", "campaign"}


def _layer(module: str) -> str | None:
    """``lgbench.runner.grid`` -> ``runner``; ``numba`` -> ``numba``; other modules: None."""
    parts = module.split(".")
    if parts[0] == "numba":
        return "numba"
    if parts[0] != "lgbench" or len(parts) < 2:
        return None
    return parts[1]


def _imported_modules(source: str, package: str) -> set[str]:
    """Every module an ``import`` or ``from ... import`` of ``source`` (a module of ``package``) names,
    also inside functions; relative imports resolved."""
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parents = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            base = ".".join(parents + ([node.module] if node.module else []))
            modules.add(base)
            modules.update(f"{base}.{alias.name}" for alias in node.names)
    return modules


def _imports_of(layer: str) -> dict[str, set[str]]:
    """{file: layers it imports} for every source file of ``layer`` (a package or a top-level module)."""
    files = sorted((PACKAGE / layer).rglob("*.py")) if (PACKAGE / layer).is_dir() else [PACKAGE / f"{layer}.py"]
    assert files and all(path.exists() for path in files), layer
    imports = {}
    for path in files:
        package = ".".join(path.relative_to(PACKAGE.parent).parent.parts)
        layers = {_layer(module) for module in _imported_modules(path.read_text(encoding="utf-8"), package)}
        imports[str(path.relative_to(PACKAGE.parent))] = layers - {None, layer}
    return imports


def _offenders(layer: str, forbidden: set[str]) -> dict[str, set[str]]:
    return {path: found & forbidden for path, found in _imports_of(layer).items() if found & forbidden}


def test_data_flows_down_the_layers():
    assert _offenders("analysis", ENGINE | {"numba", "runner"} | READERS) == {}
    assert _offenders("plots", {"runner"} | ENGINE | {"numba"}) == {}
    assert _offenders("report", {"runner"} | ENGINE | {"numba"}) == {}
    assert _offenders("runner", READERS) == {}
    assert _offenders("store", ENGINE | {"runner", "analysis"} | READERS) == {}


def test_mechanism_files_build_on_the_core_and_read_no_file():
    """lgbench/mechanisms turns a validated mechanism into a model with the core's builder; reading files
    and translating schema errors is the runner's (runner/mechanism_file.py)."""
    assert _offenders("mechanisms", {"runner", "integrators", "analysis", "store"} | READERS) == {}


def test_the_campaign_sits_beside_the_cli_above_runner_and_report():
    assert {"runner", "report"} <= _imports_of("campaign")["lgbench/campaign.py"]
    assert not (PACKAGE / "runner" / "campaign.py").exists()


def test_the_import_scan_sees_lazy_and_relative_imports():
    source = "def f():\n    from lgbench.integrators import INTEGRATORS\nfrom ..runner import grid\nimport numba\n"
    found = {_layer(module) for module in _imported_modules(source, "lgbench.analysis")}
    assert found >= {"integrators", "runner", "numba"}
