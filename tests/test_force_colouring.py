"""The coloured forward differences of the forces (paper 000 eq. 42; ``SystemBuilder._force_colors``)
give the same K_t and C_t as perturbing one coordinate at a time, on every model and formulation, with
fewer force evaluations where force elements couple bodies (the Puma 560's PD controllers). K_t exists
for the implicit formulations only: UAC takes an increment of the coordinates, which has the size of the
velocities only there (EP-F1 has 7 coordinates and 6 velocities)."""
import numpy as np
import pytest

from lgbench.integrators.implicit import NEWTON_DEFAULTS
from lgbench.integrators.iteration_matrix import _evaluations, _grouped_force_blocks, _scatter_groups
from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.formulations import IMPLICIT_FORMULATIONS
from lgbench.mbs.residual import generalized_forces
from lgbench.mbs.system import B_NV, B_VSTART, GROUND
from lgbench.models import MODELS

REL, FLOOR = NEWTON_DEFAULTS["fd_relative_step"], NEWTON_DEFAULTS["fd_step_floor"]
MODEL_FORMULATIONS = [(name, formulation) for name, model in MODELS.items() for formulation in model.formulations]
CASES = [(name, formulation, positions) for name, formulation in MODEL_FORMULATIONS
         for positions in (True, False) if formulation in IMPLICIT_FORMULATIONS or not positions]


def _moved_state(built, seed):
    """The model's initial state moved along UAC by a random increment, with random velocities. A
    second update by zero makes it a state the integrators reach (RV vectors rescaled to |psi| <= pi),
    which a zero increment changes by round-off only."""
    system = built.system
    chance = np.random.default_rng(seed)
    moved, q = np.empty_like(built.q0), np.empty_like(built.q0)
    update_coordinates(system, built.q0, 0.1 * chance.standard_normal(built.q0.shape[0]), moved)
    update_coordinates(system, moved, np.zeros(built.q0.shape[0]), q)
    return system, q, built.v0 + chance.standard_normal(built.v0.shape[0])


def _one_at_a_time(system, q, v, t, positions):
    """-dg/dz (or -dg/dv) with one coordinate perturbed per force evaluation."""
    nv = v.shape[0]
    n_bodies = system.body_int.shape[0]
    force, torque = np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3))
    g, gp = np.zeros(nv), np.zeros(nv)
    generalized_forces(system, q, v, t, force, torque, g)
    out = np.zeros((nv, nv))
    for k in range(nv):
        z = np.zeros(nv)
        z[k] = REL * max(FLOOR, abs(q[k] if positions else v[k]))
        if positions:
            qp = np.empty_like(q)
            update_coordinates(system, q, z, qp)
            generalized_forces(system, qp, v, t, force, torque, gp)
        else:
            generalized_forces(system, q, v + z, t, force, torque, gp)
        out[:, k] = -(gp - g) / z[k]
    return out, g


@pytest.mark.parametrize("name, formulation, positions", CASES,
                         ids=[f"{'K_t' if p else 'C_t'}-{n}-{f}" for n, f, p in CASES])
def test_coloured_differences_equal_one_coordinate_at_a_time(name, formulation, positions):
    system, q, v = _moved_state(MODELS[name].build(formulation), seed=17)
    t = 0.3
    expected, g = _one_at_a_time(system, q, v, t, positions)
    nv = v.shape[0]
    n_bodies = system.body_int.shape[0]
    blocks = np.full((system.force_groups.shape[0],) + (system.force_groups.shape[1],) * 2, np.nan)
    _grouped_force_blocks(system, q, v, t, REL, FLOOR, positions, np.zeros(q.shape[0]), np.empty_like(q),
                          np.empty(nv), np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3)), g, np.zeros(nv), blocks)
    out = np.full((nv, nv), np.nan)
    _scatter_groups(system.force_groups, blocks, out)
    coupled = _pattern_matrix(system)
    np.testing.assert_array_equal(out[coupled], expected[coupled])
    assert not out[~coupled].any()
    # elsewhere the one-at-a-time differences see only round-off: UAC(q, 0) moves the other bodies by ulps
    assert np.abs(expected[~coupled]).max(initial=0.0) <= 1e-6 * np.abs(expected).max(initial=1.0)


def _pattern_matrix(system):
    """``force_pattern`` as an nv x nv mask: the entries the coloured differences compute."""
    nv = int(system.sizes[1])
    mask = np.zeros((nv, nv), dtype=bool)
    for grp, members in enumerate(system.force_groups):
        for j, k in enumerate(members):
            for m, r in enumerate(members):
                if k >= 0 and r >= 0:
                    mask[r, k] = system.force_pattern[grp, m, j]
    return mask


def _coupled(system):
    """Body pairs that share a force element (and every body with itself)."""
    n_bodies = system.body_int.shape[0]
    pairs = {(i, i) for i in range(n_bodies)}
    for _, body, other in system.force_int:
        if other != GROUND:
            pairs |= {(int(body), int(other)), (int(other), int(body))}
    return pairs


@pytest.mark.parametrize("name, formulation", MODEL_FORMULATIONS, ids=[f"{n}-{f}" for n, f in MODEL_FORMULATIONS])
def test_no_force_sees_two_coordinates_of_one_evaluation(name, formulation):
    """The colouring's invariant: the bodies perturbed together share no coupled body."""
    system = MODELS[name].build(formulation).system
    body_of = {}
    for i, row in enumerate(system.body_int):
        body_of.update({k: i for k in range(row[B_VSTART], row[B_VSTART] + row[B_NV])})
    coupled = _coupled(system)
    for e in range(_evaluations(system)):
        members = system.force_groups[system.force_colors == e]
        bodies = [body_of[k] for k in members if k in body_of]
        assert len(bodies) == len(set(bodies)), "two coordinates of one body in one evaluation"
        for b in range(system.body_int.shape[0]):
            assert sum((b, x) in coupled for x in bodies) <= 1, f"body {b} sees two perturbed bodies"


@pytest.mark.parametrize("formulation, evaluations", [("RV", 18), ("Rxyz", 18), ("EP", 21)])
def test_the_puma_chain_of_pd_controllers_needs_three_colours(formulation, evaluations):
    """Six links coupled to their neighbours by PD controllers: 3 colours x coordinates per body, half the
    36 (RV, Rxyz) or 42 (EP) evaluations of perturbing one coordinate of the group at a time."""
    system = MODELS["puma560"].build(formulation).system
    assert _evaluations(system) == evaluations
