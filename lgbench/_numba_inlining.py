"""Compile-time fix for numba's ``inline="always"``: the inliner's defensive copies of a fresh callee.

numba's ``InlineWorker.inline_function`` builds the callee's IR afresh (``run_untyped_passes``) at every
call site, then ``inline_ir`` deep-copies it twice, block by block: once because inlining mutates it and
once to keep an unmutated original, which ``inline_function``'s only caller (the ``InlineInlinables``
pass) throws away. Every block's deep copy copies the callee's whole scope again (all its variables), so
one inlining costs blocks x variables, and the compiled core inlines whole kernels into kernels
(``docs/performance.md``, "One compiled frame"). Measured on the heavy-top generalized-alpha entry point
with an empty compile cache: 148 of its 341 s of compilation were this pass, 96 % of them in
``copy.deepcopy`` (numba issue 8989 describes the same copies).

The IR of ``inline_function`` is fresh and nobody else holds it, so it needs no copy: ``install`` wraps
``inline_function`` so that, during its ``inline_ir``, a deep copy of one of that IR's blocks returns the
block itself. Every other copy (typed inlining of overloads, whose IR is cached and shared) is unchanged.
The inlined blocks then share the callee's one scope where each had an equal copy of it; the statements,
and the machine code, are the same. If numba's inliner no longer has this shape, ``install`` leaves it
alone (compilation is then only slower) and ``installed`` says so.
"""
from __future__ import annotations

import contextlib
import copy
import threading

_state = threading.local()


class _FreshBlocksNotCopied:
    """Stands in for the ``copy`` module inside numba's inliner: ``deepcopy`` of a block of the fresh
    callee IR being inlined returns that block; everything else is copied as before."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(x, memo=None):
        fresh = getattr(_state, "fresh_blocks", None)
        if fresh is not None and id(x) in fresh and fresh[id(x)] is x:
            return x
        return copy.deepcopy(x, memo)


def _shape_is_known(inline_closurecall) -> bool:
    worker = getattr(inline_closurecall, "InlineWorker", None)
    return (worker is not None and getattr(inline_closurecall, "copy", None) is copy
            and hasattr(worker, "inline_function") and hasattr(worker, "inline_ir")
            and hasattr(worker, "run_untyped_passes"))


def install() -> bool:
    """Apply the fix once (idempotent); True if it is in place."""
    from numba.core import inline_closurecall

    if getattr(inline_closurecall.InlineWorker.inline_function, "_lgbench_fresh", False):
        return True
    if not _shape_is_known(inline_closurecall):
        return False

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        callee_ir = self.run_untyped_passes(function)
        outer = getattr(_state, "fresh_blocks", None)
        _state.fresh_blocks = {id(b): b for b in callee_ir.blocks.values()}
        try:
            return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars,
                                  arg_typs=arg_typs)
        finally:
            _state.fresh_blocks = outer

    inline_function._lgbench_fresh = True
    inline_function._numba_original = inline_closurecall.InlineWorker.inline_function
    inline_function.__doc__ = inline_closurecall.InlineWorker.inline_function.__doc__
    inline_closurecall.copy = _FreshBlocksNotCopied()
    inline_closurecall.InlineWorker.inline_function = inline_function
    return True


def installed() -> bool:
    """Whether numba's inliner runs with the fix."""
    from numba.core import inline_closurecall

    return getattr(inline_closurecall.InlineWorker.inline_function, "_lgbench_fresh", False)


@contextlib.contextmanager
def numba_inliner_as_shipped():
    """numba's own inliner for the duration (to check that the fix changes no inlined statement)."""
    from numba.core import inline_closurecall

    patched = inline_closurecall.InlineWorker.inline_function
    if not installed():
        yield
        return
    inline_closurecall.InlineWorker.inline_function = patched._numba_original
    inline_closurecall.copy = copy
    try:
        yield
    finally:
        inline_closurecall.InlineWorker.inline_function = patched
        inline_closurecall.copy = _FreshBlocksNotCopied()
