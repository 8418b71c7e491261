"""Bounded evaluation and field names of mechanism files and tableaus (issue 49 items 5 and 6): a short
expression or coefficient cannot make a number too large to compute, a tableau of the wrong shape or size
is one line naming its field, and every field of a one-line error reads as the user wrote it."""
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lgbench.cli import app
from lgbench.exceptions import InputError
from lgbench.mechanisms import expressions
from lgbench.runner.mechanism_file import load_mechanism
from test_cli import assert_one_line_input_error
from test_shipped_study_fuzz import field_paths, mutated_file

ROOT = Path(__file__).resolve().parents[1]
MECHANISM = ROOT / "studies" / "mechanisms" / "double_pendulum.yaml"
TOWER = "((((9**64)**64)**64)**64)**64"
HANG_GUARD_S = 120
"""Where a command that used to never finish is given up on (it answers in about a second)."""

TABLEAU_STUDY = {
    "name": "tableau", "model": "heavy_top", "t_end": 0.1, "formulations": ["RV"], "integrators": ["heun"],
    "steps": {"values": [0.01]}, "reference": {"formulation": "RV", "integrator": "RK44", "h": 0.001},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
    "tableaus": [{"name": "heun", "order": 2, "A": [[0, 0], [1, 0]], "b": ["1/2", "1/2"], "c": [0, 1]}],
}


def _mechanism(tmp_path: Path, **body) -> Path:
    document = yaml.safe_load(MECHANISM.read_text())
    document["bodies"][0].update(body)
    path = tmp_path / "mechanism.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _tableau_study(tmp_path: Path, **tableau) -> Path:
    document = yaml.safe_load(yaml.safe_dump(TABLEAU_STUDY))
    document["tableaus"][0].update(tableau)
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _validate(path: Path) -> subprocess.CompletedProcess:
    """``lgbench validate`` in its own process, given up on after HANG_GUARD_S (a hang fails the test)."""
    return subprocess.run([sys.executable, "-m", "lgbench", "validate", str(path)], capture_output=True, text=True,
                          timeout=HANG_GUARD_S, cwd=ROOT)


def _one_line(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("text", ["1e200 * 1e200", "(9**64)**64 / (9**64)**63", "1e300 + 1e300", "-(1e300 * 10)",
                                  "1e301 * 0"])
def test_an_intermediate_result_beyond_1e300_is_refused(text):
    with pytest.raises(ValueError, match="beyond 1e300"):
        expressions.evaluate(text, {})


def test_expressions_within_the_bound_keep_their_values():
    assert expressions.evaluate("2**10 / 4 - 1", {}) == 255.0
    assert expressions.evaluate("mass * (3 * r**2 + l**2) / 12", {"mass": 2, "r": 0.5, "l": 3}) == 1.625
    assert expressions.evaluate("2**64 * 2**64 * 2**64", {}) == 2.0**192


def test_a_negative_number_to_a_fractional_power_is_named():
    with pytest.raises(ValueError, match="not a real number"):
        expressions.evaluate("(-8)**(1/3)", {})


def test_a_power_tower_as_a_mass_is_one_line_naming_the_field(tmp_path):
    _one_line(_validate(_mechanism(tmp_path, mass=TOWER)), "field 'bodies[0].mass'", "beyond 1e300")


def test_a_coefficient_with_a_huge_exponent_is_one_line_naming_the_field(tmp_path):
    _one_line(_validate(_tableau_study(tmp_path, b=["1e999999999", "1/2"])), "field 'tableaus[0].b[0]'",
              "at most 1e12")


@pytest.mark.parametrize("tableau, field, fragment", [
    ({"c": [0, "1e400"]}, "tableaus[0].c[1]", "at most 1e12"),
    ({"b": [1.0e308, -1.0e308], "order": 1}, "tableaus[0].b[0]", "at most 1e12"),
    ({"A": [[0, 0], ["1/" + "3" * 110, 0]]}, "tableaus[0].A[1][0]", "fraction such as 1/3"),
    ({"A": [[0, 0], [1]]}, "tableaus[0].A[1]", "row 2 of A has 1 coefficients"),
    ({"A": [[0, 0], [1, 0], [0, 1]]}, "tableaus[0].A", "A has 3 rows"),
    ({"c": [0, 1, 1]}, "tableaus[0].c", "c has 3 entries"),
    ({"e": [1], "embedded_order": 1}, "tableaus[0].e", "e has 1 entries"),
], ids=["1e400", "1e308_weights", "long_fraction", "ragged", "rows", "c", "e"])
def test_a_tableau_of_the_wrong_size_or_shape_is_one_line_naming_the_field(tmp_path, tableau, field, fragment):
    """Weights of +-1e308 once passed the order conditions: their residual and its scale were both infinite."""
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["validate", str(_tableau_study(tmp_path, **tableau))])
    assert_one_line_input_error(result, f"field '{field}'", fragment)


coefficient_texts = st.one_of(st.from_regex(r"[+-]?\d{1,3}(\.\d{0,3})?[eE][+-]?\d{1,12}", fullmatch=True),
                              st.from_regex(r"[+-]?\d{1,70}/\d{1,70}", fullmatch=True), st.text(max_size=120))


@settings(max_examples=300, deadline=None)
@given(text=coefficient_texts)
def test_any_coefficient_text_is_a_bounded_number_or_refused(text):
    from pydantic import ValidationError

    from lgbench.runner.study import MAX_COEFFICIENT, TableauEntry

    try:
        entry = TableauEntry.model_validate({"name": "t", "order": 1, "A": [[0]], "b": [text], "c": [0]})
    except ValidationError as error:
        assert "at most 1e12 in magnitude" in str(error)
    else:
        assert abs(entry.b[0]) <= MAX_COEFFICIENT


@pytest.mark.parametrize("body, field, fragment", [
    ({"inertia": [True, 1, 1]}, "bodies[0].inertia[0]", "true/false"),
    ({"inertia": [1, 1]}, "bodies[0].inertia", "at least 3 items"),
    ({"inertia": [[1, 0, 0], [0, 1, 0], [0, 0, None]]}, "bodies[0].inertia[2][2]", "expected a number"),
    ({"inertia": "a b"}, "bodies[0].inertia", "vector parameter name"),
    ({"mass": -1}, "bodies[0].mass", "must be positive"),
    ({"position": [0, True, 0]}, "bodies[0].position[1]", "true/false"),
    ({"velocity": 5}, "bodies[0].velocity", "valid list"),
])
def test_a_field_of_a_body_is_named_as_written(tmp_path, body, field, fragment):
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["validate", str(_mechanism(tmp_path, **body))])
    assert_one_line_input_error(result, f"field '{field}'", fragment)


def test_a_joint_axis_is_named_as_written(tmp_path):
    from typer.testing import CliRunner

    document = yaml.safe_load(MECHANISM.read_text())
    document["joints"][0]["axis"] = [0, 0, 0]
    path = tmp_path / "mechanism.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    assert_one_line_input_error(CliRunner().invoke(app, ["validate", str(path)]), "field 'joints[0].axis'",
                                "non-zero")


DOCUMENTS = {MECHANISM.name: yaml.safe_load(MECHANISM.read_text())}
FIELDS = [(MECHANISM.name, path) for path in field_paths(DOCUMENTS[MECHANISM.name])]
PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])*")
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**400, 10**400), st.floats(),
                    st.sampled_from(["", "x y", "mass", "-mass", "1 / 0", TOWER, "sqrt(-1)", "(-1)**0.5", "1e999"]))
ASSEMBLY_FIELD = "initial state"
"""The field of an initial state whose positions cannot be assembled: no single field is to blame."""
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=10)


def _walks(document, parts: list) -> int:
    """How many of ``parts`` (keys and indices) lead into ``document`` one after the other."""
    node = document
    for count, part in enumerate(parts):
        if isinstance(part, int) and isinstance(node, list) and part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return count
    return len(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=values, delete=st.booleans())
def test_the_field_of_any_mechanism_error_is_a_path_of_the_file(tmp_path_factory, field, value, delete):
    """Whatever replaces a field, the error's field is a path the file has, up to a last part it lacks
    (a required field deleted, an unknown one given), or the whole initial state (positions that cannot
    be assembled)."""
    file = mutated_file(tmp_path_factory, DOCUMENTS, field, value, delete)
    try:
        load_mechanism(file)
    except InputError as error:
        if error.field in (None, ASSEMBLY_FIELD):
            return
        assert PATH.fullmatch(error.field), error.field
        parts = [int(index) if index else key for key, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", error.field)]
        document = yaml.safe_load(file.read_text())
        assert _walks(document, parts) >= len(parts) - 1, str(error)
