"""scikit-learn's estimator checks for the zero-norm estimators."""

from _user_formulations import SparseSVR
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import AROM, FSV, MulticlassAROM, ZeroNormCV, ZeroNormSelector


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
