"""Subnormal numbers flushed to zero in the threads that integrate.

A component that the integrator damps (generalized-alpha and HHT with rho_inf < 1 take a spurious
mode down by about rho_inf per step) falls below the smallest normal double (2.2e-308) after some
thousands of steps: 0.9**6724 = 2.2e-308. From there on every operation with it is a subnormal
operation, which x86 processors carry out in microcode at about a hundred times the cost of a normal
one. Measured on the slider-crank (generalized-alpha, h = 1e-3): 37 µs per step over the first 6000
steps, then 95-127 µs per step; a 10 s run cost 69 instead of 36 µs per step (Rxyz, 76 instead of 40
for EP). The CPU time of a long run then measured the processor's subnormal arithmetic, not the
algorithm. Values below 1e-308 carry no information here, so lgbench sets the processor's
flush-to-zero (FTZ, results) and denormals-are-zero (DAZ, operands) modes, as compilers do under
-ffast-math. The modes belong to a thread: ``timed_run`` sets them in the thread that integrates.
Off x86-64 this does nothing (no such cost was measured there).
"""
from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from lgbench._compiled import kernel

FLUSH_TO_ZERO = 0x8000
"""MXCSR bit 15: subnormal results become zero."""
DENORMALS_ARE_ZERO = 0x0040
"""MXCSR bit 6: subnormal operands are read as zero."""

X86_64 = platform.machine().lower() in ("x86_64", "amd64")


@intrinsic
def _or_into_mxcsr(typingctx, bits):
    """MXCSR |= bits (the SSE control and status register); returns the previous MXCSR."""
    signature = types.uint32(types.uint32)

    def codegen(context, builder, sig, args):
        word = ir.IntType(32)
        slot = cgutils.alloca_once(builder, word)
        address = builder.bitcast(slot, ir.IntType(8).as_pointer())
        function_type = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()])
        read = cgutils.get_or_insert_function(builder.module, function_type, "llvm.x86.sse.stmxcsr")
        write = cgutils.get_or_insert_function(builder.module, function_type, "llvm.x86.sse.ldmxcsr")
        builder.call(read, [address])
        previous = builder.load(slot)
        builder.store(builder.or_(previous, args[0]), slot)
        builder.call(write, [address])
        return previous

    return signature, codegen


@kernel
def _set_mxcsr_bits(bits):
    return _or_into_mxcsr(bits)


def flush_subnormals_to_zero() -> None:
    """Set FTZ and DAZ in the calling thread (x86-64; elsewhere nothing)."""
    if X86_64:
        _set_mxcsr_bits(np.uint32(FLUSH_TO_ZERO | DENORMALS_ARE_ZERO))
