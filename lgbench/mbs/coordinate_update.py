"""The coordinate update UAC (paper 000 Alg. 1) and the kinematic rates of every node type.

Lie group nodes compose (RV: eq. 30 with App. A.3; SE3: (R, x) o exp_SE3, paper 002 eqs. 11b, 37a),
classical nodes and minimal coordinates add (eq. 31). The rates are the slopes of the local
coordinates: T_exp^{-1}(dq) v for Lie group nodes (eq. 25), q' = H^{-1} v for classical ones.
Kernels return a ``Status`` where a parameterisation can become singular.
"""
import math

from numba import njit

from lgbench._compiled import kernel
from lgbench.lie.se3 import compose_se3, tangent_operator_inverse_se3_apply
from lgbench.lie.so3 import (
    compose_rotation_vectors_tuple, compose_with_quaternion, quaternion_of_rotation_vector,
    tangent_operator_inverse_so3_apply,
)
from lgbench.lie.tait_bryan import SINGULAR_COS_PITCH, body_rate_inverse_apply_rxyz
from lgbench.mbs.codes import EP, F1, OK, RV, RXYZ, SE3, SINGULAR_PARAMETERISATION
from lgbench.mbs.dense import cross
from lgbench.mbs.pose import _rot_start, _vec3, rotation_size, rotation_start
from lgbench.mbs.system import B_FORM, B_QSTART, B_VSTART, C_COORDINATE


@njit(inline="always")
def _add_translation_and_classical_rotation(form, s, qr, q0, dq, q):
    """UAC by addition (paper 000 eq. 31) of a body's translation q0[s:qr] and, unless it is an RV node,
    of its rotation coordinates."""
    for k in range(s, qr):
        q[k] = q0[k] + dq[k]
    if form != RV:
        for k in range(qr, qr + rotation_size(form)):
            q[k] = q0[k] + dq[k]


@njit(inline="always")
def rigid_update_coordinates(body_int, q0, dq, q):
    """UAC(q0, dq) of paper 000 Alg. 1 for every body except SE3 nodes: Lie group nodes compose
    (eq. 30, App. A.3), classical ones add (eq. 31)."""
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        if form == SE3:
            continue
        s = body_int[i, B_QSTART]
        qr, _ = rotation_start(body_int, i)
        _add_translation_and_classical_rotation(form, s, qr, q0, dq, q)
        if form == RV:
            q[qr], q[qr + 1], q[qr + 2] = compose_rotation_vectors_tuple(_vec3(q0, qr), _vec3(dq, qr))


@njit(inline="always")
def rigid_base_rotations(body_int, q0, base):
    """Euler parameters of the RV bodies' rotations exp(psi) at q0 into base[i] (paper 000 eq. A11):
    computed once per step for ``rigid_stage_coordinates``."""
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == RV:
            qr, _ = rotation_start(body_int, i)
            base[i, 0], base[i, 1], base[i, 2], base[i, 3] = quaternion_of_rotation_vector(_vec3(q0, qr))


@njit(inline="always")
def rigid_stage_coordinates(body_int, base, q0, dq, q, rotation):
    """``rigid_update_coordinates`` with the RV compositions started from the Euler parameters base[i] of
    q0 (``rigid_base_rotations``); the Euler parameters of each RV body's new rotation go to rotation[i],
    from which ``elementary_loads`` takes R without trigonometric functions."""
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        s = body_int[i, B_QSTART]
        qr, _ = rotation_start(body_int, i)
        _add_translation_and_classical_rotation(form, s, qr, q0, dq, q)
        if form == RV:
            e = (base[i, 0], base[i, 1], base[i, 2], base[i, 3])
            psi, e1 = compose_with_quaternion(e, _vec3(dq, qr))
            q[qr], q[qr + 1], q[qr + 2] = psi
            rotation[i, 0], rotation[i, 1], rotation[i, 2], rotation[i, 3] = e1


@njit(inline="always")
def update_coordinates_inline(sys, q0, dq, q):
    """UAC(q0, dq) of paper 000 Alg. 1 (``rigid_update_coordinates``); SE3 nodes: (R0, x0) o exp_SE3(dq)
    (paper 002 eqs. 11b, 37a); minimal coordinates add."""
    body_int = sys.body_int
    chain_int = sys.chain_int
    rigid_update_coordinates(body_int, q0, dq, q)
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == SE3:
            s = body_int[i, B_QSTART]
            _update_se3(q0, dq, q, s, s + 3)
    for j in range(chain_int.shape[0]):
        k = chain_int[j, C_COORDINATE]
        q[k] = q0[k] + dq[k]


@kernel
def update_coordinates(sys, q0, dq, q):
    """``update_coordinates_inline`` as a compiled call."""
    update_coordinates_inline(sys, q0, dq, q)


@njit(inline="always")
def _update_se3(q0, dq, q, s, qr):
    """(x, psi) of an SE3 node: (R0, x0) o exp_SE3(dq) (paper 002 eqs. 11b, 37a), no array."""
    x, psi = compose_se3(_vec3(q0, s), _vec3(q0, qr), _vec3(dq, s), _vec3(dq, qr))
    q[s], q[s + 1], q[s + 2] = x
    q[qr], q[qr + 1], q[qr + 2] = psi


@njit(inline="always")
def se3_rates(dq, v, K, s, vs):
    """Slopes K[s:s+6] = T_SE3^{-1}(dq[s:s+6]) v[vs:vs+6] of an SE3 node (paper 002 eq. 13), no array."""
    K[s], K[s + 1], K[s + 2], K[s + 3], K[s + 4], K[s + 5] = tangent_operator_inverse_se3_apply(
        _vec3(dq, s), _vec3(dq, s + 3), _vec3(v, vs), _vec3(v, vs + 3))


@njit(inline="always")
def rigid_kinematic_rates(body_int, q, dq, v, K):
    """Slopes K of the coordinates of every body except SE3 nodes: Lie nodes T_exp^{-1}(dq) v (paper 000
    eq. 25), classical q' = H^{-1} v; returns a status code."""
    for i in range(body_int.shape[0]):
        form = body_int[i, B_FORM]
        if form == SE3:
            continue
        s = body_int[i, B_QSTART]
        vs = body_int[i, B_VSTART]
        qr, vr = rotation_start(body_int, i)
        for k in range(qr - s):
            K[s + k] = v[vs + k]
        if form == RV:
            K[qr], K[qr + 1], K[qr + 2] = tangent_operator_inverse_so3_apply(_vec3(dq, qr), _vec3(v, vr))
        elif form == RXYZ:
            for k in range(3):
                K[qr + k] = v[vr + k]
        elif form == EP:
            for k in range(4):
                K[qr + k] = v[vr + k]
        elif form == F1:
            if abs(math.cos(q[qr + 1])) < SINGULAR_COS_PITCH:
                return SINGULAR_PARAMETERISATION
            K[qr], K[qr + 1], K[qr + 2] = body_rate_inverse_apply_rxyz(_vec3(q, qr), _vec3(v, vr))
        else:
            # e' = L(e)^T omega / 2, L of ``body_ep_matrix`` written out
            e0, e1, e2, e3 = q[qr], q[qr + 1], q[qr + 2], q[qr + 3]
            w0, w1, w2 = v[vr], v[vr + 1], v[vr + 2]
            K[qr] = 0.5 * (-e1 * w0 - e2 * w1 - e3 * w2)
            K[qr + 1] = 0.5 * (e0 * w0 - e3 * w1 + e2 * w2)
            K[qr + 2] = 0.5 * (e3 * w0 + e0 * w1 - e1 * w2)
            K[qr + 3] = 0.5 * (-e2 * w0 + e1 * w1 + e0 * w2)
    return OK


@kernel
def kinematic_rates(sys, q, dq, v, K):
    """Slopes K of the coordinates (``rigid_kinematic_rates``); SE3 nodes T_SE3^{-1}(dq) v, minimal
    coordinates q' = v."""
    body_int = sys.body_int
    chain_int = sys.chain_int
    status = rigid_kinematic_rates(body_int, q, dq, v, K)
    if status != OK:
        return status
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == SE3:
            se3_rates(dq, v, K, body_int[i, B_QSTART], body_int[i, B_VSTART])
    for j in range(chain_int.shape[0]):
        k = chain_int[j, C_COORDINATE]
        K[k] = v[k]
    return OK


@kernel
def algebra_commutator(sys, v, w, out):
    """hat(v) w = [v~, w~] per node (paper 002 eqs. 29, 34): RV nodes [0, Omega x W_Omega];
    SE3 nodes [U x W_Omega + Omega x W_U, Omega x W_Omega] (lgbench order [U, Omega]); 0 for the
    linear coordinates of classical nodes and chains."""
    out[:] = 0.0
    for i in range(sys.body_int.shape[0]):
        form = sys.body_int[i, B_FORM]
        if form != RV and form != SE3:
            continue
        _, vr = _rot_start(sys, i)
        out[vr:vr + 3] = cross(v[vr:vr + 3], w[vr:vr + 3])
        if form == SE3:
            vs = sys.body_int[i, B_VSTART]
            out[vs:vs + 3] = cross(v[vs:vs + 3], w[vr:vr + 3]) + cross(v[vr:vr + 3], w[vs:vs + 3])


@kernel
def largest_rotation_increment(body_int, dq):
    """max over RV bodies of |dq_rotation|: the rotation angle of a Lie group update UAC(q, dq)."""
    largest = 0.0
    for i in range(body_int.shape[0]):
        if body_int[i, B_FORM] == RV:
            qr, _ = rotation_start(body_int, i)
            largest = max(largest, math.sqrt(dq[qr] ** 2 + dq[qr + 1] ** 2 + dq[qr + 2] ** 2))
    return largest

