"""Reading a YAML input file (a study, a mechanism) and turning a schema violation into one InputError.

Both file kinds are bounded in size, must be UTF-8 YAML mappings, and report their first problem as one
line naming the file, the field (``joints[2].axis``) and what is allowed there.
"""
from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ValidationError

from lgbench.exceptions import InputError
from lgbench.runner import bounds


SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""``yaml.safe_load``'s loader, parsed by libyaml where PyYAML was built with it: ``load_study`` of a
shipped study took 104 ms before, most of it pure-Python parsing, and takes 17 ms."""


TOO_DEEP = "the YAML is nested too deeply"


def read_yaml_mapping(path: str | Path, not_a_mapping: str, fields: list[str]) -> dict[str, Any]:
    """The YAML mapping in ``path``; an InputError for a missing, oversized, undecodable or malformed
    file, or one that is not a mapping (``not_a_mapping`` says what it should be, ``fields`` what it may
    hold)."""
    file = str(path)
    try:
        size = Path(path).stat().st_size
        if size > bounds.MAX_FILE_BYTES:
            raise InputError(f"the file has {size} bytes, more than an input file may have",
                             file=file, allowed=f"at most {bounds.MAX_FILE_BYTES} bytes")
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", file=file) from None
    except IsADirectoryError:
        raise InputError("a folder, not a file", file=file) from None
    except OSError as error:
        raise InputError(f"cannot read the file ({error.strerror})", file=file) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", file=file) from None
    try:
        data = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as error:
        if "nesting depth" in str(getattr(error, "problem", "")):     # libyaml's own depth limit
            raise InputError(TOO_DEEP, file=file) from None
        raise InputError(yaml_message(error), file=file) from None
    except RecursionError:
        raise InputError(TOO_DEEP, file=file) from None
    if not isinstance(data, dict):
        raise InputError(not_a_mapping, file=file, allowed=fields)
    return data


def yaml_message(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:
        return f"YAML syntax error: {problem}"
    return f"YAML syntax error at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic model classes inside an annotation such as ``list[Combination] | None`` or a
    discriminated union of several."""
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for argument in typing.get_args(annotation) for model in _models_in(argument)]


def _tag_of(models: list[type[BaseModel]], part: str) -> type[BaseModel] | None:
    """The member of a discriminated union whose ``type`` or ``kind`` literal is ``part`` (pydantic puts
    the tag into an error's location)."""
    if len(models) < 2:
        return None
    for model in models:
        for key in ("type", "kind"):
            field = model.model_fields.get(key)
            if field is not None and typing.get_origin(field.annotation) is Literal \
                    and part in typing.get_args(field.annotation):
                return model
    return None


def _walk(location: tuple[Any, ...], root: type[BaseModel]) -> tuple[str, list[type[BaseModel]]]:
    """The field path of ``location`` without union tags, and the models that may hold its last part."""
    path = ""
    models: list[type[BaseModel]] = [root]
    for position, part in enumerate(location):
        if isinstance(part, str) and part.startswith("@"):       # a union member's tag of a callable discriminator
            continue
        if isinstance(part, str):
            tagged = _tag_of(models, part)
            if tagged is not None:
                models = [tagged]
                continue
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        if isinstance(part, str) and position < len(location) - 1:
            holder = next((model for model in models if part in model.model_fields), None)
            models = _models_in(holder.model_fields[part].annotation) if holder else []
    return path, models


def validation_error(error: ValidationError, file: str, root: type[BaseModel],
                     pattern_meaning: Callable[[tuple[Any, ...]], tuple[str, str]]) -> InputError:
    """The first validation problem of a file validated as ``root``, as one InputError;
    ``pattern_meaning(location)`` says what a text field with a pattern holds and which form it takes."""
    problem = error.errors()[0]
    location = problem["loc"]
    path, models = _walk(location, root)
    field = path or None
    if problem["type"] == "extra_forbidden":
        allowed = list(dict.fromkeys(name for model in models for name in model.model_fields))
        return InputError("unknown field", file=file, field=field, allowed=allowed)
    if problem["type"] == "missing":
        return InputError("required field is missing", file=file, field=field)
    if problem["type"] == "string_pattern_mismatch":
        what, allowed = pattern_meaning(location)
        return InputError(f"'{bounds.echo_text(str(problem['input']))}' is not a usable {what}", file=file,
                          field=field, allowed=allowed)
    # pydantic quotes some inputs in its message (a union's tag): shortened like every other echo
    message = re.sub(r"'([^']{%d,})'" % bounds.MAX_ECHO, lambda m: f"'{bounds.echo_text(m.group(1))}'",
                     problem["msg"].removeprefix("Value error, "))
    given = problem.get("input")
    if isinstance(given, bool | int | float | str) and problem["type"] != "value_error":
        message += f" (got {bounds.echo_text(repr(given))})"
    return InputError(message, file=file, field=field)
