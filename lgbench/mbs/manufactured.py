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
from lgbench.lie.euler_parameters import body_rate_ep_apply
from lgbench.mbs.codes import EP
from lgbench.mbs.constraints import _cross3, _rotate, _rotate_back, rotation_entries

# force_real columns of the MANUFACTURED_LOAD force element (lgbench/mbs/codes.py)
MANUFACTURED_AXIS = 0   # [0:3] eta* (body frame)
MANUFACTURED_RATE = 3   # [3] w


@kernel
def _axis_and_derivatives(t):
    """Unit axis n(theta, psi) and its first and second time derivatives, as 3-tuples."""
    theta = t + 2.0 * math.sin(t)
    psi = 3.0 * math.cos(t) - 3.0
    td, tdd = 1.0 + 2.0 * math.cos(t), -2.0 * math.sin(t)
    pd, pdd = -3.0 * math.sin(t), -3.0 * math.cos(t)
    st, ct, sp, cp = math.sin(theta), math.cos(theta), math.sin(psi), math.cos(psi)
    n = (st * cp, st * sp, ct)
    n_t = (ct * cp, ct * sp, -st)
    n_p = (-st * sp, st * cp, 0.0)
    n_tp = (-ct * sp, ct * cp, 0.0)
    n_pp = (-st * cp, -st * sp, 0.0)
    nd = (n_t[0] * td + n_p[0] * pd, n_t[1] * td + n_p[1] * pd, n_t[2] * td + n_p[2] * pd)
    ndd = (-n[0] * td * td + 2.0 * n_tp[0] * td * pd + n_pp[0] * pd * pd + n_t[0] * tdd + n_p[0] * pdd,
           -n[1] * td * td + 2.0 * n_tp[1] * td * pd + n_pp[1] * pd * pd + n_t[1] * tdd + n_p[1] * pdd,
           -n[2] * td * td + 2.0 * n_tp[2] * td * pd + n_pp[2] * pd * pd + n_t[2] * tdd + n_p[2] * pdd)
    return n, nd, ndd


@kernel
def euler_parameters_and_derivatives(t):
    """(e, e', e'') of the prescribed orientation (paper 003 Sect. 5), as 4-tuples."""
    phi, phid = 2.0 * t, 2.0
    n, nd, ndd = _axis_and_derivatives(t)
    s, c = math.sin(phi), math.cos(phi)
    sd, sdd = c * phid, -s * phid * phid
    e = (c, s * n[0], s * n[1], s * n[2])
    ed = (-s * phid, sd * n[0] + s * nd[0], sd * n[1] + s * nd[1], sd * n[2] + s * nd[2])
    edd = (-c * phid * phid, sdd * n[0] + 2.0 * sd * nd[0] + s * ndd[0], sdd * n[1] + 2.0 * sd * nd[1] + s * ndd[1],
           sdd * n[2] + 2.0 * sd * nd[2] + s * ndd[2])
    return e, ed, edd


@kernel
def reference_point_motion(w, t):
    """(u_B, u_B', u_B'') of the prescribed displacement of B, as 3-tuples."""
    u = (math.sin(w * t), math.cos(w * t) - 1.0, 0.5 * t + math.sin(2.0 * w * t))
    ud = (w * math.cos(w * t), -w * math.sin(w * t), 0.5 + 2.0 * w * math.cos(2.0 * w * t))
    udd = (-w * w * math.sin(w * t), -w * w * math.cos(w * t), -4.0 * w * w * math.sin(2.0 * w * t))
    return u, ud, udd


@kernel
def _add3(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel
def motion(eta, w, t):
    """(R, omega*, omega*', x_c, x_c', x_c'') of the body at time t (centre of mass x_c = u_B + R eta), R as a
    row-major 9-tuple (``constraints.rotation_entries``) and the rest as 3-tuples: no array."""
    e, ed, edd = euler_parameters_and_derivatives(t)
    R = rotation_entries(EP, e, 0)
    omega = body_rate_ep_apply(e, ed)
    omega_d = body_rate_ep_apply(e, edd)
    u, ud, udd = reference_point_motion(w, t)
    eta3 = (eta[0], eta[1], eta[2])
    w_eta = _cross3(omega, eta3)
    xc = _add3(u, _rotate(R, eta3))
    vc = _add3(ud, _rotate(R, w_eta))
    ac = _add3(udd, _rotate(R, _add3(_cross3(omega_d, eta3), _cross3(omega, w_eta))))
    return R, omega, omega_d, xc, vc, ac


def manufactured_motion(eta, w, t):
    """``motion`` as arrays (R 3x3), for the model's exact outputs and initial state."""
    R, omega, omega_d, xc, vc, ac = motion(np.asarray(eta, dtype=float), float(w), float(t))
    return (np.array(R).reshape(3, 3), np.array(omega), np.array(omega_d), np.array(xc), np.array(vc),
            np.array(ac))


@kernel
def prescribed_material_velocity(p, t, V):
    """V = [R^T x_c', omega*] at time t: the material velocities of the centre-of-mass frame on the
    prescribed motion (p = force_real row [eta*, w]), which drive the kinematics-only experiment of
    paper 003 Figs. 3-4."""
    R, omega, _, _, vc, _ = motion(p[MANUFACTURED_AXIS:MANUFACTURED_AXIS + 3], p[MANUFACTURED_RATE], t)
    V[0], V[1], V[2] = _rotate_back(R, vc)
    V[3], V[4], V[5] = omega


@kernel
def manufactured_load(mass, inertia, p, t):
    """(global force through the centre of mass, global couple) producing the prescribed motion, as 3-tuples.

    ``inertia`` is J_c about the centre of mass (body frame, 3x3), p = force_real row [eta*, w].
    """
    R, omega, omega_d, _, _, ac = motion(p[MANUFACTURED_AXIS:MANUFACTURED_AXIS + 3], p[MANUFACTURED_RATE], t)
    J = (inertia[0, 0], inertia[0, 1], inertia[0, 2], inertia[1, 0], inertia[1, 1], inertia[1, 2],
         inertia[2, 0], inertia[2, 1], inertia[2, 2])
    torque_body = _add3(_rotate(J, omega_d), _cross3(omega, _rotate(J, omega)))
    return (mass * ac[0], mass * ac[1], mass * ac[2]), _rotate(R, torque_body)
