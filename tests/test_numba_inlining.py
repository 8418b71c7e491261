"""The compile-time fix of numba's inliner (lgbench/_numba_inlining.py): in place, and the inlined IR
is the same statements as numba's own inliner gives."""
import contextlib
import io
import re

import numpy as np
from numba import njit
from numba.core import compiler, registry
from numba.core.inline_closurecall import InlineWorker, callee_ir_validator

from lgbench import _numba_inlining
from lgbench.mbs import force_tangent


@njit(inline="always")
def _innermost(x, k):
    return x[k] * x[k] if k % 2 == 0 else -x[k]


@njit(inline="always")
def _middle(x, scale):
    s = 0.0
    for k in range(x.shape[0]):
        if x[k] > 0.0:
            s += scale * _innermost(x, k)
        else:
            s -= _innermost(x, k)
    return s


@njit(inline="always")
def _outer(x):
    return _middle(x, 2.0) + _middle(x, 0.5)


@njit
def _nested_inlining(x):
    return _outer(x) - _middle(x, 1.0)


def _untyped_statements(function):
    """The statements of ``function``'s IR after numba's untyped passes (inlining included), with labels,
    object addresses and the per-compilation number of each inlined function removed, sorted: equal when
    two inliners give the same IR up to the order of independent statements."""
    target = registry.cpu_target
    flags = compiler.Flags()
    flags.nrt = True
    pipeline = compiler.Compiler(target.typing_context, target.target_context, None, None, None, flags, {})
    worker = InlineWorker(target.typing_context, target.target_context, {}, pipeline, flags,
                          validator=callee_ir_validator)
    function_ir = worker.run_untyped_passes(function.py_func)
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        function_ir.dump()
    lines = re.sub(r" at 0x[0-9a-f]+", "", text.getvalue()).splitlines()
    lines = [re.sub(r"([a-z])_v\d+_", r"\1_vN_", line) for line in lines if not line.startswith("label")]
    return sorted(" ".join(re.sub(r"\b\d{3,}\b", "L", line).split()) for line in lines)


def test_fix_is_installed_on_the_supported_numba():
    assert _numba_inlining.installed()
    assert _numba_inlining.install()


def test_fix_gives_the_statements_of_numbas_own_inliner():
    for function in (_nested_inlining, _outer):
        fixed = _untyped_statements(function)
        with _numba_inlining.numba_inliner_as_shipped():
            shipped = _untyped_statements(function)
        assert fixed == shipped
    assert _numba_inlining.installed()


def test_fix_gives_the_statements_of_numbas_own_inliner_on_a_force_tangent_kernel():
    fixed = _untyped_statements(force_tangent._add_body_terms)
    with _numba_inlining.numba_inliner_as_shipped():
        shipped = _untyped_statements(force_tangent._add_body_terms)
    assert fixed == shipped


def test_nested_inlined_functions_compute_what_python_does():
    x = np.array([0.5, -1.0, 2.0, -0.25, 3.0])
    assert np.isclose(_nested_inlining(x), _nested_inlining.py_func(x), rtol=1e-15)


def test_other_deep_copies_still_copy():
    value = {"a": [1, [2, 3]]}
    copied = _numba_inlining._FreshBlocksNotCopied.deepcopy(value)
    assert copied == value and copied is not value and copied["a"][1] is not value["a"][1]
