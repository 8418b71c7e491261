"""Borrowed views of arrays for compiled inner loops: the same memory without reference counting.

numba counts references of every array it passes to a compiled function or takes out of a tuple,
with an atomic increment and decrement each time. In an integration loop whose kernels receive a
dozen arrays per stage, that counting cost about as much as the arithmetic (measured on the RV heavy
top with RK44: 1.17 us per step counted, 0.64 us borrowed; docs/performance.md).

``borrowed(x)`` returns x (an array, or a tuple of arrays and scalars, nested) with the memory
manager pointer of every array set to null, which numba's reference counting skips. It is only safe
while someone else owns the arrays: call it on the arguments of a compiled function, whose caller
holds them for the duration of the call, never return a borrowed array to Python, and never keep one
beyond the call.

Inside a function that is *inlined* into its caller (``integrators/fixed_step.run_fixed_steps``) the
owner can be a local variable of the caller, which numba releases after its last use, i.e. right
after the ``borrowed`` call: the views would then point into freed memory. Such a function keeps the
owners alive to its end with ``keep_alive(owners)`` after its last use of the borrowed views.
"""
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _borrowed_value(context, builder, typ, value):
    if isinstance(typ, types.Array):
        source = context.make_array(typ)(context, builder, value=value)
        view = context.make_array(typ)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()
    if isinstance(typ, types.BaseTuple):
        out = value
        for k, member in enumerate(typ.types):
            item = _borrowed_value(context, builder, member, builder.extract_value(value, k))
            out = builder.insert_value(out, item, k)
        return out
    return value


@intrinsic
def borrowed(typingctx, x):
    """x with every array in it (arrays, tuples and named tuples, nested) unmanaged: see the module note."""
    def codegen(context, builder, signature, args):
        return _borrowed_value(context, builder, x, args[0])
    return x(x), codegen


@intrinsic
def keep_alive(typingctx, x):
    """Use x (and so keep its arrays alive) up to this point; generates no code."""
    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return types.none(x), codegen
