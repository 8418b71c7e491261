"""Kernels of the dense generalized-alpha entry point that a second process compiles ahead, by signature.

numba compiles an entry point's callees one after another, in its own process, as its type inference meets
them; an empty cache makes the first generalized-alpha run of a study compile for about 260 s on one core
(about 90 s of it the entry point's own code, the rest some 260 kernels), while the study's other parts
(explicit families, starting values, outputs) keep the second core busy for about 120 s. A kernel compiled
in another process is in the disk cache by the time the entry point needs it, and it is loaded instead of
compiled again, but only for the very signature the entry point calls it with.

``ITERATION_MATRIX_KERNELS`` lists the callees that the entry point meets last (the iteration matrix:
index-2 blocks, force and chain tangents, finite-difference blocks, the dense LU), with their argument
types in a small vocabulary (``argument_types``), in the reverse of the order the entry point meets them:
the two processes meet in the middle. Measured on 2 cores, empty cache (``docs/performance.md``,
"Compile time"): the flagship's generalized-alpha part 264 -> 174 s. ``tests/test_compile_plan.py``
checks each signature against the one the entry point itself compiles (after ``lgbench compile``, the
kernel's cache index holds exactly one); a stale entry costs compile time, never a result.
"""
from __future__ import annotations

import importlib
from typing import NamedTuple

from lgbench.runner.single_run import RunSpec


class PlannedKernel(NamedTuple):
    """A compiled kernel (module, function name) and its argument types, words of ``argument_types``."""

    module: str
    name: str
    arguments: str

    def dispatcher(self):
        return getattr(importlib.import_module(self.module), self.name)

    @property
    def label(self) -> str:
        return f"{self.module}.{self.name}"


ITERATION_MATRIX_KERNELS = (
    PlannedKernel("lgbench.integrators.iteration_matrix", "stabilisation_blocks",
                  "system vector vector float float float newton_options workspace"),
    PlannedKernel("lgbench.mbs.dense", "lu_factor", "matrix index_vector"),
    PlannedKernel("lgbench.mbs.dense", "lu_solve", "matrix index_vector vector"),
    PlannedKernel("lgbench.integrators.iteration_matrix", "_tangent_matrix", "index_matrix vector matrix"),
    PlannedKernel("lgbench.integrators.iteration_matrix", "_grouped_force_blocks",
                  "system vector vector float float float bool vector vector vector matrix matrix vector vector "
                  "blocks"),
    PlannedKernel("lgbench.mbs.chain_tangent", "chain_force_tangent",
                  "system vector vector matrix matrix vector index_matrix blocks blocks"),
    PlannedKernel("lgbench.mbs.force_tangent", "_point_spring_damper",
                  "index_matrix matrix int int int vector vector rotation matrix matrix bool"),
    PlannedKernel("lgbench.mbs.force_tangent", "_ep_norm_rate",
                  "index_matrix matrix index_matrix int vector vector blocks blocks tangent_workspace blocks blocks"),
    PlannedKernel("lgbench.mbs.force_tangent", "_line_spring_damper",
                  "system int vector vector matrix blocks blocks index_matrix tangent_workspace blocks blocks bool"),
)
"""The callees of ``integrate_implicit`` compiled ahead by ``compile_planned_kernels``."""


def argument_types(spec: RunSpec) -> dict[str, object]:
    """The numba type of each word of ``PlannedKernel.arguments``, from the objects a generalized-alpha run
    of ``spec`` passes to the entry point (the system, its workspaces and Newton options are named tuples
    whose types do not depend on the model)."""
    import numpy as np
    from numba import typeof, types

    from lgbench.integrators import generalized_alpha
    from lgbench.integrators.implicit import implicit_options
    from lgbench.mbs.force_tangent import tangent_workspace
    from lgbench.runner.single_run import build_run

    model, integrator, options = build_run(spec)
    system = model.system
    newton, _ = implicit_options(integrator, options)
    return {
        "system": typeof(system), "workspace": typeof(generalized_alpha.make_workspace(system)),
        "tangent_workspace": typeof(tangent_workspace(system)), "newton_options": typeof(newton),
        "vector": typeof(np.zeros(1)), "matrix": typeof(np.zeros((1, 1))), "blocks": typeof(np.zeros((1, 1, 1))),
        "index_vector": typeof(np.zeros(1, dtype=np.int64)), "index_matrix": typeof(np.zeros((1, 1), dtype=np.int64)),
        "rotation": types.UniTuple(types.float64, 9), "float": types.float64, "int": types.int64,
        "bool": types.boolean,
    }


def signature(kernel: PlannedKernel, vocabulary: dict[str, object]) -> tuple:
    """The argument types of ``kernel`` as numba types."""
    return tuple(vocabulary[word] for word in kernel.arguments.split())


def compile_planned_kernels(spec: RunSpec, kernels: tuple[PlannedKernel, ...] = ITERATION_MATRIX_KERNELS) -> int:
    """Compile every kernel of ``kernels`` into the disk cache (loaded if it is there); returns how many.
    An entry that no longer fits its kernel (renamed, other arguments) is skipped: the entry point then
    compiles that kernel itself, and ``tests/test_compile_plan.py`` says which entry to mend."""
    from numba.core.errors import NumbaError

    vocabulary = argument_types(spec)
    compiled = 0
    for kernel in kernels:
        try:
            kernel.dispatcher().compile(signature(kernel, vocabulary))
        except (AttributeError, ImportError, KeyError, NumbaError):
            continue
        compiled += 1
    return compiled


def cached_signatures(kernel: PlannedKernel) -> list[tuple]:
    """The signatures of ``kernel`` in the disk cache of these sources (numba's cache index; [] if none)."""
    cache = getattr(kernel.dispatcher(), "_cache", None)
    if cache is None or not hasattr(cache, "_cache_file"):
        return []
    return [key[0] for key in cache._cache_file._load_index()]
