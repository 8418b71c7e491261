"""Analytic tangent stiffness K_t = -dg/dq and damping C_t = -dg/dv of a minimal-coordinate chain (paper 000
eq. 42 with g = tau - h of ``chain.chain_generalized_forces``), instead of finite differences of the RNEA.

g = tau_joint(q, v, t) - h(q, v): the joint forces give K_t[k, k] = Kp and C_t[k, k] = Kd + c. The bias
forces h (RNEA with qdd = 0, gravity included, ``chain._rnea``) are differentiated in one direction
(dq, dv) at a time by the tangent-linear RNEA below, one direction per coordinate of q and of v: exact
derivatives, O(n) per direction like a finite difference, with no step size.

Geometry of a direction dq. Every global quantity of link i moves with the virtual twist
xi_i = xi_parent + S_i dq_i of its link frame, in Plücker coordinates at the global origin (theta, u):
S_i = [z_i; J_i x z_i] (revolute), [0; z_i] (prismatic), the motion subspace of ``chain._motion_subspace``
(Featherstone Sect. 6.2). A point P of link i moves by dP = theta_i x P + u_i, a vector x by theta_i x x,
the rotation by dR = hat(theta_i) R, so the inertia about the centre of mass in global axes
Ig = R I R^T by d(Ig) x = theta_i x (Ig x) - Ig (theta_i x x). The joint axis z_i and the joint point
J_i belong to the parent frame and move with xi_parent.

The RNEA recursions of ``chain._rnea`` are then differentiated line by line (product rule): forward
for the angular velocity w, angular acceleration alpha, origin acceleration a and the link's own force
f and moment N about J; backward for the accumulated F, N and tau_i = z . N (revolute), z . F
(prismatic).
"""
from numba import njit

from lgbench._compiled import kernel
from lgbench.mbs.chain import (
    C_JOINT, C_PARENT, K_A, K_AL, K_C, K_F, K_J, K_N, K_O, K_W, K_Z, R_DAMPING, R_GRAVITY, R_KD, R_KP, R_MASS,
    _add, _cross, _dot, _get3, _inertia_global, _rnea, _scale, _set3, _sub,
)
from lgbench.mbs.codes import REVOLUTE
from lgbench.mbs.system import C_COORDINATE

TWIST_ANGULAR = 0       # dK columns 0..2: theta_i of the virtual twist of link i
TWIST_LINEAR = 3        # dK columns 3..5: u_i (Plücker, at the global origin)
# dK columns K_W, K_AL, K_A, K_F, K_N hold the tangents of the same quantities of ``chain._rnea``;
# the twist columns overlap K_R, which the tangent pass never reads from dK.
POSITIONS, VELOCITIES = range(2)
_ZERO = (0.0, 0.0, 0.0)


@njit(inline="always")
def _moved_point(dK, i, P):
    """dP = theta_i x P + u_i of a point P of link i; zero for the base (i < 0)."""
    if i < 0:
        return _ZERO
    return _add(_cross(_get3(dK, i, TWIST_ANGULAR), P), _get3(dK, i, TWIST_LINEAR))


@njit(inline="always")
def _moved_vector(dK, i, x):
    """dx = theta_i x x of a vector x of link i; zero for the base."""
    if i < 0:
        return _ZERO
    return _cross(_get3(dK, i, TWIST_ANGULAR), x)


@njit(inline="always")
def _inertia_tangent(sys, K, dK, i, x, dx):
    """d(Ig x) = Ig dx + theta_i x (Ig x) - Ig (theta_i x x) for Ig = R_i I_c R_i^T."""
    theta = _get3(dK, i, TWIST_ANGULAR)
    return _add(_inertia_global(sys, K, i, dx),
                _sub(_cross(theta, _inertia_global(sys, K, i, x)), _inertia_global(sys, K, i, _cross(theta, x))))


@kernel
def _rnea_tangent(sys, K, v, direction, j, dK, dtau):
    """dtau = dh/dq_j (direction POSITIONS) or dh/dv_j (VELOCITIES) for the chain row j, from the quantities
    ``chain._rnea`` left in K at (q, v) with qdd = 0 and gravity. Rows before j do not move: a parent row
    precedes its children."""
    n = sys.chain_int.shape[0]
    for i in range(j):
        for c in range(dK.shape[1]):
            dK[i, c] = 0.0
    for i in range(j, n):
        p = sys.chain_int[i, C_PARENT]
        if p < 0:
            w_p = dw_p = dal_p = da_p = theta_p = u_p = _ZERO
        else:
            w_p = _get3(K, p, K_W)
            dw_p, dal_p, da_p = _get3(dK, p, K_W), _get3(dK, p, K_AL), _get3(dK, p, K_A)
            theta_p, u_p = _get3(dK, p, TWIST_ANGULAR), _get3(dK, p, TWIST_LINEAR)
        z, J, O, C = _get3(K, i, K_Z), _get3(K, i, K_J), _get3(K, i, K_O), _get3(K, i, K_C)
        revolute = sys.chain_int[i, C_JOINT] == REVOLUTE
        rate = v[sys.chain_int[i, C_COORDINATE]]
        moves = 1.0 if i == j and direction == POSITIONS else 0.0
        drate = 1.0 if i == j and direction == VELOCITIES else 0.0
        if revolute:
            theta, u = _add(theta_p, _scale(moves, z)), _add(u_p, _scale(moves, _cross(J, z)))
        else:
            theta, u = theta_p, _add(u_p, _scale(moves, z))
        _set3(dK, i, TWIST_ANGULAR, theta)
        _set3(dK, i, TWIST_LINEAR, u)
        dz = _moved_vector(dK, p, z)
        dJ = _moved_point(dK, p, J)
        dC = _moved_point(dK, i, C)
        r = _sub(O, J)
        dr = _sub(_moved_point(dK, i, O), dJ)
        w, al, a = _get3(K, i, K_W), _get3(K, i, K_AL), _get3(K, i, K_A)
        wz, dwz = _cross(w_p, z), _add(_cross(dw_p, z), _cross(w_p, dz))
        if revolute:
            dw = _add(_add(dw_p, _scale(drate, z)), _scale(rate, dz))
            dal = _add(_add(dal_p, _scale(drate, wz)), _scale(rate, dwz))
        else:
            dw, dal = dw_p, dal_p
        # a = a_p + alpha x r + w x (w x r) (+ 2 rate w_p x z for a prismatic joint, where w = w_p)
        da = _add(_add(da_p, _add(_cross(dal, r), _cross(al, dr))),
                  _add(_cross(dw, _cross(w, r)), _cross(w, _add(_cross(dw, r), _cross(w, dr)))))
        if not revolute:
            da = _add(da, _add(_scale(2.0 * drate, wz), _scale(2.0 * rate, dwz)))
        _set3(dK, i, K_W, dw)
        _set3(dK, i, K_AL, dal)
        _set3(dK, i, K_A, da)
        # Newton-Euler at the centre of mass: f = m (a_c - g), N = Ig alpha + w x Ig w + (c - J) x f
        rc = _sub(C, O)
        drc = _moved_vector(dK, i, rc)
        m = sys.chain_real[i, R_MASS]
        a_c = _add(_add(a, _cross(al, rc)), _cross(w, _cross(w, rc)))
        f = _scale(m, _sub(a_c, _get3(sys.chain_real, i, R_GRAVITY)))
        da_c = _add(_add(da, _add(_cross(dal, rc), _cross(al, drc))),
                    _add(_cross(dw, _cross(w, rc)), _cross(w, _add(_cross(dw, rc), _cross(w, drc)))))
        df = _scale(m, da_c)
        dmoment = _add(_inertia_tangent(sys, K, dK, i, al, dal),
                       _add(_cross(dw, _inertia_global(sys, K, i, w)), _cross(w, _inertia_tangent(sys, K, dK, i, w, dw))))
        _set3(dK, i, K_F, df)
        _set3(dK, i, K_N, _add(dmoment, _add(_cross(_sub(dC, dJ), f), _cross(_sub(C, J), df))))
    for i in range(n - 1, -1, -1):
        p = sys.chain_int[i, C_PARENT]
        z, dz = _get3(K, i, K_Z), _moved_vector(dK, p, _get3(K, i, K_Z))
        F, dF, dN = _get3(K, i, K_F), _get3(dK, i, K_F), _get3(dK, i, K_N)
        if sys.chain_int[i, C_JOINT] == REVOLUTE:
            dtau[i] = _dot(dz, _get3(K, i, K_N)) + _dot(z, dN)
        else:
            dtau[i] = _dot(dz, F) + _dot(z, dF)
        if p >= 0:
            arm = _sub(_get3(K, i, K_J), _get3(K, p, K_J))
            darm = _sub(_moved_point(dK, p, _get3(K, i, K_J)), _moved_point(dK, sys.chain_int[p, C_PARENT],
                                                                              _get3(K, p, K_J)))
            _set3(dK, p, K_F, _add(_get3(dK, p, K_F), dF))
            _set3(dK, p, K_N, _add(_add(_get3(dK, p, K_N), dN), _add(_cross(darm, F), _cross(arm, dF))))


@kernel
def chain_force_tangent(sys, q, v, K, dK, dtau, slot, Kg, Cg):
    """The chain's entries of the group blocks (``force_tangent`` layout, slot[k] = (group, member)):
    Kg of K_t = -dg/dq = dh/dq + diag(Kp), Cg of C_t = -dg/dv = dh/dv + diag(Kd + c). K, dK are
    (rows, chain.K_WIDTH) and dtau (rows,) scratch arrays."""
    n = sys.chain_int.shape[0]
    if n == 0:
        return
    _rnea(sys, q, v, v, False, True, K, dtau)
    for direction in range(2):
        out = Kg if direction == POSITIONS else Cg
        for j in range(n):
            _rnea_tangent(sys, K, v, direction, j, dK, dtau)
            grp, col = slot[sys.chain_int[j, C_COORDINATE], 0], slot[sys.chain_int[j, C_COORDINATE], 1]
            for i in range(n):
                own = 0.0
                if i == j:
                    own = (sys.chain_real[i, R_KP] if direction == POSITIONS
                           else sys.chain_real[i, R_KD] + sys.chain_real[i, R_DAMPING])
                out[grp, slot[sys.chain_int[i, C_COORDINATE], 1], col] += dtau[i] + own
