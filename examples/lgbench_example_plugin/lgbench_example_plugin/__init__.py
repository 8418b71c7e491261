"""An example lgbench plugin (examples/lgbench_example_plugin/pyproject.toml registers these objects).

- ``SPHERICAL_PENDULUM``: a model built from a mechanism written in Python (the mechanism file schema
  of docs/mechanisms.md): a rod on a spherical joint, released sideways with a spin about the vertical.
- ``RALSTON3``: Ralston's third-order tableau (minimum error bound among three-stage methods); lgbench
  checks its order conditions and registers it as ralston3 (RK, RKMK) and ralston3-index1.
- ``TRAPEZOIDAL``: generalized-alpha with rho_inf = 1 whatever the study's option, i.e. the undamped
  trapezoidal rule of Newmark's average acceleration (alpha_m = alpha_f = 1/2, beta = 1/4, gamma = 1/2).
- ``lie_euler.LIE_EULER``: an integrator family of its own, compiled in this package: symplectic Euler on
  the Lie group of RV nodes (first order), a step inlined into lgbench's fixed-step loop.
- ``max_abs_at_t_end``: an error measure, the largest absolute difference over the quantity's outputs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lgbench.integrators.implicit import GENERALIZED_ALPHA, ImplicitIntegrator
from lgbench.integrators.second_order_method import generalized_alpha
from lgbench.integrators.tableaus import tableau_from_lists
from lgbench.mechanisms.build import mechanism_model
from lgbench.mechanisms.schema import Mechanism

SPHERICAL_PENDULUM = mechanism_model(Mechanism.model_validate({
    "name": "spherical_pendulum",
    "description": "rod on a spherical joint swinging around the vertical (example plugin)",
    "formulations": ["RV", "Rxyz", "EP", "SE3"],
    "parameters": {"mass": 1.0, "length": 0.6, "tilt": 0.5, "spin": 4.0},
    "bodies": [{
        "name": "rod",
        "mass": "mass",
        "inertia": ["mass * length**2 / 12", "mass * length**2 / 12", "1e-4 * mass"],
        "position": ["length / 2 * sin(tilt)", 0, "-length / 2 * cos(tilt)"],
        "orientation": {"rotation_vector": [0, "tilt", 0]},
        "velocity": [0, "spin * length / 2 * sin(tilt)", 0],
        "angular_velocity": [0, 0, "spin"],
    }],
    "joints": [{"name": "socket", "type": "spherical", "body1": "rod", "point": [0, 0, 0]}],
    "forces": [{"type": "gravity", "acceleration": [0, 0, -9.81]}],
    "outputs": [{"name": "tip", "kind": "position", "body": "rod", "point": [0, 0, "-length / 2"]},
                {"name": "energy", "kind": "energy"}],
}), source="lgbench-example-plugin")

RALSTON3 = tableau_from_lists("ralston3", 3, [[0, 0, 0], [0.5, 0, 0], [0, 0.75, 0]], [2 / 9, 1 / 3, 4 / 9],
                              [0, 0.5, 0.75], "Ralston's third-order method (example plugin)")


@dataclass(frozen=True)
class Trapezoidal(ImplicitIntegrator):
    """Generalized-alpha without numerical damping: the method parameters of rho_inf = 1."""

    def method(self, options):
        return generalized_alpha(1.0)


TRAPEZOIDAL = Trapezoidal(name="trapezoidal", description="generalized-alpha with rho_inf = 1: the undamped "
                          "trapezoidal rule (example plugin)", defaults=GENERALIZED_ALPHA.defaults)


def max_abs_at_t_end(run, reference, outputs, window=None) -> float:
    """Largest absolute difference of run and reference over the quantity's outputs at t_end."""
    return float(np.max(np.abs([run.final_outputs[name] - reference.final_outputs[name] for name in outputs])))
