"""The written contracts: driver ↔ problem (``Linearisable``) and formulation ↔ estimator
(``SelectorFormulation``).

A formulation written here from the documented protocol alone — public names only: the
``ReweightedPenalty`` component, cvxpy, ``solve_problem`` — is driven to a sparse solution; an
object missing a member is refused with an error naming it; the base class does not matter.
ZeroNormSelector fits a user formulation that declares its task and its linear model
(`solution()`), on labels of any type, and names everything a formulation lacks in one
ContractError before any solve.
"""

from __future__ import annotations

from functools import partial

import cvxpy as cp
import numpy as np
import pytest
from _user_formulations import SparseSVR as SparseSVRFormulation

from zeronorm_opt import (
    ContractError,
    InputError,
    LogSurrogate,
    ZeroNormSelector,
    solve_problem,
    successive_linearisation,
)
from zeronorm_opt.formulations import (
    FSVFormulation,
    LassoFormulation,
    Linearisable,
    MarginFormulation,
    ReweightedFormulation,
    ReweightedPenalty,
    check_linearisable,
)


class SparseSVR:
    """Sparse ε-insensitive regression, an LP: min C Σ ξ + Σ_j c_j |w_j|
    s.t. |w·x_i + b − t_i| ≤ ε + ξ_i, ξ ≥ 0 — written from the protocol, no package base class."""

    def __init__(self, X, t, epsilon=0.05, C=10.0):
        m, n = X.shape
        self.pen = ReweightedPenalty(n, "l1")
        self.b = cp.Variable()
        self.xi = cp.Variable(m, nonneg=True)
        residual = X @ self.pen.coef + self.b - t
        constraints = [residual <= epsilon + self.xi, -residual <= epsilon + self.xi]
        self.problem = cp.Problem(cp.Minimize(C * cp.sum(self.xi) + self.pen.term), constraints)
        self.n_coef = self.n_features = n
        self.penalty_scale = self.pen.scale

    def set_weights(self, weights):
        self.pen.set_weights(weights)

    def set_active(self, mask):
        self.pen.set_active(mask)

    def solve(self, solver=None, solver_options=None):
        return solve_problem(self.problem, solver, solver_options)

    def coef_value(self):
        return self.pen.coef_value()

    def magnitudes(self):
        return self.pen.magnitudes()

    def base_objective_value(self):
        return float(self.problem.objective.value) - self.pen.term_value()


@pytest.fixture(scope="module")
def svr_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 30))
    w = np.zeros(30)
    w[[2, 11, 25]] = [1.5, -2.0, 1.0]
    return X, X @ w + 0.5 + 0.01 * rng.normal(size=60), w


def test_a_formulation_from_the_protocol_is_driven_to_a_sparse_solution(svr_data):
    X, t, w = svr_data
    f = SparseSVR(X, t)
    assert isinstance(f, Linearisable)
    assert check_linearisable(f) is f
    res = successive_linearisation(f, LogSurrogate(eps=1e-3), max_iter=30)
    assert res.stop_reason == "converged"
    np.testing.assert_array_equal(np.flatnonzero(res.support), [2, 11, 25])
    np.testing.assert_allclose(res.coef[[2, 11, 25]], w[[2, 11, 25]], atol=0.05)
    assert np.all(np.diff(res.objective_path) <= 1e-7 * np.abs(res.objective_path[:-1]).max())
    # The first step is the plain l1 problem: it keeps more features than the reweighted end.
    assert res.support_path[0] >= res.support_path[-1]


def test_missing_members_are_named(svr_data):
    X, t, _ = svr_data

    class NoMagnitudes(SparseSVR):
        magnitudes = None  # present but not callable

    class Bare:
        n_coef = 3

        def solve(self, solver=None, solver_options=None): ...

    with pytest.raises(ContractError, match="not callable: magnitudes"):
        successive_linearisation(NoMagnitudes(X, t), LogSurrogate())
    with pytest.raises(ContractError) as err:
        successive_linearisation(Bare(), LogSurrogate())
    message = str(err.value)
    for name in (
        "n_features",
        "penalty_scale",
        "set_weights",
        "set_active",
        "coef_value",
        "magnitudes",
        "base_objective_value",
    ):
        assert name in message
    assert "n_coef" not in message.split("missing")[1].split(".")[0]
    assert "solve," not in message
    # A ContractError is an InputError (and a ValueError): existing handlers still catch it.
    assert issubclass(ContractError, InputError) and issubclass(ContractError, ValueError)
    assert issubclass(ContractError, TypeError)  # an object without the members a call needs


def test_sizes_and_scale_are_checked(svr_data):
    X, t, _ = svr_data
    f = SparseSVR(X, t)
    f.n_features = f.n_coef + 1
    with pytest.raises(ContractError, match="n_features"):
        check_linearisable(f)
    f = SparseSVR(X, t)
    f.penalty_scale = -1.0
    with pytest.raises(ContractError, match="penalty_scale"):
        check_linearisable(f)


def test_the_base_class_does_not_matter(svr_data):
    """Delegation instead of inheritance: accepted, and it runs like the formulation itself."""
    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(30, random_state=0)

    class Wrapped:  # no package base class; forwards every member of the protocol
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

    direct = successive_linearisation(MarginFormulation(X, y, "l1"), LogSurrogate(), max_iter=8)
    wrapped = successive_linearisation(
        Wrapped(MarginFormulation(X, y, "l1")), LogSurrogate(), max_iter=8
    )
    np.testing.assert_array_equal(direct.support, wrapped.support)
    np.testing.assert_allclose(direct.objective_path, wrapped.objective_path, rtol=1e-6)


def test_base_objective_is_the_objective_without_the_penalty():
    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(30, random_state=1)
    f = MarginFormulation(X, y, "l1", C=0.5)
    f.set_weights(np.linspace(0.5, 2.0, X.shape[1]))
    f.solve()
    assert f.base_objective_value() == pytest.approx(0.5 * f.xi.value.sum(), rel=1e-6, abs=1e-9)
    # A user term belongs to the base (it is not the penalty), so it is counted, not dropped.
    g = MarginFormulation(X, y, "l1", C=0.5).add_objective_term(lambda form: 3.0 * form.b**2)
    g.solve()
    expected = 0.5 * g.xi.value.sum() + 3.0 * float(g.b.value) ** 2
    assert g.base_objective_value() == pytest.approx(expected, rel=1e-6, abs=1e-9)
    # FSV with the trade-off: base = (1 − λ)·(class-balanced mean slack), penalty = λ Σ c v.
    fsv = FSVFormulation(X, y, trade_off=0.3)
    fsv.solve()
    pos = fsv.y > 0
    slack = fsv.xi.value
    expected = 0.7 * (slack[pos].mean() + slack[~pos].mean())
    assert fsv.base_objective_value() == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert fsv.penalty_scale == 0.3


def test_parameters_are_named_for_what_they_hold():
    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(20, n_features=10, random_state=0)
    weights = np.linspace(1.0, 4.0, 10)
    l2 = MarginFormulation(X, y, "l2")
    l2.set_weights(weights)
    assert "weights" not in l2.parameters
    # √(s·c) with s = ½: the term is Σ (r_j v_j)² = ½ Σ c_j v_j².
    np.testing.assert_allclose(l2.parameters["coef_root_cost"].value, np.sqrt(0.5 * weights))
    np.testing.assert_allclose(l2.weights, weights)
    lasso = LassoFormulation(X, y.astype(float), alpha=0.3)
    lasso.set_weights(weights)
    np.testing.assert_allclose(lasso.parameters["beta_cost"].value, 0.3 * weights)
    np.testing.assert_allclose(lasso.weights, weights)
    lasso.alpha = 0.6  # λ changes, the weights c stay
    np.testing.assert_allclose(lasso.parameters["beta_cost"].value, 0.6 * weights)
    np.testing.assert_allclose(lasso.weights, weights)
    # Removed coefficients: mask 0, and a unit cost that keeps their unused variables at 0.
    lasso.set_active(np.arange(10) < 5)
    np.testing.assert_allclose(lasso.parameters["beta_active"].value, (np.arange(10) < 5) * 1.0)
    np.testing.assert_allclose(lasso.parameters["beta_cost"].value[5:], 1.0)


def test_penalty_component_checks_its_input():
    with pytest.raises(InputError, match="penalty"):
        ReweightedPenalty(3, "l0")
    pen = ReweightedPenalty(3, "l2", group_size=2)
    assert pen.coef.shape == (2, 3) and pen.scale == 0.5
    with pytest.raises(InputError, match="negative"):
        pen.set_weights([1.0, -1.0, 1.0])
    with pytest.raises(InputError, match="shape"):
        pen.set_active([True, False])
    with pytest.raises(InputError, match="solve"):
        pen.coef_value()


@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_the_rescaled_form_is_driven_like_the_reweighted_form(penalty):
    """The paper's rescaled-data form is a plain ``Formulation`` (not a ReweightedFormulation)
    that implements the protocol itself: the driver accepts it and follows the same iterates."""
    from zeronorm_opt.datasets import make_weston_linear
    from zeronorm_opt.formulations import RescaledMarginFormulation, ReweightedFormulation

    X, y = make_weston_linear(30, random_state=0)
    rescaled = RescaledMarginFormulation(X, y, penalty)
    assert not isinstance(rescaled, ReweightedFormulation)
    a = successive_linearisation(
        MarginFormulation(X, y, penalty), LogSurrogate(), normalise_weights=True
    )
    b = successive_linearisation(rescaled, LogSurrogate(), normalise_weights=True)
    assert a.n_iter == b.n_iter
    np.testing.assert_array_equal(a.support, b.support)
    np.testing.assert_allclose(a.coef, b.coef, atol=1e-6 * np.abs(a.coef).max())
    np.testing.assert_allclose(a.objective_path, b.objective_path, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("C", [None, 1.0])
def test_the_svm_dual_is_driven_like_the_primal(C):
    """The dual of the l2 step (n > m) implements the protocol: same iterates as the primal QP."""
    from zeronorm_opt.datasets import make_weston_linear
    from zeronorm_opt.formulations import RescaledSVMDual

    X, y = make_weston_linear(30, n_features=80, random_state=0)
    kwargs = {"normalise_weights": True} if C is None else {}
    surrogate = LogSurrogate() if C is None else LogSurrogate(eps=1e-3)
    primal = successive_linearisation(
        MarginFormulation(X, y, "l2", C=C), surrogate, max_iter=12, **kwargs
    )
    dual = successive_linearisation(RescaledSVMDual(X, y, C=C), surrogate, max_iter=12, **kwargs)
    assert primal.n_iter == dual.n_iter
    np.testing.assert_array_equal(primal.support, dual.support)
    np.testing.assert_allclose(primal.coef, dual.coef, atol=1e-5 * np.abs(primal.coef).max())
    # ε = 0 (hard margin): Σ ln v_j² over coordinates of very different sizes, so the two
    # solvers' last digits show more; the paths still agree to 1e-4.
    np.testing.assert_allclose(primal.objective_path, dual.objective_path, rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# The contract between a formulation and ZeroNormSelector (SelectorFormulation)
# ---------------------------------------------------------------------------------------------


class OffsetRegression(ReweightedFormulation):
    """Sparse least absolute deviations with a bias named ``beta`` (not ``b``)."""

    task = "regression"

    def __init__(self, X, y):
        super().__init__()
        self.X, self.y = np.asarray(X, float), np.asarray(y, float)
        self.init_penalty(self.X.shape[1], "l1", scale=0.05)
        self.beta = cp.Variable(name="beta")
        self.variables["beta"] = self.beta

    def loss_terms(self):
        return [cp.norm1(self.X @ self.coef + self.beta - self.y)]

    def solution(self):  # the protocol's way to declare the intercept, whatever its name
        return self.coef_value(), float(self.beta.value)


class UserHingeSVM(ReweightedFormulation):
    """A user's soft-margin l1 SVM, stated on labels ±1 (the "signed" convention)."""

    task = "classification"

    def __init__(self, X, y, C=1.0):
        super().__init__()
        self.X, self.y = np.asarray(X, float), np.asarray(y, float)
        assert set(np.unique(self.y)) <= {-1.0, 1.0}, "the selector must hand over ±1 labels"
        m, n = self.X.shape
        self.init_penalty(n, "l1")
        self.bias = cp.Variable(name="bias")
        self.xi = cp.Variable(m, nonneg=True, name="xi")
        self.C = C

    def loss_terms(self):
        return [self.C * cp.sum(self.xi)]

    def loss_constraints(self):
        return [cp.multiply(self.y, self.X @ self.coef + self.bias) >= 1 - self.xi]

    def solution(self):
        return self.coef_value(), float(self.bias.value)


class PlainProtocolSVR(SparseSVR):
    """Written from the protocols alone (no package base class): no add_constraints."""

    task = "regression"

    def solution(self):
        return self.coef_value(), float(self.b.value)


def test_a_bias_of_another_name_is_the_intercept():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 8))
    y = 3.0 * X[:, 0] - 2.0 * X[:, 5] + 5.0 + 0.01 * rng.normal(size=50)
    sel = ZeroNormSelector(OffsetRegression, n_features_to_select=2).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(sel.support_), [0, 5])
    assert sel.intercept_ == pytest.approx(5.0, abs=0.05)
    np.testing.assert_allclose(sel.predict(X), X @ sel.coef_ + sel.intercept_)
    assert sel.score(X, y) > 0.99


@pytest.mark.parametrize(
    "labels",
    [np.array([0, 1]), np.array([False, True]), np.array(["healthy", "tumour"]), np.array([3, 7])],
    ids=["0/1", "bool", "str", "3/7"],
)
def test_labels_of_any_type_are_encoded_and_decoded(labels):
    from zeronorm_opt.datasets import make_weston_linear

    X, y_pm = make_weston_linear(40, n_features=30, random_state=0)
    y = labels[(y_pm > 0).astype(int)]
    reference = ZeroNormSelector(UserHingeSVM).fit(X, y_pm)
    sel = ZeroNormSelector(UserHingeSVM).fit(X, y)
    # The formulation saw the same ±1 problem: same run, same model, original labels back.
    np.testing.assert_array_equal(sel.classes_, labels)
    np.testing.assert_array_equal(sel.support_, reference.support_)
    np.testing.assert_allclose(sel.coef_, reference.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(sel.predict(X), labels[(reference.predict(X) > 0).astype(int)])
    assert sel.score(X, y) == reference.score(X, y_pm) > 0.9
    # The user's hinge SVM is the package's soft-margin l1 step: the same selection.
    package = ZeroNormSelector(partial(MarginFormulation, C=1.0)).fit(X, y)
    np.testing.assert_array_equal(sel.support_, package.support_)
    np.testing.assert_array_equal(sel.predict(X), package.predict(X))


def test_three_classes_for_a_two_class_formulation_is_an_input_error():
    from zeronorm_opt.datasets import make_weston_linear

    X, _ = make_weston_linear(30, n_features=10, random_state=0)
    y = np.array(["a", "b", "c"])[np.arange(30) % 3]
    with pytest.raises(InputError, match='3 classes.*label_encoding = "codes"'):
        ZeroNormSelector(UserHingeSVM).fit(X, y)


def test_what_is_missing_is_named_in_one_contract_error():
    """The user's classifier without task and without solution(), fitted on 0/1 labels:
    refused before any solve, naming both and what to add — never a silent regression."""
    from zeronorm_opt.datasets import make_weston_linear

    class Undeclared(UserHingeSVM):
        task = None
        solution = None

    X, y_pm = make_weston_linear(30, n_features=10, random_state=0)
    for y in ((y_pm > 0).astype(int), np.where(y_pm > 0, "yes", "no")):
        with pytest.raises(ContractError) as err:
            ZeroNormSelector(Undeclared).fit(X, y)
        message = str(err.value)
        assert 'task = "classification"' in message and "solution()" in message
        assert message.startswith("Undeclared cannot be fitted by ZeroNormSelector")
    # Without a task the estimator is neither a classifier nor a regressor.
    assert ZeroNormSelector(Undeclared).__sklearn_tags__().estimator_type is None


def test_a_function_that_hides_the_class_declares_the_task():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 8))
    y = 3.0 * X[:, 0] + 5.0

    def make(X, y):
        return OffsetRegression(X, y)

    with pytest.raises(ContractError, match="functools.partial"):
        ZeroNormSelector(make).fit(X, y)
    make.task = "regression"
    assert ZeroNormSelector(make, n_features_to_select=1).fit(X, y).score(X, y) > 0.99


def test_extra_constraints_on_a_plain_protocol_class_is_a_contract_error(svr_data):
    X, t, _ = svr_data
    # The plain class fits: the selector needs no package base class ...
    sel = ZeroNormSelector(PlainProtocolSVR, n_features_to_select=3).fit(X, t)
    np.testing.assert_array_equal(np.flatnonzero(sel.support_), [2, 11, 25])
    # ... but user constraints need add_constraints, named before any solve.
    with pytest.raises(ContractError, match="add_constraints") as err:
        ZeroNormSelector(PlainProtocolSVR, extra_constraints=lambda f: []).fit(X, t)
    assert "extra_constraints" in str(err.value)


def test_a_solver_list_for_a_one_solver_formulation_is_a_contract_error(svr_data):
    X, t, _ = svr_data

    class OneSolver(PlainProtocolSVR):
        accepts_solver_list = False

    with pytest.raises(ContractError, match="accepts_solver_list"):
        ZeroNormSelector(OneSolver, solver=["CLARABEL", "SCS"]).fit(X, t)


def test_a_classifier_formulation_with_a_regressor_estimator_is_refused():
    from sklearn.linear_model import Ridge

    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(30, n_features=10, random_state=0)
    with pytest.raises(ContractError, match="regressor"):
        ZeroNormSelector(UserHingeSVM, estimator=Ridge()).fit(X, y)


def test_the_package_formulations_meet_the_selector_contract():
    from zeronorm_opt.formulations import (
        BasisPursuitFormulation,
        OneVsRestFormulation,
        RescaledMarginFormulation,
        WestonWatkinsFormulation,
        check_selector_formulation,
    )

    for cls in (
        MarginFormulation,
        RescaledMarginFormulation,
        FSVFormulation,
        WestonWatkinsFormulation,
        OneVsRestFormulation,
        LassoFormulation,
        BasisPursuitFormulation,
    ):
        assert check_selector_formulation(cls, extra_constraints=True) is cls


def test_a_user_formulation_describes_its_own_problem():
    X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.0, 0.3]])
    f = OffsetRegression(X, [1.0, 0.0, -1.0])
    f.add_constraints(lambda form: [form.beta >= -3])
    text = f.describe()
    assert text.startswith("OffsetRegression")
    # Its own loss, its own variables and the user's constraint, not just the class name.
    assert "norm1(X @ x + β - y)" in text  # the loss, its data named by their attributes
    assert "β ∈ ℝ" in text and "0.05 Σ_j c_j |x_j|" in text
    assert "-3 ≤ β   (user)" in text
    h = UserHingeSVM(X, [1, -1, 1])
    text = h.describe()
    assert "1 - ξ ≤ y * (X @ x + bias)" in text  # the margin constraints
    assert "ξ ∈ ℝ^3" in text and "bias ∈ ℝ" in text
    assert "Σ_j c_j |" in text  # the penalty term, written out
    latex = h.to_latex()
    assert latex.startswith("\\begin{array}") and r"1 - \xi \leq y" in latex


def test_a_regression_formulation_selects_for_a_classifier_on_any_labels():
    """The formulation regresses on the labels as ±1 (whatever their type); the classifier is
    fitted on the original labels."""
    from sklearn.linear_model import LogisticRegression

    from zeronorm_opt.datasets import make_weston_linear

    X, y_pm = make_weston_linear(40, n_features=20, random_state=1)
    words = np.where(y_pm > 0, "tumour", "normal")
    on_words = ZeroNormSelector(
        SparseSVRFormulation, n_features_to_select=3, estimator=LogisticRegression()
    ).fit(X, words)
    on_signs = ZeroNormSelector(SparseSVRFormulation, n_features_to_select=3).fit(X, y_pm)
    np.testing.assert_array_equal(on_words.support_, on_signs.support_)
    assert set(on_words.predict(X)) <= {"tumour", "normal"}
    np.testing.assert_array_equal(on_words.classes_, ["normal", "tumour"])
