"""Equations of motion in residual form for implicit integrators.

r(q, v, v', lambda, t) = M(q) v' - g(q, v, t) + B(q)^T lambda   (paper 000 eq. 39; eq. 34 for the
classical formulation 2, where v = q' and g = H^T g_hat). Per body, with omega = W w:
M = blockdiag(m I, W^T J W) and g = [f; W^T (tau - omega x J omega - J W' w)]; for SE3 nodes the
translational part is R^T f - m omega x U (paper 002 eq. 22b).
"""
import numpy as np
from numba import njit

from lgbench.mbs.chain import chain_generalized_forces, chain_mass_matrix
from lgbench.mbs.constraints import constraint_blocks, constraint_matrix
from lgbench.mbs.dense import cross, mat3_vec, mat3t_vec
from lgbench.mbs.formulations import EP, SE3
from lgbench.mbs.kernels import (
    _rot_start, angular_velocity, applied_loads, rotation_matrix, rotation_size, velocity_map, velocity_map_rate,
)
from lgbench.mbs.system import B_FORM, B_INERTIA, B_KIND, B_MASS, B_NV, B_VSTART, FREE


@njit(cache=True)
def _add_body_mass(sys, i, q, M, col0):
    """Body i's block blockdiag(m I, W^T J W) into M, its velocity coordinates starting at col0."""
    form = sys.body_int[i, B_FORM]
    vs = col0
    qr, vr = _rot_start(sys, i)
    vr += col0 - sys.body_int[i, B_VSTART]
    if sys.body_int[i, B_KIND] == FREE:
        m = sys.body_real[i, B_MASS]
        for k in range(3):
            M[vs + k, vs + k] = m
    J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
    W = velocity_map(form, q[qr:qr + rotation_size(form)])
    block = W.T @ J @ W
    n = block.shape[0]
    for r in range(n):
        for c in range(n):
            M[vr + r, vr + c] = block[r, c]


@njit(cache=True)
def mass_matrix(sys, q, M):
    """Dense M(q) (nv x nv)."""
    M[:, :] = 0.0
    for i in range(sys.body_int.shape[0]):
        _add_body_mass(sys, i, q, M, sys.body_int[i, B_VSTART])
    chain_mass_matrix(sys, q, M)


@njit(cache=True)
def mass_blocks(sys, q, Mb):
    """M(q) by bodies: Mb[i] = body i's diagonal block over its own velocity coordinates (absolute
    coordinates only: a minimal-coordinate chain's M is dense)."""
    Mb[:, :, :] = 0.0
    for i in range(sys.body_int.shape[0]):
        _add_body_mass(sys, i, q, Mb[i], 0)


@njit(cache=True)
def generalized_forces(sys, q, v, t, force, torque, g):
    """g(q, v, t) in velocity coordinates: applied loads plus gyroscopic terms."""
    applied_loads(sys, q, v, t, force, torque)
    for i in range(sys.body_int.shape[0]):
        form = sys.body_int[i, B_FORM]
        vs = sys.body_int[i, B_VSTART]
        qr, vr = _rot_start(sys, i)
        if sys.body_int[i, B_KIND] == FREE:
            if form == SE3:
                R = rotation_matrix(form, q[qr:qr + 3])
                g[vs:vs + 3] = (mat3t_vec(R, force[i])
                                - sys.body_real[i, B_MASS] * cross(v[vr:vr + 3], v[vs:vs + 3]))
            else:
                for k in range(3):
                    g[vs + k] = force[i, k]
        nr = rotation_size(form)
        nw = 4 if form == EP else 3
        r = q[qr:qr + nr]
        w = v[vr:vr + nw]
        J = sys.body_real[i, B_INERTIA:B_INERTIA + 9].reshape(3, 3)
        omega = angular_velocity(form, r, w)
        moment = torque[i] - cross(omega, mat3_vec(J, omega)) - mat3_vec(J, velocity_map_rate(form, r, w))
        W = velocity_map(form, r)
        for c in range(nw):
            g[vr + c] = W[0, c] * moment[0] + W[1, c] * moment[1] + W[2, c] * moment[2]
    chain_generalized_forces(sys, q, v, t, g)


@njit(cache=True)
def dynamic_residual(sys, q, v, a, lam, t, M, C, force, torque, g, r):
    """r = M(q) a - g(q, v, t) + B(q)^T lambda; fills M, C and g as by-products."""
    mass_matrix(sys, q, M)
    generalized_forces(sys, q, v, t, force, torque, g)
    constraint_matrix(sys, q, C)
    r[:] = M @ a - g
    if C.shape[0] > 0:
        r += C.T @ lam


@njit(cache=True)
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


@njit(cache=True)
def add_constraint_forces(sys, row_bodies, Cb, lam, r):
    """r += B^T lam from the blocks of B."""
    for row in range(row_bodies.shape[0]):
        for side in range(2):
            body = row_bodies[row, side]
            if body >= 0:
                vs = sys.body_int[body, B_VSTART]
                for c in range(sys.body_int[body, B_NV]):
                    r[vs + c] += Cb[row, side, c] * lam[row]


@njit(cache=True)
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
