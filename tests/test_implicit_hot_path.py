"""The allocation-free kernels of the implicit path (lgbench/mbs/residual.py, constraints.py).

The tuple kernels are checked against the matrix formulas they replace (to a few ulps): generalized
forces W^T (tau - omega x J omega - J W' w), mass blocks W^T J W, R(rho) and W(rho) entries, Phi and
B v = d/dt Phi(UAC(q, t v)). Whole generalized-alpha and HHT runs are checked to allocate a fixed number
of arrays, independent of the number of steps.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lgbench.mbs.constraints import constraint_matrix, constraint_residual, rate_map_entries, rotation_entries
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.formulations import FORMULATION_CODES
from lgbench.mbs.loads import applied_loads
from lgbench.mbs.pose import (
    _rot_start, angular_velocity, rotation_matrix, rotation_size, velocity_map, velocity_map_rate,
)
from lgbench.mbs.residual import generalized_forces, mass_matrix
from lgbench.mbs.system import B_FORM, B_INERTIA
from lgbench.models import MODELS

ROOT = Path(__file__).resolve().parent.parent
EPS = np.finfo(float).eps
RNG = np.random.default_rng(11)


def _heavy_top(formulation):
    model = MODELS["heavy_top"]
    return model.build(formulation, model.defaults)


def _perturbed_state(built):
    """A generic state near the initial one (unit Euler parameters kept unit)."""
    system = built.system
    q = built.q0 + 0.3 * RNG.normal(size=built.q0.shape)
    v = built.v0 + 2.0 * RNG.normal(size=built.v0.shape)
    for i in range(system.body_int.shape[0]):
        form = int(system.body_int[i, B_FORM])
        if form == FORMULATION_CODES["EP"]:
            qr, _ = _rot_start(system, i)
            q[qr:qr + 4] /= np.linalg.norm(q[qr:qr + 4])
    return q, v


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP", "F1", "EP-F1"])
def test_generalized_forces_and_mass_equal_the_matrix_formulas(formulation):
    built = _heavy_top(formulation)
    system = built.system
    nv = built.v0.size
    q, v = _perturbed_state(built)
    force = np.zeros((1, 3))
    torque = np.zeros((1, 3))
    g = np.zeros(nv)
    generalized_forces(system, q, v, 0.3, force, torque, g)
    M = np.zeros((nv, nv))
    mass_matrix(system, q, M)

    form = int(system.body_int[0, B_FORM])
    qr, vr = _rot_start(system, 0)
    r = q[qr:qr + rotation_size(form)]
    w = v[vr:vr + (4 if formulation == "EP" else 3)]
    J = system.body_real[0, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
    tau = np.zeros((1, 3))
    applied_loads(system, q, v, 0.3, np.zeros((1, 3)), tau)
    omega = angular_velocity(form, r, w)
    W = velocity_map(form, r)
    expected = W.T @ (tau[0] - np.cross(omega, J @ omega) - J @ velocity_map_rate(form, r, w))
    scale = np.abs(W).max() * (np.abs(tau).max() + np.abs(J).max() * (np.abs(omega).max() ** 2 + np.abs(w).max() ** 2))
    np.testing.assert_allclose(g[vr:vr + W.shape[1]], expected, rtol=0, atol=16 * EPS * scale)
    np.testing.assert_allclose(M[vr:vr + W.shape[1], vr:vr + W.shape[1]], W.T @ J @ W, rtol=0,
                               atol=16 * EPS * np.abs(J).max() * np.abs(W).max() ** 2)


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP", "F1", "EP-F1", "SE3"])
def test_rotation_and_rate_map_entries_equal_the_matrices(formulation):
    form = FORMULATION_CODES[formulation]
    for _ in range(5):
        r = RNG.normal(size=rotation_size(form))
        if formulation in ("EP", "EP-F1"):
            r *= 1.3 / np.linalg.norm(r)    # not unit: R normalises, W does not
        np.testing.assert_allclose(np.reshape(rotation_entries(form, r, 0), (3, 3)), rotation_matrix(form, r),
                                   rtol=0, atol=4 * EPS)
        W = velocity_map(form, r)
        entries = np.reshape(rate_map_entries(form, r, 0), (3, 4))[:, :W.shape[1]]
        np.testing.assert_array_equal(entries, W)


@pytest.mark.parametrize("model, formulation", [
    ("slider_crank", "RV"), ("slider_crank", "Rxyz"), ("slider_crank", "EP"),
    ("heavy_top_constrained", "RV"), ("heavy_top_constrained", "EP"), ("heavy_top_constrained", "SE3"),
])
def test_constraint_matrix_is_the_derivative_of_phi_along_uac(model, formulation):
    """B v = d/dt Phi(UAC(q, t v)) at t = 0 (central difference) at a state off the constraint manifold."""
    built = MODELS[model].build(formulation, MODELS[model].defaults)
    system = built.system
    nq, nv, nc = (int(x) for x in system.sizes)
    q, v = _perturbed_state(built)
    B = np.zeros((nc, nv))
    constraint_matrix(system, q, B)
    step = 1e-6
    phi = []
    for sign in (1.0, -1.0):
        qs = np.zeros(nq)
        update_coordinates(system, q, sign * step * v, qs)
        out = np.zeros(nc)
        constraint_residual(system, qs, 0.0, out)
        phi.append(out)
    np.testing.assert_allclose(B @ v, (phi[0] - phi[1]) / (2 * step), rtol=0,
                               atol=1e-7 * (1.0 + np.abs(B @ v).max()))


def test_ep_velocity_derivative_equals_the_matrix_formula_of_eq_69():
    """The entry-by-entry D of the modified HHT (paper 004 eq. 69) against h^2 beta w-hat + ... with
    ``ep_rate_matrix`` (eq. 70)."""
    from lgbench.integrators.hht import ep_rate_matrix, ep_velocity_derivative
    from lgbench.lie.euler_parameters import body_ep_matrix
    e = RNG.normal(size=4)
    e /= np.linalg.norm(e)
    e_rate, e_acc, a1 = RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=4)
    e1 = e + 0.01 * RNG.normal(size=4)
    h, beta, gamma = 1e-2, 0.3, 0.6
    w = body_ep_matrix(e) @ (e_rate + h * (1.0 - gamma) * e_acc)
    expected = (h * h * beta * ep_rate_matrix(w) + (h * gamma - h ** 3 * gamma * beta * (e1 @ a1)) * np.eye(4)
                - h * gamma * np.outer(e1, e1) - h ** 3 * gamma * beta * np.outer(e1, a1))
    np.testing.assert_allclose(ep_velocity_derivative(e, e_rate, e_acc, e1, a1, h, beta, gamma), expected,
                               rtol=0, atol=16 * EPS * np.abs(expected).max())


ALLOCATIONS = r"""
import json, sys
import numpy as np
from numba.core.runtime import rtsys
from lgbench.integrators import generalized_alpha as ga, hht
from lgbench.integrators.newton import N_STATISTICS
from lgbench.integrators.starting_values import consistent_accelerations
from lgbench.integrators.implicit import IMPLICIT_INTEGRATORS, compiled_solver, implicit_options
from lgbench.models import MODELS

newton = sys.argv[1]
out = {}
for model, formulation, integrator, params in (
        ("heavy_top", "RV", "ga", {}), ("heavy_top", "EP", "ga", {}), ("heavy_top", "Rxyz", "ga", {}),
        ("heavy_top_constrained", "RV", "ga", {}), ("heavy_top_constrained", "EP", "ga", {}),
        ("heavy_top", "EP", "hht", {}),
        ("puma560", "RV", "ga", {}), ("puma560", "EP", "ga", {}), ("puma560", "Rxyz", "ga", {}),
        ("v8_crank", "RV", "ga", {}), ("spinning_body", "EP", "hht", {"eq9_form": True}),
        ("puma560", "Min", "ga", {}), ("manufactured_body", "RV", "ga", {}), ("manufactured_body", "EP", "hht", {})):
    built = MODELS[model].build(formulation, {**MODELS[model].defaults, **params})
    system = built.system
    nq, nv, nc = (int(x) for x in system.sizes)
    options = {"newton": newton}
    if integrator == "ga":
        opts, merged = implicit_options(IMPLICIT_INTEGRATORS["generalized-alpha"], {**options, "rho_inf": 0.9})
        method = IMPLICIT_INTEGRATORS["generalized-alpha"].method(merged).as_array()
    else:
        method, opts, _ = hht.HHT.options({**options, "variant": "modified"})
    counts = []
    for steps in (10, 1000, 10):
        q, v = built.q0.copy(), built.v0.copy()
        vd, lam = np.zeros(nv), np.zeros(nc)
        consistent_accelerations(system, q, v, 0.0, vd, lam)
        state = (q, v, vd, vd.copy(), lam) if integrator == "ga" else (q, v, vd, lam)
        solver = "auto" if integrator == "ga" else "dense"
        w = ga.make_workspace(system, 3, solver)
        run = ga.ENTRY_POINTS[compiled_solver(system, merged)] if integrator == "ga" else hht.integrate(w)
        stats = np.zeros(N_STATISTICS)
        h = 2.5e-5
        before = rtsys.get_allocation_stats().alloc
        scratch = () if integrator == "ga" else (np.zeros(nv), np.zeros(nv))     # HHT's history and R
        code, done, _ = run(system, method, opts, *state, 0.0, steps * h, h, np.zeros(0), np.zeros((0, nq)),
                            np.zeros((0, nv)), np.zeros((0, nc)), w, stats, *scratch, np.zeros(1, dtype=bool))
        assert code == 0 and done == steps, (model, formulation, code, done)
        counts.append(rtsys.get_allocation_stats().alloc - before)
    out[f"{integrator} {model} {formulation}"] = counts[1:]
print(json.dumps(out))
"""


@pytest.mark.parametrize("newton", ["full", "modified"])
def test_implicit_step_allocates_nothing(newton):
    """NRT allocation count of a whole run is the same for 10 and 1000 steps (only the setup allocates):
    generalized-alpha on the heavy top (RV, EP, Rxyz), the constrained heavy top (RV, EP), the Puma 560
    (RV, EP, Rxyz: PD joint controllers) and the V8 crank drive (ramped torque), HHT (modified, EP) on the
    heavy top and on the spinning body with the norm-rate torque of paper 004 eq. 9; the Puma 560 in minimal
    coordinates (the chain kernels) and the manufactured body with paper 003's loads (generalized-alpha on RV,
    HHT on EP). The first 10-step run compiles or loads the kernels."""
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", ALLOCATIONS, newton], env=env, capture_output=True, text=True,
                         timeout=1500, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    growing = [f"{case}: {few} allocations for 10 steps, {many} for 1000"
               for case, (many, few) in counts.items() if many != few]
    assert not growing, growing
