"""The implicit steppers' linear algebra is a module, dense, banded or dense for free bodies, chosen by the
entry point: each solver defines the same functions, each run reaches the entry point of its solver, the
compile tasks of a study tell them apart, and the free-bodies solver gives the dense one's results to the
last bit on every model and formulation it serves."""
import inspect

import numpy as np
import pytest

from lgbench.integrators import INTEGRATORS
from lgbench.integrators import generalized_alpha as ga
from lgbench.integrators import hht
from lgbench.integrators.implicit import GENERALIZED_ALPHA, compiled_solver, free_bodies_apply, implicit_options
from lgbench.integrators.linear_algebra import FUNCTIONS, banded, dense, free_bodies
from lgbench.integrators.starting_values import consistent_accelerations
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.integrators.newton import N_STATISTICS
from lgbench.models import MODELS
from lgbench.runner.precompile import compile_group
from lgbench.runner.single_run import RunSpec


SOLVERS = (dense, banded, free_bodies)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_solver_defines_every_function_with_the_same_parameters(name):
    signatures = {str(inspect.signature(getattr(module, name).py_func)) for module in SOLVERS}
    assert len(signatures) == 1
    for module in SOLVERS:
        assert getattr(module, name).targetoptions.get("inline") == "always"


@pytest.mark.parametrize("model, family, solver", [
    ("heavy_top", "generalized-alpha", "free-bodies"), ("heavy_top_constrained", "generalized-alpha", "dense"),
    ("v8_crank", "generalized-alpha", "banded"), ("heavy_top", "hht", "dense"), ("v8_crank", "hht", "banded"),
])
def test_a_run_reaches_the_entry_point_of_its_solver(model, family, solver):
    system = MODELS[model].build("EP").system
    integrator = INTEGRATORS[family]
    assert integrator.linear_algebra(system, {}) == solver
    if family == "generalized-alpha":
        expected = {"dense": ga.integrate_implicit, "banded": ga.integrate_implicit_banded,
                    "free-bodies": ga.integrate_implicit_free_bodies}
        assert ga.ENTRY_POINTS[solver] is expected[solver]
    else:
        expected = {"dense": hht.integrate_hht, "banded": hht.integrate_hht_banded}
        assert hht.integrate(ga.make_workspace(system, 3, "auto")) is expected[solver]


@pytest.mark.parametrize("model, formulation, options, applies", [
    ("heavy_top", "RV", {}, True), ("heavy_top", "EP", {}, True), ("heavy_top", "Rxyz", {"texp": True}, True),
    ("rotor", "SE3", {}, True),
    ("heavy_top", "EP", {"index": 2}, False), ("heavy_top", "RV", {"jacobian": "finite-difference"}, False),
    ("heavy_top", "RV", {"tangent": "full"}, False), ("heavy_top", "RV", {"loads_jacobian": False}, False),
    ("heavy_top_constrained", "RV", {}, False), ("puma560", "RV", {}, False), ("puma560", "Min", {}, False),
    ("spinning_body", "EP", {}, False), ("manufactured_body", "RV", {}, False),
])
def test_free_bodies_serve_what_has_no_joint_chain_or_other_force_element(model, formulation, options, applies):
    """No joint (Euler-parameter norms at index 3 only), no chain, elementary loads only, analytic K_t and C_t
    of every force: otherwise the general dense solver."""
    system = MODELS[model].build(formulation).system
    merged = implicit_options(GENERALIZED_ALPHA, options)[1]
    assert free_bodies_apply(system, merged) is applies
    assert (compiled_solver(system, merged) == "free-bodies") is applies


def _free_body_cases():
    """Every model and implicit formulation of the registry that the free-bodies solver serves."""
    merged = implicit_options(GENERALIZED_ALPHA, {})[1]
    cases = []
    for name, model in MODELS.items():
        for formulation in IMPLICIT_FORMULATIONS:
            if formulation not in model.formulations:
                continue
            if free_bodies_apply(model.build(formulation).system, merged):
                cases.append((name, formulation))
    return cases


def _steps(entry_point, built, options, steps=40, h=1e-5):
    """``steps`` generalized-alpha steps of ``entry_point`` from consistent accelerations: state and statistics."""
    system = built.system
    nq, nv, nc = (int(x) for x in system.sizes)
    opts, merged = implicit_options(GENERALIZED_ALPHA, options)
    q, v, vd, lam = built.q0.copy(), built.v0.copy(), np.zeros(nv), np.zeros(nc)
    consistent_accelerations(system, q, v, 0.0, vd, lam)
    a_alg, stats = vd.copy(), np.zeros(N_STATISTICS)
    code, done, _ = entry_point(system, GENERALIZED_ALPHA.method(merged).as_array(), opts, q, v, vd, a_alg, lam,
                                0.0, steps * h, h, np.zeros(0), np.zeros((0, nq)), np.zeros((0, nv)),
                                np.zeros((0, nc)), ga.make_workspace(system, 3, "dense"), stats,
                                np.zeros(1, dtype=bool))
    assert code == 0 and done == steps
    return q, v, vd, a_alg, lam, stats


@pytest.mark.parametrize("model, formulation", _free_body_cases())
@pytest.mark.parametrize("options", [{}, {"newton": "modified", "texp": True}], ids=["full", "modified-texp"])
def test_free_bodies_solver_gives_the_dense_results_to_the_last_bit(model, formulation, options):
    built = MODELS[model].build(formulation)
    general = _steps(ga.integrate_implicit, built, options)
    free = _steps(ga.integrate_implicit_free_bodies, built, options)
    for a, b in zip(general, free):
        np.testing.assert_array_equal(a, b)


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


def test_compile_tasks_tell_the_solvers_apart():
    dense_run = RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 1e-3, 1.0)
    banded_run = RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.01)
    free_run = RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0)
    forced_dense = RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.01,
                           options=(("linear_algebra", "dense"),))
    assert [compile_group(run)[-1] for run in (dense_run, banded_run, free_run)] == ["dense", "banded", "free-bodies"]
    assert compile_group(dense_run) == compile_group(forced_dense)
    assert compile_group(RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0))[-1] == "rigid-bodies"
    assert compile_group(RunSpec("heavy_top", "RV", "intrinsic-energy-momentum", 1e-3, 1.0))[-1] == ""
