"""The interior point of the soft-margin LP: its normal equations of order m and of order k."""

import numpy as np
import pytest
import scipy.sparse as sp
from _sparse_data import sparse_classification
from scipy.linalg import cho_factor, cho_solve

from zeronorm_opt.fast import margin_ipm
from zeronorm_opt.fast.highs_model import SplitMarginLP
from zeronorm_opt.fast.margin_ipm import margin_interior_point


def _tall(m, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    y = np.sign(X[:, :3] @ np.array([1.0, -0.8, 0.6]) + 0.5 * rng.standard_normal(m))
    y[y == 0] = 1.0
    return X, y


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("span", [1, 3, 5])
def test_the_order_k_solve_is_as_accurate_as_the_order_m_cholesky(sparse, span, monkeypatch):
    """``E + B G Bᵀ`` solved through the matrix of order k (``k < m``): with its
    refinement steps, a residual no larger than the order-m Cholesky solve's, also when the
    diagonals span 2·``span`` orders of magnitude as near an optimum; without them, far
    larger there (the identity loses digits)."""
    rng = np.random.default_rng(span)
    m, k = 300, 40
    B = rng.standard_normal((m, k))
    if sparse:
        B = sp.csr_matrix(np.where(rng.random((m, k)) < 0.3, B, 0.0))
    d_coef = 10.0 ** rng.uniform(-span, span, k)
    d_diag = 10.0 ** rng.uniform(-span, span, m)
    r = rng.standard_normal(m)
    dense = B.toarray() if sparse else B
    M = (dense * d_coef) @ dense.T + np.diag(d_diag)
    order_m = np.abs(M @ cho_solve(cho_factor(M), r) - r).max()
    refined = margin_ipm._normal_factor(B, B.T, d_coef, d_diag)(r)
    assert np.abs(M @ refined - r).max() <= 2 * order_m + 1e-9 * np.abs(r).max()
    monkeypatch.setattr(margin_ipm, "REFINEMENT_STEPS", 0)
    raw = margin_ipm._normal_factor(B, B.T, d_coef, d_diag)(r)
    if span == 5:
        assert np.abs(M @ raw - r).max() > 10 * order_m


def test_the_bias_border_solves_the_saddle_point_system():
    """The free bias borders the normal equations: ``[M y; yᵀ 0] (Δπ, Δb) = (r, r_b)`` is
    solved from ``M``'s solver alone, for any right-hand side, the same factor reused."""
    rng = np.random.default_rng(6)
    A = rng.standard_normal((40, 40))
    M = A @ A.T + np.eye(40)
    y = np.sign(rng.standard_normal(40))
    saddle = np.block([[M, y[:, None]], [y[None, :], np.zeros((1, 1))]])
    for rd_b in (0.0, 2.5):
        solve = margin_ipm._bordered(lambda r: np.linalg.solve(M, r), y, rd_b)
        for _ in range(2):
            r = rng.standard_normal(40)
            dpi, db = solve(r)
            np.testing.assert_allclose(saddle @ np.append(dpi, db), np.append(r, rd_b), atol=1e-9)


def test_the_bias_border_solves_m_y_with_the_first_right_hand_side():
    """``M⁻¹y`` and the first ``M⁻¹r`` in one call of the solver (one pass over the factor),
    each later ``r`` alone."""
    rng = np.random.default_rng(7)
    A = rng.standard_normal((30, 30))
    M = A @ A.T + np.eye(30)
    y = np.sign(rng.standard_normal(30))
    widths = []

    def solve(r):
        widths.append(1 if r.ndim == 1 else r.shape[1])
        return np.linalg.solve(M, r)

    bordered = margin_ipm._bordered(solve, y, 0.0)
    for _ in range(3):
        bordered(rng.standard_normal(30))
    assert widths == [2, 1, 1]


@pytest.mark.parametrize("path", ["order m", "order m, single precision", "order k"])
def test_the_normal_solvers_take_several_right_hand_sides_at_once(path):
    """Each solver of the normal equations gives each column of a matrix of right-hand sides
    what it gives that column alone, also for columns of magnitudes far apart (each scaled
    into single precision's range on its own)."""
    rng = np.random.default_rng(3)
    m, k = (60, 40) if path == "order k" else (40, 60)
    B = rng.standard_normal((m, k))
    d_coef, d_diag = 10.0 ** rng.uniform(-2, 2, k), 10.0 ** rng.uniform(-2, 2, m)
    dtype = np.float32 if "single" in path else np.float64
    solve = margin_ipm._normal_factor(B, B.T, d_coef, d_diag, dtype=dtype)
    R = rng.standard_normal((m, 2)) * [1e-6, 1e6]
    both = solve(R)
    for j in range(2):
        np.testing.assert_allclose(both[:, j], solve(R[:, j]), rtol=1e-12)


@pytest.mark.parametrize(("m", "n"), [(400, 30), (1200, 60)])
def test_the_interior_point_with_more_samples_than_features_nearly_solves_the_lp(m, n):
    """Normal equations of order n: the iterate's objective is the LP's optimum (HiGHS's
    vertex) to the accuracy reached, and its coefficients are the optimum's."""
    X, y = _tall(m, n)
    point = margin_interior_point(y[:, None] * X, y, np.ones(n), np.ones(m))
    assert point.error < 1e-6
    lp = SplitMarginLP(X, y, 1.0)
    step = lp.solve_weighted(np.ones(n))
    value = lp.highs.getInfo().objective_function_value
    assert point.p.sum() + point.q.sum() + point.xi.sum() == pytest.approx(value, rel=1e-5)
    np.testing.assert_allclose(point.p - point.q, step.coef, atol=1e-3 * np.abs(step.coef).max())


def test_the_order_k_solve_is_refined(monkeypatch):
    """Without the refinement steps the order-k Newton steps stall far from the optimum on
    such data; with them they reach a basis guess's accuracy."""
    X, y = _tall(600, 200, seed=2)
    args = (y[:, None] * X, y, np.ones(200), np.ones(600))
    refined = margin_interior_point(*args)
    monkeypatch.setattr(margin_ipm, "REFINEMENT_STEPS", 0)
    unrefined = margin_interior_point(*args)
    assert refined.error < 1e-4 < unrefined.error


def _sparse_wide(m, n, seed):
    """A sparse ``m × n`` with empty columns, columns of one non-zero and empty rows."""
    rng = np.random.default_rng(seed)
    B = sp.random(m, n, density=0.05, format="lil", random_state=seed)
    B[:, rng.choice(n, n // 5, replace=False)] = 0.0  # empty columns
    for j in rng.choice(n, 5, replace=False):  # columns of one non-zero
        B[:, j] = 0.0
        B[rng.integers(m), j] = rng.standard_normal()
    B[rng.choice(m, 3, replace=False), :] = 0.0  # empty rows
    B = sp.csr_matrix(B)
    B.data -= 0.5  # both signs
    return B


@pytest.mark.parametrize("shape", [(40, 300), (120, 2000)])
@pytest.mark.parametrize("block_rows", [1, 7, None])
def test_the_sparse_gram_is_the_upper_triangle_of_b_d_bt(shape, block_rows, monkeypatch):
    """The compiled loop over column-sharing pairs gives ``B diag(d) Bᵀ``'s upper triangle,
    zeros below, for any ``d`` (the same object reused, as across Newton steps), with empty
    columns and rows and columns of one non-zero, whatever the blocks of rows (one row, a
    block not dividing ``m``, all rows at once)."""
    m = shape[0]
    block_bytes = 8 * m * block_rows if block_rows else 8 * m * m
    monkeypatch.setattr(margin_ipm, "GRAM_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(margin_ipm, "SCIPY_GRAM_PAIRS", 0)  # the compiled loop
    B = _sparse_wide(*shape, seed=4)
    gram = margin_ipm._SparseGram(B)
    dense = B.toarray()
    for seed in (0, 1):
        d = 10.0 ** np.random.default_rng(seed).uniform(-6, 6, shape[1])
        reference = (dense * d) @ dense.T
        scale = np.abs(reference).max()
        np.testing.assert_allclose(gram(d), np.triu(reference), rtol=1e-12, atol=1e-14 * scale)
        # Threads dealt the blocks in turn sum each entry in the same order: the same bits.
        for threads in (2, 3):
            np.testing.assert_array_equal(gram(d, threads), gram(d))


def test_a_small_sparse_gram_is_scipys_product_until_the_loop_is_loaded(monkeypatch):
    """Below ``SCIPY_GRAM_PAIRS`` pairs, before the compiled loop has run in the process,
    the matrix is scipy's sparse product (both triangles, the loop's upper one); once the
    loop is loaded (or above the bound), the loop's."""
    B = _sparse_wide(40, 300, seed=4)
    dense = B.toarray()
    d = 10.0 ** np.random.default_rng(2).uniform(-3, 3, 300)
    reference = (dense * d) @ dense.T
    monkeypatch.setattr(margin_ipm, "_gram_loop_loaded", lambda: False)
    small = margin_ipm._SparseGram(B)(d)
    np.testing.assert_allclose(small, reference, rtol=1e-12, atol=1e-14 * abs(reference).max())
    monkeypatch.undo()
    monkeypatch.setattr(margin_ipm, "SCIPY_GRAM_PAIRS", 0)
    looped = margin_ipm._SparseGram(B)(d)
    np.testing.assert_allclose(looped, np.triu(small), rtol=1e-12, atol=1e-14 * abs(small).max())
    monkeypatch.undo()
    # Loaded in this process now: the loop, however few the pairs.
    assert margin_ipm._accumulate_gram.signatures
    np.testing.assert_array_equal(margin_ipm._SparseGram(B)(d), looped)


def test_the_sparse_gram_reads_any_sparse_form():
    """Duplicate entries (summed, as scipy reads them), unsorted indices and CSR or CSC input
    give the same matrix; a CSC ``B`` already sorted and summed is not copied."""
    rng = np.random.default_rng(5)
    m, n, nnz = 30, 80, 300
    rows, cols = rng.integers(m, size=nnz), rng.integers(n, size=nnz)  # with repeats
    values = rng.standard_normal(nnz)
    order = np.lexsort((rng.random(nnz), cols))  # by column, rows shuffled in each
    indptr = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=n))])
    raw = sp.csc_matrix((values[order], rows[order], indptr), shape=(m, n))
    assert not raw.has_canonical_format
    dense = np.zeros((m, n))
    np.add.at(dense, (rows, cols), values)
    d = rng.uniform(0.1, 10.0, n)
    reference = np.triu((dense * d) @ dense.T)
    for B in (raw, sp.csr_matrix(raw), sp.csr_matrix(dense), sp.csc_matrix(dense)):
        np.testing.assert_allclose(margin_ipm._SparseGram(B)(d), reference, rtol=1e-12, atol=1e-13)
    canonical = sp.csc_matrix(dense)
    assert np.shares_memory(margin_ipm._SparseGram(canonical).data, canonical.data)


@pytest.mark.parametrize(("m", "n", "seed"), [(60, 400, 0), (150, 600, 1)])
def test_the_interior_point_on_sparse_input_is_the_one_on_dense_input(m, n, seed, monkeypatch):
    """Normal equations of order m (more coefficients than samples): the sparse ``B D Bᵀ``
    (the compiled loop, by blocks of 16 rows) and the dense product lead the Newton steps to
    the same point (to 1e-8: at the default 1e-10, rounding can decide the last step)."""
    monkeypatch.setattr(margin_ipm, "GRAM_BLOCK_BYTES", 8 * m * 16)
    B = _sparse_wide(m, n, seed)
    y = np.where(np.random.default_rng(seed).random(m) < 0.5, -1.0, 1.0)
    costs, slack_costs = np.ones(n), np.full(m, 1.0)
    sparse = margin_interior_point(B, y, costs, slack_costs, tol=1e-8)
    dense = margin_interior_point(B.toarray(), y, costs, slack_costs, tol=1e-8)
    assert sparse.error < 1e-8 and dense.error < 1e-8
    assert sparse.iterations == dense.iterations
    for name in ("p", "q", "xi", "surplus", "z_p", "z_xi"):
        a, b = getattr(sparse, name), getattr(dense, name)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8 * max(1.0, np.abs(b).max()))
    assert sparse.b == pytest.approx(dense.b, rel=1e-6, abs=1e-8)


def test_the_dense_order_k_normal_matrix_is_one_symmetric_update():
    """``Bᵀ diag(e) B`` from one ``syrk``: its upper triangle is the general product's, with
    the diagonal weights spanning the range met near an optimum."""
    rng = np.random.default_rng(3)
    m, k = 500, 60
    B = rng.standard_normal((m, k))
    e = 10.0 ** rng.uniform(-8, 8, m)
    K = margin_ipm._upper_gram(B, np.sqrt(e), threads=1)
    reference = B.T @ (e[:, None] * B)
    scale = np.abs(reference).max()
    np.testing.assert_allclose(np.triu(K), np.triu(reference), rtol=1e-10, atol=1e-13 * scale)


@pytest.mark.parametrize("order", ["C", "F"])
def test_the_cholesky_factor_takes_the_matrix_memory_and_reads_its_upper_triangle(order):
    """The factor of ``M + diag(t)`` is made in ``M``'s own memory (no copy of order ``m``),
    from ``M``'s upper triangle only, whichever its memory order (syrk's is Fortran's)."""
    rng = np.random.default_rng(4)
    A = rng.standard_normal((7, 7))
    M = A @ A.T
    built = []

    def build():
        built.append(np.array(np.triu(M), order=order))  # the lower triangle 0
        return built[-1]

    factor = margin_ipm._cholesky(build, np.ones(7))
    assert len(built) == 1 and np.shares_memory(factor[0], built[0])
    r = rng.standard_normal(7)
    np.testing.assert_allclose((M + np.eye(7)) @ cho_solve(factor, r), r, atol=1e-10)


def test_a_failed_cholesky_factorisation_is_retried_shifted_on_a_rebuilt_matrix():
    """A slightly indefinite ``M`` (its least eigenvalue −5·10⁻¹⁰) fails at the first shifts;
    the attempt that succeeds starts from a fresh ``M`` (the failed one overwrote its own), so
    the factor is that of ``M`` plus a small shift; an ``M`` far from definite gives None."""
    M = np.array([[1.0, 1.0], [1.0, 1.0 - 1e-9]])
    built = []

    def build():
        built.append(M.copy())
        return built[-1]

    c, lower = margin_ipm._cholesky(build, np.zeros(2))
    assert len(built) > 1
    L = np.tril(c) if lower else np.triu(c).T
    np.testing.assert_allclose(L @ L.T, M, atol=1e-6)
    assert margin_ipm._cholesky(lambda: np.array([[1.0, 2.0], [2.0, 1.0]]), np.zeros(2)) is None


def test_the_far_newton_steps_in_single_precision_reach_the_same_point(monkeypatch):
    """Newton steps whose iterate's error is above ``SINGLE_PRECISION_ERROR`` factorise in
    single precision (LAPACK sees float32 matrices), the later ones in double: the iterate
    reaches the same accuracy and the same optimum as with every step in double precision."""
    m, n, seed = 150, 600, 1
    B = _sparse_wide(m, n, seed)
    y = np.where(np.random.default_rng(seed).random(m) < 0.5, -1.0, 1.0)
    args = (B, y, np.ones(n), np.ones(m))
    factored = []
    factor = margin_ipm.cho_factor
    monkeypatch.setattr(
        margin_ipm, "cho_factor", lambda a, **k: factored.append(a.dtype) or factor(a, **k)
    )
    mixed = margin_interior_point(*args, tol=1e-8)
    assert {np.dtype(np.float32), np.dtype(np.float64)} <= set(factored)
    monkeypatch.setattr(margin_ipm, "SINGLE_PRECISION_ERROR", np.inf)
    factored.clear()
    double = margin_interior_point(*args, tol=1e-8)
    assert set(factored) == {np.dtype(np.float64)}
    assert mixed.error < 1e-8 and double.error < 1e-8
    scale = max(1.0, np.abs(double.p - double.q).max())
    np.testing.assert_allclose(mixed.p - mixed.q, double.p - double.q, atol=1e-4 * scale)
    np.testing.assert_allclose(mixed.xi, double.xi, atol=1e-4 * max(1.0, double.xi.max()))


def test_the_newton_steps_go_on_from_an_earlier_iterate():
    """Started from its own iterate at a loose tolerance, the interior point reaches a tighter
    one in fewer Newton steps than from its default start, at the same optimum."""
    X, y = _tall(60, 400, seed=3)
    args = (y[:, None] * X, y, np.ones(400), np.ones(60))
    loose = margin_interior_point(*args, tol=1e-3)
    resumed = margin_interior_point(*args, tol=1e-7, start=loose)
    direct = margin_interior_point(*args, tol=1e-7)
    assert loose.error > 1e-5 and resumed.error < 1e-6 and direct.error < 1e-6
    assert 0 < resumed.iterations < direct.iterations
    np.testing.assert_allclose(resumed.p - resumed.q, direct.p - direct.q, atol=1e-4)
    assert resumed.b == pytest.approx(direct.b, abs=1e-4)


def _split_lp(cost):
    """A sparse LP with uniform costs (from 3: most rows violated, few on the margin), its
    ``B``, and HiGHS's optimal objective and coefficients."""
    X, y = sparse_classification(240, 1200, 0.03, 0)
    costs = np.full(X.shape[1], cost)
    lp = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    step = lp.solve_weighted(costs)
    B = sp.diags(y.astype(float)) @ X
    return (B, y, costs, np.ones(X.shape[0])), lp.highs.getInfo().objective_function_value, step


@pytest.fixture
def interior_points(monkeypatch):
    """The rows of every margin_interior_point run of split_interior_point, in order."""
    rows = []
    run = margin_ipm.margin_interior_point

    def recording(B, *args, **kwargs):
        rows.append(B.shape[0])
        return run(B, *args, **kwargs)

    monkeypatch.setattr(margin_ipm, "margin_interior_point", recording)
    return rows


def _assert_optimal(point, args, value, step):
    B, y, costs, slack_costs = args
    objective = costs @ (point.p + point.q) + slack_costs @ point.xi
    assert objective == pytest.approx(value, rel=1e-6)
    w = point.p - point.q
    np.testing.assert_allclose(w, step.coef, atol=1e-4 * np.abs(step.coef).max())
    margins = B @ w + y * point.b
    np.testing.assert_allclose(point.xi, np.maximum(1.0 - margins, 0.0), atol=1e-4)


def test_the_split_interior_point_solves_the_lp_on_its_rows_on_the_margin(interior_points):
    """FSV-like costs: after the coarse steps on all rows, the violated rows' hinge terms are
    linear and the outside rows drop out; the Newton steps on the other rows alone (at most
    ``SPLIT_MAX_FRACTION`` of them) reach the whole LP's optimum (HiGHS's objective and
    coefficients), and the iterate they give is one of the whole LP (slacks of every row)."""
    args, value, step = _split_lp(3.0)
    m = args[0].shape[0]
    point = margin_ipm.split_interior_point(*args, tol=1e-7)
    assert interior_points[0] == m and len(interior_points) == 2
    assert interior_points[1] <= margin_ipm.SPLIT_MAX_FRACTION * m
    assert point.xi.shape == (m,) and point.error < 1e-7
    _assert_optimal(point, args, value, step)


@pytest.mark.parametrize(
    ("confidence", "corrected"), [(1.0, True), (0.3, False)], ids=["rounds", "all rows"]
)
def test_a_wrong_split_is_corrected_or_left(confidence, corrected, interior_points, monkeypatch):
    """Rows placed with less confidence: those the reduced optimum contradicts join the rows
    on the margin and it is solved again (more rows each round); a split that leaves the
    reduced LP unbounded (its Newton steps stall) is left, and the steps go on from the
    coarse iterate on all rows. The whole LP's optimum either way."""
    monkeypatch.setattr(margin_ipm, "SPLIT_CONFIDENCE", confidence)
    args, value, step = _split_lp(3.0)
    m = args[0].shape[0]
    point = margin_ipm.split_interior_point(*args, tol=1e-7)
    reduced = interior_points[1:-1] if not corrected else interior_points[1:]
    assert all(rows < m for rows in reduced) and reduced == sorted(reduced)
    if corrected:
        assert len(reduced) > 1 and reduced[0] < reduced[-1]
    else:
        assert interior_points[-1] == m
    _assert_optimal(point, args, value, step)


@pytest.mark.parametrize("bound", [0.8, 0.95])
def test_with_most_rows_on_the_margin_the_newton_steps_go_on_with_all_rows(
    bound, interior_points, monkeypatch
):
    """l1-like costs (most rows on the margin, here 215 of 240 after the coarse steps):
    above ``SPLIT_MAX_FRACTION`` no reduced LP, the Newton steps go on from the coarse
    iterate, to the same point as one run; below it, the reduced LP; the optimum either way."""
    monkeypatch.setattr(margin_ipm, "SPLIT_MAX_FRACTION", bound)
    args, value, step = _split_lp(1.0)
    m = args[0].shape[0]
    point = margin_ipm.split_interior_point(*args, tol=1e-7)
    assert interior_points[0] == m and (interior_points[1] == m) == (bound < 0.9)
    if bound < 0.9:
        direct = margin_interior_point(*args, tol=1e-7)
        np.testing.assert_allclose(point.p - point.q, direct.p - direct.q, atol=1e-5)
    _assert_optimal(point, args, value, step)
