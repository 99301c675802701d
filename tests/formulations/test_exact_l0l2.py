"""The exact L0L2 squared-hinge classifier: equal to the enumeration of every support."""

from __future__ import annotations

import itertools

import cvxpy as cp
import numpy as np
import pytest

from zeronorm_opt.exceptions import InputError
from zeronorm_opt.formulations import ExactL0L2Formulation


def support_value(X, y, support, ridge, fit_intercept):
    """``min Σ max(0, 1 − y(Xw + b))² + β‖w‖²`` on ``support``, a cvxpy QP (Clarabel):
    independent of the package's L-BFGS solves of the same problem."""
    if not support:  # w = 0: the best constant score b (or b = 0)
        scores = cp.Variable() * np.ones(X.shape[0]) if fit_intercept else np.zeros(X.shape[0])
        ridge_term = 0.0
    else:
        w = cp.Variable(len(support))
        scores = X[:, list(support)] @ w + (cp.Variable() if fit_intercept else 0.0)
        ridge_term = ridge * cp.sum_squares(w)
    slack = cp.pos(1 - cp.multiply(y, scores))
    problem = cp.Problem(cp.Minimize(cp.sum_squares(slack) + ridge_term))
    problem.solve(solver="CLARABEL")
    return problem.value


def brute_force(X, y, l0_weight, ridge, fit_intercept):
    n = X.shape[1]
    return min(
        support_value(X, y, S, ridge, fit_intercept) + l0_weight * len(S)
        for k in range(n + 1)
        for S in itertools.combinations(range(n), k)
    )


def instance(seed, m, n):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    y = np.sign(X[:, 0] - X[:, 1] + 0.3 * X[:, 2] + 0.6 * rng.standard_normal(m))
    return X, y


@pytest.mark.parametrize(
    "seed, n, l0_weight, ridge, fit_intercept",
    [
        (0, 8, 1.0, 0.5, True),
        (1, 8, 1.0, 0.5, False),
        (2, 8, 0.3, 0.05, True),
        (3, 8, 3.0, 0.01, False),
        (4, 10, 0.5, 0.1, True),
    ],
)
def test_equals_enumeration_of_supports(seed, n, l0_weight, ridge, fit_intercept):
    X, y = instance(seed, 25, n)
    f = ExactL0L2Formulation(X, y, l0_weight, ridge, fit_intercept=fit_intercept)
    info = f.solve()
    expected = brute_force(X, y, l0_weight, ridge, fit_intercept)
    assert info.proven_optimal and info.bound == info.value
    assert info.value == pytest.approx(expected, rel=1e-6, abs=1e-7)
    # the incumbent is a point whose exact objective is the reported value
    w, b = f.solution()
    assert f.objective(w, b) == pytest.approx(info.value, rel=1e-6)
    assert np.array_equal(f.support(), w != 0) and info.n_selected == f.support().sum()
    assert not fit_intercept or b != 0.0 or info.n_selected == n


def test_perspective_bound_is_below_every_point():
    X, y = instance(5, 20, 6)
    f = ExactL0L2Formulation(X, y, 1.0, 0.2)
    root, _, _ = f.relaxation(np.zeros(6, bool), np.zeros(6, bool))
    rng = np.random.default_rng(0)
    for _ in range(50):
        w = rng.standard_normal(6) * (rng.random(6) < 0.5)
        assert root <= f.objective(w, rng.standard_normal()) + 1e-9
    # fixing a feature in pays λ on top of a relaxation at least as large as the root's
    node, w, _ = f.relaxation(np.zeros(6, bool), np.eye(6, dtype=bool)[0])
    assert node >= root - 1e-7


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dual_bound_is_the_relaxations_value(fit_intercept):
    """The bound is the dual function at the relaxation's dual point: equal to the relaxation's
    value (strong duality) and below every point of the node (weak duality)."""
    X, y = instance(7, 20, 6)
    f = ExactL0L2Formulation(X, y, 1.0, 0.2, fit_intercept=fit_intercept)
    out, inn = np.eye(6, dtype=bool)[1], np.eye(6, dtype=bool)[2]
    bound, _, _ = f.relaxation(out, inn)
    assert bound == pytest.approx(f._relaxation.value + 1.0, rel=1e-6)
    rng = np.random.default_rng(1)
    for _ in range(50):
        w = rng.standard_normal(6) * (rng.random(6) < 0.5) * ~out
        w[2] = rng.standard_normal()
        assert bound <= f.objective(w, rng.standard_normal() if fit_intercept else 0.0) + 1e-9


def test_time_limit_returns_incumbent_and_valid_bound():
    X, y = instance(6, 25, 8)
    stopped = ExactL0L2Formulation(X, y, 1.0, 0.5).solve(time_limit=1e-9)
    optimum = brute_force(X, y, 1.0, 0.5, True)
    assert not stopped.proven_optimal
    assert stopped.bound <= optimum + 1e-7 <= stopped.value + 2e-7


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"l0_weight": 0.0, "ridge": 1.0}, "l0_weight"),
        ({"l0_weight": 1.0, "ridge": -1.0}, "ridge"),
        ({"l0_weight": 1.0, "ridge": 1.0, "fit_intercept": "yes"}, "fit_intercept"),
    ],
)
def test_bad_parameters_raise_input_error(kwargs, match):
    X, y = instance(0, 10, 3)
    with pytest.raises(InputError, match=match):
        ExactL0L2Formulation(X, y, **kwargs)


def test_solution_before_solve_is_an_input_error():
    X, y = instance(0, 10, 3)
    with pytest.raises(InputError, match="solve"):
        ExactL0L2Formulation(X, y, 1.0, 1.0).support()
