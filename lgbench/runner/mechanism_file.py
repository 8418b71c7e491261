"""Mechanism files read from disk (``lgbench validate``, a study's ``model:``), every problem one InputError.

A study's ``model:`` is a built-in model's name, the path of a mechanism file (``*.yaml``/``*.yml``,
relative to the study file's folder) or a mechanism written inline. A file is read, validated
(``lgbench/mechanisms/schema.py``) and built once in its first formulation here, so that a joint that
cannot be assembled or a parameter that does not evaluate is reported when the study is loaded, not in
a worker process halfway through a grid.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lgbench.exceptions import InputError
from lgbench.mechanisms.schema import Mechanism, check_mechanism
from lgbench.runner.input_files import read_yaml_mapping, validation_error
from lgbench.runner.single_run import MechanismData

SUFFIXES = (".yaml", ".yml")
"""A study's ``model:`` that ends with one of these names a mechanism file."""

_PATTERNS = {
    "name": ("name", "a letter, then letters, digits and '_'"),
    "parameters": ("parameter name", "a letter or '_', then letters, digits and '_'"),
    "outputs": ("output name", "a letter or '_', then letters, digits and '_'"),
}
_LABEL = ("name", "letters, digits, ' ', '_', '.', '+', '-', not starting with a space or a sign")
_VECTOR = ("number list or vector parameter name", "three numbers or expressions, or the name of a parameter "
           "that holds three numbers")


def _pattern_meaning(location: tuple[Any, ...]) -> tuple[str, str]:
    last = next((key for key in reversed(location) if isinstance(key, str) and not key.startswith("@")), None)
    if location and location[0] in _PATTERNS and (last == "name" or location[0] == "parameters"):
        return _PATTERNS[location[0]]
    if last in ("name", "body", "body1", "body2", "joint", "force", "bodies", "keep_positions", "keep_velocities"):
        return _LABEL
    return _VECTOR


def is_mechanism_path(model: Any) -> bool:
    return isinstance(model, str) and model.lower().endswith(SUFFIXES)


def is_mechanism_file(path: str | Path) -> bool:
    """Whether the YAML file at ``path`` is a mechanism file (a mapping with ``bodies`` and no ``model``)
    rather than a study; unreadable files are left to the study loader's messages."""
    try:
        data = read_yaml_mapping(path, "", [])
    except InputError:
        return False
    return "bodies" in data and "model" not in data


def validate_mechanism(data: Any, file: str | None, prefix: str = "") -> Mechanism:
    """``data`` (a mapping) as a checked mechanism, built once; errors name ``file`` and the field (under
    ``prefix`` when the mechanism sits inside a study)."""
    from lgbench.mechanisms.build import mechanism_model
    from lgbench.models import MODELS

    try:
        mechanism = Mechanism.model_validate(data)
    except ValidationError as error:
        found = validation_error(error, file or "", Mechanism, _pattern_meaning)
        raise _prefixed(found, file, prefix) from None
    except RecursionError:
        raise InputError("the mechanism is nested too deeply", file=file, field=prefix or None) from None
    try:
        check_mechanism(mechanism, file)
        if mechanism.name in MODELS:
            raise InputError(f"'{mechanism.name}' is the name of a built-in model", file=file, field="name",
                             allowed="a name no built-in model has ('lgbench list models')")
        mechanism_model(mechanism).build(mechanism.formulations[0])
    except InputError as error:
        raise _prefixed(error, file, prefix) from None
    return mechanism


def _prefixed(error: InputError, file: str | None, prefix: str) -> InputError:
    field = ".".join(part for part in (prefix, error.field) if part) or None
    return InputError(error.args[0], file=file or error.file, field=field, allowed=error.allowed)


def load_mechanism(path: str | Path) -> Mechanism:
    """The mechanism file at ``path``, read, validated and built once."""
    data = read_yaml_mapping(path, "a mechanism file is a mapping of fields (name: ..., bodies: ...)",
                             list(Mechanism.model_fields))
    return validate_mechanism(data, str(path))


def resolve_model_field(data: dict[str, Any], study_file: str) -> dict[str, Any]:
    """A study's data with ``model:`` naming a mechanism file replaced by the file's validated content
    (relative paths from the study file's folder), so that the study, and the copy kept with its
    results, carry the mechanism itself; an inline mechanism validated and built once."""
    model = data.get("model")
    if isinstance(model, dict):
        return {**data, "model": validate_mechanism(model, study_file, "model").model_dump(mode="json")}
    if not is_mechanism_path(model):
        return data
    path = Path(model)
    if not path.is_absolute():
        path = Path(study_file).parent / path
    if not path.exists():
        raise InputError(f"mechanism file {model} not found (looked for {path})", file=study_file, field="model",
                         allowed="a built-in model ('lgbench list models'), a mechanism file (*.yaml) relative "
                                 "to the study file, or a mechanism written inline")
    mechanism = load_mechanism(path)
    return {**data, "model": mechanism.model_dump(mode="json")}


def mechanism_data(mechanism: Mechanism) -> MechanismData:
    """What the runs of a study on ``mechanism`` carry: its content as JSON with sorted keys, the same
    whatever order the file wrote its parameters in."""
    return MechanismData(json.dumps(mechanism.model_dump(mode="json"), sort_keys=True))
