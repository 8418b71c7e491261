"""The scopes of the compiled equations of motion (``lgbench/mbs/scope``): both define the same functions, and
the free-bodies scope evaluates the residual and the force tangent of every system it serves exactly as the
multibody scope does."""
import inspect

import numpy as np
import pytest
from numba import njit

from lgbench.integrators.implicit import GENERALIZED_ALPHA, free_bodies_apply, implicit_options
from lgbench.mbs.force_tangent import force_tangent_inline, tangent_workspace
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.mbs.residual import dynamic_residual_inline
from lgbench.mbs.scope import FUNCTIONS, free_bodies, multibody
from lgbench.models import MODELS

SCOPES = (multibody, free_bodies)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_both_scopes_define_every_function_with_the_same_parameters(name):
    assert len({str(inspect.signature(getattr(scope, name).py_func)) for scope in SCOPES}) == 1
    for scope in SCOPES:
        assert getattr(scope, name).targetoptions.get("inline") == "always"


@njit(inline="always")
def _residual_and_tangent(scope, sys, q, v, a, lam, t, M, C, force, torque, g, r, tw, Kg, Cg, flags):
    dynamic_residual_inline(scope, sys, q, v, a, lam, t, M, C, force, torque, g, r)
    force_tangent_inline(scope, sys, q, v, t, force, torque, tw, Kg, Cg, flags[0], flags[1])


@njit
def _with_multibody(sys, q, v, a, lam, t, M, C, force, torque, g, r, tw, Kg, Cg, flags):
    _residual_and_tangent(multibody, sys, q, v, a, lam, t, M, C, force, torque, g, r, tw, Kg, Cg, flags)


@njit
def _with_free_bodies(sys, q, v, a, lam, t, M, C, force, torque, g, r, tw, Kg, Cg, flags):
    _residual_and_tangent(free_bodies, sys, q, v, a, lam, t, M, C, force, torque, g, r, tw, Kg, Cg, flags)


def _evaluate(evaluate, system, q, v, a, lam):
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    nb = system.body_int.shape[0]
    groups = system.force_groups.shape
    out = (np.zeros((nv, nv)), np.zeros((nc, nv)), np.zeros((nb, 3)), np.zeros((nb, 3)), np.zeros(nv), np.zeros(nv))
    blocks = (np.zeros((groups[0], groups[1], groups[1])), np.zeros((groups[0], groups[1], groups[1])))
    # with_loads, with_damper_position: booleans, not literals (the compiled signatures of the kernels
    # they reach stay those of the entry points, tests/test_compile_plan.py)
    evaluate(system, q, v, a, lam, 0.3, *out, tangent_workspace(system), *blocks, np.array([True, True]))
    return out + blocks


@pytest.mark.parametrize("model, formulation", [
    (name, formulation) for name, model in MODELS.items() for formulation in IMPLICIT_FORMULATIONS
    if formulation in model.formulations
    and free_bodies_apply(model.build(formulation).system, implicit_options(GENERALIZED_ALPHA, {})[1])])
def test_free_bodies_scope_evaluates_what_the_multibody_scope_does(model, formulation):
    """M, B, the loads, g, the residual and the group blocks of K_t and C_t at a random state, bit for bit."""
    built = MODELS[model].build(formulation)
    rng = np.random.default_rng(7)
    nv, nc = int(built.system.sizes[1]), int(built.system.sizes[2])
    q = built.q0 + 0.05 * rng.normal(size=built.q0.shape)
    v, a, lam = rng.normal(size=nv), rng.normal(size=nv), rng.normal(size=nc)
    for general, free in zip(_evaluate(_with_multibody, built.system, q, v, a, lam),
                             _evaluate(_with_free_bodies, built.system, q, v, a, lam)):
        np.testing.assert_array_equal(general, free)
