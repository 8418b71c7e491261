"""The iteration matrix S_t of the implicit integrators (paper 000 eqs. 40-42, paper 002 eqs. 35, 62).

S_t = [[M beta' + C_t gamma' + K_t T, B^T], [B T, 0]] with T = T_exp(dq_n) (T_SO3 on the rotation block of
RV nodes, T_SE3 on the 6-block of SE3 nodes) or I. K_t and C_t of the forces (eq. 42) analytic
(``lgbench/mbs/force_tangent.py``, ``chain_tangent.py`` for minimal coordinates; option ``jacobian =
"analytic"``, the default) or by forward differences along UAC (one evaluation per coordinate of a colour of
bodies, ``SystemBuilder._force_colors``); K_t of the whole residual (eq. 41, option ``tangent = "full"``) by
forward differences. Dense, banded (chains) and the stabilised index-2 blocks of paper 002 eq. (62).
"""
import math

from numba import njit

from lgbench._compiled import kernel
from lgbench.lie.se3 import coupling_entries_se3
from lgbench.lie.so3 import tangent_coefficients
from lgbench.mbs.banded import band_clear, band_set_constraint_rows
from lgbench.mbs.codes import RV, SE3
from lgbench.mbs.constraints import constraint_matrix
from lgbench.mbs.coordinate_update import update_coordinates, update_coordinates_inline
from lgbench.mbs.constraint_tangent import velocity_constraint_tangent
from lgbench.mbs.force_tangent import force_tangent_inline
from lgbench.mbs.pose import _vec3, rotation_start
from lgbench.mbs.residual import dynamic_residual, generalized_forces_inline
from lgbench.mbs.scope import multibody
from lgbench.mbs.system import B_FORM, B_NV, B_VSTART, S_NC, S_NV


@kernel
def _write_tangent_so3(psi, k, T, r0):
    """T_exp(psi[k:k+3]) (paper 000 eqs. A2, A7, A8) into T[r0:r0+3, r0:r0+3], entry by entry: the
    arithmetic of ``lgbench.lie.so3.tangent_operator_so3`` without its 3x3 array."""
    x, y, z = psi[k], psi[k + 1], psi[k + 2]
    c1, c2, _ = tangent_coefficients(math.sqrt(x * x + y * y + z * z))
    T[r0, r0] = 1.0 - c2 * (z * z + y * y)
    T[r0 + 1, r0 + 1] = 1.0 - c2 * (z * z + x * x)
    T[r0 + 2, r0 + 2] = 1.0 - c2 * (y * y + x * x)
    T[r0, r0 + 1] = -c1 * z + c2 * (y * x)
    T[r0 + 1, r0] = c1 * z + c2 * (x * y)
    T[r0, r0 + 2] = c1 * y + c2 * (z * x)
    T[r0 + 2, r0] = -c1 * y + c2 * (x * z)
    T[r0 + 1, r0 + 2] = -c1 * x + c2 * (z * y)
    T[r0 + 2, r0 + 1] = c1 * x + c2 * (y * z)


@kernel
def _write_tangent_se3(dq, k, T, r0):
    """T_SE3(dq[k:k+6]) = [[T_SO3, S], [0, T_SO3]] (paper 002 eq. 35 in lgbench order) into
    T[r0:r0+6, r0:r0+6], entry by entry (``lgbench.lie.se3.tangent_operator_se3`` without its arrays)."""
    _write_tangent_so3(dq, k + 3, T, r0)
    _write_tangent_so3(dq, k + 3, T, r0 + 3)
    S = coupling_entries_se3(_vec3(dq, k), _vec3(dq, k + 3))
    for r in range(3):
        for c in range(3):
            T[r0 + r, r0 + 3 + c] = S[3 * r + c]
            T[r0 + 3 + r, r0 + c] = 0.0


@kernel
def _tangent_block(body_int, i):
    """(first velocity coordinate, size) of body i's non-identity block of T (``_add_body_tangent``): the
    rotation block of an RV node, the 6-block of an SE3 node; size 0 for classical nodes (T = I there)."""
    if body_int[i, B_FORM] == RV:
        return rotation_start(body_int, i)[1], 3
    if body_int[i, B_FORM] == SE3:
        return body_int[i, B_VSTART], 6
    return 0, 0


@kernel
def _add_body_tangent(body_int, i, dq, T, col0):
    """Body i's block of T(dq) (``_tangent_block``) into T, body i's velocity columns starting at col0:
    T_SO3 on the rotation block of RV nodes (in place), T_SE3 (paper 002 eq. 35) on the 6-block of SE3 nodes;
    the identity entries are left to the caller."""
    vs = body_int[i, B_VSTART]
    k0, size = _tangent_block(body_int, i)
    if size == 3:
        _write_tangent_so3(dq, rotation_start(body_int, i)[0], T, k0 + col0 - vs)
    elif size == 6:
        _write_tangent_se3(dq, vs, T, col0)


@kernel
def _tangent_matrix(body_int, dq, T):
    """Block-diagonal T(dq): the bodies' blocks of ``_add_body_tangent``, I elsewhere. Takes body_int, not
    the system tuple (a compiled call copies every array of a tuple argument)."""
    T[:, :] = 0.0
    for k in range(T.shape[0]):
        T[k, k] = 1.0
    for i in range(body_int.shape[0]):
        _add_body_tangent(body_int, i, dq, T, body_int[i, B_VSTART])


@kernel
def _tangent_blocks(body_int, dq, Tb):
    """T(dq) by bodies: Tb[i] over body i's own velocity coordinates."""
    Tb[:, :, :] = 0.0
    for i in range(body_int.shape[0]):
        for k in range(Tb.shape[1]):
            Tb[i, k, k] = 1.0
        _add_body_tangent(body_int, i, dq, Tb[i], 0)


@kernel
def _step_sizes(x, rel, floor):
    return rel * max(floor, abs(x))


@njit(inline="always")
def _perturbed_forces(sys, q, v, t, rel, floor, positions, e, z, qp, vp, force, torque, gp):
    """gp = g with the coordinates of finite-difference evaluation e perturbed (``SystemArrays.force_colors``),
    along UAC(q, z) (positions) or v; the steps in z. One site of ``generalized_forces_inline`` for both."""
    z[:] = 0.0
    groups = sys.force_groups
    colors = sys.force_colors
    for grp in range(groups.shape[0]):
        for j in range(groups.shape[1]):
            if colors[grp, j] == e:
                k = groups[grp, j]
                z[k] = _step_sizes(q[k] if positions else v[k], rel, floor)
    if positions:
        update_coordinates_inline(sys, q, z, qp)
    else:
        for r in range(v.shape[0]):
            vp[r] = v[r] + z[r]
    generalized_forces_inline(multibody, sys, qp if positions else q, v if positions else vp, t, force, torque, gp)


@njit(inline="always")
def _evaluations(sys):
    """Number of force evaluations of one grouped finite-difference derivative."""
    n = 0
    colors = sys.force_colors
    for grp in range(colors.shape[0]):
        for j in range(colors.shape[1]):
            n = max(n, colors[grp, j] + 1)
    return n


@kernel
def _grouped_force_blocks(sys, q, v, t, rel, floor, positions, z, qp, vp, force, torque, g, gp, out):
    """Group blocks out[grp, m, j] = entry (groups[grp, m], groups[grp, j]) of -dg/dz (positions: along
    UAC(q, z)) or -dg/dv by forward differences with the colouring of ``SystemBuilder._force_colors`` (one
    evaluation perturbs coordinates of bodies no force couples twice; paper 000 eq. 42); g must hold
    g(q, v, t) (left there by the residual the caller evaluated at (q, v, t)). The same layout as the
    analytic ``force_tangent``; ``_scatter_groups`` makes the dense matrix. A compiled call, not inlined:
    the finite differences are an option, and inlined they compiled a second copy of the forces into
    every implicit entry point; a call costs far less than the force evaluations it makes."""
    out[:, :, :] = 0.0
    groups = sys.force_groups
    colors = sys.force_colors
    pattern = sys.force_pattern
    for e in range(_evaluations(sys)):
        _perturbed_forces(sys, q, v, t, rel, floor, positions, e, z, qp, vp, force, torque, gp)
        for grp in range(groups.shape[0]):
            for j in range(groups.shape[1]):
                if colors[grp, j] != e:
                    continue
                k = groups[grp, j]
                for m in range(groups.shape[1]):
                    if pattern[grp, m, j]:
                        r = groups[grp, m]
                        out[grp, m, j] = -(gp[r] - g[r]) / z[k]


@njit(inline="always")
def analytic_tangent_available(sys, opts, w):
    """The analytic K_t, C_t of ``force_tangent`` apply: asked for, and a workspace built for this system
    (``force_tangent.tangent_workspace`` leaves it empty where ``analytic_tangent_applies`` is False)."""
    return opts.analytic_tangent and w.tangent.slot.shape[0] == sys.sizes[S_NV] and w.tangent.slot.shape[0] > 0


@kernel
def _scatter_groups(groups, blocks, out):
    """out = the dense matrix of the group blocks (zero where no force couples two coordinates)."""
    out[:, :] = 0.0
    for grp in range(groups.shape[0]):
        for m in range(groups.shape[1]):
            r = groups[grp, m]
            if r < 0:
                continue
            for j in range(groups.shape[1]):
                c = groups[grp, j]
                if c >= 0:
                    out[r, c] = blocks[grp, m, j]


@njit(inline="always")
def iteration_matrix_at_residual(sys, q, dqn, v, a, lam, t, bp, gp, scale, opts, w):
    """The (scaled) iteration matrix S_t of paper 000 eq. (40) into w.S at the iterate (q, v, a, lam, t) whose
    residual the Newton loop has just evaluated: w.M, w.C, w.g and w.r hold M, B, g and r there. K_t and
    C_t analytic, by finite differences of the forces or K_t of the whole residual, as the options say."""
    full = opts.full_tangent
    rel = opts.fd_relative_step
    floor = opts.fd_step_floor
    # K_t (eq. 41 or 42): derivative along the local coordinates z of UAC(q, z); C_t along v
    if full:
        _residual_stiffness(sys, q, v, a, lam, t, rel, floor, w.z, w.qp, w.Mp, w.Cp, w.force, w.torque, w.gp,
                            w.r, w.r0, w.rp, w.K)
    if not full and analytic_tangent_available(sys, opts, w):
        force_tangent_matrices(multibody, sys, q, v, t, opts, w)
    else:
        for which in range(1 if full else 0, 2):
            positions = which == 0
            blocks = w.Kg if positions else w.Cg
            _grouped_force_blocks(sys, q, v, t, rel, floor, positions, w.z, w.qp, w.vp, w.force, w.torque, w.g, w.gp,
                                  blocks)
            _scatter_groups(sys.force_groups, blocks, w.K if positions else w.Ct)
    assemble_iteration_matrix(sys, dqn, bp, gp, scale, opts, w)


@njit(inline="always")
def force_tangent_matrices(scope, sys, q, v, t, opts, w):
    """K_t and C_t of the forces (paper 000 eq. 42) into w.K, w.Ct, analytic (``force_tangent_inline`` with
    the ``scope``, ``lgbench.mbs.scope``); w.force, w.torque hold the applied loads at (q, v, t)."""
    force_tangent_inline(scope, sys, q, v, t, w.force, w.torque, w.tangent, w.Kg, w.Cg, opts.loads_jacobian,
                         opts.damper_position_jacobian)
    _scatter_groups(sys.force_groups, w.Kg, w.K)
    _scatter_groups(sys.force_groups, w.Cg, w.Ct)


@njit(inline="always")
def assemble_iteration_matrix(sys, dqn, bp, gp, scale, opts, w):
    """S_t of paper 000 eq. (40), scaled, into w.S from M, B (w.M, w.C), K_t and C_t (w.K, w.Ct)."""
    nv = w.M.shape[0]
    nc = sys.sizes[S_NC]
    S = w.S
    S[:, :] = 0.0
    for r in range(nv):
        for c in range(nv):
            S[r, c] = scale * (w.M[r, c] * bp + w.Ct[r, c] * gp + w.K[r, c])
    for r in range(nc):
        for c in range(nv):
            S[nv + r, c] = w.C[r, c]
            S[c, nv + r] = w.C[r, c]
    if opts.texp:
        _tangent_matrix(sys.body_int, dqn, w.T)
        _tangent_columns(sys.body_int, w.M, w.Ct, w.K, w.C, w.T, bp, gp, scale, S)


@kernel
def _tangent_columns(body_int, M, Ct, K, C, T, bp, gp, scale, S):
    """The columns of S_t that T = T_exp(dq_n) changes (paper 000 eq. 40: K_t T and B T): only the columns
    of the bodies' non-identity blocks of T (``_tangent_block``), summed over the block's rows alone, since
    T is block-diagonal. For RV nodes the same sums, term for term, as the dense product without the zero
    terms; with classical nodes only (T = I) nothing changes."""
    nv = K.shape[0]
    for i in range(body_int.shape[0]):
        k0, n = _tangent_block(body_int, i)
        for c in range(k0, k0 + n):
            for r in range(nv):
                kt = 0.0
                for k in range(k0, k0 + n):
                    kt += K[r, k] * T[k, c]
                S[r, c] = scale * (M[r, c] * bp + Ct[r, c] * gp + kt)
            for r in range(C.shape[0]):
                ct = 0.0
                for k in range(k0, k0 + n):
                    ct += C[r, k] * T[k, c]
                S[nv + r, c] = ct


@kernel
def _residual_stiffness(sys, q, v, a, lam, t, rel, floor, z, qp, Mp, Cp, force, torque, gp, r, r0, rp, K):
    """K = dr/dz along UAC(q, z) by forward differences of the whole residual (paper 000 eq. 41); r holds
    r(q, v, a, lam, t)."""
    nv = v.shape[0]
    for k in range(nv):
        r0[k] = r[k]
    for k in range(nv):
        eps = _step_sizes(q[k], rel, floor)
        z[:] = 0.0
        z[k] = eps
        update_coordinates(sys, q, z, qp)
        dynamic_residual(sys, qp, v, a, lam, t, Mp, Cp, force, torque, gp, rp)
        for c in range(nv):
            K[c, k] = (rp[c] - r0[c]) / eps


@kernel
def _times_tangent(A, T, r, c):
    """(A T)[r, c] without forming A T."""
    s = 0.0
    for k in range(T.shape[0]):
        s += A[r, k] * T[k, c]
    return s


@kernel
def band_iteration_matrix(sys, q, dqn, v, t, bp, gp, scale, opts, w):
    """The S_t of ``iteration_matrix_at_residual`` (K_t from the forces, eq. 42) assembled from body blocks of M, B,
    T and group blocks of K_t, C_t straight into the band matrix w.bm of the ordering w.band
    (lgbench/mbs/banded.py): O(bodies) work. Like ``iteration_matrix_at_residual`` it reads the
    by-products of the residual just evaluated at the iterate (``structured_residual``: w.Mb, w.Cb and
    w.g), which the Newton loop always evaluates first. Group columns list each body's coordinates
    contiguously (``SystemBuilder._force_groups``); the group blocks go to the places listed in
    ``st.group_places``."""
    st = w.band
    data = w.bm.data
    places = st.group_places
    rel = opts.fd_relative_step
    floor = opts.fd_step_floor
    texp = opts.texp
    if analytic_tangent_available(sys, opts, w):
        force_tangent_inline(multibody, sys, q, v, t, w.force, w.torque, w.tangent, w.Kg, w.Cg, opts.loads_jacobian,
                             opts.damper_position_jacobian)
    else:
        for which in range(2):
            positions = which == 0
            _grouped_force_blocks(sys, q, v, t, rel, floor, positions, w.z, w.qp, w.vp, w.force, w.torque, w.g, w.gp,
                                  w.Kg if positions else w.Cg)
    if texp:
        _tangent_blocks(sys.body_int, dqn, w.Tb)
    band_clear(w.bm)
    groups = sys.force_groups
    for grp in range(groups.shape[0]):
        for j in range(groups.shape[1]):
            k = groups[grp, j]
            if k < 0:
                continue
            bk = st.vel_body[k]
            lk = k - sys.body_int[bk, B_VSTART]
            for m in range(groups.shape[1]):
                r = groups[grp, m]
                if r < 0:
                    continue
                if texp:
                    kt = 0.0
                    for l in range(sys.body_int[bk, B_NV]):
                        kt += w.Kg[grp, m, j - lk + l] * w.Tb[bk, l, lk]
                else:
                    kt = w.Kg[grp, m, j]
                mass = 0.0
                if st.vel_body[r] == bk:
                    mass = w.Mb[bk, r - sys.body_int[bk, B_VSTART], lk]
                data[places[grp, m, j]] = scale * (mass * bp + w.Cg[grp, m, j] * gp + kt)
    band_set_constraint_rows(sys.body_int, st, w.Cb, texp, w.Tb, w.bm)


@kernel
def _hidden_constraint_differences(sys, q, v, opts, w):
    """w.Z = d(B(q) v)/dz along UAC by forward differences (one constraint matrix per coordinate)."""
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    for k in range(nv):
        eps = _step_sizes(q[k], opts.fd_relative_step, opts.fd_step_floor)
        w.z[:] = 0.0
        w.z[k] = eps
        update_coordinates(sys, q, w.z, w.qp)
        constraint_matrix(sys, w.qp, w.Cp)
        for r in range(nc):
            bvp = 0.0
            bv = 0.0
            for c in range(nv):
                bvp += w.Cp[r, c] * v[c]
                bv += w.C[r, c] * v[c]
            w.Z[r, k] = (bvp - bv) / eps


@kernel
def stabilisation_blocks(sys, q, v, bp, gp, scale, opts, w):
    """Index-2 blocks of the iteration matrix (paper 002 eq. 62) into w.S, after ``iteration_matrix``.

    eta column: scale (M beta' + C_t gamma') B(q_n)^T; hidden-constraint rows (times 1/gamma'):
    B + Z T / gamma' and B B(q_n)^T, with Z = d(B(q) v)/dq along UAC, analytic
    (``constraint_tangent.velocity_constraint_tangent``) where the force tangent is, else by forward
    differences (``jacobian: finite-difference``).
    """
    nv = v.shape[0]
    nc = sys.sizes[S_NC]
    S = w.S
    texp = opts.texp
    if analytic_tangent_available(sys, opts, w):
        velocity_constraint_tangent(sys, q, v, w.tangent.kinematics, w.tangent.load_map, w.Z)
    else:
        _hidden_constraint_differences(sys, q, v, opts, w)
    for r in range(nv):
        for c in range(nc):
            s = 0.0
            for m in range(nv):
                s += scale * (bp * w.M[r, m] + gp * w.Ct[r, m]) * w.Cn[c, m]
            S[r, nv + nc + c] = s
    for r in range(nc):
        for c in range(nv):
            S[nv + nc + r, c] = w.C[r, c] + (_times_tangent(w.Z, w.T, r, c) if texp else w.Z[r, c]) / gp
        for c in range(nc):
            s = 0.0
            for m in range(nv):
                s += w.C[r, m] * w.Cn[c, m]
            S[nv + r, nv + nc + c] = 0.0
            S[nv + nc + r, nv + c] = 0.0
            S[nv + nc + r, nv + nc + c] = s
