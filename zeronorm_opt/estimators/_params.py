"""Parameter constraints shared by the estimators (scikit-learn's ``_parameter_constraints``).

scikit-learn validates the constructor parameters declared here when ``fit`` starts (the
``_fit_context`` decorator) and raises ``InvalidParameterError`` (a ``ValueError`` and a
``TypeError``, from :mod:`sklearn.utils._param_validation`) naming the parameter, the value
and what it accepts; :class:`PackageParameterErrors` retypes it as the package's
:class:`~zeronorm_opt.ParameterError` (that error and an :class:`~zeronorm_opt.InputError` at
once). Bounds that depend on the data (a budget larger than the number of features) are
checked in ``fit``.
"""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt

from .._validation import validate_estimator_params

#: A feature budget: an exact count, a fraction of the features in (0, 1], or None (whose
#: meaning each estimator states).
N_FEATURES_TO_SELECT = [
    None,
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="right"),
]
#: A cvxpy solver name, a fallback list of names, or None for the package's default.
SOLVER = [None, str, list, tuple]
#: Options passed to the solver (or a dict of dicts keyed by solver name), or None.
SOLVER_OPTIONS = [None, dict]
POSITIVE = [Interval(Real, 0, None, closed="neither")]
NON_NEGATIVE = [Interval(Real, 0, None, closed="left")]
MAX_ITER = [Interval(Integral, 1, None, closed="left")]
TOL = [Interval(Real, 0, None, closed="left")]
#: A concave penalty φ (an object with ``value`` and ``derivative``), or None for the default.
SURROGATE = [HasMethods(["value", "derivative"]), None]
#: A scikit-learn model fitted on the selected features, or None.
ESTIMATOR = [HasMethods(["fit", "predict"]), None]
#: ``extra_constraints(formulation) -> list of cvxpy constraints``, or None.
EXTRA_CONSTRAINTS = [callable, None]
#: The name of a registered backend or "auto" (zeronorm_opt.backends checks the name at fit,
#: so that a backend registered later is accepted too).
BACKEND = [str]

#: The parameters of every successive-linearisation estimator (ZeroNormSelector, AROM, FSV,
#: MulticlassAROM): one vocabulary.
ZERO_NORM: dict = {
    "surrogate": SURROGATE,
    "n_features_to_select": N_FEATURES_TO_SELECT,
    "estimator": ESTIMATOR,
    "max_iter": MAX_ITER,
    "tol": TOL,
    "prune_tol": [Interval(Real, 0, 1, closed="left")],
    "solver": SOLVER,
    "solver_options": SOLVER_OPTIONS,
    "extra_constraints": EXTRA_CONSTRAINTS,
    "backend": BACKEND,
}


class PackageParameterErrors:
    """Mixin (before ``BaseEstimator``): scikit-learn's parameter validation, retyped.

    ``_fit_context`` calls ``_validate_params``; this runs scikit-learn's own validation of
    ``_parameter_constraints`` and re-raises its ``InvalidParameterError`` as the package's
    :class:`~zeronorm_opt.ParameterError`, so every estimator of the package raises one type
    for a parameter out of range (also rejecting ``max_iter=True`` and NaN/inf tolerances,
    which ``Interval`` lets through).
    """

    def _validate_params(self):
        validate_estimator_params(self, super()._validate_params)
