"""Registry entries for implicit second-order methods and their user options."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lgbench.exceptions import InputError
from lgbench.integrators import generalized_alpha as ga
from lgbench.integrators.interface import Integration, sample_arrays, sampling, timed_run
from lgbench.integrators.newton import N_STATISTICS, NewtonOptions, newton_options
from lgbench.integrators.second_order_method import SecondOrderMethod, generalized_alpha
from lgbench.integrators.starting_values import consistent_accelerations_of, corrected_starting_values
from lgbench.mbs.banded import BandStructure
from lgbench.mbs.codes import F_TYPE, SINGULAR_MATRIX
from lgbench.mbs.force_tangent import analytic_tangent_applies
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.mbs.loads import ELEMENTARY_LOADS


@dataclass(frozen=True)
class ImplicitIntegrator:
    name: str
    description: str
    order: int = 2
    kind: str = "implicit"
    consistent_start: bool = True       # starts from consistent v'(0), lambda(0) (paper 002 eq. 19)
    defaults: dict[str, Any] = field(default_factory=dict)
    formulations: tuple[str, ...] = IMPLICIT_FORMULATIONS

    def method(self, options: dict[str, Any]) -> SecondOrderMethod:
        return generalized_alpha(float(options["rho_inf"]))

    def validate_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return implicit_options(self, options)[1]

    def integrate(self, system, q0, v0, options, h, t_end, sample_times) -> Integration:
        """Warm-up (compilation), then the timed run from consistent initial accelerations (paper 002 eq. 19)."""
        return run_implicit(system, self, q0, v0, options, h, t_end, sample_times)

    def linear_algebra(self, system, options: dict[str, Any]) -> str:
        """"free-bodies", "banded" or "dense": the solver, and so the compiled entry point, of a run on
        ``system`` (``compiled_solver``)."""
        return compiled_solver(system, implicit_options(self, options)[1])


NEWTON_DEFAULTS: dict[str, Any] = {
    "rho_inf": 0.9,            # paper 000 Sect. 4: rho_inf = 0.9 for all examples
    "newton": "full",          # "full" or "modified" (paper 000 Sect. 3.4)
    "texp": False,             # T_exp in the iteration matrix (paper 000 eq. 40; neglected in its Sect. 4)
    "tangent": "forces",       # K_t from the forces (eq. 42) or the "full" residual (eq. 41)
    "jacobian": "analytic",    # K_t, C_t of the forces differentiated by hand (lgbench/mbs/force_tangent.py,
                               # chain_tangent.py) or by "finite-difference" (always for tangent = "full")
    "loads_jacobian": True,    # false: the applied loads (gravity, torques) left out of K_t and C_t, as paper
                               # 000's code does by default (docs/notes/exudyn_newton.md); needs jacobian = analytic
    "damper_position_jacobian": True,  # false: point dampers' force differentiated by the velocities only, as
                                       # paper 000's connectors (docs/notes/exudyn_newton.md); needs analytic
    "newton_rtol": 1e-8,       # relative tolerance on ||[r; Phi]|| (paper 000's code default)
    "newton_atol": 1e-10,      # absolute tolerance on ||[r; Phi]||
    "max_iterations": 25,
    "max_modified_iterations": 8,
    "contractivity": 0.5,
    "scaling": True,           # paper 002 eq. (57)
    "fd_relative_step": 1e-7,  # forward differences: step = rel * max(floor, |x|)
    "fd_step_floor": 1e-2,
    "index": 3,                       # 3: eq. (37) of paper 002; 2: stabilised index-2 eq. (56)
    "starting_values": "classical",   # a0 = v'(0), or "corrected": paper 002 Table 1 (index 2) / Table 2 (index 3),
                                      # or "corrected-a0": Table 1's a0 (eq. 141) alone, v0 = v(0), for either
                                      # index (paper 002 Fig. 17)
    "starting_step_fraction": 0.1,    # s of paper 002 Tables 1, 2 (difference step s h for v''(0))
}

GENERALIZED_ALPHA = ImplicitIntegrator(
    "generalized-alpha",
    "generalized-alpha (paper 000 Alg. 4; Lie group Alg. 5 for RV nodes), Newton with options",
    # "auto": banded LU with bodies and joint rows interleaved when the iteration matrix of the system
    # is narrow-banded (chains; lgbench/mbs/banded.py), dense LU otherwise; "dense" / "banded" force one
    defaults={**NEWTON_DEFAULTS, "linear_algebra": "auto"},
)

IMPLICIT_INTEGRATORS = {GENERALIZED_ALPHA.name: GENERALIZED_ALPHA}

_CHOICES = {"newton": ("full", "modified"), "tangent": ("forces", "full"),
            "jacobian": ("analytic", "finite-difference"),
            "starting_values": ("classical", "corrected", "corrected-a0"), "linear_algebra": ("auto", "dense", "banded")}


def implicit_options(integrator, options: dict[str, Any]) -> tuple[NewtonOptions, dict]:
    """Validated user options: the Newton settings for the compiled stepper and the merged options."""
    merged = dict(integrator.defaults)
    for key, value in options.items():
        if key not in merged:
            raise InputError(f"unknown option '{key}' of integrator '{integrator.name}'",
                             field=f"options.{key}", allowed=sorted(merged))
        merged[key] = value
    for key, allowed in _CHOICES.items():
        if key in merged and merged[key] not in allowed:
            raise InputError(f"invalid value {merged[key]!r}", field=f"options.{key}", allowed=list(allowed))
    if "index" in merged:
        if merged["index"] not in (2, 3) or isinstance(merged["index"], bool):
            raise InputError(f"invalid value {merged['index']!r}", field="options.index", allowed=[2, 3])
        merged["index"] = int(merged["index"])
    for key in ("rho_inf", "newton_rtol", "newton_atol", "contractivity", "fd_relative_step", "fd_step_floor",
                "starting_step_fraction"):
        if key not in merged:
            continue
        try:
            merged[key] = float(merged[key])
        except (TypeError, ValueError):
            raise InputError(f"must be a number, got {merged[key]!r}", field=f"options.{key}") from None
    if "rho_inf" in merged and not 0.0 <= merged["rho_inf"] <= 1.0:
        raise InputError(f"must lie in [0, 1], got {merged['rho_inf']}", field="options.rho_inf")
    if "starting_step_fraction" in merged and not 0.0 < merged["starting_step_fraction"] <= 1.0:
        raise InputError(f"must lie in (0, 1], got {merged['starting_step_fraction']}",
                         field="options.starting_step_fraction")
    for key in ("max_iterations", "max_modified_iterations"):
        if not isinstance(merged[key], (int, np.integer)) or merged[key] < 1:
            raise InputError(f"must be a positive integer, got {merged[key]!r}", field=f"options.{key}")
    for key in ("texp", "scaling", "loads_jacobian", "damper_position_jacobian"):
        if not isinstance(merged[key], (bool, np.bool_)):
            raise InputError(f"must be true or false, got {merged[key]!r}", field=f"options.{key}")
    for key in ("loads_jacobian", "damper_position_jacobian"):
        if not merged[key] and (merged["jacobian"] != "analytic" or merged["tangent"] != "forces"):
            raise InputError(f"{key} = false needs jacobian = analytic and tangent = forces",
                             field=f"options.{key}", allowed=[True])
    if merged.get("linear_algebra") == "banded" and (merged["tangent"] == "full" or merged.get("index") == 2):
        raise InputError("the banded solver needs tangent = forces and index = 3", field="options.linear_algebra",
                         allowed=["auto", "dense"])
    return newton_options(merged), merged


def linear_solver(system, merged: dict) -> str:
    """The ``linear_algebra`` option for ``make_workspace``: "dense" when the iteration matrix is not
    assembled from the forces' tangent (its pattern would be that of the whole residual)."""
    solver = merged["linear_algebra"]
    if merged["tangent"] == "full":
        return "dense"
    if solver == "banded" and system.chain_int.shape[0] > 0:
        raise InputError("the banded solver needs absolute coordinates (no minimal-coordinate chain)",
                         field="options.linear_algebra", allowed=["auto", "dense"])
    return solver


def solver_kind(system, index: int, merged: dict) -> str:
    """"banded" or "dense": the solver ``generalized_alpha.make_workspace`` builds for these options
    (``lgbench/integrators/linear_algebra.py``: each has an entry point of its own)."""
    return "banded" if ga.solver_structure(system, index, linear_solver(system, merged)).active else "dense"


def free_bodies_apply(system, merged: dict) -> bool:
    """The free-bodies solver (``linear_algebra/free_bodies.py``) serves a run with these options on
    ``system``: no joint and no minimal-coordinate chain (the Euler parameters' norms are the only
    constraints, at index 3), only elementary loads (``loads.ELEMENTARY_LOADS``), and K_t, C_t of all the
    forces differentiated by hand (tangent = forces, jacobian = analytic, loads_jacobian = true, on node
    types ``force_tangent`` covers)."""
    return (system.joint_int.shape[0] == 0 and system.chain_int.shape[0] == 0
            and (int(system.sizes[2]) == 0 or merged["index"] == 3)
            and all(int(f) in ELEMENTARY_LOADS for f in system.force_int[:, F_TYPE])
            and merged["tangent"] == "forces" and merged["jacobian"] == "analytic" and bool(merged["loads_jacobian"])
            and analytic_tangent_applies(system))


def compiled_solver(system, merged: dict, band: BandStructure | None = None) -> str:
    """"free-bodies", "banded" or "dense": the solver of a generalized-alpha run, and so its compiled entry
    point (``generalized_alpha.ENTRY_POINTS``); free bodies where ``free_bodies_apply``, with the dense LU.
    ``band``: the run's ``generalized_alpha.solver_structure``, if already built."""
    if band is None:
        band = ga.solver_structure(system, merged["index"], linear_solver(system, merged))
    if band.active:
        return "banded"
    return "free-bodies" if free_bodies_apply(system, merged) else "dense"


def run_implicit(system, integrator: ImplicitIntegrator, q0, v0, options, h, t_end,
                 sample_times) -> Integration:
    """Compiled generalized-alpha run; the timed region includes the (corrected) starting values."""
    nq, nv, nc = (int(x) for x in system.sizes)
    opts, merged = implicit_options(integrator, options)
    method = integrator.method(merged).as_array()
    ns = sample_times.shape[0]
    q_samples, v_samples, lam_samples = sample_arrays(ns, nq, nv, nc)
    index = merged["index"]
    band = ga.solver_structure(system, index, linear_solver(system, merged))
    solver = compiled_solver(system, merged, band)
    entry_point = ga.ENTRY_POINTS[solver]
    consistent_accelerations = consistent_accelerations_of(solver)

    def workspace():
        return ga.make_workspace(system, index, band=band)

    corrected = merged["starting_values"] != "classical"
    perturb_velocity = index == 3 and merged["starting_values"] == "corrected"   # Table 2's v0 (eq. 142)

    def fresh_state():
        q = q0.copy()
        v = v0.copy()
        vd = np.zeros(nv)
        lam = np.zeros(nc)
        ok = consistent_accelerations(system, q, v, 0.0, vd, lam)
        a_alg = vd.copy()
        if ok and corrected:
            ok = corrected_starting_values(system, method, q, v, vd, a_alg, h, merged["starting_step_fraction"],
                                           perturb_velocity)
        return q, v, vd, a_alg, lam, ok

    def advance(inputs, q, v, vd, a_alg, lam, t_stop, warm_up, stop):
        work, stats = inputs
        times, qs, vs, ls = sampling(warm_up, sample_times, q_samples, v_samples, lam_samples)
        return entry_point(system, method, opts, q, v, vd, a_alg, lam, 0.0, t_stop, h, times, qs, vs, ls, work, stats,
                           stop)

    def run(inputs, t_stop, warm_up, stop):
        if warm_up:     # the stepper compiles before the starting values (lgbench/runner/precompile.py)
            advance(inputs, q0.copy(), v0.copy(), np.zeros(nv), np.zeros(nv), np.zeros(nc), t_stop, True, stop)
        q, v, vd, a_alg, lam, ok = fresh_state()
        if not ok:
            return SINGULAR_MATRIX, 0, 0.0, q, v, lam
        code, steps, t_reached = advance(inputs, q, v, vd, a_alg, lam, t_stop, warm_up, stop)
        return code, steps, t_reached, q, v, lam

    (work, stats), (code, steps, t_reached, q, v, lam), cpu = timed_run(
        lambda: (workspace(), np.zeros(N_STATISTICS)), run, t_end)
    statistics = ga.newton_statistics(stats, steps, code, merged, with_eta=True)
    return Integration(int(code), int(steps), float(t_reached), cpu, q, v, lam, q_samples, v_samples,
                       lam_samples, statistics)
