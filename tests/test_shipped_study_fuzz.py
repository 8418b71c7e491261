"""Type-fuzz over every field of every shipped study: whatever value of whatever type replaces a
field (or the field is deleted), ``load_study`` returns a Study or raises one one-line InputError
naming the file, never another exception."""
import copy
import os
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lgbench.exceptions import InputError
from lgbench.runner.bounds import MAX_RUNS
from lgbench.runner.grid import labelled_specs
from lgbench.runner.study import Study, load_study

STUDIES = sorted((Path(__file__).resolve().parent.parent / "studies").glob("*.yaml"))
DOCUMENTS = {path.name: yaml.safe_load(path.read_text()) for path in STUDIES}


def field_paths(node, prefix=()):
    """Every mapping key and list index of a document, at every depth."""
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return
    for key, value in items:
        yield prefix + (key,)
        yield from field_paths(value, prefix + (key,))


FIELDS = [(name, path) for name, document in DOCUMENTS.items() for path in field_paths(document)]


def mutated_file(tmp_path_factory, documents, field, value, delete):
    """A copy of ``documents[name]`` (``field`` = (name, path)) with the field at ``path`` set to ``value``
    or deleted, written as a YAML file of that name in a fresh folder."""
    name, path = field
    document = copy.deepcopy(documents[name])
    target = document
    for part in path[:-1]:
        target = target[part]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    file = tmp_path_factory.mktemp("fuzz") / name
    file.write_text(yaml.safe_dump(document, allow_unicode=True))
    return file

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-10**400, 10**400),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
                    st.sampled_from(["RV", "Rxyz", "RK44", "generalized-alpha", "1e-6", ".inf", "..", "/", "",
                                     "$\\frac{", "$x^$", "geometric", "order", "quick", "com"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=8)
CASES = int(os.environ.get("LGBENCH_FUZZ_CASES", "600"))
"""Cases per test; LGBENCH_FUZZ_CASES=5000 for a long fuzz run."""
seen = []


def test_every_shipped_study_has_fields_to_fuzz():
    assert len(STUDIES) >= 10 and len(FIELDS) > 500


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=values, delete=st.booleans())
def test_any_value_in_any_field_of_any_shipped_study_loads_or_is_one_line(tmp_path_factory, field, value, delete):
    file = mutated_file(tmp_path_factory, DOCUMENTS, field, value, delete)
    seen.append(field)
    try:
        study = load_study(file)
    except InputError as error:
        message = str(error)
        assert str(file) in message and "\n" not in message and len(message) < 2000, message
    else:
        assert isinstance(study, Study)
        assert len(labelled_specs(study)) <= MAX_RUNS       # what 'lgbench validate' does next: a bounded grid
