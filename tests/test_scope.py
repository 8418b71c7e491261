"""The scopes of the compiled equations of motion (``lgbench/mbs/scope``): both define the same functions, and
the free-bodies scope evaluates the residual and the force tangent of every system it serves exactly as the
multibody scope does."""
import inspect

import numpy as np
import pytest

from lgbench._compiled import kernel
from lgbench.integrators.implicit import GENERALIZED_ALPHA, free_bodies_apply, implicit_options
from lgbench.integrators.starting_values import consistent_accelerations, consistent_accelerations_free_bodies
from lgbench.mbs.force_tangent import force_tangent_inline, tangent_workspace
from lgbench.mbs.codes import ForceType
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.mbs.loads import ELEMENTARY_LOADS, is_elementary_load
from lgbench.mbs.residual import dynamic_residual, dynamic_residual_inline
from lgbench.mbs.scope import FUNCTIONS, free_bodies, multibody
from lgbench.models import MODELS

from compiled_calls import force_tangent

SCOPES = (multibody, free_bodies)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_both_scopes_define_every_function_with_the_same_parameters(name):
    assert len({str(inspect.signature(getattr(scope, name).py_func)) for scope in SCOPES}) == 1
    for scope in SCOPES:
        assert getattr(scope, name).targetoptions.get("inline") == "always"


@pytest.mark.parametrize("force_type", list(ForceType), ids=lambda force_type: force_type.name)
def test_the_elementary_loads_are_the_same_in_python_and_in_the_kernels(force_type):
    """``implicit.free_bodies_apply`` reads ``ELEMENTARY_LOADS``, the compiled code ``is_elementary_load``."""
    assert (int(force_type) in ELEMENTARY_LOADS) == is_elementary_load(int(force_type))


@kernel
def _free_bodies_residual(sys, q, v, a, lam, t, M, C, force, torque, g, r):
    dynamic_residual_inline(free_bodies, sys, q, v, a, lam, t, M, C, force, torque, g, r)


@kernel
def _free_bodies_tangent(sys, q, v, t, force, torque, tw, Kg, Cg, with_loads, with_damper_position):
    force_tangent_inline(free_bodies, sys, q, v, t, force, torque, tw, Kg, Cg, with_loads, with_damper_position)


def _evaluate(residual, tangent, system, q, v, a, lam):
    """M, B, force, torque, g, r and the group blocks of K_t, C_t at (q, v, a, lam, t = 0.3)."""
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    nb = system.body_int.shape[0]
    groups = system.force_groups.shape
    M, C, force, torque, g, r = (np.zeros((nv, nv)), np.zeros((nc, nv)), np.zeros((nb, 3)), np.zeros((nb, 3)),
                                 np.zeros(nv), np.zeros(nv))
    Kg, Cg = np.zeros((groups[0], groups[1], groups[1])), np.zeros((groups[0], groups[1], groups[1]))
    residual(system, q, v, a, lam, 0.3, M, C, force, torque, g, r)
    tangent(system, q, v, 0.3, force, torque, tangent_workspace(system), Kg, Cg, True, True)
    return M, C, force, torque, g, r, Kg, Cg


FREE_BODIES = [
    (name, formulation) for name, model in MODELS.items() for formulation in IMPLICIT_FORMULATIONS
    if formulation in model.formulations
    and free_bodies_apply(model.build(formulation).system, implicit_options(GENERALIZED_ALPHA, {})[1])]
"""Every registry model x formulation that the free-bodies scope serves (with generalized-alpha's defaults)."""


def test_the_free_bodies_scope_serves_the_rigid_body_models_with_and_without_norm_constraints():
    assert {("heavy_top", "RV"), ("heavy_top", "EP"), ("rotor", "Rxyz")} <= set(FREE_BODIES)


@pytest.mark.parametrize("model, formulation", FREE_BODIES)
def test_free_bodies_scope_evaluates_what_the_multibody_scope_does(model, formulation):
    """M, B, the loads, g, the residual and the group blocks of K_t and C_t at a random state, bit for bit
    (the multibody scope through compiled calls kept in the cache)."""
    built = MODELS[model].build(formulation)
    rng = np.random.default_rng(7)
    nv, nc = int(built.system.sizes[1]), int(built.system.sizes[2])
    q = built.q0 + 0.05 * rng.normal(size=built.q0.shape)
    v, a, lam = rng.normal(size=nv), rng.normal(size=nv), rng.normal(size=nc)
    general = _evaluate(dynamic_residual, force_tangent, built.system, q, v, a, lam)
    free = _evaluate(_free_bodies_residual, _free_bodies_tangent, built.system, q, v, a, lam)
    for expected, found in zip(general, free):
        np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize("model, formulation", FREE_BODIES)
def test_free_bodies_consistent_accelerations_are_the_multibody_ones(model, formulation):
    """v'(0), lambda(0) of paper 002 eq. (19) at a random state (the Euler parameters off their norm, so
    that the curvature rows enter), bit for bit."""
    built = MODELS[model].build(formulation)
    rng = np.random.default_rng(11)
    nv, nc = int(built.system.sizes[1]), int(built.system.sizes[2])
    q = built.q0 + 0.05 * rng.normal(size=built.q0.shape)
    v = rng.normal(size=nv)
    found = []
    for accelerations in (consistent_accelerations, consistent_accelerations_free_bodies):
        vd, lam = np.zeros(nv), np.zeros(nc)
        assert accelerations(built.system, q, v, 0.3, vd, lam)
        found.append((vd, lam))
    for expected, result in zip(*found):
        np.testing.assert_array_equal(result, expected)
