"""A user's own formulation, written as the docs show it: the sparse ε-insensitive SVR.

Shared by the estimator checks and the ZeroNormSelector tests (one definition).
"""

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from zeronorm_opt.formulations.base import ReweightedFormulation


class SparseSVR(ReweightedFormulation):
    """min Σ_j c_j |w_j| + C Σ_i ξ_i  s.t.  |w·x_i + b − y_i| ≤ ε + ξ_i,  ξ ≥ 0."""

    task = "regression"
    accepts_sparse = True  # X @ w below is a sparse cvxpy constant when X is scipy.sparse

    def __init__(self, X, y, epsilon=0.1, C=10.0):
        super().__init__()
        self.X = X if sp.issparse(X) else np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        m, n = self.X.shape
        self.init_penalty(n)  # the weights, the active set and the term Σ_j c_j |w_j|
        self.w = self.coef
        self.b = cp.Variable(name="b")
        self.xi = cp.Variable(m, nonneg=True, name="xi")
        self.variables.update(b=self.b, xi=self.xi)
        self.epsilon, self.C = epsilon, C

    def loss_terms(self):
        return [self.C * cp.sum(self.xi)]

    def loss_constraints(self):
        residual = self.X @ self.w + self.b - self.y
        return [cp.abs(residual) <= self.epsilon + self.xi]

    def solution(self):  # the linear model the selector predicts with: (coef, intercept)
        return self.coef_value(), float(self.b.value)
