"""The allocation-free kernels of the explicit right-hand side (lgbench/lie/*_apply, kernels.RhsWork).

Each vector kernel is checked against the matrix it replaces (to a few ulps), and a whole explicit
integration is checked to allocate a fixed number of arrays, independent of the number of steps.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lgbench.lie.euler_parameters import ep_from_rotation_vector, rotation_ep_transpose_apply, rotation_matrix_ep
from lgbench.lie.so3 import (
    compose_rotation_vectors, compose_rotation_vectors_tuple, exp_so3, exp_so3_apply, exp_so3_transpose_apply,
    tangent_operator_inverse_so3, tangent_operator_inverse_so3_apply,
)
from lgbench.lie.tait_bryan import (
    body_rate_dot_apply_rxyz, body_rate_inverse_apply_rxyz, body_rate_matrix_dot_rxyz, body_rate_matrix_rxyz,
    rotation_matrix_rxyz, rotation_rxyz_transpose_apply,
)

ROOT = Path(__file__).resolve().parent.parent
EPS = np.finfo(float).eps
RNG = np.random.default_rng(7)
# rotation vectors from 1e-9 to 3 rad, both sides of the Taylor thresholds 1e-4 and 1e-2
ANGLES = [1e-9, 5e-5, 2e-4, 5e-3, 2e-2, 0.7, 3.0]


def _vectors():
    for angle in ANGLES:
        axis = RNG.normal(size=3)
        yield angle * axis / np.linalg.norm(axis), RNG.normal(size=3)


@pytest.mark.parametrize("psi, w", list(_vectors()))
def test_so3_vector_kernels_match_their_matrices(psi, w):
    scale = 8 * EPS * np.linalg.norm(w)
    np.testing.assert_allclose(exp_so3_apply(psi, w), exp_so3(psi) @ w, rtol=0, atol=scale)
    np.testing.assert_allclose(exp_so3_transpose_apply(psi, w), exp_so3(psi).T @ w, rtol=0, atol=scale)
    np.testing.assert_allclose(tangent_operator_inverse_so3_apply(psi, w), tangent_operator_inverse_so3(psi) @ w,
                               rtol=0, atol=scale * (1 + np.linalg.norm(psi) ** 2))


def test_compose_tuple_equals_compose_for_array_and_tuple_arguments():
    for psi0, dpsi in _vectors():
        expected = compose_rotation_vectors(psi0, dpsi)
        np.testing.assert_array_equal(compose_rotation_vectors_tuple(psi0, dpsi), expected)
        np.testing.assert_array_equal(compose_rotation_vectors_tuple(tuple(psi0), tuple(dpsi)), expected)


@pytest.mark.parametrize("theta", [np.array([0.3, -1.2, 2.5]), np.array([-2.0, 1.5, 0.1]), np.zeros(3)])
def test_tait_bryan_vector_kernels_match_their_matrices(theta):
    x = RNG.normal(size=3)
    rates = RNG.normal(size=3)
    np.testing.assert_allclose(rotation_rxyz_transpose_apply(theta, x), rotation_matrix_rxyz(theta).T @ x,
                               rtol=0, atol=8 * EPS * np.linalg.norm(x))
    G = body_rate_matrix_rxyz(theta)
    np.testing.assert_allclose(G @ np.array(body_rate_inverse_apply_rxyz(theta, x)), x, rtol=0,
                               atol=8 * EPS * np.linalg.norm(x) / abs(np.cos(theta[1])))
    np.testing.assert_allclose(body_rate_dot_apply_rxyz(theta, rates), body_rate_matrix_dot_rxyz(theta, rates) @ rates,
                               rtol=0, atol=8 * EPS * np.linalg.norm(rates) ** 2)


def test_euler_parameter_transpose_apply_normalises_like_the_kernels():
    e = 1.3 * ep_from_rotation_vector(np.array([0.4, -0.9, 1.7]))   # not unit: the kernel normalises
    x = RNG.normal(size=3)
    np.testing.assert_allclose(rotation_ep_transpose_apply(e, x), rotation_matrix_ep(e / np.linalg.norm(e)).T @ x,
                               rtol=0, atol=8 * EPS * np.linalg.norm(x))


ALLOCATIONS = r"""
import json, sys
import numpy as np
from numba.core.runtime import rtsys
from lgbench.integrators.explicit import ENTRY_POINTS, right_hand_side_of
from lgbench.integrators.tableaus import TABLEAUS
from lgbench.models import MODELS

out = {}
tab = TABLEAUS[sys.argv[1]]
for model, formulation in json.loads(sys.argv[2]):
    built = MODELS[model].build(formulation, MODELS[model].defaults)
    counts = []
    for steps in (10, 1000):
        q, v = built.q0.copy(), built.v0.copy()
        args = (built.system, tab.A, tab.B, tab.C, q, v, 0.0, steps * 1e-5, 1e-5, np.zeros(0), np.zeros((0, q.size)),
                np.zeros((0, v.size)), np.zeros(1, dtype=bool))
        integrate = ENTRY_POINTS[right_hand_side_of(built.system)]
        integrate(*args)          # compile or load before counting
        q[:], v[:] = built.q0, built.v0
        before = rtsys.get_allocation_stats().alloc
        code, done, _ = integrate(*args)
        assert code == 0 and done == steps
        counts.append(rtsys.get_allocation_stats().alloc - before)
    out[f"{model} {formulation}"] = counts
print(json.dumps(out))
"""


def _assert_explicit_step_allocates_nothing(tableau, cases):
    """NRT allocation count of a whole run is the same for 10 and 1000 steps (only the setup allocates)."""
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", ALLOCATIONS, tableau, json.dumps(cases)], env=env,
                         capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(counts) == len(cases)
    growing = [f"{case}: {few} allocations for 10 steps, {many} for 1000"
               for case, (few, many) in counts.items() if many != few]
    assert not growing, growing


@pytest.mark.parametrize("tableau", ["RK44", "RK67"])
def test_explicit_heavy_top_step_allocates_nothing(tableau):
    _assert_explicit_step_allocates_nothing(tableau, [("heavy_top", formulation)
                                                      for formulation in ("RV", "Rxyz", "F1", "EP-F1")])


def test_explicit_multibody_step_allocates_nothing():
    """The general right-hand side on the Puma 560 in minimal coordinates (the chain kernels) and on the
    manufactured body (paper 003's loads)."""
    _assert_explicit_step_allocates_nothing("RK44", [("puma560", "Min"), ("manufactured_body", "RV")])


STAGE_MODELS = [(model, formulation) for model in ("heavy_top", "rotor")
                for formulation in ("RV", "Rxyz", "F1", "EP-F1")] + [("spinning_body", "RV")]


@pytest.mark.parametrize("model, formulation", STAGE_MODELS)
def test_rigid_body_stage_equals_the_general_kernels(model, formulation):
    """One stage of the fused kernel (Euler parameters carried between phases) gives the coordinates,
    slopes and accelerations of update_coordinates + kinematic_rates + state_accelerations."""
    from lgbench.mbs.dynamics import is_rigid_body_system, rhs_work, rigid_body_stage, state_accelerations
    from lgbench.mbs.coordinate_update import kinematic_rates, rigid_base_rotations, update_coordinates
    from lgbench.models import MODELS

    params = dict(MODELS[model].defaults, **({"eq9_form": False} if model == "spinning_body" else {}))
    built = MODELS[model].build(formulation, params)
    system = built.system
    assert is_rigid_body_system(system)
    q0 = built.q0 + 0.3 * RNG.normal(size=built.q0.size)
    dq = 0.05 * RNG.normal(size=q0.size)
    v = built.v0 * (1.0 + 0.1 * RNG.normal(size=built.v0.size))
    q_ref, K_ref, a_ref = np.zeros(q0.size), np.zeros(q0.size), np.zeros(v.size)
    update_coordinates(system, q0, dq, q_ref)
    assert kinematic_rates(system, q_ref, dq, v, K_ref) == 0
    assert state_accelerations(system, q_ref, v, 0.0, rhs_work(system), a_ref) == 0
    w = rhs_work(system)
    q, K, a = np.zeros(q0.size), np.zeros(q0.size), np.zeros(v.size)
    rigid_base_rotations(system.body_int, q0, w.base)
    status = rigid_body_stage(system.body_int, system.body_real, system.force_int, system.force_real, w.base, q0, dq,
                              v, q, K, w.rotation, w.force, w.torque, w.rate_map, w.mass, w.piv, w.rhs, a)
    assert status == 0
    np.testing.assert_array_equal(q, q_ref)
    np.testing.assert_array_equal(K, K_ref)
    np.testing.assert_allclose(a, a_ref, rtol=1e-13, atol=1e-13 * np.abs(a_ref).max())


def test_models_with_other_loads_take_the_general_stage():
    from lgbench.mbs.dynamics import is_rigid_body_system
    from lgbench.models import MODELS

    assert not is_rigid_body_system(MODELS["manufactured_body"].build("RV", MODELS["manufactured_body"].defaults).system)
    assert not is_rigid_body_system(MODELS["puma560"].build("Min", MODELS["puma560"].defaults).system)


BORROW = r"""
import numpy as np
from numba import njit
from numba.core.runtime import rtsys
from lgbench.mbs.borrowed import borrowed

@njit
def fill(pair):
    a, b = borrowed(pair)
    for k in range(a.shape[0]):
        a[k] = b[k] + 1.0
    return a[a.shape[0] - 1]

x, y = np.zeros(5), np.arange(5.0)
fill((x, y))
before = rtsys.get_allocation_stats()
assert fill((x, y)) == 5.0 and (x == y + 1.0).all()
after = rtsys.get_allocation_stats()
print(after.alloc - before.alloc, after.free - before.free)
"""


def test_borrowed_arrays_share_memory_and_leak_nothing():
    """Writes through borrowed views reach the caller's arrays; every meminfo made when the arrays entered
    the compiled function is freed again (the views themselves have none)."""
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", BORROW], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    allocated, freed = run.stdout.split()
    assert allocated == freed


@pytest.mark.parametrize("name", ["stage_start", "stage", "compose"])
def test_every_right_hand_side_defines_every_function_with_the_same_parameters(name):
    import inspect

    from lgbench.integrators.right_hand_side import FUNCTIONS, multibody, rigid_bodies

    assert name in FUNCTIONS
    modules = (multibody, rigid_bodies)
    assert len({str(inspect.signature(getattr(module, name).py_func)) for module in modules}) == 1
    for module in modules:
        assert getattr(module, name).targetoptions.get("inline") == "always"


def _rigid_body_cases():
    """Every model and explicit formulation of the registry whose system is one of rigid bodies."""
    from lgbench.mbs.dynamics import is_rigid_body_system
    from lgbench.mbs.formulations import EXPLICIT_FORMULATIONS
    from lgbench.models import MODELS

    return [(name, formulation) for name, model in MODELS.items() for formulation in EXPLICIT_FORMULATIONS
            if formulation in model.formulations and is_rigid_body_system(model.build(formulation).system)]


def _explicit_steps(entry_point, built, tableau, steps=30, h=2e-5):
    q, v = built.q0.copy(), built.v0.copy()
    samples = np.array([0.0, steps * h / 2])
    q_samples, v_samples = np.zeros((2, q.size)), np.zeros((2, v.size))
    code, done, _ = entry_point(built.system, tableau.A, tableau.B, tableau.C, q, v, 0.0, steps * h, h, samples,
                                q_samples, v_samples, np.zeros(1, dtype=bool))
    assert code == 0 and done == steps
    return q, v, q_samples, v_samples


def test_the_registry_has_rigid_body_systems_in_every_rotation_formulation():
    assert {formulation for _, formulation in _rigid_body_cases()} >= {"RV", "Rxyz", "F1", "EP-F1"}


@pytest.mark.parametrize("model, formulation", _rigid_body_cases())
@pytest.mark.parametrize("tableau", ["RK44", "DOPRI5"])
def test_rigid_bodies_entry_point_gives_the_general_results_to_the_last_bit(model, formulation, tableau):
    """The fixed-step entry point of rigid bodies compiles the fused stage alone; the general one takes the
    same stage at run time, so states and samples agree bit for bit."""
    from lgbench.integrators.explicit import integrate_explicit, integrate_explicit_rigid_bodies
    from lgbench.integrators.tableaus import TABLEAUS
    from lgbench.models import MODELS

    built = MODELS[model].build(formulation)
    general = _explicit_steps(integrate_explicit, built, TABLEAUS[tableau])
    rigid = _explicit_steps(integrate_explicit_rigid_bodies, built, TABLEAUS[tableau])
    for a, b in zip(general, rigid):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("model, formulation", [("puma560", "Min"), ("manufactured_body", "RV"), ("rotor", "SE3")])
def test_rigid_bodies_entry_point_refuses_other_systems(model, formulation):
    from lgbench.integrators.explicit import integrate_explicit_rigid_bodies, right_hand_side_of
    from lgbench.integrators.tableaus import RK44
    from lgbench.models import MODELS

    built = MODELS[model].build(formulation)
    assert right_hand_side_of(built.system) == "multibody"
    with pytest.raises(ValueError, match="rigid bodies"):
        _explicit_steps(integrate_explicit_rigid_bodies, built, RK44, steps=1)


@pytest.mark.parametrize("model, formulation, options, expected", [
    ("heavy_top", "RV", {}, "rigid-bodies"), ("heavy_top", "EP-F1", {}, "rigid-bodies"),
    ("rotor", "SE3", {}, "multibody"), ("puma560", "Min", {}, "multibody"),
    ("heavy_top", "RV", {"step_control": "adaptive"}, "multibody"),
])
def test_an_explicit_run_reaches_the_entry_point_of_its_right_hand_side(model, formulation, options, expected):
    from lgbench.integrators.tableaus import DOPRI5
    from lgbench.models import MODELS
    from lgbench.runner.precompile import compile_group
    from lgbench.runner.single_run import RunSpec

    assert DOPRI5.right_hand_side(MODELS[model].build(formulation).system, options) == expected
    spec = RunSpec(model, formulation, "DOPRI5", 1e-3, 1.0, options=tuple(options.items()))
    assert compile_group(spec)[-1] == expected
