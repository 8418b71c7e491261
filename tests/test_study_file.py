"""Study files: the shipped studies load; every bad input is one InputError naming file, field, allowed."""
from pathlib import Path

import pytest
import yaml

from lgbench.exceptions import InputError
from lgbench.runner.grid import expand
from lgbench.runner.study import load_study, study_document

STUDIES = Path(__file__).resolve().parent.parent / "studies"

VALID = {
    "name": "tiny", "model": "heavy_top", "t_end": 0.01,
    "formulations": ["RV", "Rxyz"], "integrators": ["RK44", "DOPRI5"],
    "steps": {"rule": "geometric", "h0": 1e-3, "base": 2, "n": [1, 3]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
}


def study_file(tmp_path: Path, **changes) -> Path:
    """A copy of VALID with top-level changes (value None removes the field)."""
    data = {**VALID, **changes}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({key: value for key, value in data.items() if value is not None}))
    return path


def load_error(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_study(path)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    return message


@pytest.mark.parametrize("name, runs, reference_h", [
    ("heavy_top.yaml", 55, 3.90625e-6), ("heavy_top_explicit.yaml", 80, 3.90625e-6),
    ("heavy_top_free.yaml", 48, 3.90625e-6), ("heavy_top_constrained.yaml", 126, 1e-5),
    ("heavy_top_adaptive.yaml", 48, 3.90625e-6), ("heavy_top_rkmk_projection.yaml", 36, 1.25e-5),
    ("manufactured_body.yaml", 128, None), ("heavy_top_so3_vs_se3.yaml", 36, 2.5e-5),
    ("starting_values.yaml", 20, 2.5e-5), ("pendulum.yaml", 10, 1e-4),
    ("spinning_body.yaml", 48, None), ("heavy_top_hht.yaml", 25, 1e-5), ("v8_crank.yaml", 27, 1e-5),
    ("v8_crank_9s.yaml", 2, 2.5e-5)])
def test_shipped_studies_are_valid(name, runs, reference_h):
    study = load_study(STUDIES / name)
    assert len(expand(study)) == runs
    assert study.reference.h == reference_h


def test_explicit_study_reproduces_the_paper_step_grid_and_two_coarser_steps_for_fig_5():
    sizes = load_study(STUDIES / "heavy_top_explicit.yaml").steps.sizes()
    assert sizes[2:] == pytest.approx([1e-4 * 2.0 ** (1 - n) for n in range(1, 9)], rel=1e-15)
    assert sizes[:2] == pytest.approx([4e-4, 2e-4], rel=1e-15) and sizes[-1] == pytest.approx(7.8125e-7)


def test_explicit_step_values_are_used_as_listed(tmp_path):
    study = load_study(study_file(tmp_path, steps={"values": [1e-3, 5e-4]}))
    assert study.steps.sizes() == [1e-3, 5e-4]


def test_yaml_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: broken\nmodel: heavy_top\nformulations: [RV, Rxyz\nt_end: 1\n")
    assert "YAML syntax error at line" in load_error(path)


def test_missing_file_is_an_input_error(tmp_path):
    assert "file not found" in load_error(tmp_path / "absent.yaml")


def test_unknown_model_names_the_allowed_ones(tmp_path):
    message = load_error(study_file(tmp_path, model="heavy_tap"))
    assert "field 'model'" in message and "heavy_tap" in message and "allowed: chain_of_bodies, heavy_top" in message


def test_unknown_integrator_names_the_allowed_ones(tmp_path):
    message = load_error(study_file(tmp_path, integrators=["RK44", "RK4"]))
    assert "field 'integrators[1]'" in message and "'RK4'" in message
    allowed = message.split("allowed: ")[1].rstrip(")").split(", ")
    assert {"DOPRI5", "ODE23", "RK44", "RK67"} <= set(allowed) and allowed == sorted(allowed)


def test_unknown_formulation_names_the_model_formulations(tmp_path):
    message = load_error(study_file(tmp_path, formulations=["RV", "SO3"]))
    assert "field 'formulations[1]'" in message and "allowed: RV, Rxyz" in message


def test_negative_step_names_the_field(tmp_path):
    steps = {"rule": "geometric", "h0": -1e-4, "base": 2, "n": [1, 3]}
    message = load_error(study_file(tmp_path, steps=steps))
    assert "field 'steps.h0'" in message and "greater than 0" in message


def test_non_positive_end_time_names_the_field(tmp_path):
    assert "field 't_end'" in load_error(study_file(tmp_path, t_end=0))


def test_unknown_key_lists_the_allowed_fields(tmp_path):
    message = load_error(study_file(tmp_path, integrator="RK44"))
    assert "field 'integrator': unknown field" in message and "integrators" in message


def test_unknown_nested_key_lists_the_fields_of_its_section(tmp_path):
    message = load_error(study_file(tmp_path, reference={**VALID["reference"], "step": 1e-4}))
    assert "field 'reference.step'" in message
    assert "allowed: formulation, integrator, h, options, params" in message


def test_missing_field_is_named(tmp_path):
    assert "field 'reference': required field is missing" in load_error(study_file(tmp_path, reference=None))


def test_wrong_type_shows_the_given_value(tmp_path):
    message = load_error(study_file(tmp_path, t_end="one second"))
    assert "field 't_end'" in message and "'one second'" in message


def test_steps_need_values_or_a_rule(tmp_path):
    assert "field 'steps'" in load_error(study_file(tmp_path, steps={"h0": 1e-3}))


def test_geometric_rule_needs_all_its_parts(tmp_path):
    message = load_error(study_file(tmp_path, steps={"rule": "geometric", "h0": 1e-3}))
    assert "base, n" in message


def test_empty_formulation_list_is_an_empty_grid(tmp_path):
    assert "field 'formulations'" in load_error(study_file(tmp_path, formulations=[]))


def test_excluding_every_combination_is_an_empty_grid(tmp_path):
    exclude = [{"formulation": f, "integrator": i} for f in ("RV", "Rxyz") for i in ("RK44", "DOPRI5")]
    message = load_error(study_file(tmp_path, exclude=exclude))
    assert "field 'exclude'" in message and "nothing to run" in message


def test_exclusions_must_name_the_study_methods(tmp_path):
    message = load_error(study_file(tmp_path, exclude=[{"formulation": "F1", "integrator": "RK44"}]))
    assert "field 'exclude[0].formulation'" in message and "allowed: RV, Rxyz" in message


def test_a_formulation_listed_twice_is_rejected(tmp_path):
    assert "field 'formulations[1]'" in load_error(study_file(tmp_path, formulations=["RV", "RV"]))


def test_unknown_parameter_names_the_model_parameters(tmp_path):
    message = load_error(study_file(tmp_path, params={"mas": 3.0}))
    assert "field 'params.mas'" in message and "mass" in message


def test_unknown_quantity_lists_outputs_and_groups(tmp_path):
    message = load_error(study_file(tmp_path, errors=[{"quantity": "position", "measure": "norm_at_t_end"}]))
    assert "field 'errors[0].quantity'" in message and "com_x" in message and "com" in message


def test_unknown_measure_lists_the_registered_measures(tmp_path):
    message = load_error(study_file(tmp_path, errors=[{"quantity": "com", "measure": "max"}]))
    assert "field 'errors[0].measure'" in message and "norm_at_t_end" in message and "max_relative_over_time" in message


PUBLISHED = {"source": "000 Table 4",
             "columns": {"newton_per_step": {"RV-RK44": {1e-3: "1.0", 2.5e-4: "failed"}}},
             "errors": {"com:norm_at_t_end": {"Rxyz-DOPRI5": {5e-4: 2e-6}}},
             "orders": {"RV-RK44": 4, "Rxyz-DOPRI5": {"com": 5}},
             "values": [{"name": "period", "published": "~2.5 s"}]}


def test_published_numbers_are_read_per_method_and_step(tmp_path):
    published = load_study(study_file(tmp_path, published=PUBLISHED)).published
    assert published.columns["newton_per_step"]["RV-RK44"] == {1e-3: 1.0, 2.5e-4: "failed"}
    assert published.order("RV-RK44", "com", "norm_at_t_end") == 4
    assert published.order("Rxyz-DOPRI5", "com", "norm_at_t_end") == 5
    assert published.order("RV-DOPRI5", "com", "norm_at_t_end") is None
    assert published.error_values("com", "norm_at_t_end") == {"Rxyz-DOPRI5": {5e-4: 2e-6}}


@pytest.mark.parametrize("change, fragments", [
    ({"orders": {"RV-RK45": 4}}, ["field 'published.orders.RV-RK45'", "unknown method of this study",
                                  "allowed: RV-RK44, RV-DOPRI5, Rxyz-RK44, Rxyz-DOPRI5"]),
    ({"columns": {"newton_per_step": {"EP-RK44": {1e-3: 2.0}}}},
     ["field 'published.columns.newton_per_step.EP-RK44'", "allowed: RV-RK44"]),
    ({"errors": {"lambda": {"RV-RK44": {1e-3: 1.0}}}}, ["field 'published.errors.lambda'", "allowed: com"]),
    ({"orders": {"RV-RK44": {"com:max_over_time": 4}}},
     ["field 'published.orders.RV-RK44.com:max_over_time'", "allowed: norm_at_t_end"]),
    ({"columns": {"newton_per_step": {"RV-RK44": {3.91e-5: 2.0}}}},
     ["field 'published.columns.newton_per_step.RV-RK44'", "h = 3.91e-05 is not a step size",
      "allowed: 0.001, 0.0005, 0.00025"]),
    ({"columns": {"newton_per_step": {"RV-RK44": {1e-3: "fails"}}}},
     ["field 'published.columns.newton_per_step.RV-RK44.0.001'", "expected a number or 'failed'", "got 'fails'"]),
    ({"tables": {}}, ["field 'published.tables'", "unknown field", "allowed: source, columns, errors, orders, values"]),
], ids=["order_label", "column_label", "error_quantity", "error_measure", "step", "cell", "unknown_field"])
def test_bad_published_entry_names_file_and_field(tmp_path, change, fragments):
    message = load_error(study_file(tmp_path, published={**PUBLISHED, **change}))
    for fragment in fragments:
        assert fragment in message


def test_a_profile_inherits_published_numbers_of_its_own_grid(tmp_path):
    quick = {"integrators": ["RK44"], "steps": {"values": [1e-3, 5e-4]}}
    path = study_file(tmp_path, published=PUBLISHED, profiles={"quick": quick})
    profiled = load_study(path, "quick")
    assert profiled.published.columns == {"newton_per_step": {"RV-RK44": {1e-3: 1.0}}}
    assert profiled.published.errors == {} and profiled.published.orders == {"RV-RK44": 4}
    copy = tmp_path / "copy.yaml"
    copy.write_text(yaml.safe_dump(study_document(profiled)))
    assert load_study(copy).published == profiled.published


def test_a_profile_is_checked_against_the_published_numbers_of_the_whole_study(tmp_path):
    quick = {"integrators": ["RK44"]}
    bad = {**PUBLISHED, "orders": {"RV-RK45": 4}}
    with pytest.raises(InputError) as caught:
        load_study(study_file(tmp_path, published=bad, profiles={"quick": quick}), "quick")
    assert "field 'published.orders.RV-RK45'" in str(caught.value)
