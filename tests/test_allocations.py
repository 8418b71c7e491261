"""No step allocates on SE3 nodes, in any integrator family, nor in the index-1 family on joints: numba's
allocation counter over runs of 10 and 1000 steps (``benchmarks/allocations.py``, which prints the table of
every registry case).

The cases are chosen so that every SE3 kernel of a step runs at least once per family, not every model:
the explicit stage (``compose_se3``, ``se3_rates``, ``se3_translational_force``), the index-1 slopes
(``coordinate_slopes``), and generalized-alpha (full and modified Newton) and HHT with the residual, the
iteration matrix's T_SE3 (``_write_tangent_se3``, used with ``texp: true`` only) and a joint on SE3 nodes.
The index-1 cases on the constrained top and the slider-crank (RV and SE3 nodes) run the curvature term
B' v (``constraints.curvature_rows``) of spherical, revolute and prismatic joints.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CASES = [
    ("rotor", "SE3", "RK44", {}),
    ("rotor", "SE3", "RK44-index1", {}),
    ("heavy_top_constrained", "RV", "RK44-index1", {}),
    ("heavy_top_constrained", "SE3", "RK44-index1", {}),
    ("slider_crank", "RV", "RK44-index1", {}),
    ("slider_crank", "SE3", "RK44-index1", {}),
    ("heavy_top_constrained", "SE3", "ga-full", {}),
    ("heavy_top_constrained", "SE3", "ga-full", {"texp": True}),
    ("heavy_top_constrained", "SE3", "ga-modified", {}),
    ("heavy_top_constrained", "SE3", "hht", {"texp": True}),
]
NAMES = [" ".join(case[:3]) + "".join(f" {k}={v}" for k, v in case[3].items()) for case in CASES]

COUNT = r"""
import json, sys
from benchmarks.allocations import allocations_per_step
print(json.dumps([allocations_per_step(*case) for case in json.loads(sys.argv[1])]))
"""


@pytest.fixture(scope="module")
def per_step():
    """Allocations per step of every case, counted in one subprocess (the counter is switched on at start)."""
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", COUNT, json.dumps(CASES)], env=env, capture_output=True, text=True,
                         timeout=1800, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    return dict(zip(NAMES, json.loads(run.stdout.strip().splitlines()[-1])))


@pytest.mark.parametrize("name", NAMES)
def test_a_step_allocates_nothing(per_step, name):
    assert per_step[name] == 0, f"{name}: {per_step[name]} allocations per step"
