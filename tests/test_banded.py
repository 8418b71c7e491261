"""Banded LU (with a dense border for trees) and the structured generalized-alpha, HHT and index-1 paths
against the dense ones (issue 9, item 3; issue 17, item 2)."""
import numpy as np
import pytest

from lgbench.mbs.banded import (
    COLUMN_ENTRY, ROW_ENTRY, band_factor, band_from_dense, band_gather, band_lu_factor, band_lu_forward_columns,
    band_lu_solve, band_matrix, band_right_upper_solve, band_solve, band_structure, coupled_bodies, full_segments,
)
from lgbench.mbs.constraints import constraint_blocks, constraint_matrix, constraint_row_bodies
from lgbench.mbs.system import B_NV, B_VSTART
from lgbench.models import MODELS
from lgbench.runner.single_run import RunSpec, run_single

TIGHT = (("newton_atol", 1e-13), ("newton_rtol", 1e-12))


def saddle_point_band(n_blocks, kl, rng):
    """Block-tridiagonal matrix with zero diagonal entries in every third row (pivoting needed)."""
    n = 3 * n_blocks
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + kl + 1)):
            A[i, j] = rng.normal()
        if i % 3 == 2:
            A[i, i] = 0.0
    return A


@pytest.mark.parametrize("n_blocks, kl", [(1, 2), (7, 3), (20, 5)])
def test_band_lu_solves_like_a_dense_solver(n_blocks, kl):
    rng = np.random.default_rng(n_blocks)
    A = saddle_point_band(n_blocks, kl, rng)
    b = rng.normal(size=A.shape[0])
    ab = band_from_dense(A, kl, kl)
    piv = np.zeros(A.shape[0], dtype=np.int64)
    start, end = full_segments(A.shape[0])
    assert band_lu_factor(ab, kl, kl, piv, end)
    x = b.copy()
    band_lu_solve(ab, kl, kl, piv, x, start, end)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=0, atol=1e-10 * np.abs(x).max())


def test_band_lu_reports_a_singular_matrix():
    A = saddle_point_band(4, 2, np.random.default_rng(0))
    A[5, :] = 0.0
    assert not band_lu_factor(band_from_dense(A, 2, 2), 2, 2, np.zeros(12, dtype=np.int64), full_segments(12)[1])


@pytest.mark.parametrize("formulation", ["RV", "EP"])
def test_a_chain_has_a_bandwidth_independent_of_its_length(formulation):
    widths = [band_structure(MODELS["chain_of_bodies"].build(formulation, {"n_bodies": n}).system, "banded")
              .bands[0] for n in (3, 8, 40)]
    assert widths[0] == widths[1] == widths[2] <= 21   # two bodies plus their joint rows
    assert band_structure(MODELS["chain_of_bodies"].build(formulation, {"n_bodies": 40}).system).active
    assert not band_structure(MODELS["heavy_top_constrained"].build(formulation).system).active


@pytest.mark.parametrize("formulation", ["RV", "Rxyz", "EP"])
def test_the_v8_crank_drive_is_banded_once_its_crankshaft_is_the_border(formulation):
    """Eight rod-piston branches on one crankshaft: the crankshaft (the only body coupled to three or
    more others) and the rows of its bearing form the border; each branch is a short band."""
    system = MODELS["v8_crank"].build(formulation).system
    structure = band_structure(system)
    hubs = [b for b, others in enumerate(coupled_bodies(system)) if len(others) >= 3]
    assert structure.active and len(hubs) == 1
    crank = hubs[0]
    nv = int(system.sizes[1])
    rows = constraint_row_bodies(system)
    crank_rows = [r for r, pair in enumerate(rows) if set(pair) <= {crank, -1}]
    assert structure.n_border == system.body_int[crank, B_NV] + len(crank_rows)
    n = structure.position.size
    assert set(structure.position[nv + np.array(crank_rows)]) <= set(range(n - structure.n_border, n))
    assert structure.bands[0] <= 2 * 7 + 11            # one rod and one piston with their joint rows
    assert not any(band_structure(MODELS["chain_of_bodies"].build(f, {"n_bodies": 40}).system).n_border
                   for f in ("RV", "EP"))


def structured_random_matrix(system, rng):
    """A random matrix with the pattern of the iteration matrix of ``system``: blocks within each force
    group, B and B^T entries between each constraint row and its bodies, zero constraint block."""
    nv, nc = int(system.sizes[1]), int(system.sizes[2])
    A = np.zeros((nv + nc, nv + nc))
    for group in system.force_groups:
        members = group[group >= 0]
        A[np.ix_(members, members)] = rng.normal(size=(members.size, members.size)) + 4 * np.eye(members.size)
    for row, bodies in enumerate(constraint_row_bodies(system)):
        for body in bodies[bodies >= 0]:
            start, n = system.body_int[body, B_VSTART], system.body_int[body, B_NV]
            A[nv + row, start:start + n] = rng.normal(size=n)
            A[start:start + n, nv + row] = rng.normal(size=n)
    return A


@pytest.mark.parametrize("model, formulation", [("v8_crank", "EP"), ("v8_crank", "RV"), ("chain_of_bodies", "EP")])
def test_band_lu_with_a_border_solves_like_a_dense_solver(model, formulation):
    system = MODELS[model].build(formulation).system
    structure = band_structure(system, "banded")
    rng = np.random.default_rng(7)
    A = structured_random_matrix(system, rng)
    b = rng.normal(size=A.shape[0])
    m = band_matrix(structure)
    band_gather(A, structure, m)
    assert band_factor(m, structure)
    x = b.copy()
    band_solve(m, structure, x)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=0, atol=1e-9 * np.abs(x).max())


@pytest.mark.parametrize("model, formulation", [("v8_crank", "EP"), ("v8_crank", "RV"), ("chain_of_bodies", "EP")])
def test_the_listed_places_of_b_and_the_force_groups_are_where_each_entry_belongs(model, formulation):
    """``row_places`` and ``group_places``, computed once per structure, address the same entries as
    ``band_gather`` does entry by entry (all entries of the random matrix differ)."""
    system = MODELS[model].build(formulation).system
    st = band_structure(system, "banded")
    A = structured_random_matrix(system, np.random.default_rng(13))
    m = band_matrix(st)
    band_gather(A, st, m)
    nv = int(system.sizes[1])
    checked = 0
    for row, bodies in enumerate(st.row_bodies):
        for side, b in enumerate(bodies):
            if b < 0:
                continue
            start, n = system.body_int[b, B_VSTART], system.body_int[b, B_NV]
            for c in range(n):
                assert m.data[st.row_places[row, side, c, COLUMN_ENTRY]] == A[start + c, nv + row] != 0.0
                assert m.data[st.row_places[row, side, c, ROW_ENTRY]] == A[nv + row, start + c] != 0.0
                checked += 2
    for g, members in enumerate(system.force_groups):
        for i, r in enumerate(members):
            for j, k in enumerate(members):
                if r >= 0 and k >= 0:
                    assert m.data[st.group_places[g, i, j]] == A[r, k] != 0.0
                    checked += 1
    assert checked > 2 * nv


@pytest.mark.parametrize("formulation", ["EP", "RV"])
def test_the_v8_band_lu_stops_at_each_branch_and_gives_the_same_factors_bit_for_bit(formulation):
    """With the crankshaft in the border, A11 is block diagonal, one block per rod-piston branch, and only
    the crankshaft's coordinates of the border couple to it: the LU and the border solve that stop at the
    blocks and skip the uncoupled border columns give exactly the factors of the ones that do not."""
    system = MODELS["v8_crank"].build(formulation).system
    st = band_structure(system, "banded")
    assert np.unique(st.segment_end).size == 8                    # eight branches
    crank = [b for b, others in enumerate(coupled_bodies(system)) if len(others) >= 3][0]
    assert st.n_coupled == system.body_int[crank, B_NV] < st.n_border
    m = band_matrix(st)
    band_gather(structured_random_matrix(system, np.random.default_rng(11)), st, m)
    n1, nb = m.ab.shape[0], m.corner.shape[0]
    kl, ku = (int(x) for x in st.bands)
    ab, piv, upper, lower = m.ab.copy(), np.zeros(n1, dtype=np.int64), m.upper.copy(), m.lower.copy()
    start, end = full_segments(n1)
    assert band_lu_factor(ab, kl, ku, piv, end)
    band_lu_forward_columns(ab, kl, ku, piv, upper, nb, end)
    band_right_upper_solve(ab, kl, ku, lower, nb, start)
    assert band_lu_factor(m.ab, kl, ku, m.piv, st.segment_end)
    band_lu_forward_columns(m.ab, kl, ku, m.piv, m.upper, st.n_coupled, st.segment_end)
    band_right_upper_solve(m.ab, kl, ku, m.lower, st.n_coupled, st.segment_start)
    assert np.array_equal(ab, m.ab) and np.array_equal(piv, m.piv)
    assert np.array_equal(upper, m.upper) and np.array_equal(lower, m.lower)
    assert not upper[:, st.n_coupled:].any() and not lower[st.n_coupled:].any()
    x = np.random.default_rng(2).normal(size=n1)
    y = x.copy()
    band_lu_solve(ab, kl, ku, piv, x, start, end)
    band_lu_solve(m.ab, kl, ku, m.piv, y, st.segment_start, st.segment_end)
    assert np.array_equal(x, y)


@pytest.mark.parametrize("formulation", ["EP", "RV"])
def test_each_v8_branch_ends_with_its_rows_to_the_crankshaft_so_the_border_factors_stay_short(formulation):
    """The branches are ordered from the piston to the crankshaft: the rows of each rod's joint to the
    crankshaft, the only places of a block coupled to the border, close the block, followed by rows only.
    L^{-1} P A12 and A21 U^{-1} are then zero over most of each block (A11^{-1} A12 filled all of it)."""
    system = MODELS["v8_crank"].build(formulation).system
    st = band_structure(system, "banded")
    crank = [b for b, others in enumerate(coupled_bodies(system)) if len(others) >= 3][0]
    nv = int(system.sizes[1])
    rows = constraint_row_bodies(system)
    crank_joint = [r for r, pair in enumerate(rows) if crank in pair and (pair >= 0).all()]
    places = st.position[nv + np.array(crank_joint)]
    n1 = st.position.size - st.n_border
    assert len(crank_joint) > 8 and places.max() < n1
    is_row = np.zeros(n1, dtype=bool)
    is_row[st.position[nv:][st.position[nv:] < n1]] = True
    for end in np.unique(st.segment_end):
        first = places[st.segment_end[places] == end].min()
        assert is_row[first:end + 1].all() and end - first < 8
    m = band_matrix(st)
    band_gather(structured_random_matrix(system, np.random.default_rng(5)), st, m)
    assert band_factor(m, st)
    assert np.count_nonzero(m.upper.any(axis=1)) < n1 / 2
    assert np.count_nonzero(m.lower.any(axis=0)) < n1 / 4


def test_band_lu_with_a_border_reports_a_singular_matrix():
    system = MODELS["v8_crank"].build("EP").system
    structure = band_structure(system)
    A = structured_random_matrix(system, np.random.default_rng(3))
    unknown = structure.unknown
    for place in (5, A.shape[0] - 2):      # a row of the band, a row of the border
        singular = A.copy()
        singular[unknown[place], :] = 0.0
        m = band_matrix(structure)
        band_gather(singular, structure, m)
        assert not band_factor(m, structure)


@pytest.mark.parametrize("model, formulation", [("v8_crank", "EP"), ("slider_crank", "RV"),
                                                ("chain_of_bodies", "EP")])
def test_constraint_blocks_are_the_dense_constraint_matrix(model, formulation):
    built = MODELS[model].build(formulation)
    sys = built.system
    nv, nc = int(sys.sizes[1]), int(sys.sizes[2])
    q = built.q0 + 0.01 * np.sin(np.arange(built.q0.size))
    C = np.zeros((nc, nv))
    constraint_matrix(sys, q, C)
    Cb = np.zeros((nc, 2, 7))
    constraint_blocks(sys, q, Cb)
    scattered = np.zeros((nc, nv))
    for row, bodies in enumerate(constraint_row_bodies(sys)):
        for side, body in enumerate(bodies):
            if body >= 0:
                start, n = sys.body_int[body, B_VSTART], sys.body_int[body, B_NV]
                scattered[row, start:start + n] += Cb[row, side, :n]
    np.testing.assert_array_equal(scattered, C)


@pytest.mark.parametrize("formulation, options", [
    ("RV", ()), ("EP", ()), ("RV", (("newton", "modified"),)), ("RV", (("texp", True),)),
])
def test_banded_generalized_alpha_matches_the_dense_solver_to_round_off(formulation, options):
    runs = {la: run_single(RunSpec("chain_of_bodies", formulation, "generalized-alpha", 2e-3, 0.1,
                                   params={"n_bodies": 6}, options=TIGHT + options + (("linear_algebra", la),)),
                           n_samples=3) for la in ("dense", "banded")}
    for run in runs.values():
        assert run.status == "ok", run.message
    for name in ("tip_x", "tip_y", "tip_z", "energy"):
        np.testing.assert_allclose(runs["banded"].series[name], runs["dense"].series[name], rtol=0, atol=1e-10)
    assert runs["banded"].statistics["newton_iterations"] == runs["dense"].statistics["newton_iterations"]


def test_banded_solver_on_a_closed_loop_mechanism_matches_dense():
    runs = [run_single(RunSpec("v8_crank", "EP", "generalized-alpha", 2e-4, 0.004, options=TIGHT +
                               (("linear_algebra", la),)), n_samples=2) for la in ("dense", "banded")]
    for run in runs:
        assert run.status == "ok", run.message
    np.testing.assert_allclose(runs[1].series["crank_rate"], runs[0].series["crank_rate"], rtol=1e-10)


@pytest.mark.parametrize("variant", ["classical", "modified"])
def test_banded_hht_on_the_v8_crank_drive_matches_the_dense_solver(variant):
    """HHT (paper 004) assembles its matrix from body and group blocks into the band-plus-border solver
    (the modified variant's EP correction too) and agrees with the dense assembly."""
    runs = [run_single(RunSpec("v8_crank", "EP", "hht", 2e-4, 0.004, options=TIGHT + (
        ("variant", variant), ("alpha", -0.3), ("linear_algebra", la))), n_samples=2) for la in ("dense", "auto")]
    for run in runs:
        assert run.status == "ok", run.message
    np.testing.assert_allclose(runs[1].series["crank_rate"], runs[0].series["crank_rate"], rtol=1e-10)
    assert runs[1].statistics["newton_iterations"] == runs[0].statistics["newton_iterations"]


def test_modified_newton_factorises_only_when_it_refreshes_the_matrix():
    run = run_single(RunSpec("chain_of_bodies", "RV", "generalized-alpha", 2e-3, 0.2, params={"n_bodies": 8},
                             options=(("newton", "modified"), ("linear_algebra", "banded"))), n_samples=2)
    stats = run.statistics
    assert run.status == "ok", run.message
    assert stats["factorizations"] == stats["jacobians"]
    assert stats["factorizations"] < 0.2 * stats["newton_iterations"]


@pytest.mark.parametrize("model, formulation, outputs", [
    ("chain_of_bodies", "RV", ("tip_x", "tip_y", "tip_z", "energy")),
    ("chain_of_bodies", "EP", ("tip_x", "tip_y", "tip_z", "energy")),
    ("v8_crank", "EP", ("crank_rate", "energy")),
])
def test_banded_index1_projection_matches_the_dense_solver_to_round_off(model, formulation, outputs):
    """RKMK on the index-1 DAE with projection (paper 001): banded saddle-point solves = dense ones."""
    params = {"n_bodies": 6} if model == "chain_of_bodies" else {}
    h, t_end = (2e-3, 0.1) if model == "chain_of_bodies" else (1e-4, 0.002)
    runs = {la: run_single(RunSpec(model, formulation, "RK44-index1", h, t_end, params=params,
                                   options=(("linear_algebra", la),)), n_samples=3) for la in ("dense", "banded")}
    for run in runs.values():
        assert run.status == "ok", run.message
    for name in outputs:
        scale = max(1.0, np.abs(runs["dense"].series[name]).max())
        np.testing.assert_allclose(runs["banded"].series[name], runs["dense"].series[name], rtol=0,
                                   atol=1e-10 * scale)
    for key in ("max_constraint_residual", "max_velocity_constraint_residual"):
        assert runs["banded"].statistics[key] < 1e-12
    assert runs["banded"].statistics["projection_iterations"] == runs["dense"].statistics["projection_iterations"]
