"""The models the conformance tests run over: the registered ones and the shipped mechanism files
(studies/mechanisms/*.yaml), each with the RunSpec fields that name it."""
from __future__ import annotations

from pathlib import Path

from lgbench.mechanisms.build import mechanism_model
from lgbench.models import MODELS
from lgbench.runner.mechanism_file import load_mechanism, mechanism_data

MECHANISM_FILES = sorted((Path(__file__).resolve().parent.parent / "studies" / "mechanisms").glob("*.yaml"))
_MECHANISMS = {mechanism.name: mechanism for mechanism in map(load_mechanism, MECHANISM_FILES)}
ALL_MODELS = {**MODELS, **{name: mechanism_model(mechanism) for name, mechanism in _MECHANISMS.items()}}
"""Built-in models and mechanism files by name (a mechanism file's name is never a built-in one's)."""


def run_fields(name: str) -> dict:
    """The keyword arguments of ``RunSpec`` beyond the model name: a mechanism file's content."""
    return {"mechanism": mechanism_data(_MECHANISMS[name])} if name in _MECHANISMS else {}
