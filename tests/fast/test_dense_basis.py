"""The vertex of a guessed basis of the soft-margin LP, checked and repaired on its dense block."""

import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from zeronorm_opt.fast import dense_basis
from zeronorm_opt.fast.dense_basis import _BasisFactor, optimal_vertex


def _margin_lp(m, n, seed):
    """The soft-margin LP's columns ``[y, I, B, −B]`` (bias, slacks, ``p``, ``q``), rows
    ``A x ≥ 1``, costs ``[0, 1, c, c]``, with HiGHS's optimal basis and objective."""
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=0.1, format="csr", random_state=seed)
    score = np.asarray(X[:, :3].sum(axis=1)).ravel() + 0.05 * rng.standard_normal(m)
    y = np.where(score > 0.15, 1.0, -1.0)
    B = sp.diags(y) @ X
    A = sp.hstack([sp.csc_matrix(y[:, None]), sp.identity(m), B, -B], format="csc")
    costs = np.concatenate([[0.0], np.ones(m), np.full(2 * n, 0.5)])
    h = highspy.Highs()
    h.silent()
    lower = np.concatenate([[-highspy.kHighsInf], np.zeros(m + 2 * n)])
    h.addCols(A.shape[1], costs, lower, np.full(A.shape[1], highspy.kHighsInf), 0,
              np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))  # fmt: skip
    rows = A.tocsr()
    starts, indices = rows.indptr[:-1].astype(np.int32), rows.indices.astype(np.int32)
    h.addRows(m, np.ones(m), np.full(m, highspy.kHighsInf), rows.nnz, starts, indices, rows.data)
    h.run()
    basis = h.getBasis()
    basic = highspy.HighsBasisStatus.kBasic
    col_basic = np.array([s == basic for s in basis.col_status])
    row_basic = np.array([s == basic for s in basis.row_status])
    objective = h.getInfo().objective_function_value
    return A, costs, col_basic, row_basic, objective


def _vertex(A, costs, col_basic, row_basic, max_pivots):
    return optimal_vertex(
        col_basic, row_basic, costs, lambda idx: A[:, idx], lambda v: A.T @ v, free=0,
        fixed=np.zeros(costs.size, dtype=bool), primal_tol=1e-7, dual_tol=1e-7,
        max_pivots=max_pivots,
    )  # fmt: skip


def _assert_optimal(A, costs, vertex, objective):
    """Feasible (bounds, margins), dual feasible (row duals, reduced costs) and HiGHS's
    objective."""
    x, pi = vertex.x, vertex.duals
    assert (x[1:] >= -1e-7).all() and (A @ x >= 1 - 1e-7).all()
    assert (pi >= -1e-7).all() and (costs - A.T @ pi)[1:].min() >= -1e-7
    assert abs((costs - A.T @ pi)[0]) <= 1e-7  # the free bias: its reduced cost is 0
    assert vertex.objective == pytest.approx(objective, rel=1e-9, abs=1e-9)
    assert vertex.objective == pytest.approx(pi.sum(), rel=1e-9, abs=1e-9)  # strong duality


def _repaired_guess(seed):
    """The optimal basis of :func:`_margin_lp` with one basic coefficient column exchanged
    for a non-basic one, the block non-singular: a vertex a few pivots from the optimum."""
    A, costs, col_basic, row_basic, objective = _margin_lp(40, 80, seed)
    rng = np.random.default_rng(seed)
    coefs = np.arange(41, costs.size)
    tight = ~row_basic
    while True:
        guess = col_basic.copy()
        guess[rng.choice(coefs[col_basic[coefs]])] = False
        guess[rng.choice(coefs[~col_basic[coefs]])] = True
        block = A[:, np.flatnonzero(guess)][tight].toarray()
        if np.linalg.matrix_rank(block) == block.shape[0]:
            return A, costs, guess, row_basic, objective


@pytest.mark.parametrize("seed", range(3))
def test_the_optimal_basis_is_its_own_vertex(seed):
    """HiGHS's optimal basis passes the check with no pivot, at HiGHS's objective."""
    A, costs, col_basic, row_basic, objective = _margin_lp(40, 80, seed)
    vertex = _vertex(A, costs, col_basic, row_basic, max_pivots=0)
    assert vertex is not None and vertex.pivots == 0
    _assert_optimal(A, costs, vertex, objective)


@pytest.mark.parametrize("seed", range(6))
def test_a_basis_one_exchange_away_is_repaired_to_an_optimum(seed):
    """The optimal basis with one basic coefficient column exchanged for a non-basic one (a
    guess wrong on two indices, its block non-singular): refused without pivots, repaired to
    an optimal vertex with them (1 to 8 here)."""
    A, costs, guess, row_basic, objective = _repaired_guess(seed)
    assert _vertex(A, costs, guess, row_basic, max_pivots=0) is None
    vertex = _vertex(A, costs, guess, row_basic, max_pivots=30)
    assert vertex is not None and vertex.pivots >= 1
    _assert_optimal(A, costs, vertex, objective)


def _infeasible_counts(A, costs, col_basic, row_basic):
    """Of the basis's vertex, by dense solves: the variables below their bounds (bounds and
    margins) and the negative reduced costs (columns and row duals)."""
    basic, tight = np.flatnonzero(col_basic), np.flatnonzero(~row_basic)
    block = A[:, basic][tight].toarray()
    x, duals = np.zeros(A.shape[1]), np.zeros(A.shape[0])
    x[basic] = np.linalg.solve(block, np.ones(tight.size))
    duals[tight] = np.linalg.solve(block.T, costs[basic])
    reduced = costs - A.T @ duals
    primal = np.count_nonzero(x[1:] < -1e-7) + np.count_nonzero(A @ x < 1 - 1e-7)
    dual = np.count_nonzero(reduced[1:][~col_basic[1:]] < -1e-7) + np.count_nonzero(duals < -1e-7)
    return primal, dual


@pytest.mark.parametrize("seed", [4, 21, 23])
def test_a_guess_both_primal_and_dual_infeasible_is_repaired_through_shifted_costs(seed):
    """Guesses with basic variables below their bounds *and* negative reduced costs (32 to 52
    of them): the dual simplex on costs shifted to dual feasibility, then the primal simplex
    on the true costs, reach the optimum within 30 pivots (28 for seed 23; the dual pivots
    on the true costs, their negative reduced costs taken as 0, took 19 and 21 pivots for
    seeds 4 and 21 and had not finished seed 23 after 30)."""
    A, costs, guess, row_basic, objective = _repaired_guess(seed)
    primal, dual = _infeasible_counts(A, costs, guess, row_basic)
    assert primal > 0 and dual > 0
    vertex = _vertex(A, costs, guess, row_basic, max_pivots=30)
    assert vertex is not None
    _assert_optimal(A, costs, vertex, objective)


def test_a_guess_with_more_infeasibilities_than_its_pivots_can_mend_is_refused(monkeypatch):
    """A guess with more infeasible variables than ``INFEASIBLE_PER_PIVOT`` per allowed pivot
    is refused before any pivot; with the default bound the same guess is repaired."""
    A, costs, guess, row_basic, objective = _repaired_guess(4)
    infeasible = sum(_infeasible_counts(A, costs, guess, row_basic))
    assert dense_basis.INFEASIBLE_PER_PIVOT * 30 >= infeasible > 30
    _assert_optimal(A, costs, _vertex(A, costs, guess, row_basic, max_pivots=30), objective)
    monkeypatch.setattr(dense_basis, "INFEASIBLE_PER_PIVOT", 1)
    assert _vertex(A, costs, guess, row_basic, max_pivots=30) is None


@pytest.mark.parametrize("seed", range(3))
def test_the_product_form_solves_with_the_basis_it_holds(seed):
    """After pivots recorded as eta vectors, the factor's solves and transposed solves equal
    those with the explicit basis matrix (a column ``a_j`` or ``−e_i`` per position)."""
    A, _, col_basic, row_basic, _ = _margin_lp(40, 80, seed)
    m = row_basic.size
    factor = _BasisFactor.of(col_basic, row_basic, lambda idx: A[:, idx])
    rng = np.random.default_rng(seed)
    for _ in range(6):
        j = int(rng.choice(np.flatnonzero(~col_basic)))
        direction = factor.solve(A[:, j].toarray().ravel())
        position = int(np.argmax(np.abs(direction)))  # a well-conditioned exchange
        if factor.is_column[position]:
            col_basic[factor.index[position]] = False
        else:
            row_basic[factor.index[position]] = False
        factor.replace(position, direction, True, j)
        col_basic[j] = True
    M = np.column_stack(
        [A[:, i].toarray().ravel() if is_column else -np.eye(1, m, i).ravel()
         for is_column, i in zip(factor.is_column, factor.index, strict=True)]
    )  # fmt: skip
    assert len(factor.etas) == 6
    b, c = rng.standard_normal(m), rng.standard_normal(m)
    np.testing.assert_allclose(factor.solve(b), np.linalg.solve(M, b), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(
        factor.solve_transposed(c), np.linalg.solve(M.T, c), rtol=1e-8, atol=1e-9
    )


def test_refactorising_between_pivots_changes_no_pivot(monkeypatch):
    """A repair of 19 pivots with a new LU factorisation after every second one takes the
    same pivots to the same vertex as with the eta file alone."""
    A, costs, guess, row_basic, objective = _repaired_guess(4)
    kept = _vertex(A, costs, guess, row_basic, max_pivots=30)
    monkeypatch.setattr(dense_basis, "REFACTOR_PIVOTS", 2)
    refactored = _vertex(A, costs, guess, row_basic, max_pivots=30)
    assert kept.pivots == refactored.pivots > 2 * 2
    np.testing.assert_array_equal(kept.col_basic, refactored.col_basic)
    np.testing.assert_allclose(kept.x, refactored.x, atol=1e-10)
    _assert_optimal(A, costs, refactored, objective)


def test_a_singular_block_is_refused():
    """A basis whose block is singular (two copies of one column basic) is no vertex."""
    A, costs, col_basic, row_basic, _ = _margin_lp(40, 80, 0)
    n = 80
    guess = col_basic.copy()
    p = np.flatnonzero(guess[41 : 41 + n])[0]
    guess[41 + p + n] = True  # q_p beside p_p: columns a and −a
    guess[np.flatnonzero(guess[1:41])[0] + 1] = False
    assert _vertex(A, costs, guess, row_basic, max_pivots=3) is None
