"""Numbers of a mechanism file: a literal, or arithmetic on the file's parameters.

A value such as ``0.12 + crank_com_offset`` or ``rod_length * cos(pi / 4)`` is parsed once when the
file is loaded (unknown names and unsupported syntax are errors then) and evaluated when the mechanism
is built with a study's parameter values. Only arithmetic is allowed: numbers, parameter names,
``+ - * / **``, unary signs, brackets, ``pi`` and the functions in ``FUNCTIONS``; nothing else of
Python is reachable. Evaluation is in floating point and every intermediate result is bounded by
``MAX_MAGNITUDE``, so that a short text (``((9**64)**64)**64``) cannot make a number too large to compute.
"""
from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from typing import Any

FUNCTIONS = {"sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan, "atan2": math.atan2,
             "radians": math.radians, "degrees": math.degrees, "abs": abs}
CONSTANTS = {"pi": math.pi}
MAX_LENGTH = 200
"""Longest expression text accepted (a mechanism file is input: bounded like every other field)."""
MAX_MAGNITUDE = 1e300
"""Largest magnitude of a number and of every intermediate result of an expression (as of a literal number,
``schema._scalar``)."""

_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}
_SIGNS = {ast.UAdd: lambda a: +a, ast.USub: lambda a: -a}


def parse(text: str) -> ast.expr:
    """The expression tree of ``text``; ValueError naming what is not allowed."""
    if len(text) > MAX_LENGTH:
        raise ValueError(f"an expression has at most {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError(f"'{text[:60]}' is not a number or an arithmetic expression") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise ValueError(f"'{text[:60]}': only the functions {', '.join(FUNCTIONS)} can be called")
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _OPERATORS:
                raise ValueError(f"'{text[:60]}': only + - * / ** are allowed")
        elif isinstance(node, ast.UnaryOp):
            if type(node.op) not in _SIGNS:
                raise ValueError(f"'{text[:60]}': only the signs + and - are allowed")
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise ValueError(f"'{text[:60]}': only numbers and parameter names are allowed")
        elif not isinstance(node, ast.Name | ast.Load | ast.operator | ast.unaryop):
            raise ValueError(f"'{text[:60]}': only numbers, parameter names, + - * / ** and "
                             f"{', '.join(FUNCTIONS)} are allowed")
    return tree


def names(text: str) -> set[str]:
    """The parameter names ``text`` uses (functions and constants left out)."""
    return {node.id for node in ast.walk(parse(text)) if isinstance(node, ast.Name)
            and node.id not in FUNCTIONS and node.id not in CONSTANTS}


def evaluate(value: Any, parameters: Mapping[str, Any]) -> float:
    """A number, or the expression ``value`` evaluated with ``parameters`` (scalars); ValueError when a
    name is unknown, holds a list, or a result is not a finite number within ``MAX_MAGNITUDE``."""
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return _bounded(float(value))
        return _evaluate(parse(str(value)), parameters)
    except (ZeroDivisionError, TypeError):
        raise ValueError(f"'{str(value)[:60]}' cannot be evaluated with these parameters") from None
    except (_TooLarge, OverflowError):
        raise ValueError(f"'{str(value)[:60]}' has a result beyond 1e300 in magnitude "
                         "(intermediate results included)") from None


class _TooLarge(ArithmeticError):
    """A number beyond ``MAX_MAGNITUDE`` or not finite."""


def _bounded(number: float) -> float:
    """``number`` if it is finite and within ``MAX_MAGNITUDE``; _TooLarge otherwise."""
    if not math.isfinite(number) or abs(number) > MAX_MAGNITUDE:
        raise _TooLarge
    return number


def _evaluate(node: ast.expr, parameters: Mapping[str, Any]) -> float:
    if isinstance(node, ast.Constant):
        return _bounded(float(node.value))
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id not in parameters:
            raise ValueError(f"unknown parameter '{node.id}'")
        found = parameters[node.id]
        if isinstance(found, bool) or not isinstance(found, int | float):
            raise ValueError(f"parameter '{node.id}' is not a number")
        return _bounded(float(found))
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, parameters), _evaluate(node.right, parameters)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("an exponent larger than 64")
        result = _OPERATORS[type(node.op)](left, right)
        if isinstance(result, complex):
            raise ValueError("a negative number to a fractional power is not a real number")
        return _bounded(result)
    if isinstance(node, ast.UnaryOp):
        return _SIGNS[type(node.op)](_evaluate(node.operand, parameters))
    if isinstance(node, ast.Call):
        try:
            return _bounded(FUNCTIONS[node.func.id](*(_evaluate(argument, parameters) for argument in node.args)))
        except ValueError as error:      # sqrt(-1), a wrong number of arguments
            raise ValueError(f"{node.func.id}: {error}") from None
    raise ValueError("unsupported expression")
