"""The l2-AROM step by dual coordinate descent: the bias exact, the libsvm and cvxpy results."""

import numpy as np
import pytest
import scipy.sparse as sp
from _backend_runs import l2_arom
from _sparse_data import refuse_densifying

from zeronorm_opt import AROM, LogSurrogate, successive_linearisation
from zeronorm_opt.exceptions import InputError, SolverError, SolverInaccurateError
from zeronorm_opt.fast import svm_dual_cd
from zeronorm_opt.fast.rescaled_step import is_separable
from zeronorm_opt.fast.svm_dual import LibsvmRescaledDual
from zeronorm_opt.fast.svm_dual_cd import DCD_TOL, CoordinateDescentRescaledDual, kkt_violation
from zeronorm_opt.formulations import RescaledSVMDual
from zeronorm_opt.formulations.contract import check_linearisable


def _imbalanced(m, n, sparse, seed=0):
    """One in five examples positive, by a threshold on a few strong features: the bias is
    far from 0 (|b| > 1 with more examples than features, about 0.6–0.9 with fewer)."""
    rng = np.random.default_rng(seed)
    if sparse:
        X = sp.random(m, n, density=0.05, format="csr", random_state=seed)
        X = sp.csr_matrix(X @ sp.diags(np.r_[np.full(5, 4.0), np.ones(n - 5)]))
        s = np.asarray(X[:, :5].sum(axis=1)).ravel()
    else:
        X = rng.normal(size=(m, n))
        X[:, 0] *= 3.0
        s = X[:, 0] + 0.3 * rng.normal(size=m)
    return X, np.where(s > np.quantile(s, 0.8), 1.0, -1.0)


@pytest.fixture
def dual_only(monkeypatch):
    """Every step by coordinate descent (none handed to the primal interior point)."""
    monkeypatch.setattr(svm_dual_cd, "PRIMAL_MAX_FEATURES", 0)


CASES = [(120, 30, False), (40, 200, False), (150, 60, True), (60, 400, True)]
IDS = ["dense m>n", "dense m<n", "sparse m>n", "sparse m<n"]


def _solve_at(step, weights, active):
    step.set_active(active)
    step.set_weights(weights)
    step.solve()
    return step.coef_value(), step.bias(), step.base_objective_value()


@pytest.mark.parametrize(("m", "n", "sparse"), CASES, ids=IDS)
def test_one_step_equals_libsvm_and_the_cvxpy_dual_with_a_large_bias(m, n, sparse, dual_only):
    X, y = _imbalanced(m, n, sparse)
    rng = np.random.default_rng(1)
    weights, active = rng.uniform(0.5, 4.0, n), rng.uniform(size=n) > 0.3
    active[:5] = True
    v, b, base = _solve_at(CoordinateDescentRescaledDual(X, y, C=1.0), weights, active)
    assert abs(b) > (1 if m > n else 0.5)  # the equality Σ α_i y_i = 0 matters
    assert np.all(v[~active] == 0)
    for ref in (LibsvmRescaledDual(X, y, C=1.0), RescaledSVMDual(X, y, C=1.0)):
        ref_v, ref_b, ref_base = _solve_at(ref, weights, active)
        np.testing.assert_allclose(v, ref_v, atol=1e-4 * np.abs(ref_v).max())
        assert b == pytest.approx(ref_b, abs=1e-4 * abs(ref_b))
        assert base == pytest.approx(ref_base, rel=1e-4, abs=1e-4)


@pytest.mark.parametrize(("m", "n", "sparse"), CASES, ids=IDS)
def test_the_solution_meets_the_optimality_conditions(m, n, sparse, dual_only):
    # Checked from the data, not from the solver's own bookkeeping: w = Σ α_i y_i x̃_i gives the
    # coefficients, the margins meet the KKT conditions and Σ α_i y_i = 0 to the tolerance.
    X, y = _imbalanced(m, n, sparse, seed=2)
    step = CoordinateDescentRescaledDual(X, y, C=0.5)
    z = np.random.default_rng(3).uniform(0.2, 2.0, n)
    step.set_weights(1 / z**2)
    step.solve()
    alpha, (v, b) = step.multipliers(), step.solution()
    np.testing.assert_allclose(v, z**2 * (X.T @ (y * alpha)), atol=1e-10 * np.abs(v).max())
    margins = y * (X @ v + b) - 1
    assert kkt_violation(margins, alpha, 0.5) <= 2 * DCD_TOL
    assert abs(y @ alpha) * max(1, abs(b)) <= DCD_TOL * alpha.sum()
    assert np.all((alpha >= 0) & (alpha <= 0.5))


def test_hard_margin_equals_the_cvxpy_dual():
    X, y = _imbalanced(30, 80, sparse=False, seed=4)
    ones, active = np.ones(80), np.ones(80, dtype=bool)
    v, b, _ = _solve_at(CoordinateDescentRescaledDual(X, y), ones, active)
    ref_v, ref_b, _ = _solve_at(RescaledSVMDual(X, y), ones, active)
    np.testing.assert_allclose(v, ref_v, atol=1e-4 * np.abs(ref_v).max())
    assert b == pytest.approx(ref_b, abs=1e-4 * max(1, abs(ref_b)))


@pytest.mark.parametrize(("m", "n", "sparse"), CASES, ids=IDS)
def test_whole_runs_take_the_declarative_steps_to_the_libsvm_support(m, n, sparse):
    # Step for step the cvxpy formulation's run (a step that coordinate descent is slow on,
    # with few features, by the primal interior point); the libsvm backend's run ends at the
    # same support and coefficients (at its tolerance it may take a step or two more to stop).
    X, y = _imbalanced(m, n, sparse, seed=5)
    (fast, _), (ref, _), (smo, _) = (
        l2_arom(X, y, C=1.0, backend=b) for b in ("dcd", "cvxpy", "libsvm")
    )
    assert 0 < ref.support.sum() < n  # features were removed: a real comparison
    assert [r.support_size for r in fast.history] == [r.support_size for r in ref.history]
    assert {r.solver for r in fast.history} <= {"dcd", "ipm"}
    for other in (ref, smo):
        np.testing.assert_array_equal(fast.support, other.support)
        np.testing.assert_allclose(fast.coef, other.coef, atol=1e-4 * np.abs(other.coef).max())


def test_a_slow_step_on_few_features_goes_to_the_primal_with_the_same_solution(monkeypatch):
    X, y = _imbalanced(150, 30, sparse=True, seed=7)
    dual = CoordinateDescentRescaledDual(X, y, C=1.0)
    assert dual.solve().solver == "dcd" and dual.n_passes_ > 1
    monkeypatch.setattr(svm_dual_cd, "PRIMAL_AFTER_PASSES", 1)
    primal = CoordinateDescentRescaledDual(X, y, C=1.0)
    assert primal.solve().solver == "ipm"
    np.testing.assert_allclose(primal.coef_value(), dual.coef_value(), atol=1e-5)
    assert primal.bias() == pytest.approx(dual.bias(), abs=1e-4)
    monkeypatch.setattr(svm_dual_cd, "PRIMAL_MAX_FEATURES", 29)  # too many features: the dual
    assert CoordinateDescentRescaledDual(X, y, C=1.0).solve().solver == "dcd"


def test_sparse_x_is_never_densified(monkeypatch):
    X, y = _imbalanced(150, 600, sparse=True, seed=6)

    # A dense copy of a matrix of 100+ rows and columns (X, its columns, an m × m Gram matrix)
    # raises; the validation's per-column minima and maxima (one row) may be dense.
    refuse_densifying(monkeypatch, lambda shape: min(shape) >= 100)
    with pytest.raises(AssertionError, match="densified"):
        X.toarray()  # the patch bites
    fit = AROM(penalty="l2", C=1.0).fit(X, y)
    assert fit.backend_ == "dcd" and 0 < fit.support_.sum() < 600


@pytest.mark.parametrize("shape", [(40, 200), (200, 40)], ids=["wide", "tall"])
def test_the_separability_check_reads_sparse_x_as_it_is(shape, monkeypatch):
    # The hard-margin steps check separability first; on sparse X that check stacked a sparse
    # matrix with a dense column (a ValueError). A repeated row with the other label is never
    # separable.
    X, y = _imbalanced(*shape, sparse=True, seed=8)
    noisy = y.copy()
    noisy[::5] *= -1  # tall: no longer separable
    cases = [(X, y), (X, noisy), (sp.csr_matrix(sp.vstack([X, X[:1]])), np.append(y, -y[0]))]
    dense = [is_separable(A.toarray(), labels) for A, labels in cases]
    assert dense[2] is False and (dense[1] is False) == (shape[0] > shape[1])
    densify = sp.csr_matrix.toarray

    def refuse_wide(self, *args, **kwargs):  # X is never densified (the m × m Gram may be)
        assert self.shape[1] < X.shape[1], f"a sparse {self.shape} matrix was densified"
        return densify(self, *args, **kwargs)

    monkeypatch.setattr(sp.csr_matrix, "toarray", refuse_wide)
    assert [is_separable(A, labels) for A, labels in cases] == dense


def test_a_solve_starts_from_the_last_one():
    X, y = _imbalanced(60, 400, sparse=True, seed=7)
    step = check_linearisable(CoordinateDescentRescaledDual(X, y, C=1.0))
    step.solve()
    first, coef = step.n_passes_, step.coef_value()
    step.solve()  # the same problem again: already optimal, one pass checks it
    assert first > 1 and step.n_passes_ == 1
    np.testing.assert_allclose(step.coef_value(), coef, atol=1e-5 * np.abs(coef).max())


def test_the_pass_limit_raises_a_solver_error_naming_the_way_out():
    X, y = _imbalanced(60, 400, sparse=True, seed=7)
    step = CoordinateDescentRescaledDual(X, y, C=1.0, max_passes=2)
    with pytest.raises(SolverInaccurateError, match="backend='libsvm'") as caught:
        successive_linearisation(step, LogSurrogate(), normalise_weights=True)
    err = caught.value
    assert isinstance(err, SolverError)
    assert (err.status, err.solver, err.iteration) == ("iteration_limit", "dcd", 1)


def test_bad_parameters_are_input_errors():
    X, y = _imbalanced(20, 10, sparse=False)
    with pytest.raises(InputError, match="rho"):
        CoordinateDescentRescaledDual(X, y, C=1.0, rho=0.0)
    with pytest.raises(InputError, match="solver"):
        CoordinateDescentRescaledDual(X, y, C=1.0).solve("CLARABEL")
