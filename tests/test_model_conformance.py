"""Every registered model and shipped mechanism file in every formulation it declares conforms.

Claims, for each model x formulation pair read from the registry and studies/mechanisms (a new model,
mechanism file or formulation is tested without writing a test):

* it builds with its defaults: sizes of q0, v0 match the system, the outputs at t = 0 are finite;
* its initial state is consistent: Phi(q0) = 0 and B(q0) v0 = 0 (paper 000 eq. 10) to round-off;
* a few steps of a suitable integrator (RK44 for unconstrained systems in an explicit formulation,
  generalized-alpha otherwise) succeed with finite outputs;
* conservative models (``Model.conservative``) keep their total energy, the sum of the ``energy``
  outputs, to a small fraction of its size over those steps (the energy balance of loads and
  motion); for the others (damping, drives, controllers, prescribed loads) the state stays bounded.

The steps: N_STEPS steps of H, 5e-4 s in all; H resolves the fastest model (the rotor spins at
2.1e4 rad/s: 0.21 rad per step). Measured relative energy drift over these steps: at most 2.8e-9 for
the conservative pairs (generalized-alpha on EP; RK44 ~1e-16), far below ENERGY_RTOL, while the
loads of the non-conservative models change their energy by 6e-5 to 6e-4 in the same time, so a
load inconsistent with the energy (a power of that size) would not pass unnoticed.
"""
from __future__ import annotations

import numpy as np
import pytest

from lgbench.integrators import INTEGRATORS
from lgbench.mbs.constraints import constraint_matrix, constraint_residual
from lgbench.runner.single_run import RunSpec, run_single
from shipped_models import ALL_MODELS as MODELS, run_fields

PAIRS = [(name, formulation) for name, model in MODELS.items() for formulation in model.formulations]
H = 1e-5
N_STEPS = 50
ROUND_OFF = 1e-10
ENERGY_RTOL = 1e-6
GROWTH = 2.0


def suitable_integrator(system, formulation: str) -> str:
    """RK44 if it can integrate the system (explicit formulation, no constraints), else generalized-alpha."""
    if formulation in INTEGRATORS["RK44"].formulations and int(system.sizes[2]) == 0:
        return "RK44"
    assert formulation in INTEGRATORS["generalized-alpha"].formulations, (
        f"formulation {formulation} (with constraints) is integrated neither by RK44 nor by generalized-alpha")
    return "generalized-alpha"


def energy_outputs(model) -> list[str]:
    return [name for name in model.outputs if name == "energy" or name.startswith("energy_")]


@pytest.mark.parametrize("name, formulation", PAIRS, ids=[f"{m}-{f}" for m, f in PAIRS])
def test_every_model_builds_in_every_formulation_with_a_consistent_initial_state(name, formulation):
    built = MODELS[name].build(formulation)
    sys = built.system
    nq, nv, nc = (int(x) for x in sys.sizes[:3])
    assert built.q0.shape == (nq,) and built.v0.shape == (nv,)
    assert np.all(np.isfinite(built.q0)) and np.all(np.isfinite(built.v0))
    outputs = built.outputs(sys, built.q0, built.v0, np.zeros(nc), 0.0)
    assert outputs.shape == (len(built.output_names),) and np.all(np.isfinite(outputs))
    assert list(built.output_names) == MODELS[name].outputs
    if nc:
        phi = np.zeros(nc)
        constraint_residual(sys, built.q0, 0.0, phi)
        B = np.zeros((nc, nv))
        constraint_matrix(sys, built.q0, B)
        scale = max(1.0, float(np.abs(built.q0).max()))
        assert np.abs(phi).max() <= ROUND_OFF * scale, f"Phi(q0) = {phi}"
        velocity_scale = max(1.0, float((np.abs(B) @ np.abs(built.v0)).max()))
        assert np.abs(B @ built.v0).max() <= ROUND_OFF * velocity_scale, f"B(q0) v0 = {B @ built.v0}"


@pytest.mark.parametrize("name, formulation", PAIRS, ids=[f"{m}-{f}" for m, f in PAIRS])
def test_every_model_takes_a_few_finite_steps_and_conservative_ones_keep_their_energy(name, formulation):
    model = MODELS[name]
    built = model.build(formulation)
    integrator = suitable_integrator(built.system, formulation)
    run = run_single(RunSpec(name, formulation, integrator, H, N_STEPS * H, **run_fields(name)),
                     n_samples=N_STEPS + 1)
    assert run.status == "ok", f"{integrator}: {run.message}"
    assert run.steps == N_STEPS
    samples = np.array([run.series[k] for k in model.outputs])
    assert np.all(np.isfinite(samples))
    start = np.abs(samples[:, 0]).max()
    assert np.abs(samples).max() <= GROWTH * start + 1.0, "outputs grow over a few steps"
    if model.conservative:
        names = energy_outputs(model)
        assert names, f"conservative model '{name}' has no energy output"
        energy = sum(run.series[k] for k in names)
        drift = np.abs(energy - energy[0]).max()
        assert drift <= ENERGY_RTOL * abs(energy[0]), f"{integrator}: energy {energy[0]} drifts by {drift}"
