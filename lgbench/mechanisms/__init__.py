"""Mechanism files (layer 3, beside ``lgbench/models``): a mechanism described as data becomes a model.

``schema`` is the file's form (pydantic) and the check of the names it uses; ``expressions`` its
numbers written as arithmetic on its parameters; ``build`` the system, initial state and ``Model``;
``outputs`` the named outputs. Reading a file from disk, with one-line errors, is the runner's
(``lgbench/runner/mechanism_file.py``). The schema imports no compiled code, so a study file can be
validated without loading the engine.
"""
