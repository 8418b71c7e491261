"""Minimal (joint) coordinates of serial chains and kinematic trees: the hook points of the flat-array system.

A chain occupies one coordinate per joint in q and v (the joint angle of a revolute joint, the
displacement of a prismatic joint; updated additively, v = q'). Its joints are rows of
``SystemArrays.chain_int`` / ``chain_real``; the kernels below add the chain's mass matrix M(theta)
to the global M, write tau - h(theta, theta') into the global g, give theta'' = M^-1 (tau - h) to the
explicit integrators, and the kinetic and potential energy.

Kinematics: standard Denavit-Hartenberg. Row i carries link i and joint i; its link frame is DH
frame i (the distal frame), placed relative to the frame of its parent row (frame i-1; the chain's
base frame for a root row) by

    T_{i-1,i} = Rz(theta_i + offset_i) Tz(d_i) Tx(a_i) Rx(alpha_i),

with theta_i = q_i for a revolute and d_i + q_i for a prismatic joint. Joint i moves along / about
z_{i-1}, the z axis of the parent frame through the parent frame's origin. A root row's parent frame
is the base frame (rotation and position in the row; identity and zero by default). Rows must be
ordered parent before child (parent index < row index); a row whose parent is -1 is a root, so one
chain_int table may hold several chains or a branched tree (Featherstone's lambda(i) < i ordering).

Dynamics (R. Featherstone, Rigid Body Dynamics Algorithms, Springer 2008):
- h(theta, theta') = C(theta, theta') theta' + gravity terms by the recursive Newton-Euler
  algorithm (RNEA, Featherstone Sect. 5.3), written with 3-vectors in the global frame
  (Luh-Walker-Paul form): forward pass for the angular velocity and acceleration of every link
  and the acceleration of its frame origin and centre of mass, Newton-Euler equations at the
  centre of mass (gravity entered per link as the force m g), backward pass accumulating the
  force and moment each link receives through its joint; tau_i = z . n_i (revolute), z . f_i
  (prismatic).
- M(theta) by the composite-rigid-body algorithm (CRBA, Featherstone Sect. 6.2) with
  every spatial quantity in Plücker coordinates of the global frame at the global origin: the
  composite spatial inertia of the subtree of i is the plain sum of its links' inertias (no
  coordinate transforms), F = I^C_i S_i, M_ii = S_i . F and M_ji = S_j . F for every ancestor j.
  A spatial inertia is stored as (m, m c, I_O) with I_O the rotational inertia about the origin;
  I S = [I_O w + (m c) x u ; m u - (m c) x w] for a motion S = [w ; u].
- Accelerations for explicit integrators: Cholesky factorisation of M (symmetric positive definite).

Scratch: the kernels of a step keep their per-link arrays in their own stack frame (``_chain_scratch``) for
chains of up to CHAIN_STACK_ROWS rows, so a step allocates nothing and no caller passes them; a heap array
cost 30-35 ns per call, and scratch carried in the system or work tuples made every compiled call that
takes them dearer (docs/performance.md, "Allocation in a step").

Joint forces: tau_i = Kp_i (phi_d - q_i) + Kd_i (phi_d' - q_i') - c_i q_i'. The set-point phi_d(t)
and its rate come from ``lgbench.mbs.trajectories.prescribed_motion`` evaluated at the time of every
stage / Newton iterate (continuous in t). There is no feed-forward and no gravity compensation:
the PD controller is a joint spring-damper element with a moving rest position (paper 000 Sect.
4.4). Kp = Kd = 0 switches the controller off.

Energy: kinetic energy from the link velocities; potential = gravity (-sum m_i g . c_i) plus the
spring energy 1/2 Kp (p0 - q)^2 of controllers with a CONSTANT set-point (a moving set-point does
work, so it has no potential).

Row layout (``chain_int``, CHAIN_INT_WIDTH = 8, int64):
  0 C_COORDINATE  index of the joint coordinate in q and v (set by SystemBuilder.add_chain_joint)
  1 C_JOINT       REVOLUTE = 0 or PRISMATIC = 1
  2 C_PARENT      parent row (-1 = base)
  3 C_CHAIN       chain id (bookkeeping; the kernels only follow C_PARENT)
  4 C_TRAJECTORY  set-point kind (trajectories.CONSTANT or BANG_BANG)
  5..7            unused
(``chain_real``, CHAIN_REAL_WIDTH = 40, float64):
  0..3   R_A, R_ALPHA, R_D, R_OFFSET     standard DH parameters a, alpha, d, theta offset
  4      R_MASS                           link mass (>= 0)
  5..7   R_COM                            centre of mass in the link frame (DH frame i)
  8..16  R_INERTIA                        inertia about the centre of mass, link frame, row-major
  17..19 R_GRAVITY                        gravitational acceleration (global) acting on this link
  20, 21 R_KP, R_KD                       PD gains
  22..24 R_TRAJECTORY                     set-point parameters p0, p1, p2 (see trajectories.py)
  25     R_DAMPING                        viscous joint damping c (>= 0)
  26..34 R_BASE_ROTATION                  root rows: base frame rotation (global), row-major
  35..37 R_BASE_POSITION                  root rows: base frame origin (global)
  38, 39                                  unused
"""
from __future__ import annotations

import math

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
import numpy as np

from lgbench._compiled import kernel
from lgbench.mbs.codes import CONSTANT, REVOLUTE
from lgbench.mbs.system import C_COORDINATE, CHAIN_INT_WIDTH, CHAIN_REAL_WIDTH
from lgbench.mbs.trajectories import prescribed_motion

BASE = -1

# chain_int columns (C_COORDINATE = 0 lives in lgbench/mbs/system.py)
C_JOINT = 1
C_PARENT = 2
C_CHAIN = 3
C_TRAJECTORY = 4

# chain_real columns
R_A = 0
R_ALPHA = 1
R_D = 2
R_OFFSET = 3
R_MASS = 4
R_COM = 5
R_INERTIA = 8
R_GRAVITY = 17
R_KP = 20
R_KD = 21
R_TRAJECTORY = 22
R_DAMPING = 25
R_BASE_ROTATION = 26
R_BASE_POSITION = 35

# per-link work array of the kernels (one row per chain row)
K_R = 0        # rotation of the link frame (global, row-major 3x3)
K_O = 9        # origin of the link frame
K_Z = 12       # joint axis (z of the parent frame)
K_J = 15       # point on the joint axis (origin of the parent frame)
K_C = 18       # centre of mass
K_W = 21       # angular velocity                       (RNEA, energy)
K_AL = 24      # angular acceleration                   (RNEA)
K_A = 27       # acceleration of the frame origin       (RNEA); velocity of the origin (energy)
K_F = 30       # force received through the joint      (RNEA)
K_N = 33       # moment about the joint point           (RNEA)
K_CM = 21      # composite mass                          (CRBA, reuses the RNEA columns)
K_CH = 22      # composite first moment m c about the global origin
K_CI = 25      # composite rotational inertia about the global origin (row-major)
K_WIDTH = 36

assert CHAIN_INT_WIDTH >= 5 and CHAIN_REAL_WIDTH >= R_BASE_POSITION + 3

CHAIN_STACK_ROWS = 32
"""Chains of up to this many rows (all rows of the system) keep a kernel's scratch on the stack
(``_chain_scratch``, 18 KB); longer ones allocate it at each call."""


# ------------------------------------------------------------------------------------------------
# scratch arrays in the stack frame of a kernel
# ------------------------------------------------------------------------------------------------

@intrinsic
def _stack_matrix(typingctx, rows, cols, capacity):
    """An uninitialised float64 (rows, cols) C array in the stack frame of the compiled function this call
    ends up in, without a memory manager (as the views of ``borrowed.py``): valid until that function
    returns. ``capacity`` must be a compile-time constant >= rows * cols (not checked)."""
    if not (isinstance(rows, types.Integer) and isinstance(cols, types.Integer)
            and isinstance(capacity, types.IntegerLiteral)):
        return None
    size = capacity.literal_value
    array_type = types.Array(types.float64, 2, "C")

    def codegen(context, builder, signature, args):
        data = cgutils.alloca_once(builder, context.get_value_type(types.float64), size=size)
        n_rows = context.cast(builder, args[0], signature.args[0], types.intp)
        n_cols = context.cast(builder, args[1], signature.args[1], types.intp)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_value_type(types.float64)))
        array = context.make_array(array_type)(context, builder)
        context.populate_array(array, data=data, shape=[n_rows, n_cols], strides=[builder.mul(n_cols, itemsize),
                               itemsize], itemsize=itemsize, meminfo=None)
        return array._getvalue()
    return array_type(rows, cols, capacity), codegen


_LINK_CAPACITY = CHAIN_STACK_ROWS * K_WIDTH
_MASS_CAPACITY = CHAIN_STACK_ROWS * CHAIN_STACK_ROWS
_VECTOR_CAPACITY = 2 * CHAIN_STACK_ROWS


@njit(inline="always")
def _chain_scratch(n):
    """(K, Ml, V) for one call of a kernel on n chain rows: the link quantities (n, K_WIDTH), a mass matrix
    (n, n) and two n-vectors (2, n), uninitialised. Always inlined, so that the arrays live in the calling
    kernel's stack frame (``_stack_matrix``) while it runs; allocated beyond CHAIN_STACK_ROWS rows."""
    if n <= CHAIN_STACK_ROWS:
        return (_stack_matrix(n, K_WIDTH, _LINK_CAPACITY), _stack_matrix(n, n, _MASS_CAPACITY),
                _stack_matrix(2, n, _VECTOR_CAPACITY))
    return np.empty((n, K_WIDTH)), np.empty((n, n)), np.empty((2, n))


@njit(inline="always")
def _zero(A):
    for r in range(A.shape[0]):
        for c in range(A.shape[1]):
            A[r, c] = 0.0


# ------------------------------------------------------------------------------------------------
# 3-vector helpers on tuples (no heap allocation)
# ------------------------------------------------------------------------------------------------

@kernel
def _get3(A, i, c):
    return (A[i, c], A[i, c + 1], A[i, c + 2])


@kernel
def _set3(A, i, c, x):
    A[i, c] = x[0]
    A[i, c + 1] = x[1]
    A[i, c + 2] = x[2]


@kernel
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel
def _scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@kernel
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def _mat_vec(A, i, c, x):
    """(row-major 3x3 stored at A[i, c:c+9]) @ x."""
    return (A[i, c] * x[0] + A[i, c + 1] * x[1] + A[i, c + 2] * x[2],
            A[i, c + 3] * x[0] + A[i, c + 4] * x[1] + A[i, c + 5] * x[2],
            A[i, c + 6] * x[0] + A[i, c + 7] * x[1] + A[i, c + 8] * x[2])


@kernel
def _mat_t_vec(A, i, c, x):
    """(row-major 3x3 stored at A[i, c:c+9])^T @ x."""
    return (A[i, c] * x[0] + A[i, c + 3] * x[1] + A[i, c + 6] * x[2],
            A[i, c + 1] * x[0] + A[i, c + 4] * x[1] + A[i, c + 7] * x[2],
            A[i, c + 2] * x[0] + A[i, c + 5] * x[1] + A[i, c + 8] * x[2])


@kernel
def _inertia_global(sys, K, i, x):
    """R I_c R^T x: the link's inertia about its centre of mass in global axes, applied to x."""
    local = _mat_t_vec(K, i, K_R, x)
    return _mat_vec(K, i, K_R, _mat_vec(sys.chain_real, i, R_INERTIA, local))


# ------------------------------------------------------------------------------------------------
# kinematics, RNEA, CRBA
# ------------------------------------------------------------------------------------------------

@kernel
def _kinematics(sys, q, K):
    """Link frames, joint axes and centres of mass of every row at coordinates q (global frame)."""
    for i in range(sys.chain_int.shape[0]):
        row = sys.chain_real
        p = sys.chain_int[i, C_PARENT]
        if p < 0:
            P = row
            pr = i
            cr = R_BASE_ROTATION
            co = R_BASE_POSITION
        else:
            P = K
            pr = p
            cr = K_R
            co = K_O
        x = q[sys.chain_int[i, C_COORDINATE]]
        theta = row[i, R_OFFSET]
        d = row[i, R_D]
        if sys.chain_int[i, C_JOINT] == REVOLUTE:
            theta += x
        else:
            d += x
        a = row[i, R_A]
        ct = math.cos(theta)
        st = math.sin(theta)
        ca = math.cos(row[i, R_ALPHA])
        sa = math.sin(row[i, R_ALPHA])
        # local rotation Rz(theta) Rx(alpha), columns (ct, st, 0), (-st ca, ct ca, sa), (st sa, -ct sa, ca)
        l00, l01, l02 = ct, -st * ca, st * sa
        l10, l11, l12 = st, ct * ca, -ct * sa
        l20, l21, l22 = 0.0, sa, ca
        for r in range(3):
            p0 = P[pr, cr + 3 * r]
            p1 = P[pr, cr + 3 * r + 1]
            p2 = P[pr, cr + 3 * r + 2]
            K[i, K_R + 3 * r] = p0 * l00 + p1 * l10 + p2 * l20
            K[i, K_R + 3 * r + 1] = p0 * l01 + p1 * l11 + p2 * l21
            K[i, K_R + 3 * r + 2] = p0 * l02 + p1 * l12 + p2 * l22
        parent_origin = _get3(P, pr, co)
        origin = _add(parent_origin, _mat_vec(P, pr, cr, (a * ct, a * st, d)))
        _set3(K, i, K_O, origin)
        _set3(K, i, K_Z, (P[pr, cr + 2], P[pr, cr + 5], P[pr, cr + 8]))
        _set3(K, i, K_J, parent_origin)
        _set3(K, i, K_C, _add(origin, _mat_vec(K, i, K_R, _get3(row, i, R_COM))))


@kernel
def _velocities(sys, q, v, K):
    """Kinematics plus angular velocity (K_W) and frame-origin velocity (stored in K_A) of every link."""
    _kinematics(sys, q, K)
    for i in range(sys.chain_int.shape[0]):
        p = sys.chain_int[i, C_PARENT]
        w_p = (0.0, 0.0, 0.0) if p < 0 else _get3(K, p, K_W)
        v_p = (0.0, 0.0, 0.0) if p < 0 else _get3(K, p, K_A)
        z = _get3(K, i, K_Z)
        r = _sub(_get3(K, i, K_O), _get3(K, i, K_J))
        rate = v[sys.chain_int[i, C_COORDINATE]]
        if sys.chain_int[i, C_JOINT] == REVOLUTE:
            w = _add(w_p, _scale(rate, z))
            vo = _add(v_p, _cross(w, r))
        else:
            w = w_p
            vo = _add(_add(v_p, _cross(w_p, r)), _scale(rate, z))
        _set3(K, i, K_W, w)
        _set3(K, i, K_A, vo)


@kernel
def _rnea(sys, q, v, qdd, with_acceleration, with_gravity, K, tau):
    """Recursive Newton-Euler (Featherstone Sect. 5.3, in global 3-vectors): tau[row] = joint force.

    tau = M(q) qdd + C(q, v) v - (gravity terms); qdd is read only if ``with_acceleration``, the
    links' gravity only if ``with_gravity``. q, v, qdd are indexed like the global state.
    """
    _kinematics(sys, q, K)
    n = sys.chain_int.shape[0]
    for i in range(n):
        p = sys.chain_int[i, C_PARENT]
        if p < 0:
            w_p = (0.0, 0.0, 0.0)
            al_p = (0.0, 0.0, 0.0)
            a_p = (0.0, 0.0, 0.0)
        else:
            w_p = _get3(K, p, K_W)
            al_p = _get3(K, p, K_AL)
            a_p = _get3(K, p, K_A)
        k = sys.chain_int[i, C_COORDINATE]
        rate = v[k]
        acc = qdd[k] if with_acceleration else 0.0
        z = _get3(K, i, K_Z)
        r = _sub(_get3(K, i, K_O), _get3(K, i, K_J))
        if sys.chain_int[i, C_JOINT] == REVOLUTE:
            w = _add(w_p, _scale(rate, z))
            al = _add(_add(al_p, _scale(acc, z)), _scale(rate, _cross(w_p, z)))
            a = _add(_add(a_p, _cross(al, r)), _cross(w, _cross(w, r)))
        else:
            w = w_p
            al = al_p
            a = _add(_add(a_p, _cross(al_p, r)), _cross(w_p, _cross(w_p, r)))
            a = _add(_add(a, _scale(2.0 * rate, _cross(w_p, z))), _scale(acc, z))
        _set3(K, i, K_W, w)
        _set3(K, i, K_AL, al)
        _set3(K, i, K_A, a)
        # Newton-Euler equations of link i at its centre of mass
        c = _get3(K, i, K_C)
        rc = _sub(c, _get3(K, i, K_O))
        a_c = _add(_add(a, _cross(al, rc)), _cross(w, _cross(w, rc)))
        m = sys.chain_real[i, R_MASS]
        if with_gravity:
            a_c = _sub(a_c, _get3(sys.chain_real, i, R_GRAVITY))
        f = _scale(m, a_c)
        moment = _add(_inertia_global(sys, K, i, al), _cross(w, _inertia_global(sys, K, i, w)))
        _set3(K, i, K_F, f)
        _set3(K, i, K_N, _add(moment, _cross(_sub(c, _get3(K, i, K_J)), f)))
    for i in range(n - 1, -1, -1):
        f = _get3(K, i, K_F)
        moment = _get3(K, i, K_N)
        z = _get3(K, i, K_Z)
        tau[i] = _dot(z, moment) if sys.chain_int[i, C_JOINT] == REVOLUTE else _dot(z, f)
        p = sys.chain_int[i, C_PARENT]
        if p >= 0:
            arm = _sub(_get3(K, i, K_J), _get3(K, p, K_J))
            _set3(K, p, K_F, _add(_get3(K, p, K_F), f))
            _set3(K, p, K_N, _add(_add(_get3(K, p, K_N), moment), _cross(arm, f)))


@kernel
def _motion_subspace(sys, K, i):
    """S_i = [w; u] of joint i in Plücker coordinates at the global origin."""
    z = _get3(K, i, K_Z)
    if sys.chain_int[i, C_JOINT] == REVOLUTE:
        return z, _cross(_get3(K, i, K_J), z)
    return (0.0, 0.0, 0.0), z


@kernel
def _crba(sys, q, K, Ml):
    """Composite-rigid-body algorithm (Featherstone Sect. 6.2): Ml[row, row] = M(q)."""
    _kinematics(sys, q, K)
    n = sys.chain_int.shape[0]
    for i in range(n):
        m = sys.chain_real[i, R_MASS]
        c = _get3(K, i, K_C)
        K[i, K_CM] = m
        _set3(K, i, K_CH, _scale(m, c))
        cc = _dot(c, c)
        for r in range(3):
            e_r = (1.0 if r == 0 else 0.0, 1.0 if r == 1 else 0.0, 1.0 if r == 2 else 0.0)
            col = _inertia_global(sys, K, i, e_r)      # column r of R I_c R^T (symmetric)
            for s in range(3):
                steiner = m * ((cc if r == s else 0.0) - c[r] * c[s])
                K[i, K_CI + 3 * s + r] = col[s] + steiner
    for i in range(n - 1, -1, -1):
        p = sys.chain_int[i, C_PARENT]
        if p >= 0:
            for k in range(13):
                K[p, K_CM + k] += K[i, K_CM + k]
    for i in range(n):
        w, u = _motion_subspace(sys, K, i)
        mc = _get3(K, i, K_CH)
        moment = _add(_mat_vec(K, i, K_CI, w), _cross(mc, u))
        force = _sub(_scale(K[i, K_CM], u), _cross(mc, w))
        Ml[i, i] = _dot(w, moment) + _dot(u, force)
        j = sys.chain_int[i, C_PARENT]
        while j >= 0:
            wj, uj = _motion_subspace(sys, K, j)
            value = _dot(wj, moment) + _dot(uj, force)
            Ml[i, j] = value
            Ml[j, i] = value
            j = sys.chain_int[j, C_PARENT]


@kernel
def _joint_forces(sys, q, v, t, tau):
    """Controller and damper forces per row: Kp (phi_d - q) + Kd (phi_d' - q') - c q'."""
    for i in range(sys.chain_int.shape[0]):
        k = sys.chain_int[i, C_COORDINATE]
        kp = sys.chain_real[i, R_KP]
        kd = sys.chain_real[i, R_KD]
        value = -sys.chain_real[i, R_DAMPING] * v[k]
        if kp != 0.0 or kd != 0.0:
            phi_d, rate_d, _ = prescribed_motion(sys.chain_int[i, C_TRAJECTORY], sys.chain_real[i, R_TRAJECTORY],
                                                 sys.chain_real[i, R_TRAJECTORY + 1],
                                                 sys.chain_real[i, R_TRAJECTORY + 2], t)
            value += kp * (phi_d - q[k]) + kd * (rate_d - v[k])
        tau[i] = value


@kernel
def _forces_local(sys, q, v, t, K, tau, out):
    """out[row] = tau - h(q, v) (joint forces minus RNEA bias forces including gravity); tau is scratch."""
    _rnea(sys, q, v, v, False, True, K, out)
    n = sys.chain_int.shape[0]
    for i in range(n):
        out[i] = -out[i]
    _joint_forces(sys, q, v, t, tau)
    for i in range(n):
        out[i] += tau[i]


@kernel
def _cholesky_solve(A, b):
    """Solve A x = b in place (b <- x) for symmetric positive definite A (A overwritten); False if not SPD."""
    n = A.shape[0]
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        if not s > 0.0:
            return False
        A[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / A[j, j]
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= A[i, k] * b[k]
        b[i] = s / A[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= A[k, i] * b[k]
        b[i] = s / A[i, i]
    return True


# ------------------------------------------------------------------------------------------------
# hook points called by lgbench.mbs.kernels / residual
# ------------------------------------------------------------------------------------------------

@kernel
def chain_mass_matrix(sys, q, M):
    """Add M(theta) of every chain into its diagonal block of M (CRBA)."""
    n = sys.chain_int.shape[0]
    if n == 0:
        return
    K, Ml, _ = _chain_scratch(n)
    _zero(Ml)
    _crba(sys, q, K, Ml)
    for r in range(n):
        kr = sys.chain_int[r, C_COORDINATE]
        for c in range(n):
            M[kr, sys.chain_int[c, C_COORDINATE]] += Ml[r, c]


@kernel
def chain_generalized_forces(sys, q, v, t, g):
    """Write tau - h(theta, theta') of every chain into its block of g (RNEA + joint controllers)."""
    n = sys.chain_int.shape[0]
    if n == 0:
        return
    K, _, V = _chain_scratch(n)
    out = V[0]
    _forces_local(sys, q, v, t, K, V[1], out)
    for i in range(n):
        g[sys.chain_int[i, C_COORDINATE]] = out[i]


@kernel
def chain_kinetic_energy(sys, q, v):
    """1/2 sum (m |v_c|^2 + w . I w) over the links."""
    n = sys.chain_int.shape[0]
    if n == 0:
        return 0.0
    K, _, _ = _chain_scratch(n)
    _velocities(sys, q, v, K)
    e = 0.0
    for i in range(n):
        w = _get3(K, i, K_W)
        rc = _sub(_get3(K, i, K_C), _get3(K, i, K_O))
        vc = _add(_get3(K, i, K_A), _cross(w, rc))
        e += 0.5 * (sys.chain_real[i, R_MASS] * _dot(vc, vc) + _dot(w, _inertia_global(sys, K, i, w)))
    return e


@kernel
def chain_potential_energy(sys, q, v):
    """Gravity (-sum m g . c) plus the springs of controllers with a CONSTANT set-point."""
    n = sys.chain_int.shape[0]
    if n == 0:
        return 0.0
    K, _, _ = _chain_scratch(n)
    _kinematics(sys, q, K)
    e = 0.0
    for i in range(n):
        e -= sys.chain_real[i, R_MASS] * _dot(_get3(sys.chain_real, i, R_GRAVITY), _get3(K, i, K_C))
        if sys.chain_int[i, C_TRAJECTORY] == CONSTANT:
            dx = sys.chain_real[i, R_TRAJECTORY] - q[sys.chain_int[i, C_COORDINATE]]
            e += 0.5 * sys.chain_real[i, R_KP] * dx * dx
    return e


@kernel
def chain_accelerations(sys, q, v, t, a):
    """Write theta'' = M^{-1}(tau - h) of every chain into its block of a (explicit integrators).

    A mass matrix that is not positive definite gives NaN accelerations (reported as divergence).
    """
    n = sys.chain_int.shape[0]
    if n == 0:
        return
    K, Ml, V = _chain_scratch(n)
    rhs = V[0]
    _zero(Ml)
    _crba(sys, q, K, Ml)
    _forces_local(sys, q, v, t, K, V[1], rhs)
    if not _cholesky_solve(Ml, rhs):
        for i in range(n):
            rhs[i] = np.nan
    for i in range(n):
        a[sys.chain_int[i, C_COORDINATE]] = rhs[i]


# ------------------------------------------------------------------------------------------------
# compiled helpers for model outputs and tests
# ------------------------------------------------------------------------------------------------

@kernel
def chain_inverse_dynamics(sys, q, v, qdd, with_gravity):
    """tau per chain row from the RNEA: M qdd + C v (- gravity terms if ``with_gravity``)."""
    n = sys.chain_int.shape[0]
    K = np.empty((n, K_WIDTH))
    tau = np.zeros(n)
    if n > 0:
        _rnea(sys, q, v, qdd, True, with_gravity, K, tau)
    return tau


@kernel
def chain_mass_matrix_rows(sys, q):
    """M(q) of the chain rows as an (n_rows x n_rows) matrix (CRBA)."""
    n = sys.chain_int.shape[0]
    K = np.empty((n, K_WIDTH))
    Ml = np.zeros((n, n))
    if n > 0:
        _crba(sys, q, K, Ml)
    return Ml


@kernel
def chain_link_frame(sys, q, row):
    """(R, origin) of the link frame (DH frame) of chain row ``row`` in the global frame."""
    n = sys.chain_int.shape[0]
    K = np.empty((n, K_WIDTH))
    _kinematics(sys, q, K)
    R = np.empty((3, 3))
    for r in range(3):
        for c in range(3):
            R[r, c] = K[row, K_R + 3 * r + c]
    return R, K[row, K_O:K_O + 3].copy()


@kernel
def chain_setpoint(sys, row, t):
    """(phi_d, phi_d', phi_d'') of chain row ``row`` at time t."""
    return prescribed_motion(sys.chain_int[row, C_TRAJECTORY], sys.chain_real[row, R_TRAJECTORY],
                             sys.chain_real[row, R_TRAJECTORY + 1], sys.chain_real[row, R_TRAJECTORY + 2], t)


# ------------------------------------------------------------------------------------------------
# Python side: chain description, DH kinematics, builder
# ------------------------------------------------------------------------------------------------


