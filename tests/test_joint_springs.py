"""A rotational spring-damper on a revolute joint's axis (``joint_spring_damper`` in a mechanism file): the
torsion pendulum swings at sqrt(k / J) about its rest angle, its energy (spring potential included) is
constant without damping, and damping takes it away."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from lgbench.runner.mechanism_file import mechanism_data, validate_mechanism
from lgbench.runner.single_run import RunSpec, run_single

FILE = Path(__file__).resolve().parent / "data" / "torsion_pendulum.yaml"


def _run(formulation: str, integrator: str = "generalized-alpha", t_end: float = 2.0, **parameters):
    document = yaml.safe_load(FILE.read_text())
    document["parameters"].update(parameters)
    data = mechanism_data(validate_mechanism(document, str(FILE)))
    options = (("newton_rtol", 1e-12), ("newton_atol", 1e-13)) if integrator != "RK44-index1" else ()
    return run_single(RunSpec(data.model().name, formulation, integrator, 1e-3, t_end, options=options,
                              mechanism=data), n_samples=21)


@pytest.mark.parametrize("formulation", ["RV", "EP", "SE3"])
def test_torsion_pendulum_swings_at_the_spring_frequency_with_its_energy_kept(formulation):
    run = _run(formulation)
    assert run.status == "ok", run.message
    t = run.series["t"]
    exact = -0.4 + 0.4 * np.cos(np.sqrt(2.0 / 0.5) * t)       # the joint angle, zero at the start
    assert np.abs(run.series["angle"] - exact).max() <= 5e-5
    assert run.series["energy"][0] == pytest.approx(0.5 * 2.0 * 0.4**2, rel=1e-12)
    assert np.abs(run.series["energy"] - run.series["energy"][0]).max() <= 1e-6


def test_joint_damping_takes_the_energy_away():
    run = _run("RV", "RK44-index1", damping=0.2)
    assert run.status == "ok", run.message
    assert run.series["energy"][-1] < 0.7 * run.series["energy"][0]
    assert np.all(np.diff(run.series["energy"]) < 1e-12)
