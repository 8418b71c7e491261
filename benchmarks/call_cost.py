"""What a compiled call costs when the callee takes many arrays: the spike of issue 16 item 1.

The compiled core inlines the Newton solver, the residual and the iteration matrix into each entry point,
because a compiled call that takes the system and workspace named tuples copies every array's structure
(about 8 machine words each) at every call: stop 33 measured up to 4.1x per step on the heavy top. The
inlining is what makes an entry point take 100 s to compile (docs/performance.md). A numba ``StructRef``
passes one pointer instead. This script times one callee that reads 25 arrays of 4 entries, called
200,000 times from a compiled loop:

- inlined into the loop (``inline="always"``, what the entry points do now);
- as a compiled call taking the 25 arrays as a named tuple;
- as a compiled call taking them as a ``StructRef``.

    .venv/bin/python benchmarks/call_cost.py

prints nanoseconds per call, minimum of 7 repeats. numba reads a ``StructRef``'s fields (``ref.a0``)
through its memory manager, so only a function compiled with reference counting (a ``kernel``) can read
them that way; an ``entry_point`` can pass one on, and docs/performance.md (stop 43) reads the fields
without the memory manager. Its type is cached with ``cache=True`` like any other argument type.
"""
from __future__ import annotations

import time
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.experimental import structref

N_ARRAYS = 25
FIELDS = [f"a{i}" for i in range(N_ARRAYS)]
CALLS = 200_000
REPEATS = 7


@structref.register
class ArraysType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Arrays(structref.StructRefProxy):
    """The 25 arrays behind one pointer."""


structref.define_proxy(Arrays, ArraysType, FIELDS)
ArrayTuple = namedtuple("ArrayTuple", FIELDS)


def _callee_source(name: str) -> str:
    """A callee that reads every entry of every array (a weighted sum) and writes one entry."""
    lines = [f"def {name}(w, k):", "    s = 0.0"]
    for i in range(N_ARRAYS):
        lines += [f"    for i in range(w.a{i}.shape[0]):", f"        s += w.a{i}[i] * {i + 1}.0"]
    lines += ["    w.a0[k % w.a0.shape[0]] = s * 1e-9", "    return s"]
    return "\n".join(lines) + "\n"


def _compiled_callee(name: str, **options):
    namespace: dict = {}
    exec(_callee_source(name), namespace)
    return njit(**options)(namespace[name])


callee_inlined = _compiled_callee("callee_inlined", inline="always")
callee_tuple = _compiled_callee("callee_tuple")
callee_structref = _compiled_callee("callee_structref")


def _loop_calling(callee):
    """A compiled loop that calls ``callee`` n times and sums what it returns."""
    @njit
    def loop(w, n):
        s = 0.0
        for k in range(n):
            s += callee(w, k)
        return s
    return loop


calls_inlined = _loop_calling(callee_inlined)
calls_with_tuple = _loop_calling(callee_tuple)
calls_with_structref = _loop_calling(callee_structref)


def nanoseconds_per_call(loop, w) -> float:
    loop(w, 10)
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        loop(w, CALLS)
        best = min(best, (time.perf_counter() - started) / CALLS * 1e9)
    return best


def calls_stay_calls() -> bool:
    """Whether LLVM kept both callees as calls (else the comparison would be inlined against inlined)."""
    code = {loop: loop.inspect_llvm(loop.signatures[0]) for loop in (calls_with_tuple, calls_with_structref)}
    return all(any("call" in line and name in line for line in code[loop].splitlines())
               for loop, name in ((calls_with_tuple, "callee_tuple"), (calls_with_structref, "callee_structref")))


def main() -> int:
    arrays = [np.random.default_rng(i).random(4) for i in range(N_ARRAYS)]
    cases = (("inlined", calls_inlined, ArrayTuple(*arrays)),
             ("call, named tuple", calls_with_tuple, ArrayTuple(*arrays)),
             ("call, StructRef", calls_with_structref, Arrays(*arrays)))
    for label, loop, w in cases:
        print(f"{label:18s} {nanoseconds_per_call(loop, w):7.1f} ns per call")
    print("both callees compiled as calls:", calls_stay_calls())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
