"""The implicit steppers' linear algebra is a module, dense or banded, chosen by the entry point: each
solver defines the same functions, each workspace reaches the entry point of its solver, and the compile
tasks of a study tell the two apart."""
import inspect

import numpy as np
import pytest

from lgbench.integrators import INTEGRATORS
from lgbench.integrators import generalized_alpha as ga
from lgbench.integrators import hht
from lgbench.integrators.implicit import implicit_options
from lgbench.integrators.linear_algebra import FUNCTIONS, banded, dense
from lgbench.integrators.newton import N_STATISTICS
from lgbench.models import MODELS
from lgbench.runner.precompile import compile_group
from lgbench.runner.single_run import RunSpec


@pytest.mark.parametrize("name", FUNCTIONS)
def test_both_solvers_define_every_function_with_the_same_parameters(name):
    signatures = [inspect.signature(getattr(module, name).py_func) for module in (dense, banded)]
    assert signatures[0] == signatures[1]
    assert getattr(dense, name).targetoptions.get("inline") == "always"
    assert getattr(banded, name).targetoptions.get("inline") == "always"


@pytest.mark.parametrize("model, family, solver", [
    ("heavy_top", "generalized-alpha", "dense"), ("v8_crank", "generalized-alpha", "banded"),
    ("heavy_top", "hht", "dense"), ("v8_crank", "hht", "banded"),
])
def test_a_workspace_reaches_the_entry_point_of_its_solver(model, family, solver):
    system = MODELS[model].build("EP").system
    integrator = INTEGRATORS[family]
    assert integrator.linear_algebra(system, {}) == solver
    workspace = ga.make_workspace(system, 3, "auto")
    module = ga if family == "generalized-alpha" else hht
    expected = {("generalized-alpha", "dense"): ga.integrate_implicit,
                ("generalized-alpha", "banded"): ga.integrate_implicit_banded,
                ("hht", "dense"): hht.integrate_hht, ("hht", "banded"): hht.integrate_hht_banded}
    assert module.integrate(workspace) is expected[family, solver]


def test_the_dense_entry_point_refuses_a_banded_workspace():
    built = MODELS["v8_crank"].build("EP")
    system = built.system
    nq, nv, nc = (int(x) for x in system.sizes)
    integrator = INTEGRATORS["generalized-alpha"]
    opts, merged = implicit_options(integrator, {})
    workspace = ga.make_workspace(system, 3, "auto")
    assert workspace.band.active
    with pytest.raises(ValueError, match="dense workspace"):
        ga.integrate_implicit(system, integrator.method(merged).as_array(), opts, built.q0.copy(), built.v0.copy(),
                              np.zeros(nv), np.zeros(nv), np.zeros(nc), 0.0, 1e-4, 1e-4, np.zeros(0),
                              np.zeros((0, nq)), np.zeros((0, nv)), np.zeros((0, nc)), workspace,
                              np.zeros(N_STATISTICS), np.zeros(1, dtype=bool))


def test_compile_tasks_tell_a_banded_model_from_a_dense_one():
    dense_run = RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0)
    banded_run = RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.01)
    forced_dense = RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.01,
                           options=(("linear_algebra", "dense"),))
    assert compile_group(dense_run)[-1] == "dense" and compile_group(banded_run)[-1] == "banded"
    assert compile_group(dense_run) != compile_group(banded_run)
    assert compile_group(dense_run) == compile_group(forced_dense)
    assert compile_group(RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0))[-1] == ""
