"""Bad input at the boundary (issue 11): NaN/inf targets, all-constant X, parameters.

Every data case is rejected at ``fit`` with :class:`~zeronorm_opt.InputError` (a
``ValueError``) whose message names the problem; every parameter outside its declared range,
for every estimator, with :class:`~zeronorm_opt.ParameterError` (the package's ``InputError``,
a ``ValueError`` and a ``TypeError`` as scikit-learn's own error) naming the parameter.
"""

from __future__ import annotations

import numbers

import numpy as np
import pytest

import zeronorm_opt as zn
from zeronorm_opt import InputError

#: Every exported estimator, with whether it takes real targets (regressor) or class labels.
ESTIMATORS = {
    "AROM": False,
    "FSV": False,
    "MulticlassAROM": False,
    "AdaptiveScaling": False,
    "GreedyRLS": True,
    "LassoISTA": True,
    "BridgeRegression": True,
    "AlignmentSelector": False,
    "FisherScore": False,
    "SVMRFE": False,
    "R2W2": False,
    "InformationGainFilter": False,
}
#: The selectors (all but the plain Lasso-family regressors) refuse an all-constant X.
SELECTORS = [n for n in ESTIMATORS if n not in ("LassoISTA", "BridgeRegression")]
#: The zero-norm estimators whose tol / max_iter are validated.
ITERATIVE = ["AROM", "FSV", "MulticlassAROM"]


def _data(name: str):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    if ESTIMATORS[name]:
        y = X @ np.array([1.0, 0.0, -2.0]) + 0.1 * rng.normal(size=20)
    else:
        y = np.where(X[:, 0] + 0.2 * rng.normal(size=20) > 0, 1.0, 0.0)
    return X, y


def _estimator(name: str, **params):
    if name in ("AROM", "FSV", "MulticlassAROM") and "C" not in params:
        params["C"] = 1.0  # soft margin: the valid fit below must not hit infeasibility
    return getattr(zn, name)(**params)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_non_finite_y_is_an_input_error(name, bad):
    X, y = _data(name)
    y = y.copy()
    y[3] = bad
    with pytest.raises(InputError, match=r"y contains NaN or infinity") as info:
        _estimator(name).fit(X, y)
    assert isinstance(info.value, ValueError)
    assert "pass finite targets" in str(info.value)


@pytest.mark.parametrize("name", ["GreedyRLS", "LassoISTA"])
def test_non_finite_y_in_a_list_is_an_input_error(name):
    X, y = _data(name)
    y = list(y)
    y[0] = float("nan")
    with pytest.raises(InputError, match="NaN or infinity"):
        _estimator(name).fit(X, y)


@pytest.mark.parametrize("name", SELECTORS)
def test_all_constant_X_is_an_input_error(name):
    X, y = _data(name)
    X = np.ones_like(X) * np.array([1.0, -2.0, 5.0])
    with pytest.raises(
        InputError,
        match=r"all 3 features of X are constant; a selector needs at least one feature "
        "that varies",
    ):
        _estimator(name).fit(X, y)


def test_all_constant_sparse_X_is_an_input_error():
    from scipy import sparse

    X, y = _data("InformationGainFilter")
    with pytest.raises(InputError, match="features of X are constant"):
        zn.InformationGainFilter().fit(sparse.csr_matrix(np.zeros_like(X)), y)


@pytest.mark.parametrize("name", SELECTORS)
def test_one_varying_feature_is_enough(name):
    X, y = _data(name)
    X = X.copy()
    X[:, 1:] = 3.0
    _estimator(name).fit(X, y)


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("tol", -1),
        ("tol", -1e-9),
        ("tol", float("nan")),
        ("tol", float("inf")),
        ("tol", "small"),
        ("max_iter", 0),
        ("max_iter", -3),
        ("max_iter", True),
        ("max_iter", 2.5),
        ("max_iter", None),
    ],
)
@pytest.mark.parametrize("name", ITERATIVE)
def test_bad_iteration_parameters_are_rejected(name, param, value):
    X, y = _data(name)
    # scikit-learn's wording, as the package's InputError.
    with pytest.raises(InputError, match=rf"'{param}' parameter of {name} must be") as info:
        _estimator(name, **{param: value}).fit(X, y)
    assert repr(value) in str(info.value)


@pytest.mark.parametrize("name", ITERATIVE)
def test_valid_iteration_parameters_still_fit(name):
    X, y = _data(name)
    model = _estimator(name, tol=0.0, max_iter=3).fit(X, y)
    assert model.n_iter_ <= 3
    model = _estimator(name, tol=1e-4, max_iter=np.int64(5)).fit(X, y)
    assert model.predict(X).shape == (X.shape[0],)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_valid_fit_still_works(name):
    X, y = _data(name)
    model = _estimator(name).fit(X, y)
    assert model.n_features_in_ == X.shape[1]


def _every_estimator():
    """One instance of every exported estimator, the generic selector and ZeroNormCV."""
    from _user_formulations import SparseSVR

    out = {name: _estimator(name) for name in ESTIMATORS}
    out["ZeroNormSelector"] = zn.ZeroNormSelector(SparseSVR)
    out["ZeroNormCV"] = zn.ZeroNormCV(zn.AROM(C=1.0), n_features_grid=[1, 2], cv=2)
    out["PolynomialFeatureMap"] = zn.PolynomialFeatureMap()
    return out


def _invalid_values(constraint):
    """Values just outside ``constraint``: across each finite bound, beside the options."""
    from zeronorm_opt._validation import Interval, Options

    if isinstance(constraint, Interval):
        step = 1 if constraint.type is numbers.Integral else 1e-9
        low_open = constraint.closed in ("right", "neither")
        high_open = constraint.closed in ("left", "neither")
        values = [float("nan"), True]
        if constraint.low is not None:
            values.append(constraint.low - (0 if low_open else step))
        if constraint.high is not None:
            values.append(constraint.high + (0 if high_open else step))
        return values
    if isinstance(constraint, Options):
        return ["not-an-option" if constraint.type is str else object()]
    return []


def _out_of_range_values():
    """``(estimator, parameter, value)``: a value outside *every* declared constraint.

    One invalid value per constraint (a bound crossed, a string not among the options ...); a
    value that another constraint of the same parameter admits is skipped, and an instance of
    a fresh class stands for "wrong type" everywhere.
    """
    from zeronorm_opt._validation import as_constraint

    cases = []
    for est_name, est in _every_estimator().items():
        for param, declared in est._parameter_constraints.items():
            constraints = [as_constraint(c) for c in declared]
            values = [type("BadType", (), {})()]
            for constraint in constraints:
                values += _invalid_values(constraint)
            for value in values:
                if not any(c.is_satisfied_by(value) for c in constraints):
                    cases.append(pytest.param(est_name, param, value, id=f"{est_name}-{param}"))
    return cases


@pytest.mark.parametrize(("name", "param", "value"), _out_of_range_values())
def test_every_parameter_out_of_range_is_rejected_at_fit_naming_it(name, param, value):
    from zeronorm_opt import ParameterError

    est = _every_estimator()[name].set_params(**{param: value})
    X, y = _data(name if name in ESTIMATORS else "AROM")
    if name == "ZeroNormSelector":
        y = X @ np.array([1.0, 0.0, -2.0])  # a regression formulation
    with pytest.raises(ParameterError, match=rf"'{param}' parameter of {type(est).__name__}"):
        est.fit(X, y)


def test_the_parameter_error_is_the_packages_a_value_and_a_type_error():
    # One type for every estimator: the package's own (one except clause catches every bad
    # input), a ValueError and a TypeError as scikit-learn's (code written for it still works).
    from zeronorm_opt import ParameterError

    X, y = _data("GreedyRLS")
    with pytest.raises(ParameterError) as info:
        zn.GreedyRLS(alpha=-1.0).fit(X, y)
    assert isinstance(info.value, InputError)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, TypeError)


def _estimator_classes():
    import inspect

    from sklearn.base import BaseEstimator

    return {
        name: getattr(zn, name)
        for name in zn.__all__
        if inspect.isclass(getattr(zn, name)) and issubclass(getattr(zn, name), BaseEstimator)
    }


@pytest.mark.parametrize("name", sorted(_estimator_classes()))
def test_conventions_of_every_estimator_class(name):
    """Keyword-only parameters after the first, every parameter declared for scikit-learn's
    validation, and one vocabulary (penalty, epsilon, backend; no norm / eps / method / step)."""
    import inspect

    cls = _estimator_classes()[name]
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = [p.name for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    assert len(positional) <= 1, f"{name}: only the first parameter may be positional"
    undeclared = {p.name for p in params} - set(getattr(cls, "_parameter_constraints", {}))
    assert not undeclared, f"{name}: parameters without a constraint: {sorted(undeclared)}"
    assert not {p.name for p in params} & {"norm", "eps", "method", "step"}
    # fit validates the parameters first (zeronorm_opt._validation.validates_params).
    assert hasattr(cls.fit, "__wrapped__")


# -- what has no meaning (issue 28) -----------------------------------------------------------


def test_greedy_rls_refuses_a_single_sample():
    # Leave-one-out on one sample leaves nothing to train on; it used to select [0, 1].
    X, y = _data("GreedyRLS")
    with pytest.raises(InputError, match=r"X has 1 sample\(s\), but GreedyRLS .*leave-one-out"):
        zn.GreedyRLS(n_features_to_select=2).fit(X[:1], y[:1])
    assert zn.GreedyRLS(n_features_to_select=2).fit(X[:2], y[:2]).support_.sum() == 2


@pytest.mark.parametrize("cv", [3, 5])
def test_zero_norm_cv_refuses_more_folds_than_samples_naming_cv(cv):
    X, y = _data("AROM")
    X, y = X[:4], np.array([0, 1, 0, 1])
    with pytest.raises(InputError, match=rf"cannot be split into the folds of cv={cv}"):
        zn.ZeroNormCV(zn.AROM(C=1.0), n_features_grid=[1], cv=cv).fit(X, y)


def test_zero_norm_cv_refuses_a_training_fold_of_one_class_naming_cv():
    X, y = _data("AROM")
    X, y = X[:3], np.array([0, 1, 0])
    with pytest.raises(InputError, match=r"a training fold of cv=2 holds a single class of y"):
        zn.ZeroNormCV(zn.AROM(C=1.0), n_features_grid=[1], cv=2).fit(X, y)


def test_svm_rfe_refuses_a_single_feature():
    X, y = _data("SVMRFE")
    with pytest.raises(InputError, match=r"X has 1 feature\(s\); SVM-RFE"):
        zn.SVMRFE().fit(X[:, :1], y)


def _square():
    return zn.CustomSurrogate(value=np.square, derivative=lambda t: 2 * np.asarray(t))


@pytest.mark.parametrize(
    ("surrogate", "problem"),
    [
        (_square(), "not concave"),  # convex: the tangent is no majorisation
        (  # concave but decreasing beyond t = 1: negative weights
            zn.CustomSurrogate(value=lambda t: t - t**2 / 2, derivative=lambda t: 1 - t),
            "not non-decreasing",
        ),
        (  # a derivative that agrees, a value that falls
            zn.CustomSurrogate(value=lambda t: -np.log1p(t), derivative=lambda t: 1 / (1 + t)),
            "its value falls",
        ),
    ],
    ids=["convex", "decreasing", "value-falls"],
)
def test_the_driver_refuses_a_surrogate_that_is_not_concave_non_decreasing(
    e1_data, surrogate, problem
):
    from zeronorm_opt.formulations import MarginFormulation

    X, y = e1_data
    with pytest.raises(InputError, match=rf"surrogate CustomSurrogate is {problem}|{problem}"):
        zn.successive_linearisation(MarginFormulation(X, y, C=1.0), surrogate, max_iter=2)


def test_the_surrogate_check_can_be_turned_off(e1_data):
    from zeronorm_opt.formulations import MarginFormulation

    X, y = e1_data
    res = zn.successive_linearisation(
        MarginFormulation(X, y, C=1.0), _square(), max_iter=2, check_surrogate=False
    )
    assert res.n_iter == 2


@pytest.mark.parametrize(
    "surrogate",
    [
        zn.LogSurrogate(),
        zn.LogSurrogate(eps=1e-3),
        zn.ExpSurrogate(alpha=5.0),
        zn.ExpSurrogate(alpha=1e4),
        zn.PowerSurrogate(q=0.1, eps=0.0),
        zn.PowerSurrogate(q=0.9),
        zn.CustomSurrogate(value=lambda t: np.minimum(t, 0.05), derivative=lambda t: t < 0.05),
        zn.CustomSurrogate(value=np.arctan, derivative=lambda t: 1 / (1 + t**2)),
    ],
    ids=["log", "log-eps", "exp", "exp-steep", "power-0.1", "power-0.9", "capped-l1", "atan"],
)
def test_the_check_accepts_concave_non_decreasing_surrogates_and_refuses_them_plus_t2(surrogate):
    from zeronorm_opt.surrogates import check_surrogate

    check_surrogate(surrogate)
    convex_tail = zn.CustomSurrogate(
        value=lambda t: surrogate.value(t) + np.square(t),
        derivative=lambda t: surrogate.derivative(t) + 2 * np.asarray(t, dtype=float),
    )
    with pytest.raises(InputError, match="is not concave on t >= 0"):
        zn.successive_linearisation(
            zn.formulations.MarginFormulation(np.eye(4), [0, 0, 1, 1], C=1.0), convex_tail
        )


def test_a_data_variable_naming_a_missing_folder_is_an_error_naming_it(monkeypatch, tmp_path):
    from zeronorm_opt.datasets import load_microarray

    monkeypatch.setenv("ZERONORM_OPT_DATA", str(tmp_path / "nope"))
    with pytest.raises(InputError, match=r"ZERONORM_OPT_DATA='.*nope' is not an existing folder"):
        load_microarray("colon")
    monkeypatch.delenv("ZERONORM_OPT_DATA")
    with pytest.raises(InputError, match=r"data_dir='.*nope' is not an existing folder"):
        load_microarray("colon", data_dir=tmp_path / "nope")
    # An existing folder without the file is still "not found", listing the folder.
    monkeypatch.setenv("ZERONORM_OPT_DATA", str(tmp_path))
    import zeronorm_opt.datasets.microarray as ma

    assert ma.candidate_data_dirs()[0] == tmp_path


def test_a_sparse_X_where_dense_data_is_needed_is_an_input_error_and_a_type_error():
    # A TypeError as scikit-learn's conventions want, and of the package's InputError family.
    from scipy import sparse

    from zeronorm_opt import InputTypeError

    X, y = _data("AROM")
    with pytest.raises(InputTypeError, match="dense data is required") as info:
        zn.PolynomialFeatureMap().fit(sparse.csr_matrix(X))  # scikit-learn's own check
    assert isinstance(info.value, InputError) and isinstance(info.value, TypeError)
    with pytest.raises(InputTypeError, match="sparse matrix was passed as X") as info:
        zn.AROM(penalty="l2", C=1.0, backend="ipm").fit(sparse.csr_matrix(X), y)  # ours
    assert isinstance(info.value, InputError) and isinstance(info.value, TypeError)
