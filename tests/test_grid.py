"""Grid expansion: listed order, exclusions, and run ids that are readable, unique and stable."""
from pathlib import Path

import pytest

from lgbench.analysis.convergence import format_step
from lgbench.runner.grid import as_items, expand, reference_spec, run_id
from lgbench.runner.single_run import RunSpec
from lgbench.runner.study import Study, load_study

STUDIES = Path(__file__).resolve().parent.parent / "studies"


def tiny_study(**changes) -> Study:
    data = {"name": "tiny", "model": "heavy_top", "t_end": 0.01, "formulations": ["RV", "Rxyz"],
            "integrators": ["RK44", "DOPRI5"], "steps": {"values": [1e-3, 5e-4]},
            "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
            "errors": [{"quantity": "com", "measure": "norm_at_t_end"}]}
    return Study.model_validate({**data, **changes})


def spec(**changes) -> RunSpec:
    values = {"model": "heavy_top", "formulation": "RV", "integrator": "RK44", "h": 1e-4, "t_end": 1.0}
    return RunSpec(**{**values, **changes})


@pytest.mark.parametrize("h, text", [(1e-4, "1e-04"), (2.5e-5, "2.5e-05"), (3.90625e-6, "3.90625e-06"),
                                     (1e-4 * 2.0 ** -7, "7.8125e-07"), (0.1, "1e-01")])
def test_step_sizes_print_as_short_scientific_text(h, text):
    assert format_step(h) == text


def test_grid_is_formulations_by_integrators_by_steps_in_listed_order():
    specs = expand(tiny_study())
    assert [(s.formulation, s.integrator, s.h) for s in specs[:3]] == [
        ("RV", "RK44", 1e-3), ("RV", "RK44", 5e-4), ("RV", "DOPRI5", 1e-3)]
    assert len(specs) == 8


def test_excluded_combinations_are_left_out():
    specs = expand(tiny_study(exclude=[{"formulation": "Rxyz", "integrator": "DOPRI5"}]))
    assert ("Rxyz", "DOPRI5") not in {(s.formulation, s.integrator) for s in specs}
    assert len(specs) == 6


@pytest.mark.parametrize("name", ["heavy_top.yaml", "heavy_top_explicit.yaml"])
def test_run_ids_of_the_shipped_studies_are_unique(name):
    ids = [run_id(s) for s in expand(load_study(STUDIES / name))]
    assert len(set(ids)) == len(ids)


def test_default_run_id_is_readable():
    assert run_id(spec()) == "RV-RK44-h1e-04"


def test_parameters_equal_to_the_defaults_add_no_hash():
    assert run_id(spec(params=as_items({"mass": 15.0, "com": [0, 1, 0]}))) == "RV-RK44-h1e-04"


def test_changed_parameters_and_options_add_a_stable_hash():
    # literal values: the hash must not change between processes or versions of Python
    assert run_id(spec(params=as_items({"mass": 10.0}))) == "RV-RK44-h1e-04-36f7d8ee"
    assert run_id(spec(options=as_items({"tol": 1e-8}))) == "RV-RK44-h1e-04-abb1ce56"


def test_reference_uses_study_parameters_plus_its_own():
    study = tiny_study(params={"mass": 10.0},
                       reference={"formulation": "RV", "integrator": "RK67", "h": 1e-4,
                                  "params": {"psi0": [0.1, 0, 0]}})
    reference = reference_spec(study)
    assert reference.params_dict() == {"mass": 10.0, "psi0": (0.1, 0.0, 0.0)}
    assert (reference.integrator, reference.h, reference.t_end) == ("RK67", 1e-4, 0.01)


def test_specs_are_hashable_with_vector_parameters():
    assert len({s for s in expand(tiny_study(params={"omega0": [0, 100, 0]}))}) == 8
