"""The analytic tangent stiffness and damping of the forces (``lgbench/mbs/force_tangent.py``, and
``lgbench/mbs/chain_tangent.py`` for minimal coordinates) equal the derivatives of g(q, v, t) along UAC and
v (paper 000 eq. 42) on every model and implicit formulation, and generalized-alpha and HHT need the same
Newton iterations with them as with finite differences."""
import numpy as np
import pytest

from lgbench.mbs.chain_builder import ChainLink, add_chain
from lgbench.mbs.codes import BANG_BANG, CONSTANT, F_TYPE, PRISMATIC, REVOLUTE

from lgbench.mbs.coordinate_update import update_coordinates
from lgbench.mbs.codes import ForceType
from lgbench.mbs.force_tangent import (
    ANALYTIC_FORMULATIONS, DIFFERENTIATED, LOADS, analytic_tangent_applies, tangent_workspace,
)
from lgbench.mbs.formulations import FORMULATION_CODES, IMPLICIT_FORMULATIONS
from lgbench.mbs.residual import generalized_forces
from lgbench.mbs.system import SystemBuilder
from lgbench.runner.single_run import RunSpec, run_single
from compiled_calls import force_tangent
from shipped_models import ALL_MODELS as MODELS, run_fields

CASES = [(name, formulation) for name, model in MODELS.items() for formulation in model.formulations
         if formulation in IMPLICIT_FORMULATIONS]
STEP = {"heavy_top": 1e-4, "heavy_top_constrained": 1e-4, "rotor": 5e-6, "v8_crank": 1e-4, "heavy_top_file": 1e-4,
        "v8_crank_file": 1e-4, "iftomm_a03_andrews": 1e-5}


def _random_state(built, seed):
    """The model's initial state moved along UAC by a random increment, with random velocities: not a
    consistent state, which the derivatives of g do not need."""
    system = built.system
    chance = np.random.default_rng(seed)
    q = np.empty_like(built.q0)
    update_coordinates(system, built.q0, 0.3 * chance.standard_normal(built.v0.shape[0]), q)
    return system, q, built.v0 + chance.standard_normal(built.v0.shape[0])


def _central_differences(system, q, v, t, positions, rel=1e-5):
    """-dg/dz along UAC(q, z) (positions) or -dg/dv, by central differences one coordinate at a time."""
    nv = v.shape[0]
    n_bodies = system.body_int.shape[0]
    force, torque = np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3))
    out = np.zeros((nv, nv))
    for k in range(nv):
        step = rel * max(1.0, abs(v[k]) if not positions else 1.0)
        g = []
        for sign in (1.0, -1.0):
            z = np.zeros(nv)
            z[k] = sign * step
            gp = np.zeros(nv)
            if positions:
                qp = np.empty_like(q)
                update_coordinates(system, q, z, qp)
                generalized_forces(system, qp, v, t, force, torque, gp)
            else:
                generalized_forces(system, q, v + z, t, force, torque, gp)
            g.append(gp)
        out[:, k] = -(g[0] - g[1]) / (2.0 * step)
    return out


def _analytic(system, q, v, t, with_loads=True, with_damper_position=True):
    """(K_t, C_t) of ``force_tangent`` as dense matrices."""
    nv = v.shape[0]
    n_bodies = system.body_int.shape[0]
    force, torque, g = np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3)), np.zeros(nv)
    generalized_forces(system, q, v, t, force, torque, g)
    groups = system.force_groups
    Kg = np.full((groups.shape[0], groups.shape[1], groups.shape[1]), np.nan)
    Cg = Kg.copy()
    force_tangent(system, q, v, t, force, torque, tangent_workspace(system), Kg, Cg, with_loads, with_damper_position)
    K, C = np.zeros((nv, nv)), np.zeros((nv, nv))
    for grp, members in enumerate(groups):
        rows = members[members >= 0]
        K[np.ix_(rows, rows)] = Kg[grp][: len(rows), : len(rows)]
        C[np.ix_(rows, rows)] = Cg[grp][: len(rows), : len(rows)]
    return K, C


@pytest.mark.parametrize("name, formulation", CASES, ids=[f"{n}-{f}" for n, f in CASES])
@pytest.mark.parametrize("seed", [3, 29])
def test_analytic_tangent_equals_differences_of_the_forces(name, formulation, seed):
    system, q, v = _random_state(MODELS[name].build(formulation), seed)
    t = 0.37
    K, C = _analytic(system, q, v, t)
    for analytic, positions in ((K, True), (C, False)):
        expected = _central_differences(system, q, v, t, positions)
        scale = max(np.abs(expected).max(), 1e-12)
        assert np.abs(analytic - expected).max() <= 1e-6 * scale, (positions, np.abs(analytic - expected).max(), scale)


@pytest.mark.parametrize("name, formulation", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_tangent_without_loads_differentiates_only_the_other_elements(name, formulation):
    """Option loads_jacobian = false (paper 000's code by default, docs/notes/exudyn_newton.md): K_t and C_t
    equal the derivatives of g with the LOADS (gravity, torques, manufactured loads) removed from the system,
    so the loads enter neither as elements nor through the bodies' terms (W^T(rho) tau, SE3's R^T f)."""
    system, q, v = _random_state(MODELS[name].build(formulation), 5)
    keep = [k for k, ftype in enumerate(system.force_int[:, F_TYPE]) if int(ftype) not in LOADS]
    others = system._replace(force_int=system.force_int[keep], force_real=system.force_real[keep])
    K, C = _analytic(system, q, v, 0.37, with_loads=False)
    for analytic, positions in ((K, True), (C, False)):
        expected = _central_differences(others, q, v, 0.37, positions)
        scale = max(np.abs(expected).max(), 1.0)
        assert np.abs(analytic - expected).max() <= 1e-6 * scale, (positions, np.abs(analytic - expected).max(), scale)


def _newton(name, formulation, integrator, jacobian, options=()):
    h = STEP.get(name, 1e-3)
    run = run_single(RunSpec(name, formulation, integrator, h, 30 * h,
                             options=(("jacobian", jacobian),) + tuple(options), **run_fields(name)))
    assert run.status == "ok", run.message
    return run


def _same_outputs(analytic, differences):
    """Final outputs equal to within the Newton tolerance (relative 1e-8 of the residual)."""
    assert analytic.final_outputs.keys() == differences.final_outputs.keys()
    for key, value in analytic.final_outputs.items():
        assert value == pytest.approx(differences.final_outputs[key], rel=1e-6, abs=1e-8), key


@pytest.mark.parametrize("name, formulation", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_generalized_alpha_newton_counts_unchanged_by_analytic_tangent(name, formulation):
    analytic = _newton(name, formulation, "generalized-alpha", "analytic")
    differences = _newton(name, formulation, "generalized-alpha", "finite-difference")
    assert abs(analytic.statistics["newton_per_step"] - differences.statistics["newton_per_step"]) <= 0.05
    _same_outputs(analytic, differences)


@pytest.mark.parametrize("variant", ["classical", "modified"])
def test_hht_on_the_v8_newton_counts_unchanged_by_analytic_tangent(variant):
    """The V8 crank drive with Euler parameters: banded solver, and the EP norm-rate torque (paper 004
    eq. 9) in the modified variant."""
    options = (("alpha", -0.3), ("variant", variant))
    analytic = _newton("v8_crank", "EP", "hht", "analytic", options)
    differences = _newton("v8_crank", "EP", "hht", "finite-difference", options)
    assert abs(analytic.statistics["newton_per_step"] - differences.statistics["newton_per_step"]) <= 0.05
    _same_outputs(analytic, differences)


def test_every_force_element_and_implicit_node_type_is_differentiated():
    """A new force element (or node type) must be differentiated in force_tangent.py, or listed here as one
    that makes a system fall back to finite differences. Minimal coordinates are chains, not a node type."""
    assert DIFFERENTIATED == set(map(int, ForceType))
    assert ANALYTIC_FORMULATIONS == {FORMULATION_CODES[name] for name in IMPLICIT_FORMULATIONS if name != "Min"}
    assert analytic_tangent_applies(MODELS["puma560"].build("Min").system)


def _tree_with_controllers():
    """A branched chain (R-P-R-R and a revolute branch on link 1) on a rotated, shifted base, with random
    inertial data, PD controllers on a moving set-point and viscous joint damping: every term of g."""
    chance = np.random.default_rng(11)
    links = []
    for k, (joint, parent) in enumerate([("revolute", None), ("prismatic", None), ("revolute", None),
                                         ("revolute", None), ("revolute", 1)]):
        A = chance.normal(size=(3, 3))
        links.append(ChainLink(a=chance.uniform(-0.5, 0.5), alpha=chance.uniform(-np.pi, np.pi),
                               d=chance.uniform(-0.3, 0.3), offset=chance.uniform(-1, 1), joint=joint, parent=parent,
                               mass=chance.uniform(0.5, 3.0), com=tuple(chance.uniform(-0.2, 0.2, 3)),
                               inertia=tuple(map(tuple, 0.05 * (A @ A.T + 0.3 * np.eye(3)))), kp=30.0 * k,
                               kd=2.0 * k, damping=0.1 * k,
                               trajectory=(BANG_BANG if k % 2 else CONSTANT, 0.1, 2.0, 0.5)))
    builder = SystemBuilder()
    axis = np.array([1.0, 2.0, -0.5]) / np.linalg.norm([1.0, 2.0, -0.5])
    hat = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    add_chain(builder, links, gravity=(0.0, -3.0, -9.81), base_rotation=np.eye(3) + np.sin(0.7) * hat
              + (1 - np.cos(0.7)) * hat @ hat, base_position=(0.3, -0.2, 1.1))
    return builder.build(), chance


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chain_tangent_equals_differences_of_the_rnea_on_a_branched_tree(seed):
    """The tangent-linear RNEA of chain_tangent.py against central differences of g = tau - h, with
    revolute and prismatic joints, a branch and every joint force (paper 000 eq. 42 for minimal coordinates)."""
    system, chance = _tree_with_controllers()
    assert set(system.chain_int[:, 1]) == {REVOLUTE, PRISMATIC} and analytic_tangent_applies(system)
    chance = np.random.default_rng(seed)
    n = system.chain_int.shape[0]
    q, v = chance.uniform(-1.5, 1.5, n), chance.uniform(-2.0, 2.0, n)
    K, C = _analytic(system, q, v, 0.3)
    for analytic, positions in ((K, True), (C, False)):
        expected = _central_differences(system, q, v, 0.3, positions)
        scale = np.abs(expected).max()
        assert np.abs(analytic - expected).max() <= 1e-7 * scale, (positions, np.abs(analytic - expected).max(), scale)


def test_loads_jacobian_off_needs_the_analytic_tangent():
    from lgbench.exceptions import InputError
    from lgbench.integrators.implicit import GENERALIZED_ALPHA

    with pytest.raises(InputError, match="loads_jacobian = false needs jacobian = analytic"):
        GENERALIZED_ALPHA.validate_options({"loads_jacobian": False, "jacobian": "finite-difference"})
    with pytest.raises(InputError, match="must be true or false"):
        GENERALIZED_ALPHA.validate_options({"loads_jacobian": "no"})


@pytest.mark.parametrize("h, published, default", [(1e-3, 1.96, 1.88), (5e-4, 1.9, 1.48), (2.5e-4, 1.8, 1.0)])
def test_without_the_loads_jacobian_rv_needs_the_newton_iterations_of_table4(h, published, default):
    """Paper 000 Table 4, RV column (heavy top, rho_inf = 0.9, full Newton, 1 s): the paper's code leaves the
    gravity stiffness out of its iteration matrix, so its first iteration leaves a residual ~ h^2 e_0 instead
    of ~ h^3 e_0 and needs a second one more often. lgbench's default matrix includes it (fewer iterations)."""
    counts = {}
    for loads in (True, False):
        run = run_single(RunSpec("heavy_top", "RV", "generalized-alpha", h, 1.0,
                                 options=(("rho_inf", 0.9), ("newton", "full"), ("loads_jacobian", loads))))
        assert run.status == "ok", run.message
        counts[loads] = run.statistics["newton_per_step"]
    assert counts[False] == pytest.approx(published, abs=0.05)
    assert counts[True] == pytest.approx(default, abs=0.02)


SPRING_DAMPER_CASES = [(name, formulation) for name, formulation in CASES
                       if ForceType.POINT_SPRING_DAMPER in MODELS[name].build(formulation).system.force_int[:, F_TYPE]]


def _dampers_frozen(system, q, v, stiffness=1e-6):
    """The system with each point spring-damper's damping replaced by its force at (q, v), held fixed as a
    global force at the same body point: an extra spring of tiny stiffness whose ground point lies where
    it pulls with exactly that force (its own stiffness contributes ~1e-6 / K of the springs to K_t)."""
    from lgbench.mbs.codes import F_BODY, SPRING_BODY_POINT, SPRING_DAMPING, SPRING_GROUND_POINT, SPRING_STIFFNESS
    from lgbench.mbs.pose import body_point_motion

    force_int, force_real = [system.force_int], [system.force_real.copy()]
    for k in np.flatnonzero(system.force_int[:, F_TYPE] == ForceType.POINT_SPRING_DAMPER):
        row = system.force_real[k]
        b = row[SPRING_BODY_POINT:SPRING_BODY_POINT + 3].copy()
        x_point, v_point = body_point_motion(system, int(system.force_int[k, F_BODY]), q, v, b)
        pull = -row[SPRING_DAMPING:SPRING_DAMPING + 3] * v_point
        force_real[0][k, SPRING_DAMPING:SPRING_DAMPING + 3] = 0.0
        frozen = np.zeros_like(row)
        frozen[SPRING_STIFFNESS:SPRING_STIFFNESS + 3] = stiffness
        frozen[SPRING_BODY_POINT:SPRING_BODY_POINT + 3] = b
        frozen[SPRING_GROUND_POINT:SPRING_GROUND_POINT + 3] = x_point + pull / stiffness
        force_int.append(system.force_int[k:k + 1])
        force_real.append(frozen[None, :])
    return system._replace(force_int=np.vstack(force_int), force_real=np.vstack(force_real))


@pytest.mark.parametrize("name, formulation", SPRING_DAMPER_CASES, ids=[f"{n}-{f}" for n, f in SPRING_DAMPER_CASES])
def test_tangent_without_damper_position_derivative_freezes_the_damping_force(name, formulation):
    """Option damper_position_jacobian = false (paper 000's connector Jacobian J_P^T (K J_P dq + D J_P dv), no
    d(J_P v)/dq; docs/notes/exudyn_newton.md): K_t equals the derivatives of g with each damper's force held
    at its value as a global force at its body point (it still turns with the body: b x R^T f), and C_t is
    unchanged."""
    system, q, v = _random_state(MODELS[name].build(formulation), 11)
    K, C = _analytic(system, q, v, 0.37)
    K_paper, C_paper = _analytic(system, q, v, 0.37, with_damper_position=False)
    assert np.array_equal(C, C_paper)
    expected = _central_differences(_dampers_frozen(system, q, v), q, v, 0.37, True)
    scale = max(np.abs(expected).max(), 1.0)
    assert np.abs(K_paper - expected).max() <= 1e-6 * scale, (np.abs(K_paper - expected).max(), scale)
    assert np.abs(K - K_paper).max() > 1e-5 * scale    # and differs from the full K_t, which the check can tell


def test_damper_position_jacobian_off_needs_the_analytic_tangent():
    from lgbench.exceptions import InputError
    from lgbench.integrators.implicit import GENERALIZED_ALPHA

    with pytest.raises(InputError, match="damper_position_jacobian = false needs jacobian = analytic"):
        GENERALIZED_ALPHA.validate_options({"damper_position_jacobian": False, "tangent": "full"})


@pytest.mark.parametrize("h, published", [(5e-5, 3.0), (2.5e-5, 3.0)])
def test_paper_code_matrix_needs_the_rxyz_newton_iterations_of_table7(h, published):
    """Paper 000 Table 7, Rxyz column (rotor, rho_inf = 0.9, full Newton): the paper's code differentiates its
    spring-dampers as J_P^T (K J_P dq + D J_P dv), without the damper force's change with the coordinates
    through the point velocity J_P(q) v. At 200000 rpm that term is large for Tait-Bryan angles, and
    without it every step needs a third iteration (3.0 over 4 s; 0.05 s here). lgbench's default needs 2."""
    counts = {}
    for paper in (False, True):
        options = (("loads_jacobian", not paper), ("damper_position_jacobian", not paper), ("newton", "full"),
                   ("rho_inf", 0.9))
        run = run_single(RunSpec("rotor", "Rxyz", "generalized-alpha", h, 0.05, options=tuple(sorted(options))))
        assert run.status == "ok", run.message
        counts[paper] = run.statistics["newton_per_step"]
    assert counts[True] == pytest.approx(published, abs=0.05)
    assert counts[False] == pytest.approx(2.0, abs=0.06)
