"""scikit-learn's estimator checks for the zero-norm estimators."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import AROM, FSV


# The checks use small random data sets that are often not linearly separable, so the
# estimators run with a soft margin here; the hard margin is tested elsewhere.
@parametrize_with_checks([AROM(C=1.0), AROM(norm="l2", C=1.0), FSV(C=1.0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
