"""The least hinge loss on a set of columns, by scipy's HiGHS: the brute-force reference of the
budget-form tests (one definition for tests/exact and tests/docs)."""

import numpy as np
from scipy.optimize import linprog


def hinge_loss(X, y, columns) -> float:
    """``min Σ ξ`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0``, ``w`` on ``columns`` only."""
    Xs = X[:, list(columns)]
    m, k = Xs.shape
    # variables: w (k), b, ξ (m)
    cost = np.concatenate([np.zeros(k + 1), np.ones(m)])
    A = np.hstack([-y[:, None] * Xs, -y[:, None], -np.eye(m)])
    bounds = [(None, None)] * (k + 1) + [(0, None)] * m
    res = linprog(cost, A_ub=A, b_ub=-np.ones(m), bounds=bounds, method="highs")
    assert res.status == 0
    return float(res.fun)
