"""Type-fuzz over every field of every shipped mechanism file (issue 20): whatever value of whatever type
replaces a field (or the field is deleted), ``load_mechanism`` returns a mechanism that builds in every
formulation it lists, or raises one one-line InputError naming the file, never another exception."""
import os
from pathlib import Path

import numpy as np
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lgbench.exceptions import InputError
from lgbench.mechanisms.build import mechanism_model
from lgbench.runner.mechanism_file import load_mechanism
from test_shipped_study_fuzz import field_paths, mutated_file

FILES = sorted((Path(__file__).resolve().parent.parent / "studies" / "mechanisms").glob("*.yaml"))
DOCUMENTS = {path.name: yaml.safe_load(path.read_text()) for path in FILES}


# the V8 is left out of the fuzz of its many bodies' fields (17 bodies, 25 joints: each case would
# assemble 119 coordinates); its top-level fields and first entries are fuzzed like the others'
FIELDS = [(name, path) for name, document in DOCUMENTS.items() for path in field_paths(document)
          if name != "v8_crank.yaml" or not (len(path) > 1 and isinstance(path[1], int) and path[1] > 1)]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-10**400, 10**400),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
                    st.sampled_from(["ground", "revolute", "spherical", "x", "xyz", "global", "bodies", "mass",
                                     "length * 2", "sqrt(-1)", "1 / 0", "2 ** 99999", "__import__('os')", "pi",
                                     "gravity", "1e-6", "energy", "joint_angle", "upper rod", "crank"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=8)
CASES = int(os.environ.get("LGBENCH_FUZZ_CASES", "300"))
"""Cases per test; LGBENCH_FUZZ_CASES=5000 for a long fuzz run."""


def test_every_shipped_mechanism_has_fields_to_fuzz():
    assert len(FILES) >= 4 and len(FIELDS) > 200


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=values, delete=st.booleans())
def test_any_value_in_any_field_of_any_shipped_mechanism_loads_or_is_one_line(tmp_path_factory, field, value,
                                                                              delete):
    file = mutated_file(tmp_path_factory, DOCUMENTS, field, value, delete)
    try:
        mechanism = load_mechanism(file)
        model = mechanism_model(mechanism)
        for formulation in model.formulations:
            built = model.build(formulation)
            outputs = built.outputs(built.system, built.q0, built.v0, np.zeros(int(built.system.sizes[2])), 0.0)
            assert outputs.shape == (len(model.outputs),)
    except InputError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 2000, message
        assert str(file) in message or error.field is not None, message


def test_a_huge_joint_type_is_echoed_shortened(tmp_path):
    """Found by the fuzz: pydantic quotes a union's tag in its message, so a 1000-digit joint type made a
    message of several thousand characters."""
    data = yaml.safe_load(FILES[0].read_text())
    data["joints"][0]["type"] = [[10 ** 400, 10 ** 400]]
    path = tmp_path / "huge.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        load_mechanism(path)
    except InputError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 600 and "field 'joints[0]'" in message, message
    else:
        raise AssertionError("a list is not a joint type")
