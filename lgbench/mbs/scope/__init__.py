"""What the compiled equations of motion evaluate beyond free rigid bodies under elementary loads.

The residual, its force tangent and the mass matrix (``lgbench/mbs/residual.py``, ``force_tangent.py``) take
a *scope* module as their first argument and call its functions for the parts of a model that a system of
free rigid bodies under ``loads.is_elementary_load`` elements (gravity, constant torques, point
spring-dampers to the ground) does not have: minimal-coordinate chains, joints and the other force
elements. ``multibody`` evaluates them all; ``free_bodies`` none of them (its only constraints are the Euler
parameters' norms, ``constraints.norm_rows``), so numba compiles none of their code
into the entry point that takes it (``integrators/linear_algebra/free_bodies.py``): the heavy top's
generalized-alpha entry point compiles in less than half the time of the general one (docs/performance.md,
stop 44). Both modules define the functions of ``FUNCTIONS``:

- ``applied_loads(sys, q, v, t, force, torque)``: the per-body forces and torques of all force elements;
- ``chain_mass_matrix(sys, q, M)``: add the chains' block of M;
- ``chain_generalized_forces(sys, q, v, t, g)``: the chains' generalized forces into g;
- ``constraint_residual(sys, q, t, phi)``: Phi(q, t) into phi (nothing without constraints);
- ``constraint_matrix(sys, q, C)``: B(q) into C (nothing without constraints);
- ``constraint_curvature(sys, q, v, out)``: B'(q, v) v into out (paper 002 eq. 18);
- ``other_load_tangent(sys, k, q, v, t, tw, Kg, Cg, with_damper_position)``: add the tangent of force
  element k, which is not elementary, to the group blocks Kg, Cg (``force_tangent.other_load_tangent``);
- ``chain_force_tangent(sys, q, v, tw, Kg, Cg)``: add the chains' force tangent;
- ``element_loads(sys, q, v, t, tw)``: the force and torque of the elements that are not ``LOADS`` into
  tw.element_force, tw.element_torque (option ``loads_jacobian = false``).

Choosing by module, as the linear algebra is chosen (``integrators/linear_algebra/__init__.py``), makes
the choice at compile time; a run-time test of the system would compile every part into every entry point.
``implicit.free_bodies_apply`` tells which systems and options the free-bodies scope serves.
"""

FUNCTIONS = ("applied_loads", "chain_mass_matrix", "chain_generalized_forces", "constraint_residual",
             "constraint_matrix", "constraint_curvature", "other_load_tangent", "chain_force_tangent",
             "element_loads")
"""What each scope module defines (``tests/test_scope.py`` checks it)."""
