"""Compiled calls of inlined kernels for the tests, kept in the disk cache as the package's kernels are."""
from lgbench._compiled import kernel
from lgbench.mbs.force_tangent import force_tangent_inline
from lgbench.mbs.scope import multibody


@kernel
def force_tangent(sys, q, v, t, force, torque, tw, Kg, Cg, with_loads, with_damper_position):
    """``force_tangent_inline`` of any model (the multibody scope)."""
    force_tangent_inline(multibody, sys, q, v, t, force, torque, tw, Kg, Cg, with_loads, with_damper_position)
