"""Property-based fuzzing of the study loader: whatever a study file holds, ``load_study`` returns a
Study or raises one InputError whose single line names the file - never another exception."""
import os
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lgbench.exceptions import InputError
from lgbench.runner.study import Study, load_study

VALID = {
    "name": "fuzz", "model": "heavy_top", "t_end": 0.01, "formulations": ["RV", "Rxyz"],
    "integrators": ["RK44", {"name": "generalized-alpha", "label": "tight", "options": {"newton_rtol": 1e-10}}],
    "exclude": [{"formulation": "Rxyz", "integrator": "generalized-alpha"}],
    "steps": {"rule": "geometric", "h0": 1e-3, "base": 2, "n": [1, 3]},
    "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
    "samples": 11,
    "expectations": [{"kind": "order", "method": "RV-RK44", "expected": 4}],
    "profiles": {"quick": {"steps": {"values": [1e-3]}}},
}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["RV", "EP", "RK44", "generalized-alpha", "com",
                                                           "geometric", "order", "norm_at_t_end", "quick"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)
PATHS = [(key,) for key in VALID] + [
    ("steps", "h0"), ("steps", "n"), ("steps", "base"), ("steps", "rule"), ("steps", "values"),
    ("reference", "h"), ("reference", "formulation"), ("reference", "options"), ("reference", "exact"),
    ("errors", 0, "quantity"), ("errors", 0, "measure"), ("errors", 0, "window"),
    ("integrators", 1, "options"), ("integrators", 1, "options", "rho_inf"), ("integrators", 1, "label"),
    ("expectations", 0, "kind"), ("expectations", 0, "expected"), ("expectations", 0, "method"),
    ("profiles", "quick", "steps"), ("profiles", "quick", "t_end"), ("exclude", 0, "integrator"),
    ("series_plots",), ("unknown_field",), ("steps", "unknown"), ("params",), ("options",),
]


CASES = int(os.environ.get("LGBENCH_FUZZ_CASES", "150"))
"""Cases per test; LGBENCH_FUZZ_CASES=5000 for a long fuzz run."""


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(st.tuples(st.sampled_from(PATHS), values, st.booleans()), min_size=1, max_size=3))
def test_any_study_file_loads_or_fails_with_one_clear_line(tmp_path_factory, mutations):
    document = VALID
    for path, value, delete in mutations:
        base = document
        try:
            document = yaml.safe_load(yaml.safe_dump(base))
            target = document
            for part in path[:-1]:
                target = target[part]
            if delete and isinstance(target, dict):
                target.pop(path[-1], None)
            elif not delete:
                target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            document = base
    path = Path(tmp_path_factory.mktemp("fuzz")) / "study.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    try:
        study = load_study(path)
    except InputError as error:
        message = str(error)
        assert str(path) in message and "\n" not in message and len(message) < 2000
    else:
        assert isinstance(study, Study)


def test_the_unmutated_fuzz_seed_is_valid(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(VALID))
    assert load_study(path).name == "fuzz"


def test_a_line_break_inside_a_bad_key_stays_escaped_in_the_one_line_message():
    """Found by the fuzzer: a parameter name holding a line break was echoed verbatim."""
    message = str(InputError("unknown parameter of model heavy_top: '\n'", file="study.yaml", field="params.\n"))
    assert "\n" not in message and "params.\\n" in message
