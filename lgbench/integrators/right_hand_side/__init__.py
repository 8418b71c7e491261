"""The right-hand side of the explicit families' stages (paper 000 Algs. 2 and 3), chosen by module.

A stage of an explicit Runge-Kutta or RKMK step (``integrators/explicit.rk_stages``) needs the stage
coordinates UAC(q_n, dq_i), their slopes and the accelerations at the stage; the step's end needs
UAC(q_n, dq) once more. ``rigid_bodies`` evaluates them for an ``mbs.dynamics.is_rigid_body_system`` (rigid
bodies in RV, Rxyz, F1 or EP under elementary loads) in one fused stage; ``multibody`` for every system,
with the fused stage when the system is one of rigid bodies (a run-time test) and the general kernels
otherwise. The fixed-step explicit family has an entry point for each (``explicit.ENTRY_POINTS``, chosen by
``explicit.right_hand_side_of``), so a system of rigid bodies compiles none of the general kernels (chains,
SE3 nodes, the other force elements): the same choice at compile time as ``lgbench.mbs.scope`` and
``integrators/linear_algebra`` make. Both
modules define the functions of ``FUNCTIONS``, on an ``mbs.dynamics.RhsWork`` ``work``:

- ``stage_start(sys, rigid, q, work)``: what every stage of a step from q reuses (the Euler parameters of
  the RV bodies' rotations at q, for the fused stage);
- ``stage(sys, rigid, q, dq, vs, t, qs, work)``: qs = UAC(q, dq), the coordinate slopes into work.rate and
  the accelerations at (qs, vs, t) into work.acc; returns a status code;
- ``compose(sys, rigid, q, dq, q_out, work)``: q_out = UAC(q, dq), after ``stage_start`` from the same q.

``rigid`` is ``is_rigid_body_system(sys)``, which ``rigid_bodies`` assumes.
"""

FUNCTIONS = ("stage_start", "stage", "compose")
"""What each right-hand-side module defines (``tests/test_explicit_hot_path.py`` checks it)."""
