"""Rigid body with a manufactured (prescribed) motion and the loads from inverse dynamics.

Paper 003 Sect. 5: u_B = [sin wt, cos wt - 1, t/2 + sin 2wt], w = 2 rad/s; orientation from Euler
parameters with phi = 2t, theta = t + 2 sin t, psi = 3 cos t - 3; m = 6 kg; centre of mass at
eta* = [0.25, -0.03, 0.12] m from the reference point B and inertia rho* about B (body frame).
lgbench's free body uses the centre of mass as reference point: the body is built with
J_c = rho* - m (|eta*|^2 I - eta* eta*^T) and the outputs report the displacement of B,
u = x_c - R eta* (B starts at the origin). See ``lgbench.mbs.manufactured`` for the loads.

Outputs: u (displacement of B), the nine entries of R (row-major, group "R"), the kinetic energy and
the angular momentum about the origin (global). ``exact`` evaluates the same outputs in closed form.
"""
from __future__ import annotations

import numpy as np

from lgbench._compiled import kernel
from lgbench.exceptions import InputError
from lgbench.mbs.codes import FREE, MANUFACTURED_LOAD
from lgbench.mbs.coordinates import free_body_coordinates
from lgbench.mbs.invariants import angular_momentum, kinetic_energy
from lgbench.mbs.manufactured import manufactured_motion
from lgbench.mbs.pose import body_state
from lgbench.mbs.system import SystemBuilder
from lgbench.models.base import BuiltModel, Model, positive_scalar, vector3

DEFAULTS = {
    "mass": 6.0,
    "eta": [0.25, -0.03, 0.12],
    "rho": [[1.25, 0.57, -0.23], [0.57, 1.56, 0.34], [-0.23, 0.34, 2.54]],
    "omega": 2.0,
}

R_NAMES = [f"R_{i}{j}" for i in range(1, 4) for j in range(1, 4)]
OUTPUTS = ("u_x", "u_y", "u_z", *R_NAMES, "energy", "angular_momentum_x", "angular_momentum_y",
           "angular_momentum_z")


def inertia_about_com(mass: float, eta: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """J_c = rho* - m (|eta|^2 I - eta eta^T): the inertia about B moved to the centre of mass."""
    return rho - mass * (eta @ eta * np.eye(3) - np.outer(eta, eta))


@kernel
def manufactured_outputs(sys, q, v, lam, t):
    out = np.empty(16)
    R, x, _, _ = body_state(sys, 0, q, v)
    eta = sys.force_real[0, 0:3]
    out[0:3] = x - R @ eta
    out[3:12] = R.ravel()
    out[12] = kinetic_energy(sys, q, v)
    out[13:16] = angular_momentum(sys, q, v)
    return out


def _parameters(params: dict):
    m = positive_scalar(params, "mass")
    eta = vector3(params, "eta")
    w = positive_scalar(params, "omega")
    try:
        rho = np.asarray(params["rho"], dtype=float)
    except (TypeError, ValueError):
        raise InputError("must be a 3x3 matrix", field="params.rho") from None
    if rho.shape != (3, 3) or not np.allclose(rho, rho.T):
        raise InputError("must be a symmetric 3x3 matrix", field="params.rho")
    inertia = inertia_about_com(m, eta, rho)
    if np.linalg.eigvalsh(inertia).min() <= 0.0:
        raise InputError("rho - m(|eta|^2 I - eta eta^T) (inertia about the centre of mass) must be "
                         "positive definite", field="params.rho")
    return m, eta, w, inertia


def exact(params: dict, times: np.ndarray) -> np.ndarray:
    """Closed-form outputs of the prescribed motion at ``times``."""
    m, eta, w, inertia = _parameters(params)
    out = np.empty((len(times), len(OUTPUTS)))
    for k, t in enumerate(times):
        R, omega, _, xc, vc, _ = manufactured_motion(eta, w, float(t))
        out[k, 0:3] = xc - R @ eta
        out[k, 3:12] = R.ravel()
        out[k, 12] = 0.5 * m * vc @ vc + 0.5 * omega @ inertia @ omega
        out[k, 13:16] = m * np.cross(xc, vc) + R @ inertia @ omega
    return out


def build(formulation: str, params: dict) -> BuiltModel:
    m, eta, w, inertia = _parameters(params)
    builder = SystemBuilder()
    body = builder.add_body(FREE, formulation, m, inertia, name="body")
    builder.add_force(MANUFACTURED_LOAD, body, [*eta, w])
    R, omega, _, xc, vc, _ = manufactured_motion(eta, w, 0.0)
    q0, v0 = free_body_coordinates(formulation, xc, R, vc, omega)
    return BuiltModel(builder.build(), q0, v0, manufactured_outputs, OUTPUTS)


MODEL = Model(
    name="manufactured_body",
    description="free rigid body with a manufactured motion, loads from inverse dynamics (paper 003 Sect. 5)",
    defaults=DEFAULTS,
    formulations=["RV", "Rxyz", "F1", "EP-F1", "EP"],
    outputs=list(OUTPUTS),
    output_groups={"u": ["u_x", "u_y", "u_z"], "R": R_NAMES,
                   "angular_momentum": ["angular_momentum_x", "angular_momentum_y", "angular_momentum_z"]},
    builder=build,
    conservative=False,
    sources="paper 003 Sect. 5",
    exact=exact,
)
