"""Timed runs flush subnormal numbers to zero (lgbench/integrators/subnormals.py): a damped component
below 2.2e-308 would otherwise make every later step pay for the processor's subnormal arithmetic."""
import numpy as np
import pytest
from numba import njit

from lgbench.integrators import interface
from lgbench.integrators.subnormals import X86_64
from lgbench.runner.single_run import RunSpec, run_single

SMALLEST_NORMAL = np.finfo(np.float64).tiny


@njit(cache=True)
def _halved(x):
    return x * 0.5


def _run_halving(inputs, t_end, warm_up, stop):
    return _halved(inputs)


@pytest.mark.skipif(not X86_64, reason="the modes are set on x86-64 only")
def test_the_thread_of_a_timed_run_flushes_subnormals_and_the_main_thread_keeps_them():
    _, halved, _ = interface.timed_run(lambda: SMALLEST_NORMAL, _run_halving, 1e-3)
    assert halved == 0.0
    assert _halved(SMALLEST_NORMAL) == SMALLEST_NORMAL / 2 > 0.0


def test_flushing_subnormals_leaves_a_long_damped_run_unchanged(monkeypatch):
    """The slider-crank's generalized-alpha run reaches subnormal numbers after about 6700 steps
    (rho_inf = 0.9); its results with and without flushing agree to round-off."""
    spec = RunSpec("slider_crank", "Rxyz", "generalized-alpha", 1e-3, 8.0, options=(("rho_inf", 0.9),))
    flushed = run_single(spec)
    monkeypatch.setattr(interface, "flush_subnormals_to_zero", lambda: None)
    kept = run_single(spec)
    assert flushed.status == kept.status == "ok" and flushed.steps == kept.steps == 8000
    assert flushed.statistics["newton_per_step"] == kept.statistics["newton_per_step"]
    for name, value in kept.final_outputs.items():
        assert flushed.final_outputs[name] == pytest.approx(value, rel=1e-12, abs=1e-14), name
