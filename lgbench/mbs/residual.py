"""Equations of motion in residual form for implicit integrators.

r(q, v, v', lambda, t) = M(q) v' - g(q, v, t) + B(q)^T lambda   (paper 000 eq. 39; eq. 34 for the
classical formulation 2, where v = q' and g = H^T g_hat). Per body, with omega = W w:
M = blockdiag(m I, W^T J W) and g = [f; W^T (tau - omega x J omega - J W' w)]; for SE3 nodes the
translational part is R^T f - m omega x U (paper 002 eq. 22b).
"""
from numba import njit

from lgbench._compiled import kernel
from lgbench.lie.tait_bryan import body_rate_dot_apply_rxyz
from lgbench.mbs.codes import EP, FREE, RV, RXYZ, SE3
from lgbench.mbs.constraints import constraint_blocks, rate_map_entries
from lgbench.mbs.dense import add_transpose_product
from lgbench.mbs.dynamics import euler_moment, se3_translational_force
from lgbench.mbs.pose import _vec3, rotation_start
from lgbench.mbs.scope import multibody
from lgbench.mbs.system import B_FORM, B_INERTIA, B_KIND, B_MASS, B_NV, B_VSTART


@njit(inline="always")
def _identity_rate_map(form):
    """True where W = I (RV, SE3, F1, EP-F1): omega is w itself."""
    return form != RXYZ and form != EP


@njit(inline="always")
def _add_body_mass(body_int, body_real, i, q, M, col0):
    """Body i's block blockdiag(m I, W^T J W) into M, its velocity coordinates starting at col0;
    W^T J W entry by entry from ``rate_map_entries`` (J itself where W = I). Takes the body arrays, not
    the system tuple, which a compiled call copies whole (docs/notes/implicit_speed.md)."""
    form = body_int[i, B_FORM]
    vs = col0
    qr, vr = rotation_start(body_int, i)
    vr += col0 - body_int[i, B_VSTART]
    if body_int[i, B_KIND] == FREE:
        m = body_real[i, B_MASS]
        for k in range(3):
            M[vs + k, vs + k] = m
    if _identity_rate_map(form):
        for r in range(3):
            for c in range(3):
                M[vr + r, vr + c] = body_real[i, B_INERTIA + 3 * r + c]
        return
    W = rate_map_entries(form, q, qr)
    n = 4 if form == EP else 3
    for r in range(n):
        wj0 = 0.0
        wj1 = 0.0
        wj2 = 0.0
        for a in range(3):
            war = W[4 * a + r]
            wj0 += war * body_real[i, B_INERTIA + 3 * a]
            wj1 += war * body_real[i, B_INERTIA + 3 * a + 1]
            wj2 += war * body_real[i, B_INERTIA + 3 * a + 2]
        for c in range(n):
            M[vr + r, vr + c] = wj0 * W[c] + wj1 * W[4 + c] + wj2 * W[8 + c]


@njit(inline="always")
def mass_matrix_inline(scope, sys, q, M):
    """Dense M(q) (nv x nv); the chains' block by the ``scope`` (``lgbench.mbs.scope``)."""
    M[:, :] = 0.0
    body_int = sys.body_int
    body_real = sys.body_real
    for i in range(body_int.shape[0]):
        _add_body_mass(body_int, body_real, i, q, M, body_int[i, B_VSTART])
    scope.chain_mass_matrix(sys, q, M)


@kernel
def mass_matrix(sys, q, M):
    """``mass_matrix_inline`` of any model as a compiled call."""
    mass_matrix_inline(multibody, sys, q, M)


@kernel
def mass_blocks(sys, q, Mb):
    """M(q) by bodies: Mb[i] = body i's diagonal block over its own velocity coordinates (absolute
    coordinates only: a minimal-coordinate chain's M is dense)."""
    Mb[:, :, :] = 0.0
    body_int = sys.body_int
    body_real = sys.body_real
    for i in range(body_int.shape[0]):
        _add_body_mass(body_int, body_real, i, q, Mb[i], 0)


@kernel
def rotational_forces(body_real, i, form, q, qr, v, vr, torque):
    """W^T (tau - omega x J omega - J W' w) of body i (paper 000 eqs. 11, 14, 39) as a 4-tuple (4th entry
    zero except for EP), omega = W w; tau = torque[i] in the body frame. No arrays: W from
    ``rate_map_entries``, W' w from ``body_rate_dot_apply_rxyz`` (zero for the other formulations)."""
    J = B_INERTIA
    identity = _identity_rate_map(form)
    if identity:
        o0, o1, o2 = v[vr], v[vr + 1], v[vr + 2]
        W = rate_map_entries(RV, q, qr)
    else:
        W = rate_map_entries(form, q, qr)
        o0 = W[0] * v[vr] + W[1] * v[vr + 1] + W[2] * v[vr + 2]
        o1 = W[4] * v[vr] + W[5] * v[vr + 1] + W[6] * v[vr + 2]
        o2 = W[8] * v[vr] + W[9] * v[vr + 1] + W[10] * v[vr + 2]
        if form == EP:
            o0 += W[3] * v[vr + 3]
            o1 += W[7] * v[vr + 3]
            o2 += W[11] * v[vr + 3]
    m0, m1, m2 = euler_moment(body_real, i, torque, o0, o1, o2)
    if form == RXYZ:
        d0, d1, d2 = body_rate_dot_apply_rxyz(_vec3(q, qr), _vec3(v, vr))
        m0 -= body_real[i, J] * d0 + body_real[i, J + 1] * d1 + body_real[i, J + 2] * d2
        m1 -= body_real[i, J + 3] * d0 + body_real[i, J + 4] * d1 + body_real[i, J + 5] * d2
        m2 -= body_real[i, J + 6] * d0 + body_real[i, J + 7] * d1 + body_real[i, J + 8] * d2
    if identity:
        return m0, m1, m2, 0.0
    return (W[0] * m0 + W[4] * m1 + W[8] * m2, W[1] * m0 + W[5] * m1 + W[9] * m2,
            W[2] * m0 + W[6] * m1 + W[10] * m2, W[3] * m0 + W[7] * m1 + W[11] * m2)


@njit(inline="always")
def generalized_forces_inline(scope, sys, q, v, t, force, torque, g):
    """g(q, v, t) in velocity coordinates: applied loads plus gyroscopic terms (``rotational_forces``), the
    loads and the chains by the ``scope`` (``lgbench.mbs.scope``); SE3 nodes' translation by
    ``se3_translational_force``. Allocation-free for the rigid bodies of every formulation under the loads
    that ``applied_loads`` evaluates in place."""
    scope.applied_loads(sys, q, v, t, force, torque)
    body_int = sys.body_int
    body_real = sys.body_real
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        vs = body_int[i, B_VSTART]
        qr, vr = rotation_start(body_int, i)
        if body_int[i, B_KIND] == FREE:
            if form == SE3:
                g[vs], g[vs + 1], g[vs + 2] = se3_translational_force(q, v, force, i, body_real[i, B_MASS], qr, vr, vs)
            else:
                for k in range(3):
                    g[vs + k] = force[i, k]
        g0, g1, g2, g3 = rotational_forces(body_real, i, form, q, qr, v, vr, torque)
        g[vr] = g0
        g[vr + 1] = g1
        g[vr + 2] = g2
        if form == EP:
            g[vr + 3] = g3
    scope.chain_generalized_forces(sys, q, v, t, g)


@kernel
def generalized_forces(sys, q, v, t, force, torque, g):
    """``generalized_forces_inline`` of any model as a compiled call. A call that passes the system tuple copies
    its ten arrays (about 0.15 us), which is why the Newton loops inline the kernel instead."""
    generalized_forces_inline(multibody, sys, q, v, t, force, torque, g)


@njit(inline="always")
def dynamic_residual_inline(scope, sys, q, v, a, lam, t, M, C, force, torque, g, r):
    """r = M(q) a - g(q, v, t) + B(q)^T lambda; fills M, C and g as by-products. Loops, no temporaries,
    in the order of ``structured_residual`` (B^T lambda added row by row), so that the dense and the
    banded solver see the same residual to the last bit. What free rigid bodies do not have is the
    ``scope``'s (``lgbench.mbs.scope``)."""
    mass_matrix_inline(scope, sys, q, M)
    generalized_forces_inline(scope, sys, q, v, t, force, torque, g)
    scope.constraint_matrix(sys, q, C)
    n = r.shape[0]
    for k in range(n):
        s = 0.0
        for c in range(n):
            s += M[k, c] * a[c]
        r[k] = s - g[k]
    add_transpose_product(C, lam, r)


@kernel
def dynamic_residual(sys, q, v, a, lam, t, M, C, force, torque, g, r):
    """``dynamic_residual_inline`` of any model as a compiled call, for callers outside the Newton loops."""
    dynamic_residual_inline(multibody, sys, q, v, a, lam, t, M, C, force, torque, g, r)


@kernel
def structured_residual(sys, q, v, a, lam, t, row_bodies, Mb, Cb, force, torque, g, r):
    """``dynamic_residual`` from the body blocks of M (``mass_blocks``) and B (``constraint_blocks``):
    O(bodies + rows) work and memory; fills Mb, Cb and g as by-products."""
    mass_blocks(sys, q, Mb)
    generalized_forces(sys, q, v, t, force, torque, g)
    constraint_blocks(sys, q, Cb)
    for i in range(sys.body_int.shape[0]):
        vs = sys.body_int[i, B_VSTART]
        n = sys.body_int[i, B_NV]
        for k in range(n):
            s = 0.0
            for c in range(n):
                s += Mb[i, k, c] * a[vs + c]
            r[vs + k] = s - g[vs + k]
    add_constraint_forces(sys, row_bodies, Cb, lam, r)


@kernel
def add_constraint_forces(sys, row_bodies, Cb, lam, r):
    """r += B^T lam from the blocks of B."""
    for row in range(row_bodies.shape[0]):
        for side in range(2):
            body = row_bodies[row, side]
            if body >= 0:
                vs = sys.body_int[body, B_VSTART]
                for c in range(sys.body_int[body, B_NV]):
                    r[vs + c] += Cb[row, side, c] * lam[row]


@kernel
def constraint_velocity(sys, row_bodies, Cb, v, out):
    """out = B v from the blocks of B."""
    for row in range(row_bodies.shape[0]):
        s = 0.0
        for side in range(2):
            body = row_bodies[row, side]
            if body >= 0:
                vs = sys.body_int[body, B_VSTART]
                for c in range(sys.body_int[body, B_NV]):
                    s += Cb[row, side, c] * v[vs + c]
        out[row] = s
