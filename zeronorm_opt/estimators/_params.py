"""Parameter constraints shared by the estimators (their ``_parameter_constraints``).

``fit`` checks the constructor parameters declared here when it starts
(:func:`~zeronorm_opt._validation.validates_params`) and raises the package's
:class:`~zeronorm_opt.ParameterError` naming the parameter, the value and what it accepts.
Bounds that depend on the data (a budget larger than the number of features) are checked in
``fit``.
"""

from __future__ import annotations

from numbers import Integral, Real

from .._validation import HasMethods, Interval, RealNotInt

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
POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
MAX_ITER = POSITIVE_INT
#: Seconds a run may take (checked after each step), or None for no limit.
TIME_LIMIT = [None, *POSITIVE]
TOL = NON_NEGATIVE
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
    "time_limit": TIME_LIMIT,
    "tol": TOL,
    "prune_tol": [Interval(Real, 0, 1, closed="left")],
    "solver": SOLVER,
    "solver_options": SOLVER_OPTIONS,
    "extra_constraints": EXTRA_CONSTRAINTS,
    "backend": BACKEND,
}

