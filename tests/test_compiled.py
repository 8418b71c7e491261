"""How the compiled core is compiled (``lgbench/_compiled.py``), checked on every compiled function of
the compiled packages: an integration run that Python calls is an ``entry_point`` (no reference
counting, so no allocation; the explicit families' runs allocate their stage arrays), every other
function is a ``kernel`` (reference counting whoever calls it) or is inlined where it is called."""
import importlib
import pkgutil

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

import lgbench
from lgbench._compiled import entry_point, kernel

COMPILED_PACKAGES = ("lie", "mbs", "integrators", "models")


def compiled_functions():
    """{qualified name: dispatcher} of every function compiled by numba in the compiled packages."""
    found = {}
    for package in COMPILED_PACKAGES:
        root = importlib.import_module(f"lgbench.{package}")
        modules = [root] + [importlib.import_module(info.name)
                            for info in pkgutil.walk_packages(root.__path__, root.__name__ + ".")]
        for module in modules:
            for name, value in vars(module).items():
                if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                    found[f"{module.__name__}.{name}"] = value
    return found


FUNCTIONS = compiled_functions()


def kind(dispatcher) -> str:
    options = dispatcher.targetoptions
    if options.get("inline") == "always":
        return "inlined"
    if options.get("_nrt") is False and options.get("nogil"):
        return "entry point"
    if options.get("_nrt") is True and options.get("nogil"):
        return "allocating entry point"
    if options.get("_nrt") is True:
        return "kernel"
    return "unmarked"


def test_the_package_has_compiled_functions_of_the_three_kinds():
    kinds = [kind(d) for d in FUNCTIONS.values()]
    assert kinds.count("kernel") > 200 and kinds.count("inlined") > 100 and kinds.count("entry point") >= 7


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_compiled_function_is_a_kernel_an_entry_point_or_inlined(name):
    """A plain ``@njit`` called from an entry point would be compiled without reference counting and then
    served from the disk cache, without counting, to every other caller."""
    assert kind(FUNCTIONS[name]) != "unmarked", f"{name}: use lgbench._compiled.kernel (or inline it)"


def test_the_entry_points_are_the_integration_runs():
    entries = sorted(name.rsplit(".", 1)[1] for name, d in FUNCTIONS.items() if kind(d) == "entry point")
    assert entries == sorted(["integrate_implicit", "integrate_implicit_banded", "integrate_implicit_free_bodies",
                              "integrate_hht", "integrate_hht_banded", "integrate_index1_rk",
                              "integrate_index1_adaptive", "integrate_intrinsic"])
    allocating = sorted(name.rsplit(".", 1)[1] for name, d in FUNCTIONS.items() if kind(d) == "allocating entry point")
    assert allocating == ["integrate_explicit", "integrate_explicit_adaptive", "integrate_explicit_rigid_bodies"]


def test_an_entry_point_cannot_allocate_and_a_kernel_can():
    """What makes the entry points allocation-free by construction: the compiler refuses np.zeros there."""
    def fresh_in_kernel(n):
        return np.zeros(n)[0]

    def fresh_in_entry_point(n):
        return np.zeros(n)[0]

    assert kernel(fresh_in_kernel)(3) == 0.0
    with pytest.raises(Exception, match="zeros"):     # no implementation of np.zeros without counting
        entry_point(fresh_in_entry_point)(3)


def test_the_compile_settings_are_part_of_the_cache_key(tmp_path):
    """Changing how the core is compiled must not load machine code compiled the other way."""
    import shutil
    from pathlib import Path

    from lgbench._compile_cache import source_hash

    copy = tmp_path / "lgbench"
    shutil.copytree(Path(lgbench.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = source_hash(copy)
    assert before == source_hash()
    settings = copy / "_compiled.py"
    settings.write_text(settings.read_text().replace("_nrt=False", "_nrt=True"))
    assert source_hash(copy) != before
