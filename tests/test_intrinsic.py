"""Intrinsic schemes of paper 003 on free rigid bodies (lgbench/integrators/intrinsic.py).

Claims: every parameterisation of the incremental motion gives second order for the energy-momentum
scheme (eq. 22) and the generalized-alpha variant (eqs. 24-26, rho_inf = 1) on the manufactured
solution of Sect. 5; without loads eq. (22) conserves energy and angular momentum, eq. (23) conserves
angular momentum and lets the kinetic energy decay monotonically (K_f = K_i - c^2).
Short versions (t_end = 0.5 s, h = 4 and 2 ms) run by default; the study covers the paper's grid.
"""
from __future__ import annotations

import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.integrators import INTEGRATORS
from lgbench.mbs.codes import FREE
from lgbench.mbs.invariants import angular_momentum, kinetic_energy
from lgbench.mbs.system import SystemBuilder
from lgbench.models import MODELS

PARAMETERISATIONS = ["exponential", "euler-rodrigues", "cayley-gibbs-rodrigues", "wiener-milenkovic"]
T_END = 0.5


def end_errors(integrator: str, options: dict, h: float, formulation: str = "RV"):
    """(e_D, e_R) of paper 003 Sect. 5 at T_END."""
    model = MODELS["manufactured_body"]
    built = model.build(formulation)
    entry = INTEGRATORS[integrator]
    run = entry.integrate(built.system, built.q0, built.v0, entry.validate_options(options), h, T_END,
                          np.array([T_END]))
    assert run.code == 0
    out = built.outputs(built.system, run.q, run.v, np.zeros(0), T_END)
    exact = model.exact_outputs(None, np.array([T_END]))[0]
    return (np.linalg.norm(out[0:3] - exact[0:3]) / np.linalg.norm(exact[0:3]),
            np.linalg.norm(out[3:12] - exact[3:12]), run)


def observed_orders(integrator: str, options: dict):
    coarse = end_errors(integrator, options, 4e-3)
    fine = end_errors(integrator, options, 2e-3)
    return np.log2(coarse[0] / fine[0]), np.log2(coarse[1] / fine[1])


def test_inverse_dynamics_loads_reproduce_the_manufactured_motion():
    """RK44 on the RV body converges to the closed form at order 4 (the loads are exact)."""
    coarse = end_errors("RK44", {}, 4e-3)
    fine = end_errors("RK44", {}, 2e-3)
    assert fine[0] < 1e-9 and fine[1] < 1e-8
    assert np.log2(coarse[0] / fine[0]) == pytest.approx(4, abs=0.15)


def test_exact_solution_matches_the_initial_state():
    model = MODELS["manufactured_body"]
    for formulation in ("RV", "EP"):
        built = model.build(formulation)
        outputs = built.outputs(built.system, built.q0, built.v0, np.zeros(0), 0.0)
        assert np.allclose(outputs, model.exact_outputs(None, np.array([0.0]))[0], rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_energy_momentum_scheme_is_second_order_for_every_parameterisation_eq22(parameterisation):
    order_d, order_r = observed_orders("intrinsic-energy-momentum", {"parameterisation": parameterisation})
    assert order_d == pytest.approx(2, abs=0.1) and order_r == pytest.approx(2, abs=0.1)


@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_generalized_alpha_rho1_is_second_order_for_every_parameterisation_eq24(parameterisation):
    options = {"parameterisation": parameterisation, "rho_inf": 1.0}
    order_d, order_r = observed_orders("intrinsic-generalized-alpha", options)
    assert order_d == pytest.approx(2, abs=0.1) and order_r == pytest.approx(2, abs=0.1)


def test_energy_decaying_scheme_is_second_order_eq23():
    order_d, order_r = observed_orders("intrinsic-energy-decaying", {"parameterisation": "wiener-milenkovic"})
    assert order_d == pytest.approx(2, abs=0.1) and order_r == pytest.approx(2, abs=0.1)


@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_motion_update_alone_driven_by_exact_velocities_is_second_order_figs3_4(parameterisation):
    """Paper 003 Figs. 3-4: the discrete kinematic compatibility equation (eqs. 20-21), with the exact
    velocities of the manufactured motion, is second order in e_D and e_R for every parameterisation; no
    Newton iteration is run."""
    order_d, order_r = observed_orders("intrinsic-kinematics", {"parameterisation": parameterisation})
    assert order_d == pytest.approx(2, abs=0.05) and order_r == pytest.approx(2, abs=0.05)
    assert end_errors("intrinsic-kinematics", {"parameterisation": parameterisation}, 2e-3)[2].statistics[
        "newton_per_step"] == 0


def test_motion_update_alone_needs_a_prescribed_motion():
    system, q0, v0 = torque_free_body()
    entry = INTEGRATORS["intrinsic-kinematics"]
    with pytest.raises(InputError, match="prescribed motion of every body"):
        entry.integrate(system, q0, v0, entry.validate_options({}), 1e-3, 1e-2, np.zeros(0))
    with pytest.raises(InputError) as caught:
        entry.validate_options({"newton_rtol": 1e-10})
    assert caught.value.field == "options.newton_rtol"


def torque_free_body():
    """Asymmetric free body, no loads, spinning near its intermediate axis and translating."""
    builder = SystemBuilder()
    builder.add_body(FREE, "RV", 3.0, [[1.2, 0.1, 0.0], [0.1, 2.0, 0.3], [0.0, 0.3, 3.1]])
    q0 = np.array([0.3, -0.2, 0.5, 0.4, 0.1, -0.3])
    v0 = np.array([1.0, 0.5, -2.0, 0.3, 6.0, 0.4])
    return builder.build(), q0, v0


def invariants_over_time(integrator: str, options: dict, h: float = 2e-2, steps: int = 150):
    system, q0, v0 = torque_free_body()
    entry = INTEGRATORS[integrator]
    times = h * np.arange(steps + 1)
    run = entry.integrate(system, q0, v0, entry.validate_options(options), h, times[-1], times)
    assert run.code == 0
    energy = np.array([kinetic_energy(system, q, v) for q, v in zip(run.q_samples, run.v_samples)])
    momentum = np.array([angular_momentum(system, q, v) for q, v in zip(run.q_samples, run.v_samples)])
    return energy, momentum


@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_energy_momentum_scheme_conserves_energy_and_angular_momentum_without_loads(parameterisation):
    energy, momentum = invariants_over_time("intrinsic-energy-momentum",
                                            {"parameterisation": parameterisation, "newton_rtol": 1e-15})
    assert np.abs(energy / energy[0] - 1).max() < 1e-13
    assert np.abs(momentum - momentum[0]).max() < 1e-12 * np.linalg.norm(momentum[0])


def test_energy_decaying_scheme_decays_energy_monotonically_and_keeps_momentum():
    energy, momentum = invariants_over_time("intrinsic-energy-decaying",
                                            {"parameterisation": "exponential", "newton_rtol": 1e-15}, h=5e-2)
    assert np.all(np.diff(energy) <= 1e-14 * energy[0])
    assert energy[-1] < energy[0] * (1 - 1e-6)
    assert np.abs(momentum - momentum[0]).max() < 1e-12 * np.linalg.norm(momentum[0])


def test_generalized_alpha_with_damping_loses_energy_that_rho1_keeps_better():
    drift = {}
    for rho in (1.0, 0.5):
        energy, _ = invariants_over_time("intrinsic-generalized-alpha", {"rho_inf": rho, "newton_rtol": 1e-14},
                                         h=5e-2)
        drift[rho] = abs(energy[-1] / energy[0] - 1)
    assert drift[1.0] < drift[0.5]


def test_invalid_options_and_formulations_are_input_errors():
    entry = INTEGRATORS["intrinsic-energy-momentum"]
    with pytest.raises(InputError) as caught:
        entry.validate_options({"parameterisation": "euler-angles"})
    assert caught.value.field == "options.parameterisation"
    with pytest.raises(InputError):
        entry.validate_options({"rho_inf": 0.5})
    built = MODELS["manufactured_body"].build("EP")
    with pytest.raises(InputError):
        entry.integrate(built.system, built.q0, built.v0, entry.validate_options({}), 1e-3, 1e-2, np.zeros(0))


ALLOCATIONS = r"""
import json
import numpy as np
from numba.core.runtime import rtsys
from lgbench.integrators import INTEGRATORS, intrinsic
from lgbench.integrators.newton import N_STATISTICS
from lgbench.mbs.codes import BODY_TORQUE, FREE, GRAVITY
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.system import SystemBuilder

builder = SystemBuilder()
q0, v0 = [], []
for k in range(2):
    body = builder.add_body(FREE, "RV", 2.0 + k, np.diag([0.5, 0.7 + k, 0.9]))
    builder.add_force(GRAVITY, body, [0.0, 0.0, -9.81])
    builder.add_force(BODY_TORQUE, body, [0.1, -0.2, 0.3])
    q, v = free_body_coordinates("RV", np.array([k, 0.0, 0.0]), np.eye(3), np.array([0.0, 1.0, 0.0]),
                                 np.array([1.0, 2.0 + k, 3.0]))
    q0.append(q)
    v0.append(v)
system = builder.build()
q0, v0 = np.concatenate(q0), np.concatenate(v0)
out = {}
for name in ("intrinsic-energy-momentum", "intrinsic-energy-decaying", "intrinsic-generalized-alpha"):
    entry = INTEGRATORS[name]
    options = entry.validate_options({})
    method, newton = entry.method(options), entry.newton(options)
    counts = []
    for steps in (10, 1000, 10):
        q, v = q0.copy(), v0.copy()
        workspace, stats = intrinsic.make_workspace(system, entry.scheme), np.zeros(N_STATISTICS)
        h = 1e-3
        before = rtsys.get_allocation_stats().alloc
        code, done, _ = intrinsic.integrate_intrinsic(system, method, newton, q, v, 0.0, steps * h, h, np.zeros(0),
                                                      np.zeros((0, q.size)), np.zeros((0, v.size)), workspace, stats,
                                                      intrinsic.motion_arrays(2, 0), np.zeros(1, dtype=bool))
        assert code == 0 and done == steps, (name, code, done)
        counts.append(rtsys.get_allocation_stats().alloc - before)
    out[name] = counts[1:]
print(json.dumps(out))
"""


def test_intrinsic_step_allocates_nothing():
    """NRT allocation count of a whole run is the same for 10 and 1000 steps (only the setup allocates),
    for the three schemes on two free bodies under gravity and body torques: their CPU times compare
    with the other families' (paper 003 Sect. 5 counts operations, not allocations)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(root))
    run = subprocess.run([sys.executable, "-c", ALLOCATIONS], env=env, capture_output=True, text=True,
                         timeout=1500, cwd=root)
    assert run.returncode == 0, run.stderr[-2000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    for name, (many, few) in counts.items():
        assert many == few, f"{name}: {few} allocations for 10 steps, {many} for 1000"
