"""Every registered integrator (``lgbench.integrators.INTEGRATORS``) converges with its declared order.

The pairs are read from the registry, so a newly registered integrator is tested without writing a
test. The problem is the manufactured rigid body of paper 003 Sect. 5 (``manufactured_body``): a
closed-form, fully 3-D motion under time-dependent loads, in every rigid-body formulation (RV, Rxyz,
F1, EP-F1, and EP with its norm constraint, which makes it an index-3 DAE for generalized-alpha/HHT
and an index-1 DAE with projection for the ``-index1`` methods). Every formulation that an
integrator and the model share is tested; an integrator that shares none fails (nothing is skipped).

Error: |u(T) - u_exact(T)| + |R(T) - R_exact(T)| (outputs u and R, 2-norm), T = 0.5 s; observed order
log2(e(h) / e(h/2)) with the step pair of the declared order (``STEP_PAIRS``), chosen in the
asymptotic range with errors far above round-off. Measured with these pairs (all formulations):
ODE23 2.98-3.00; RK44 4.06-4.09; DOPRI5 5.00-5.18 (approaching 5 from above); RK67 5.92-6.02; the
-index1 variants as their tableaus (EP: 2.99, 4.05, 5.05, 5.99); generalized-alpha 1.99; HHT on RV
1.99; intrinsic energy-momentum 2.00, energy-decaying 2.10, generalized-alpha 1.99.

Known order reductions (``ORDER_REDUCTIONS``) are tested, not skipped: with its default options the
pair converges with the reduced order, and with the options that restore the declared order it
converges with the declared one.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from lgbench.integrators import INTEGRATORS
from lgbench.models import MODELS

PROBLEM = "manufactured_body"
T_END = 0.5
STEP_PAIRS = {2: (0.025, 0.0125), 3: (0.0125, 0.00625), 4: (0.0125, 0.00625), 5: (0.00625, 0.003125),
              6: (0.0125, 0.00625)}
TOL = 0.35

ORDER_REDUCTIONS = {
    # HHT-alpha with alpha != 0 is first order in the classical formulations with a configuration-
    # dependent velocity map (Rxyz: G(theta); EP: L(e)): measured 0.80 (Rxyz) and 1.10 (EP) with the default
    # alpha = -0.1, 1.99 for both with alpha = 0 (trapezoidal Newmark), 1.99 on RV nodes. This is the
    # slope 1 in omega of paper 004 Fig. 2 (Sect. 8: local velocity errors O(h^2) only), see also
    # tests/test_hht.py::test_modified_hht_orders_on_the_heavy_top.
    ("hht", "Rxyz"): (1, {"alpha": 0.0}),
    ("hht", "EP"): (1, {"alpha": 0.0}),
}


def integrator_formulations() -> list[tuple[str, str | None]]:
    """(integrator, formulation) for every formulation shared with PROBLEM; (integrator, None) if none."""
    pairs = []
    for name, entry in INTEGRATORS.items():
        shared = [f for f in entry.formulations if f in MODELS[PROBLEM].formulations]
        pairs.extend((name, f) for f in (shared or [None]))
    return pairs


PAIRS = integrator_formulations()


@lru_cache(maxsize=None)
def end_error(integrator: str, formulation: str, h: float, options: tuple = ()) -> float:
    model = MODELS[PROBLEM]
    built = model.build(formulation)
    entry = INTEGRATORS[integrator]
    run = entry.integrate(built.system, built.q0, built.v0, entry.validate_options(dict(options)), h, T_END,
                          np.array([T_END]))
    assert run.code == 0, f"{integrator}/{formulation}, h = {h}: status {run.code}"
    out = built.outputs(built.system, run.q, run.v, run.lam, T_END)
    exact = model.exact_outputs(None, np.array([T_END]))[0]
    names = model.output_groups
    u = [model.outputs.index(k) for k in names["u"]]
    R = [model.outputs.index(k) for k in names["R"]]
    return float(np.linalg.norm(out[u] - exact[u]) + np.linalg.norm(out[R] - exact[R]))


@pytest.mark.parametrize("integrator, formulation", PAIRS, ids=[f"{i}-{f}" for i, f in PAIRS])
def test_every_registered_integrator_converges_with_its_declared_order(integrator, formulation):
    entry = INTEGRATORS[integrator]
    assert formulation is not None, (
        f"integrator '{integrator}' (formulations {entry.formulations}) shares no formulation with the "
        f"order-test problem '{PROBLEM}' ({MODELS[PROBLEM].formulations}): give it an order test")
    assert entry.order in STEP_PAIRS, f"no step pair for order {entry.order} of '{integrator}': add one"
    reduced, restoring_options = ORDER_REDUCTIONS.get((integrator, formulation), (entry.order, {}))
    assert_observed_order(integrator, formulation, {}, reduced)
    if restoring_options:
        assert_observed_order(integrator, formulation, restoring_options, entry.order)


def assert_observed_order(integrator: str, formulation: str, options: dict, order: int):
    h, h2 = STEP_PAIRS[INTEGRATORS[integrator].order]
    key = tuple(sorted(options.items()))
    coarse, fine = end_error(integrator, formulation, h, key), end_error(integrator, formulation, h2, key)
    assert fine > 1e-12, f"error {fine} at round-off: the step pair is too fine"
    observed = np.log(coarse / fine) / np.log(h / h2)
    assert abs(observed - order) <= TOL, (
        f"{integrator}/{formulation} {options}: observed order {observed:.2f}, expected {order} "
        f"(errors {coarse:.3e}, {fine:.3e} at h = {h}, {h2})")
