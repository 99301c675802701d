"""scikit-learn's estimator checks for the zero-norm estimators."""

import cvxpy as cp
import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import AROM, FSV, MulticlassAROM, ZeroNormCV, ZeroNormSelector
from zeronorm_opt.formulations.base import ReweightedFormulation


class SparseSVR(ReweightedFormulation):
    """A user-defined formulation: the l1-penalised ε-insensitive SVR (an LP)."""

    task = "regression"

    def __init__(self, X, y, epsilon=0.1, C=10.0):
        super().__init__()
        self.X, self.y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, n = self.X.shape
        self._init_penalty(n)  # the weights, the active set and the term Σ_j c_j |w_j|
        self.w = self.coef
        self.b = cp.Variable(name="b")
        self.xi = cp.Variable(m, nonneg=True, name="xi")
        self.variables.update(b=self.b, xi=self.xi)
        self.epsilon, self.C = epsilon, C

    def _loss_terms(self):
        return [self.C * cp.sum(self.xi)]

    def _loss_constraints(self):
        residual = self.X @ self.w + self.b - self.y
        return [cp.abs(residual) <= self.epsilon + self.xi]


# The checks use small random data sets that are often not linearly separable, so the
# estimators run with a soft margin here; the hard margin is tested elsewhere. max_iter caps
# the cvxpy runs so the many small fits stay quick: the checks test the API, not convergence.
@parametrize_with_checks(
    [
        AROM(C=1.0),
        AROM(penalty="l2", C=1.0),
        FSV(C=1.0),
        MulticlassAROM(C=1.0, max_iter=10),
        ZeroNormSelector(SparseSVR, max_iter=10),
        ZeroNormCV(AROM(C=1.0, max_iter=10), n_features_grid=[1, 2], cv=3),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
