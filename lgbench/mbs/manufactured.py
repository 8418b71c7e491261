"""Manufactured rigid-body motion of paper 003 Sect. 5 and the loads that produce it (inverse dynamics).

Prescribed motion of the reference point B and of the orientation (paper 003 Sect. 5):
u_B = [sin wt, cos wt - 1, t/2 + sin 2wt]; Euler parameters e0 = cos phi, e1 = sin phi sin theta cos psi,
e2 = sin phi sin theta sin psi, e3 = sin phi cos theta with phi = 2t, theta = t + 2 sin t,
psi = 3 cos t - 3. So phi is half the rotation angle and (theta, psi) are the polar and azimuth angles
of the rotation axis; these are Euler *parameters*, not Euler angles. R = R(e) (body to global),
omega* = 2 L(e) e', omega*' = 2 L(e) e'' (L(e') e' = 0).

The free body of lgbench has its centre of mass as reference point, so the paper's offset eta*
(centre of mass from B, body frame) enters as x_c = u_B + R eta*, and the inertia about the centre of
mass is J_c = rho* - m (|eta*|^2 I - eta* eta*^T) (Steiner). The loads are a global force through the
centre of mass, F = m x_c'', and a global couple M_c = R (J_c omega*' + omega* x J_c omega*); both are
functions of time only (the load element ``MANUFACTURED_LOAD``).
"""
import math

import numpy as np

from lgbench._compiled import kernel
from lgbench.lie.euler_parameters import body_ep_matrix, rotation_matrix_ep
from lgbench.mbs.dense import cross, mat3_vec, mat3t_vec

# force_real columns of the MANUFACTURED_LOAD force element (lgbench/mbs/codes.py)
MANUFACTURED_AXIS = 0   # [0:3] eta* (body frame)
MANUFACTURED_RATE = 3   # [3] w


@kernel
def _axis_and_derivatives(t):
    """Unit axis n(theta, psi) and its first and second time derivatives."""
    theta = t + 2.0 * math.sin(t)
    psi = 3.0 * math.cos(t) - 3.0
    td, tdd = 1.0 + 2.0 * math.cos(t), -2.0 * math.sin(t)
    pd, pdd = -3.0 * math.sin(t), -3.0 * math.cos(t)
    st, ct, sp, cp = math.sin(theta), math.cos(theta), math.sin(psi), math.cos(psi)
    n = np.array([st * cp, st * sp, ct])
    n_t = np.array([ct * cp, ct * sp, -st])
    n_p = np.array([-st * sp, st * cp, 0.0])
    n_tp = np.array([-ct * sp, ct * cp, 0.0])
    n_pp = np.array([-st * cp, -st * sp, 0.0])
    nd = n_t * td + n_p * pd
    ndd = -n * td * td + 2.0 * n_tp * td * pd + n_pp * pd * pd + n_t * tdd + n_p * pdd
    return n, nd, ndd


@kernel
def euler_parameters_and_derivatives(t):
    """(e, e', e'') of the prescribed orientation (paper 003 Sect. 5)."""
    phi, phid = 2.0 * t, 2.0
    n, nd, ndd = _axis_and_derivatives(t)
    s, c = math.sin(phi), math.cos(phi)
    sd, sdd = c * phid, -s * phid * phid
    e = np.empty(4)
    ed = np.empty(4)
    edd = np.empty(4)
    e[0], ed[0], edd[0] = c, -s * phid, -c * phid * phid
    e[1:4] = s * n
    ed[1:4] = sd * n + s * nd
    edd[1:4] = sdd * n + 2.0 * sd * nd + s * ndd
    return e, ed, edd


@kernel
def reference_point_motion(w, t):
    """(u_B, u_B', u_B'') of the prescribed displacement of B."""
    u = np.array([math.sin(w * t), math.cos(w * t) - 1.0, 0.5 * t + math.sin(2.0 * w * t)])
    ud = np.array([w * math.cos(w * t), -w * math.sin(w * t), 0.5 + 2.0 * w * math.cos(2.0 * w * t)])
    udd = np.array([-w * w * math.sin(w * t), -w * w * math.cos(w * t), -4.0 * w * w * math.sin(2.0 * w * t)])
    return u, ud, udd


@kernel
def manufactured_motion(eta, w, t):
    """(R, omega*, omega*', x_c, x_c', x_c'') of the body at time t (centre of mass x_c = u_B + R eta)."""
    e, ed, edd = euler_parameters_and_derivatives(t)
    R = rotation_matrix_ep(e)
    L = body_ep_matrix(e)
    omega = 2.0 * (L @ ed)
    omega_d = 2.0 * (L @ edd)
    u, ud, udd = reference_point_motion(w, t)
    w_eta = cross(omega, eta)
    xc = u + mat3_vec(R, eta)
    vc = ud + mat3_vec(R, w_eta)
    ac = udd + mat3_vec(R, cross(omega_d, eta) + cross(omega, w_eta))
    return R, omega, omega_d, xc, vc, ac


@kernel
def prescribed_material_velocity(p, t, V):
    """V = [R^T x_c', omega*] at time t: the material velocities of the centre-of-mass frame on the
    prescribed motion (p = force_real row [eta*, w]), which drive the kinematics-only experiment of
    paper 003 Figs. 3-4."""
    R, omega, _, _, vc, _ = manufactured_motion(p[MANUFACTURED_AXIS:MANUFACTURED_AXIS + 3], p[MANUFACTURED_RATE], t)
    V[0:3] = mat3t_vec(R, vc)
    V[3:6] = omega


@kernel
def manufactured_load(mass, inertia, p, t):
    """(global force through the centre of mass, global couple) producing the prescribed motion.

    ``inertia`` is J_c about the centre of mass (body frame), p = force_real row [eta*, w].
    """
    R, omega, omega_d, _, _, ac = manufactured_motion(p[MANUFACTURED_AXIS:MANUFACTURED_AXIS + 3], p[MANUFACTURED_RATE], t)
    torque_body = mat3_vec(inertia, omega_d) + cross(omega, mat3_vec(inertia, omega))
    return mass * ac, mat3_vec(R, torque_body)
