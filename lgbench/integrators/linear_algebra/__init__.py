"""The linear algebra of the implicit steppers' Newton iterations: dense, banded or dense for free bodies,
chosen by module.

Each Newton iteration of generalized-alpha and HHT evaluates the residual r = M a - g + B^T lambda, and
assembles, factorises and solves with the iteration matrix S_t (paper 000 eq. 40, paper 004 eq. 65).
Dense systems work with the full M, B, S_t and its LU factors (``dense``); chains with the body blocks of
M and B and the band matrix of ``lgbench/mbs/banded.py`` (``banded``); systems of free rigid bodies under
elementary loads with the dense matrices and a residual and force tangent that compile nothing else
(``free_bodies``, generalized-alpha only; ``lgbench/mbs/scope``). Each module defines the functions of
``FUNCTIONS``, on the workspace ``w`` of ``generalized_alpha.make_workspace``:

- ``residual(sys, q, v, a, lam, t, w)``: r into w.r, with M (w.M, or its blocks w.Mb), B (w.C or w.Cb)
  and g (w.g) left as by-products for the iteration matrix;
- ``iteration_matrix(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w)``: S_t, scaled, with the
  coefficients bp of M and gp of C_t, at the iterate ``residual`` has just evaluated, into w.S or w.bm;
- ``add_damping_columns(sys, w, first, columns, factor)``: S_t[:, first + c] += factor C_t[:, first:first
  + n] columns[c] for the n columns of one node (``columns``: n tuples of n numbers; paper 004 eq. 69);
- ``factor(w)``: factorise S_t in place; False if singular;
- ``solve(w)``: w.rhs <- S_t^{-1} w.rhs;
- ``constraint_forces(sys, q, lam, w, out)``: B(q) into w, out += B(q)^T lam;
- ``constraint_velocity(sys, v, w, out)``: out = B v with the B of the last ``residual``;
- ``constraint_residual(sys, q, t, phi)``: Phi(q, t) into phi;
- ``index2_step_start(sys, q, w)``: B(q_n) into w.Cn before a step of the stabilised index-2 formulation
  (paper 002 eq. 56; dense only, the others are not reached);
- ``index2_blocks(sys, q, v, bp, gp, scale, opts, w)``: its blocks of the iteration matrix (eq. 62).

A family's compiled entry point for each solver passes the module itself down its inlined step, to the
Newton loop (``newton.newton_solve``) and the family's functions, which call ``algebra.residual(...)``
and so on. numba resolves such a call to the module's function while it inlines (``InlineInlinables``
follows the argument back to the module), so each entry point compiles one solver, inlined where the
other entry points inline it. Two alternatives were measured and rejected: a run-time flag (the
workspace's ``band.active``) compiles both solvers into every entry point (the banded one was 70 of the
195 s of the heavy top's generalized-alpha entry point); the functions kept in a named tuple are
first-class values, which numba compiles apart and calls with every array of the workspace copied
(2-4x the cost per step of the heavy top).
"""

FUNCTIONS = ("residual", "iteration_matrix", "add_damping_columns", "factor", "solve", "constraint_forces",
             "constraint_velocity", "constraint_residual", "index2_step_start", "index2_blocks")
"""What each solver module defines (``tests/test_linear_algebra.py`` checks it)."""
