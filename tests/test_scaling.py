"""A hard-margin selection does not depend on the units of X.

``min ‖w‖₀`` subject to ``y_i (w·x_i + b) ≥ 1`` is invariant under ``X → cX`` (``w → w/c``):
l1/l2-AROM, FSV and multiclass AROM must select the same features at every factor from 1e-8
to 1e8, with weights ``coef_/c``. What has units keeps them: a soft margin's ``C`` (and the
refit's ``refit_C``) is ``C·c²`` at unit scale, which beyond the solvers' reach is a
ScaleError naming the ``refit_C`` to pass. A formulation or fast path solved as stated on X
returns the same support or, outside ``SOLVABLE_SCALES``, a ScaleError saying to standardise
— never another support.
"""

import warnings

import numpy as np
import pytest
from _backend_runs import fsv, l1_arom
from sklearn.datasets import make_classification

from zeronorm_opt import AROM, FSV, MulticlassAROM, ScaleError, successive_linearisation
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.formulations import (
    ExactMulticlassZeroNormFormulation,
    ExactZeroNormFormulation,
    FSVFormulation,
    MarginFormulation,
    WestonWatkinsFormulation,
)
from zeronorm_opt.scaling import SOLVABLE_SCALES, data_scale
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate

FACTORS = (1e-8, 1e-4, 1.0, 1e4, 1e8)


@pytest.fixture(scope="module")
def binary():
    """The issue's instance: l1-AROM chose [2, 7] on X·1e-8, l2-AROM [2, 5] on X·1e-4."""
    return make_weston_linear(30, n_features=20, random_state=0)


@pytest.fixture(scope="module")
def three_classes():
    X, y = make_classification(
        45,
        n_features=20,
        n_informative=4,
        n_redundant=0,
        n_classes=3,
        n_clusters_per_class=1,
        class_sep=2,
        random_state=0,
    )
    return X, y


def _support(estimator):
    return np.flatnonzero(estimator.support_).tolist()


BINARY = {
    "l1-AROM (HiGHS)": lambda **kw: AROM("l1", **kw),
    "l1-AROM (cvxpy)": lambda **kw: AROM("l1", backend="cvxpy", **kw),
    "l2-AROM (libsvm)": lambda **kw: AROM("l2", **kw),
    "l2-AROM (cvxpy)": lambda **kw: AROM("l2", backend="cvxpy", **kw),
    "l2-AROM (interior point)": lambda **kw: AROM("l2", backend="ipm", **kw),
    "FSV (HiGHS)": lambda **kw: FSV(**kw),
}
MULTICLASS = {
    "Weston-Watkins l1 (cvxpy)": lambda **kw: MulticlassAROM(**kw),
    "one-vs-rest l2 (libsvm)": lambda **kw: MulticlassAROM(scheme="ovr", penalty="l2", **kw),
}


def _check_same_selection(make, X, y, budget, refit=None):
    """Same support at every factor and ``coef_·c`` equal to the weights at c = 1.

    With a budget (and always for MulticlassAROM) the final machine is a soft-margin SVM whose
    C has units: ``refit_C = 1/c²`` is the same machine at every factor (the default 1 would
    be C = 1e16 at c = 1e8).
    """
    refit = budget is not None if refit is None else refit
    kw = {} if budget is None else {"n_features_to_select": budget}
    reference = make(**kw).fit(X, y)
    for c in FACTORS:
        if refit:
            kw["refit_C"] = 1.0 / c**2
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "inaccurate" solve either
            scaled = make(**kw).fit(X * c, y)
        assert _support(scaled) == _support(reference), f"factor {c:g}"
        top = np.abs(reference.coef_).max()
        np.testing.assert_allclose(
            scaled.coef_ * c, reference.coef_, rtol=0, atol=1e-4 * top, err_msg=f"factor {c:g}"
        )


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("budget", [None, 2])
def test_binary_selection_does_not_depend_on_units(binary, name, budget):
    _check_same_selection(BINARY[name], *binary, budget)


@pytest.mark.parametrize("name", list(MULTICLASS))
@pytest.mark.parametrize("budget", [None, 3])
def test_multiclass_selection_does_not_depend_on_units(three_classes, name, budget):
    _check_same_selection(MULTICLASS[name], *three_classes, budget, refit=True)


@pytest.mark.parametrize("make", [BINARY["l1-AROM (HiGHS)"], MULTICLASS["one-vs-rest l2 (libsvm)"]])
def test_refit_C_has_units_and_says_so_beyond_the_solvers(binary, three_classes, make):
    """refit_C = 1 on X·1e8 is C = 1e16 on standardised data: a ScaleError naming the value
    that keeps the standardised trade-off, not a SolverError from inside Clarabel."""
    X, y = binary if make is BINARY["l1-AROM (HiGHS)"] else three_classes
    with pytest.raises(ScaleError, match=r"refit_C=1 .* pass refit_C=\d"):
        make(n_features_to_select=2).fit(X * 1e8, y)


def test_soft_margin_keeps_its_units(binary):
    """C is not rescaled: C on X·c is C·c² on X for the l2 step (the same problem)."""
    X, y = binary
    c = 10.0
    on_scaled = AROM("l2", C=0.01, n_features_to_select=3).fit(X * c, y)
    assert on_scaled.data_scale_ == 1.0
    same_problem = AROM("l2", C=0.01 * c**2, n_features_to_select=3).fit(X, y)
    assert _support(on_scaled) == _support(same_problem)
    assert _support(on_scaled) != _support(AROM("l2", C=0.01, n_features_to_select=3).fit(X, y))


def test_user_constraints_keep_the_units_of_X(binary):
    """A constraint on f.v is stated in the units of X: such a run is solved as given."""
    X, y = binary
    arom = AROM("l1", extra_constraints=lambda f: [f.v[1] >= 0.01]).fit(X, y)
    assert arom.data_scale_ == 1.0 and arom.coef_[0, 1] >= 0.01 - 1e-7


def test_hard_margin_run_is_solved_at_unit_scale(binary):
    X, y = binary
    arom = AROM("l1").fit(X * 1e4, y)
    assert arom.data_scale_ == pytest.approx(data_scale(X) * 1e4)
    # the history is in the units of X too
    assert np.abs(arom.history_[-1].coef).max() == pytest.approx(np.abs(arom.coef_).max())


# -- the problems solved as stated: the same support or a ScaleError, never another support ---
def _inside(X) -> bool:
    low, high = SOLVABLE_SCALES
    return low <= data_scale(X) <= high


def _check_same_or_scale_error(select, X, y):
    reference = select(X, y)
    raised = []
    for c in FACTORS:
        try:
            support = select(X * c, y)
        except ScaleError as exc:
            assert not _inside(X * c), f"factor {c:g} is inside SOLVABLE_SCALES: {exc}"
            assert "Standardise X" in str(exc)
            raised.append(c)
            continue
        assert support == reference, f"factor {c:g}"
    return raised


def _driver(formulation, surrogate, **kw):
    result = successive_linearisation(formulation, surrogate, **kw)
    return np.flatnonzero(result.support).tolist()


STATED = {
    "l1 MarginFormulation": lambda X, y: _driver(
        MarginFormulation(X, y, "l1"),
        LogSurrogate(),
        normalise_weights=True,
        n_features_to_select=2,
    ),
    "l2 MarginFormulation": lambda X, y: _driver(
        MarginFormulation(X, y, "l2"),
        LogSurrogate(),
        normalise_weights=True,
        n_features_to_select=2,
    ),
    "FSVFormulation": lambda X, y: _driver(
        FSVFormulation(X, y),
        ExpSurrogate(5.0 / data_scale(X)),  # α in the units of w
        initial_weights=np.full(X.shape[1], 5.0 / data_scale(X)),
        n_features_to_select=2,
    ),
    "l1-AROM on HiGHS": lambda X, y: np.flatnonzero(
        l1_arom(X, y, budget=2)[0].support
    ).tolist(),
    "FSV on HiGHS": lambda X, y: np.flatnonzero(
        fsv(X, y, alpha=5.0 / data_scale(X), budget=2)[0].support
    ).tolist(),
}


@pytest.mark.parametrize("name", list(STATED))
def test_formulations_solved_as_stated_never_return_another_support(binary, name):
    raised = _check_same_or_scale_error(STATED[name], *binary)
    assert raised == [1e-8, 1e-4, 1e8]  # the data's RMS is 1: 1e4 is still inside


def test_multiclass_formulation_solved_as_stated(three_classes):
    def select(X, y):
        return _driver(
            WestonWatkinsFormulation(X, y),
            LogSurrogate(),
            normalise_weights=True,
            n_features_to_select=3,
        )

    _check_same_or_scale_error(select, *three_classes)


@pytest.mark.parametrize("multiclass", [False, True])
def test_exact_milp_selects_the_same_features_at_every_scale(three_classes, multiclass):
    """The big-M MILP is solved on X / RMS(X) (M relative to the l1 relaxation's weights): on
    X·1e8 as given, HiGHS returned every feature as selected."""
    if multiclass:
        X, y = three_classes[0][:18, :6], three_classes[1][:18]
        make = ExactMulticlassZeroNormFormulation
    else:
        X, y = make_weston_linear(16, n_features=8, random_state=1)
        make = ExactZeroNormFormulation

    def fit(X):
        f = make(X, y)
        info = f.solve()
        return f, info

    reference, ref_info = fit(X)
    for c in FACTORS:
        f, info = fit(X * c)
        assert f.support().tolist() == reference.support().tolist(), f"factor {c:g}"
        assert info.value == pytest.approx(ref_info.value)
        w, _ = f.solution()
        if multiclass:
            assert f.predict_codes().tolist() == reference.predict_codes().tolist()
        # the weights, M and the bound on them are in the units of X
        assert np.max(np.abs(w)) <= info.big_m * (1 + 1e-9)
        assert info.big_m * c == pytest.approx(ref_info.big_m, rel=1e-6)


def test_colon_in_other_units_keeps_the_same_genes(colon_log_standardised):
    """The issue's case: colon ×1e4 kept 12 of the same 20 genes, with an inaccurate warning."""
    X, y = colon_log_standardised
    reference = AROM("l1", n_features_to_select=20).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = AROM("l1", n_features_to_select=20, refit_C=1e-8).fit(X * 1e4, y)
    assert _support(scaled) == _support(reference)
