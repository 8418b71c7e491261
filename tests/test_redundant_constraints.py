"""Redundant constraint rows (``lgbench/mbs/redundancy.py``): a planar linkage of revolute joints and a door on
two hinges are found redundant at their assembled state, ``validate`` names the rows removed, the rows kept are
implied by the written ones and differentiated correctly, and the mechanisms move as their rewrites on
independent rows do, in every formulation and integrator family."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.mbs.assembly import constraint_state
from lgbench.mbs.codes import COINCIDENT, POINT_ON_LINE, POINT_ON_PLANE
from lgbench.mbs.constraints import constraint_curvature
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.system import J_TYPE
from lgbench.runner.mechanism_file import mechanism_data, validate_mechanism
from lgbench.runner.single_run import RunSpec, run_single

DATA = Path(__file__).resolve().parent / "data"
MECHANISMS = Path(__file__).resolve().parent.parent / "studies" / "mechanisms"
runner = CliRunner()


def _data(file: Path, **changes):
    document = yaml.safe_load(file.read_text())
    document.update(changes)
    return mechanism_data(validate_mechanism(document, str(file)))


def _built(file: Path, formulation: str, **changes):
    return _data(file, **changes).model().build(formulation)


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP", "SE3"])
def test_planar_linkage_of_revolute_joints_keeps_its_independent_rows(formulation):
    """IFToMM A02 with N = 2 written with seven revolute joints: 35 rows (40 with the EP norms) of rank 29 (34);
    the rows kept have full rank, and the rewrite on a universal and a spherical joint per loop has none to
    remove."""
    built = _built(DATA / "four_bar_double_revolute.yaml", formulation)
    norms = 5 if formulation == "EP" else 0
    assert int(built.all_rows.sizes[2]) == 35 + norms and int(built.system.sizes[2]) == 29 + norms
    _, B = constraint_state(built.system, built.q0)
    assert np.linalg.matrix_rank(B) == B.shape[0]
    _, written = constraint_state(built.all_rows, built.q0)
    assert np.linalg.matrix_rank(written) == B.shape[0]
    assert _built(DATA / "four_bar_double_independent.yaml", formulation).reduction is None


def test_validate_names_the_redundant_rows():
    result = runner.invoke(app, ["validate", str(MECHANISMS / "door_two_hinges.yaml")])
    assert result.exit_code == 0, result.output
    assert "10 constraint rows in RV, 5 independent" in result.output
    assert ("5 redundant rows at the initial state, removed" in result.output
            and "lower hinge (revolute): 2 axis rows; upper hinge (revolute): 1 point row, 2 axis rows"
            in result.output), result.output


@pytest.mark.parametrize("constraint_form", ["global", "body"])
def test_point_rows_kept_in_part_become_a_point_on_a_line_and_on_a_plane(constraint_form):
    """The welded plate: the second spherical joint keeps 2 of its point rows, the third 1."""
    built = _built(DATA / "welded_plate.yaml", "RV", constraint_form=constraint_form)
    kinds = built.system.joint_int[:, J_TYPE].tolist()
    assert kinds[1:] == [POINT_ON_LINE, POINT_ON_PLANE] and int(built.system.sizes[2]) == 6
    assert kinds[0] == COINCIDENT or constraint_form == "body"


CASES = [("welded_plate.yaml", DATA), ("door_two_hinges.yaml", MECHANISMS), ("four_bar_double_revolute.yaml", DATA)]


@pytest.mark.parametrize("file, folder", CASES, ids=[file for file, _ in CASES])
@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP", "SE3"])
@pytest.mark.parametrize("constraint_form", ["global", "body"])
def test_rows_kept_are_implied_and_differentiated(file, folder, formulation, constraint_form):
    """The kept rows are well conditioned; moving the assembled state along the motion they allow (their null
    space) keeps every written row at zero to second order; B and B'v of the kept rows equal differences of Phi
    and of B v."""
    built = _built(folder / file, formulation, constraint_form=constraint_form)
    q, system = built.q0, built.system
    _, B = constraint_state(system, q)
    assert np.linalg.svd(B, compute_uv=False).min() >= 1e-3 * np.linalg.norm(B, 2)
    free = np.linalg.svd(B)[2][B.shape[0]:]
    chance = np.random.default_rng(3)
    v = free.T @ chance.standard_normal(free.shape[0]) if free.shape[0] else np.zeros(B.shape[1])
    moved = np.empty_like(q)
    for eps in (1e-3, 5e-4):
        update_coordinates(system, q, eps * v, moved)
        residual = np.abs(constraint_state(built.all_rows, moved)[0]).max()
        assert residual <= 10 * eps**2 * max(1.0, np.abs(v).max()) ** 2, (eps, residual)
    v = chance.standard_normal(B.shape[1])
    plus, minus = np.empty_like(q), np.empty_like(q)
    update_coordinates(system, q, 1e-6 * v, plus)
    update_coordinates(system, q, -1e-6 * v, minus)
    np.testing.assert_allclose(B @ v, (constraint_state(system, plus)[0] - constraint_state(system, minus)[0])
                               / 2e-6, rtol=1e-6, atol=1e-8)
    curvature = np.zeros(B.shape[0])
    constraint_curvature(system, q, v, curvature)
    np.testing.assert_allclose(curvature, (constraint_state(system, plus)[1] @ v - constraint_state(system, minus)[1]
                                           @ v) / 2e-6, rtol=1e-6, atol=1e-7)


TIGHT = (("newton_rtol", 1e-12), ("newton_atol", 1e-13))
METHODS = [("generalized-alpha", TIGHT), ("generalized-alpha", TIGHT + (("index", 2),)), ("hht", TIGHT),
           ("RK44-index1", ()), ("DOPRI5-index1", (("step_control", "adaptive"), ("rtol", 1e-10), ("atol", 1e-12)))]
PAIRS = [(formulation, integrator, options) for formulation in ("RV", "Rxyz", "EP", "SE3")
         for integrator, options in METHODS]


@pytest.mark.parametrize("formulation, integrator, options", PAIRS,
                         ids=[f"{f}-{i}-{len(o)}" for f, i, o in PAIRS])
def test_redundant_linkage_moves_as_its_rewrite_on_independent_rows(formulation, integrator, options):
    """Over 0.4 s (the cranks turn by about 25 degrees from upright): B0 and the energy of the all-revolute
    linkage equal those of its rewrite to the Newton tolerance (explicit methods: to the projection's round-off;
    adaptive steps: to their tolerance), and every written row, the removed ones included, stays satisfied along
    the run."""
    runs = [run_single(RunSpec(data.model().name, formulation, integrator, 1e-3, 0.4, options=options,
                               mechanism=data), n_samples=9)
            for data in (_data(DATA / "four_bar_double_revolute.yaml"),
                         _data(DATA / "four_bar_double_independent.yaml"))]
    assert [run.status for run in runs] == ["ok", "ok"], [run.message for run in runs]
    bound = 1e-7 if dict(options).get("step_control") == "adaptive" else 1e-8
    for name in ("B0_x", "B0_y", "energy"):
        assert abs(runs[0].final_outputs[name] - runs[1].final_outputs[name]) <= bound, name
    assert np.max(runs[0].series["constraint_residual"]) <= 1e-9


@pytest.mark.parametrize("formulation, integrator, options", [("RV", "generalized-alpha", TIGHT),
                                                              ("SE3", "RK44-index1", ())])
def test_door_on_two_hinges_swings_as_on_one(formulation, integrator, options):
    """The shipped door_two_hinges.yaml against the same door on its lower hinge alone, over 1 s."""
    runs = [run_single(RunSpec(data.model().name, formulation, integrator, 1e-3, 1.0, options=options,
                               mechanism=data))
            for data in (_data(MECHANISMS / "door_two_hinges.yaml"), _data(DATA / "door_one_hinge.yaml"))]
    assert [run.status for run in runs] == ["ok", "ok"], [run.message for run in runs]
    assert abs(runs[0].final_outputs["angle"]) > 0.1       # it swung from its initial angle, 0
    for name in ("angle", "rate", "energy"):
        assert abs(runs[0].final_outputs[name] - runs[1].final_outputs[name]) <= 1e-9, name
