"""The boundary, fuzzed: every public estimator and the driver on whatever data a user may pass.

For random shapes (0, 1, 2 samples or features included), dtypes (bool, int, float32, object,
complex, text), NaN/inf, constant and duplicated columns, 1-4 classes, containers (ndarray,
scipy.sparse, pandas when installed, lists), label types (int, bool, str) and 1-D or column
y, every outcome is a fit or an error of the package's :class:`~zeronorm_opt.InputError`
family whose message names the argument at fault — never an exception raised from inside
numpy, scipy, cvxpy or a solver.
"""

from __future__ import annotations

import inspect
import re
import warnings
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

import zeronorm_opt as zn
from zeronorm_opt import InputError, successive_linearisation
from zeronorm_opt.formulations import MarginFormulation
from zeronorm_opt.surrogates import CustomSurrogate, ExpSurrogate, LogSurrogate, PowerSurrogate

try:
    import pandas as pd
except ImportError:  # the pandas cases are skipped
    pd = None
#: How X comes: pandas only when it is installed.
CONTAINERS = ["ndarray", "csr", "csc", "list"] + (["pandas"] if pd is not None else [])

#: Cheap settings: a few convex solves per fit, soft margins (always feasible).
FACTORIES = {
    "AROM": lambda: zn.AROM(C=1.0, max_iter=3),
    "FSV": lambda: zn.FSV(C=1.0, max_iter=3),
    "MulticlassAROM": lambda: zn.MulticlassAROM(C=1.0, max_iter=3),
    "ZeroNormCV": lambda: zn.ZeroNormCV(zn.AROM(C=1.0, max_iter=3), n_features_grid=[1], cv=2),
    "ZeroNormSelector": lambda: zn.ZeroNormSelector(partial(MarginFormulation, C=1.0), max_iter=3),
    "BridgeRegression": lambda: zn.BridgeRegression(max_iter=3),
    "GreedyRLS": lambda: zn.GreedyRLS(),
    "LassoISTA": lambda: zn.LassoISTA(max_iter=50),
    "R2W2": lambda: zn.R2W2(max_iter=3),
    "SVMRFE": lambda: zn.SVMRFE(),
    "FisherScore": lambda: zn.FisherScore(),
    "InformationGainFilter": lambda: zn.InformationGainFilter(),
    "AlignmentSelector": lambda: zn.AlignmentSelector(),
    "PolynomialFeatureMap": lambda: zn.PolynomialFeatureMap(),
    "PolynomialAROM": lambda: zn.PolynomialAROM(C=1.0, max_iter=3),
    "AdaptiveScaling": lambda: zn.AdaptiveScaling(C=1.0, sigma0=1.0, max_iter=3, inner_iter=2),
}
REGRESSORS = {"BridgeRegression", "GreedyRLS", "LassoISTA"}


def test_every_public_estimator_is_fuzzed():
    exported = {
        name
        for name in zn.__all__
        if inspect.isclass(obj := getattr(zn, name)) and issubclass(obj, BaseEstimator)
    }
    assert exported | {"PolynomialAROM"} == set(FACTORIES)


# -- the data ----------------------------------------------------------------------------------


@st.composite
def user_data(draw, regression=False):
    """``(X, y)`` as a user may pass them, and a description of what was drawn."""
    # The edge cases (0, 1, 2) and, more often, sizes that fit; likewise below, the valid
    # choice is the most frequent, so that fits run and not only the first check.
    n = draw(st.sampled_from([0, 1, 2] + [4, 6, 9] * 3))
    d = draw(st.sampled_from([0, 1, 2] + [3, 5] * 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    X = rng.normal(size=(n, d))
    defect = draw(st.sampled_from(["none"] * 6 + ["nan", "inf", "constant", "duplicated"]))
    if n and d:
        i, j = rng.integers(n), rng.integers(d)
        if defect == "nan":
            X[i, j] = np.nan
        elif defect == "inf":
            X[i, j] = -np.inf
        elif defect == "constant":
            X[:, j] = 2.5
        elif defect == "duplicated" and d > 1:
            X[:, (j + 1) % d] = X[:, j]
    dtype = draw(
        st.sampled_from(["float64"] * 5 + ["float32", "int", "bool", "object", "complex", "text"])
    )
    with np.errstate(invalid="ignore"):
        if dtype == "int":
            X = np.nan_to_num(X * 3, nan=0, posinf=0, neginf=0).round().astype(int)
        elif dtype == "bool":
            X = X > 0
        elif dtype in ("object", "text"):
            X = X.astype(object)
            if dtype == "text" and n and d:
                X[0, 0] = "a"  # not a number
        elif dtype == "complex":
            X = X + 1j * (defect != "none")
        else:
            X = X.astype(dtype)
    container = draw(st.sampled_from(CONTAINERS))
    if container in ("csr", "csc") and dtype not in ("object", "text"):
        X = sp.csr_matrix(X) if container == "csr" else sp.csc_matrix(X)
    elif container == "pandas":
        X = pd.DataFrame(X)
    elif container == "list":
        X = X.tolist()

    n_classes = draw(st.sampled_from([1, 3, 4] + [2] * 5))
    codes = rng.integers(n_classes, size=n)
    if regression:
        y = rng.normal(size=n)
        label = draw(st.sampled_from(["float"] * 4 + ["int", "str", "nan"]))
        if label == "int":
            y = codes
        elif label == "str":
            y = np.array([f"c{c}" for c in codes])
        elif label == "nan" and n:
            y[rng.integers(n)] = np.nan
    else:
        label = draw(st.sampled_from(["int", "bool", "str"]))
        y = {"int": codes, "bool": codes % 2 == 1, "str": np.array([f"c{c}" for c in codes])}[
            label
        ]
    if draw(st.booleans()):
        y = y.reshape(-1, 1)
    if draw(st.integers(0, 19)) == 0:
        y = y[1:]  # one label too few
    return X, y


#: The argument at fault is named: X or y (as a word, or as "Input X", "X's" ...), or the
#: surrogate of the driver.
NAMES_ARGUMENT = re.compile(r"\b(X|y|surrogate)\b")


def fit_or_input_error(fit):
    """Run ``fit()``: it succeeds, or raises an InputError whose message names the argument."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit()
        event("fitted")  # counted by pytest --hypothesis-show-statistics
    except InputError as exc:
        event("InputError")
        assert NAMES_ARGUMENT.search(str(exc)), f"message names no argument: {exc}"


FUZZ = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=True,  # the same examples on every run of the default suite
)
#: The heavier profile (``-m slow``): random examples, many more of them.
FUZZ_SLOW = settings(FUZZ, max_examples=400, derandomize=False)


def _fit_estimator(name, data):
    X, y = data.draw(user_data(regression=name in REGRESSORS))
    fit_or_input_error(lambda: FACTORIES[name]().fit(X, y))


@pytest.mark.parametrize("name", sorted(FACTORIES))
@FUZZ
@given(data=st.data())
def test_every_estimator_fits_or_raises_an_input_error_naming_the_argument(name, data):
    _fit_estimator(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FACTORIES))
@FUZZ_SLOW
@given(data=st.data())
def test_every_estimator_fuzzed_longer(name, data):
    _fit_estimator(name, data)


SURROGATES = {
    "log": LogSurrogate(),
    "exp": ExpSurrogate(),
    "power": PowerSurrogate(),
    "square": CustomSurrogate(value=np.square, derivative=lambda t: 2 * np.asarray(t)),
    "decreasing": CustomSurrogate(value=lambda t: -np.asarray(t), derivative=lambda t: -1 + 0 * t),
}


@FUZZ
@given(data=st.data(), surrogate=st.sampled_from(sorted(SURROGATES)), l2=st.booleans())
def test_the_driver_runs_or_raises_an_input_error_naming_the_argument(data, surrogate, l2):
    X, y = data.draw(user_data())

    def run():
        f = MarginFormulation(X, y, penalty="l2" if l2 else "l1", C=1.0)
        successive_linearisation(f, SURROGATES[surrogate], max_iter=3)

    fit_or_input_error(run)
    if surrogate in ("square", "decreasing"):  # never a silent run
        with pytest.raises(InputError):
            run()
