"""How the compiled core is compiled: ``kernel`` for its functions, ``entry_point`` for the few that Python
calls to run a whole integration (``allocating_entry_point`` for the explicit families).

An entry point (``integrate_implicit``, ``integrate_hht``, ...) holds a run: the step loop with the step,
the Newton solver, the residual and the iteration matrix inlined into it. It is compiled

- ``cache=True``: machine code kept on disk (``lgbench/_compile_cache.py``);
- ``nogil=True``: the timed run goes to a worker thread while the main thread waits for signals
  (``integrators/interface.timed_run``);
- ``_nrt=False``: without numba's reference counting. numba otherwise emits an increment and a decrement
  around every use of every array, thousands of calls in an entry point of this size, which cost nothing
  at run time here (the arrays are borrowed views, ``mbs/borrowed.py``) but had to be generated,
  optimised and removed again by the compiler. Measured on the generalized-alpha entry point with its
  callees in the cache: 125 s to compile with counting, 84 s without, the same time per step (heavy top,
  constrained top, slider-crank, Puma 560; ``docs/performance.md``).

Without reference counting the compiler refuses to allocate, so an entry point and everything inlined
into it allocate nothing: its scratch arrays come from Python (a family's ``prepare``), and array copies
are loops (``mbs/dense.copy_vector``, ``copy_matrix``; a slice assignment may allocate a temporary). It
returns scalars only: an array it returned would carry no reference of its own.

The explicit families' entry points (``integrate_explicit``, ``integrate_explicit_rigid_bodies``,
``integrate_explicit_adaptive``) are
``allocating_entry_point``s: they allocate their stage arrays themselves, with reference counting. Their
steps take about a microsecond on the heavy top, and with the arrays made in Python instead they took
5-10 % longer (RK44, DOPRI5, RK67 on RV, F1 and EP-F1 nodes; the index-1, implicit and intrinsic families
did not change), presumably because the compiler knows that arrays it allocated itself do not overlap
(not verified). Their compile is short (20-35 s) and gains little without counting.

numba compiles a function called from another with the caller's reference counting unless the function
says otherwise, and its disk cache does not tell the two apart: a kernel first compiled for an entry
point would be stored without counting and then loaded, without counting, by every other caller. Every
other compiled function is therefore a ``kernel``, which counts references whoever calls it
(``tests/test_compiled.py`` checks both rules on every compiled function of the package).
"""
from numba import njit

kernel = njit(cache=True, _nrt=True)
"""A compiled function of the core, with reference counting, kept in the disk cache."""

entry_point = njit(cache=True, nogil=True, _nrt=False)
"""A compiled integration run that Python calls: no reference counting, no allocation, scalar results."""

allocating_entry_point = njit(cache=True, nogil=True, _nrt=True)
"""A compiled integration run that Python calls and that allocates its own scratch arrays."""
