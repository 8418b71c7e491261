"""Minimal-coordinate chains (lgbench/mbs/chain.py): CRBA mass matrix, RNEA bias forces, energy.

Every kernel result is checked against an independent computation:
* M(q) against the polarisation of the kinetic energy (T(e_i + e_j) - T(e_i) - T(e_j) = M_ij, exact
  for a quadratic form), against a naive sum over links of m J_v^T J_v + J_w^T I J_w with geometric
  Jacobians written here in numpy, and against RNEA columns M e_k = ID(q, 0, e_k);
* h(q, v) against Lagrange's equations, h = M'(q)[v] v - dT/dq + dV/dq by central differences of the
  kernels' energies (and against the closed form of a planar double pendulum);
* total energy conservation without controllers or damping (RK44), and with constant set-point
  PD springs (Kd = 0, the spring energy is part of the potential);
* the hook points as the lead's kernels call them (mass_matrix / generalized_forces of the
  residual, accelerations of the explicit integrators).
The test chains mix revolute and prismatic joints, a branched tree, DH offsets and a rotated,
shifted base.
"""
from __future__ import annotations

import numpy as np
import pytest

from lgbench.exceptions import InputError
from lgbench.mbs.chain import (
    CHAIN_STACK_ROWS, _chain_scratch, chain_accelerations, chain_generalized_forces, chain_inverse_dynamics,
    chain_kinetic_energy, chain_link_frame, chain_mass_matrix, chain_mass_matrix_rows, chain_potential_energy,
)
from lgbench.mbs.chain_builder import add_chain, ChainLink, dh_frames
from lgbench.mbs.codes import CONSTANT
from lgbench.mbs.system import SystemBuilder

G = np.array([0.0, -3.0, -9.81])


def rotation(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def spd(rng, scale):
    A = rng.normal(size=(3, 3))
    return scale * (A @ A.T + 0.3 * np.eye(3))


def tree_links(rng) -> list[ChainLink]:
    """R-P-R-R serial part plus a revolute branch on link 1 (parent 1), random inertial data."""
    specs = [("revolute", None), ("prismatic", None), ("revolute", None), ("revolute", None), ("revolute", 1)]
    links = []
    for joint, parent in specs:
        a, alpha, d, offset = rng.uniform(-0.5, 0.5), rng.uniform(-np.pi, np.pi), rng.uniform(-0.3, 0.3), \
            rng.uniform(-1, 1)
        links.append(ChainLink(a=a, alpha=alpha, d=d, offset=offset, joint=joint, parent=parent,
                               mass=rng.uniform(0.5, 3.0), com=tuple(rng.uniform(-0.2, 0.2, 3)),
                               inertia=tuple(map(tuple, spd(rng, 0.05)))))
    return links


def build(links, gravity=G, base_rotation=None, base_position=None):
    builder = SystemBuilder()
    coordinates = add_chain(builder, links, gravity=gravity, base_rotation=base_rotation,
                            base_position=base_position)
    return builder.build(), coordinates


@pytest.fixture(scope="module")
def tree():
    rng = np.random.default_rng(7)
    links = tree_links(rng)
    base_R = rotation([1.0, 2.0, -0.5], 0.7)
    base_p = np.array([0.3, -0.2, 1.1])
    sys, coordinates = build(links, base_rotation=base_R, base_position=base_p)
    q = rng.uniform(-1.5, 1.5, len(links))
    v = rng.uniform(-2.0, 2.0, len(links))
    return dict(sys=sys, links=links, base=(base_R, base_p), q=q, v=v, coordinates=coordinates)


def kinetic(sys, q, v):
    return chain_kinetic_energy(sys, q, v)


def test_rows_and_coordinates(tree):
    sys = tree["sys"]
    assert tree["coordinates"] == list(range(5))
    assert list(sys.chain_int[:, 2]) == [-1, 0, 1, 2, 1]      # parents: serial + branch on link 1
    assert list(sys.chain_int[:, 1]) == [0, 1, 0, 0, 0]       # revolute / prismatic


def test_link_frames_match_python_dh(tree):
    sys, q = tree["sys"], tree["q"]
    frames = dh_frames(tree["links"], q, *tree["base"])
    for row, (R, origin) in enumerate(frames):
        Rk, ok = chain_link_frame(sys, q, row)
        np.testing.assert_allclose(Rk, R, atol=1e-14)
        np.testing.assert_allclose(ok, origin, atol=1e-14)
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)


def test_mass_matrix_is_symmetric_positive_definite(tree):
    M = chain_mass_matrix_rows(tree["sys"], tree["q"])
    np.testing.assert_array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0.0


def test_mass_matrix_is_the_hessian_of_the_kinetic_energy(tree):
    sys, q = tree["sys"], tree["q"]
    n = q.size
    M = chain_mass_matrix_rows(sys, q)
    E = np.eye(n)
    H = np.array([[kinetic(sys, q, E[i] + E[j]) - kinetic(sys, q, E[i]) - kinetic(sys, q, E[j])
                   for j in range(n)] for i in range(n)])
    np.fill_diagonal(H, [2.0 * kinetic(sys, q, E[i]) for i in range(n)])
    np.testing.assert_allclose(M, H, rtol=0, atol=1e-13 * np.abs(M).max())
    v = tree["v"]
    assert 0.5 * v @ M @ v == pytest.approx(kinetic(sys, q, v), rel=1e-13)


def naive_mass_matrix(links, q, base):
    """sum_i m_i J_v,i^T J_v,i + J_w,i^T I_i J_w,i with geometric Jacobians (numpy, no lgbench kernel)."""
    frames = dh_frames(links, q, *base)
    n = len(links)
    parents = [i - 1 if link.parent is None else link.parent for i, link in enumerate(links)]
    M = np.zeros((n, n))
    for i, link in enumerate(links):
        R, origin = frames[i]
        c = origin + R @ np.asarray(link.com)
        inertia = R @ np.asarray(link.inertia) @ R.T
        Jv = np.zeros((3, n))
        Jw = np.zeros((3, n))
        j = i
        while j >= 0:             # the joints that move link i: its ancestors and itself
            Rp, op = (base if parents[j] < 0 else frames[parents[j]])
            z = Rp[:, 2]
            if links[j].joint == "revolute":
                Jw[:, j] = z
                Jv[:, j] = np.cross(z, c - op)
            else:
                Jv[:, j] = z
            j = parents[j]
        M += link.mass * Jv.T @ Jv + Jw.T @ inertia @ Jw
    return M


def test_crba_equals_the_naive_composite_sum(tree):
    M = chain_mass_matrix_rows(tree["sys"], tree["q"])
    np.testing.assert_allclose(M, naive_mass_matrix(tree["links"], tree["q"], tree["base"]), rtol=0,
                               atol=1e-13 * np.abs(M).max())
    # the branch (row 4, parent 1) does not couple to rows 2, 3 (not its ancestors or descendants)
    assert M[4, 2] == 0.0 and M[4, 3] == 0.0 and M[2, 4] == 0.0


def test_crba_equals_rnea_columns(tree):
    sys, q = tree["sys"], tree["q"]
    n = q.size
    zero = np.zeros(n)
    columns = np.array([chain_inverse_dynamics(sys, q, zero, e, False) for e in np.eye(n)]).T
    M = chain_mass_matrix_rows(sys, q)
    np.testing.assert_allclose(columns, M, rtol=0, atol=1e-13 * np.abs(M).max())


def lagrange_bias(sys, q, v, eps=1e-6):
    """h = M'(q)[v] v - dT/dq + dV/dq by central differences of the kernels' M, T and V."""
    n = q.size
    dM = (chain_mass_matrix_rows(sys, q + eps * v) - chain_mass_matrix_rows(sys, q - eps * v)) / (2 * eps)
    dT = np.zeros(n)
    dV = np.zeros(n)
    for k in range(n):
        e = np.zeros(n)
        e[k] = eps
        dT[k] = (kinetic(sys, q + e, v) - kinetic(sys, q - e, v)) / (2 * eps)
        dV[k] = (chain_potential_energy(sys, q + e, v) - chain_potential_energy(sys, q - e, v)) / (2 * eps)
    return dM @ v - dT + dV


def test_rnea_bias_forces_follow_lagrange_equations(tree):
    sys, q, v = tree["sys"], tree["q"], tree["v"]
    h = chain_inverse_dynamics(sys, q, v, np.zeros_like(q), True)
    expected = lagrange_bias(sys, q, v)
    np.testing.assert_allclose(h, expected, rtol=0, atol=1e-7 * np.abs(expected).max())
    # gravity part alone: dV/dq
    gravity = chain_inverse_dynamics(sys, q, np.zeros_like(q), np.zeros_like(q), True)
    np.testing.assert_allclose(gravity, lagrange_bias(sys, q, np.zeros_like(q)), rtol=0,
                               atol=1e-7 * np.abs(gravity).max())


def test_double_pendulum_closed_form():
    """Planar double pendulum (joint axes z, gravity -y): M and h in closed form."""
    l1, l2, c1, c2, m1, m2, i1, i2, g = 0.7, 0.5, 0.3, 0.2, 2.0, 1.5, 0.04, 0.02, 9.81
    # DH frame i sits at the distal end of link i (a_i along x_i): the centre of mass is at x = c - l
    links = [ChainLink(a=l1, mass=m1, com=(c1 - l1, 0.0, 0.0), inertia=np.diag([0.01, 0.01, i1])),
             ChainLink(a=l2, mass=m2, com=(c2 - l2, 0.0, 0.0), inertia=np.diag([0.01, 0.01, i2]))]
    sys, _ = build(links, gravity=(0.0, -g, 0.0))
    q = np.array([0.4, -1.1])
    v = np.array([1.3, -0.7])
    cs2, s2 = np.cos(q[1]), np.sin(q[1])
    M = np.array([[i1 + i2 + m1 * c1 ** 2 + m2 * (l1 ** 2 + c2 ** 2 + 2 * l1 * c2 * cs2),
                   i2 + m2 * (c2 ** 2 + l1 * c2 * cs2)],
                  [i2 + m2 * (c2 ** 2 + l1 * c2 * cs2), i2 + m2 * c2 ** 2]])
    coriolis = np.array([-m2 * l1 * c2 * s2 * (2 * v[0] * v[1] + v[1] ** 2), m2 * l1 * c2 * s2 * v[0] ** 2])
    gravity = np.array([(m1 * c1 + m2 * l1) * g * np.cos(q[0]) + m2 * c2 * g * np.cos(q[0] + q[1]),
                        m2 * c2 * g * np.cos(q[0] + q[1])])
    np.testing.assert_allclose(chain_mass_matrix_rows(sys, q), M, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(chain_inverse_dynamics(sys, q, v, np.zeros(2), False), coriolis, rtol=1e-13)
    np.testing.assert_allclose(chain_inverse_dynamics(sys, q, v, np.zeros(2), True), coriolis + gravity,
                               rtol=1e-13)
    # potential energy: -sum m g . c with the centres of mass at heights c1 sin q1, l1 sin q1 + c2 sin(q1+q2)
    height = m1 * c1 * np.sin(q[0]) + m2 * (l1 * np.sin(q[0]) + c2 * np.sin(q[0] + q[1]))
    assert chain_potential_energy(sys, q, v) == pytest.approx(g * height, rel=1e-14)


def test_hooks_as_the_kernels_call_them(tree):
    """mass_matrix / generalized_forces (residual) and accelerations (explicit) see the chain block."""
    from lgbench.mbs.dynamics import accelerations
    from lgbench.mbs.residual import generalized_forces, mass_matrix
    
    sys, q, v = tree["sys"], tree["q"], tree["v"]
    n = q.size
    M = np.full((n, n), 7.0)
    mass_matrix(sys, q, M)                               # zeroes M, then adds the chain block
    np.testing.assert_allclose(M, chain_mass_matrix_rows(sys, q), rtol=1e-15, atol=1e-15)
    g = np.full(n, 7.0)
    generalized_forces(sys, q, v, 0.3, np.zeros((0, 3)), np.zeros((0, 3)), g)
    np.testing.assert_allclose(g, -chain_inverse_dynamics(sys, q, v, np.zeros(n), True), rtol=1e-15)
    a = np.zeros(n)
    assert accelerations(sys, q, v, 0.3, np.zeros((0, 3)), np.zeros((0, 3)), a) == 0
    np.testing.assert_allclose(M @ a, g, rtol=0, atol=1e-12 * np.abs(g).max())
    a2 = np.zeros(n)
    chain_accelerations(sys, q, v, 0.3, a2)
    np.testing.assert_array_equal(a, a2)


@pytest.mark.parametrize("rows", [CHAIN_STACK_ROWS, CHAIN_STACK_ROWS + 1])
def test_kernel_scratch_on_the_stack_and_beyond_it(rows):
    """A tree at the stack capacity of the kernels' scratch (``chain._chain_scratch``) and one row beyond it
    (allocated scratch): mass matrix, generalized forces and accelerations equal those of the kernels that
    allocate their arrays (chain_mass_matrix_rows, chain_inverse_dynamics); the last row branches off the
    first, so M has entries that no row writes."""
    rng = np.random.default_rng(rows)
    links = [ChainLink(a=rng.uniform(0.1, 0.3), alpha=rng.uniform(-np.pi, np.pi), d=rng.uniform(-0.1, 0.1),
                       joint="prismatic" if k % 5 == 3 else "revolute", parent=0 if k == rows - 1 else None,
                       mass=rng.uniform(0.5, 3.0), com=tuple(rng.uniform(-0.1, 0.1, 3)),
                       inertia=tuple(map(tuple, spd(rng, 0.05)))) for k in range(rows)]
    sys, _ = build(links)
    q, v = rng.uniform(-1.5, 1.5, rows), rng.uniform(-2.0, 2.0, rows)
    M = chain_mass_matrix_rows(sys, q)
    for _ in range(2):                  # the second call finds the first one's values in its scratch
        M_hook = np.zeros((rows, rows))
        chain_mass_matrix(sys, q, M_hook)
        np.testing.assert_array_equal(M_hook, M)
        g = np.zeros(rows)
        chain_generalized_forces(sys, q, v, 0.3, g)
        np.testing.assert_array_equal(g, -chain_inverse_dynamics(sys, q, v, np.zeros(rows), True))
        a = np.zeros(rows)
        chain_accelerations(sys, q, v, 0.3, a)
        np.testing.assert_allclose(M @ a, g, rtol=0, atol=1e-9 * np.abs(g).max())


def test_kernel_scratch_is_inlined_into_each_kernel():
    """The stack arrays of ``_chain_scratch`` live in the frame of the function they are compiled into."""
    assert _chain_scratch.targetoptions.get("inline") == "always"


def rk44_energy_drift(sys, q0, v0, h, t_end):
    from lgbench.integrators.explicit import integrate_explicit
    from lgbench.integrators.tableaus import TABLEAUS

    tab = TABLEAUS["RK44"]
    q, v = q0.copy(), v0.copy()
    energy0 = chain_kinetic_energy(sys, q, v) + chain_potential_energy(sys, q, v)
    code, steps, _ = integrate_explicit(sys, tab.A, tab.B, tab.C, q, v, 0.0, t_end, h, np.zeros(0),
                                        np.zeros((0, q.size)), np.zeros((0, v.size)), np.zeros(1, dtype=bool))
    assert code == 0 and steps == round(t_end / h)
    energy = chain_kinetic_energy(sys, q, v) + chain_potential_energy(sys, q, v)
    return abs(energy - energy0), energy0, q


def test_energy_is_conserved_without_controllers(tree):
    """Free motion of the tree under gravity: the RK44 energy error is O(h^4), i.e. the equations
    conserve energy (measured over 1 s, E = 87.8 J: 7.1e-9 J at h = 2e-3, 4.6e-10 J at h = 1e-3)."""
    drift, energy0, q = rk44_energy_drift(tree["sys"], tree["q"], tree["v"], 1e-3, 1.0)
    assert np.linalg.norm(q - tree["q"]) > 0.1                   # it moved
    assert drift < 1e-10 * abs(energy0), drift
    coarse, _, _ = rk44_energy_drift(tree["sys"], tree["q"], tree["v"], 2e-3, 1.0)
    assert 10.0 < coarse / drift < 25.0, (coarse, drift)         # 2^4 = 16


def test_energy_with_constant_set_point_springs_is_conserved():
    """PD with Kd = 0 and a constant set-point is a joint spring: its energy is in the potential."""
    rng = np.random.default_rng(3)
    links = [ChainLink(**{**link.__dict__, "kp": 20.0, "trajectory": (CONSTANT, 0.2 * k, 0.0, 0.0)})
             for k, link in enumerate(tree_links(rng))]
    sys, _ = build(links)
    q0 = rng.uniform(-1, 1, len(links))
    drift, energy0, _ = rk44_energy_drift(sys, q0, np.zeros(len(links)), 5e-4, 0.5)
    assert drift < 1e-8 * max(1.0, abs(energy0)), drift
    # with damping the energy decreases
    damped = [ChainLink(**{**link.__dict__, "kd": 0.5}) for link in links]
    sys_d, _ = build(damped)
    from lgbench.integrators.explicit import integrate_explicit
    from lgbench.integrators.tableaus import TABLEAUS
    tab = TABLEAUS["RK44"]
    q, v = q0.copy(), np.zeros(len(links))
    integrate_explicit(sys_d, tab.A, tab.B, tab.C, q, v, 0.0, 0.5, 5e-4, np.zeros(0),
                       np.zeros((0, q.size)), np.zeros((0, v.size)), np.zeros(1, dtype=bool))
    energy = chain_kinetic_energy(sys_d, q, v) + chain_potential_energy(sys_d, q, v)
    assert energy < energy0 - 1e-3


def test_pd_forces_track_the_set_point():
    """g = Kp (phi_d - q) + Kd (phi_d' - q') - h: a massless-gravity check on one joint."""
    from lgbench.mbs.trajectories import prescribed_motion
    from lgbench.mbs.codes import BANG_BANG

    link = ChainLink(a=0.5, mass=1.0, com=(-0.25, 0, 0), inertia=np.diag([0.0, 0.02, 0.02]), kp=300.0,
                     kd=7.0, damping=0.4, trajectory=(BANG_BANG, 0.1, 2.0, 0.5))
    sys, _ = build([link], gravity=(0.0, 0.0, 0.0))
    q, v = np.array([0.2]), np.array([0.3])
    for t in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5):
        g = np.zeros(1)
        chain_generalized_forces(sys, q, v, t, g)
        phi_d, rate_d, _ = prescribed_motion(BANG_BANG, 0.1, 2.0, 0.5, t)
        assert g[0] == pytest.approx(300.0 * (phi_d - 0.2) + 7.0 * (rate_d - 0.3) - 0.4 * 0.3, rel=1e-14)


@pytest.mark.parametrize("change,field", [
    ({"mass": -1.0}, "links[1].mass"),
    ({"inertia": ((1.0, 0.5, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))}, "links[1].inertia"),
    ({"inertia": np.diag([1.0, -1.0, 1.0])}, "links[1].inertia"),
    ({"joint": "spherical"}, "links[1].joint"),
    ({"parent": 1}, "links[1].parent"),
    ({"parent": 5}, "links[1].parent"),
    ({"kp": -1.0}, "links[1].gains"),
    ({"a": float("nan")}, "links[1].dh"),
    ({"trajectory": (7, 0.0, 0.0, 0.0)}, "links[1].trajectory"),
])
def test_bad_link_data_raise_input_error(change, field):
    links = [ChainLink(a=1.0, mass=1.0), ChainLink(**{**ChainLink(a=1.0, mass=1.0).__dict__, **change})]
    with pytest.raises(InputError) as error:
        build(links)
    assert error.value.field == field


def test_bad_base_and_empty_chain_raise_input_error():
    with pytest.raises(InputError):
        build([ChainLink(a=1.0, mass=1.0)], base_rotation=2.0 * np.eye(3))
    with pytest.raises(InputError):
        build([ChainLink(a=1.0, mass=1.0)], gravity=(0.0, 1.0))
    with pytest.raises(InputError):
        build([])


def test_two_chains_in_one_system_are_independent():
    """Rows of a second chain index their parents globally; the chains do not couple."""
    rng = np.random.default_rng(11)
    a, b = tree_links(rng)[:3], tree_links(rng)[:2]
    builder = SystemBuilder()
    ca = add_chain(builder, a, gravity=G, chain_id=0)
    cb = add_chain(builder, b, gravity=G, chain_id=1)
    sys = builder.build()
    assert ca == [0, 1, 2] and cb == [3, 4]
    assert list(sys.chain_int[:, 2]) == [-1, 0, 1, -1, 3]
    q = rng.uniform(-1, 1, 5)
    M = chain_mass_matrix_rows(sys, q)
    assert np.all(M[:3, 3:] == 0.0)
    sys_a, _ = build(a)
    np.testing.assert_allclose(M[:3, :3], chain_mass_matrix_rows(sys_a, q[:3]), rtol=1e-15)
