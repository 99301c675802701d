"""One backend mechanism: the backends' contract, the one place that picks them, one vocabulary.

Every backend (HiGHS, libsvm, the interior point, cvxpy, or a user's) is an object of the
contract of ``zeronorm_opt.backends``, chosen by ``choose_backend`` alone; no estimator runs a
path of its own; every estimator takes the same parameter values; and every formulation's
coefficients are signed weights.
"""

import inspect
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp

import zeronorm_opt
from zeronorm_opt import (
    AROM,
    FSV,
    InputError,
    MulticlassAROM,
    ParameterError,
    ZeroNormSelector,
    backends,
)
from zeronorm_opt._validation import validate_params
from zeronorm_opt.backends import (
    Backend,
    choose_backend,
    get_backend,
    register_backend,
    unregister_backend,
    unwrap,
)
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.estimators.selector import ZeroNormSelector as Selector
from zeronorm_opt.formulations import (
    FSVFormulation,
    MarginFormulation,
    WestonWatkinsFormulation,
)
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate


@pytest.fixture
def registry(monkeypatch):
    """A copy of the registry for the test (what it registers is gone afterwards)."""
    monkeypatch.setattr(backends, "_REGISTRY", dict(backends._REGISTRY))


def _zero_norm_estimators():
    return [cls for cls in _public_classes() if issubclass(cls, Selector)]


def _public_classes():
    objects = (getattr(zeronorm_opt, name) for name in zeronorm_opt.__all__)
    return [obj for obj in objects if isinstance(obj, type)]


def test_no_estimator_runs_a_path_or_chooses_a_backend_of_its_own():
    estimators = _zero_norm_estimators()
    assert {AROM, FSV, MulticlassAROM, ZeroNormSelector} <= set(estimators)
    for cls in estimators:
        if cls is Selector:
            continue
        for member in ("_run_path", "_choose_backend"):
            owners = [k.__name__ for k in cls.__mro__ if member in vars(k)]
            assert owners == ["ZeroNormSelector"], f"{cls.__name__}.{member} in {owners}"


# -- one parameter vocabulary -------------------------------------------------------------------
def _estimators_with(parameter):
    return [c for c in _public_classes() if parameter in getattr(c, "_parameter_constraints", {})]


def _instance(cls, **params):
    required = [
        p
        for p in inspect.signature(cls).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    args = [MarginFormulation] * len(required)  # ZeroNormSelector's formulation
    return cls(*args, **params)


def test_a_solver_tuple_is_accepted_by_every_estimator_that_takes_a_solver():
    estimators = _estimators_with("solver")
    assert {AROM, FSV, MulticlassAROM, ZeroNormSelector, zeronorm_opt.BridgeRegression} <= set(
        estimators
    )
    for cls in estimators:
        for solver in (("HIGHS", "CLARABEL"), ["HIGHS", "CLARABEL"], "HIGHS", None):
            validate_params(_instance(cls, solver=solver))  # no error
        with pytest.raises(ParameterError, match="'solver' parameter"):
            validate_params(_instance(cls, solver=3))


def test_a_solver_tuple_fits_as_the_list():
    X, y = make_weston_linear(30, random_state=0)
    fits = [AROM(C=1.0, max_iter=4, solver=s).fit(X, y) for s in (("CLARABEL",), ["CLARABEL"])]
    assert fits[0].backend_ == fits[1].backend_ == "cvxpy"
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)


def test_every_zero_norm_estimator_names_the_same_backends():
    X, y = make_weston_linear(20, random_state=0)
    messages = set()
    for cls in (AROM, FSV, MulticlassAROM, ZeroNormSelector):
        est = _instance(cls, backend="quick")
        with pytest.raises(ParameterError, match="'backend' parameter") as error:
            est.fit(X, y)
        messages.add(str(error.value).replace(cls.__name__, "<estimator>"))
    (message,) = messages
    assert all(repr(name) in message for name in ("auto", "cvxpy", "highs", "ipm", "libsvm"))


def test_a_backend_that_does_not_serve_says_so_in_the_same_words_everywhere():
    X, y = make_weston_linear(20, random_state=0)
    y3 = np.arange(20) % 3
    wording = "serves the LPs of penalty='l1' (AROM) and of FSV"
    for est, labels in ((AROM(penalty="l2", backend="highs"), y), (MulticlassAROM(
            backend="highs"), y3)):
        with pytest.raises(InputError, match=r"backend='highs' .*" + wording.replace("(", r"\(")
                           .replace(")", r"\)") + ".*backend='cvxpy'"):
            est.fit(X, labels)


# -- signs and magnitudes -----------------------------------------------------------------------
def _negative_direction():
    X = np.array([[-2.0, 0.1], [-1.5, -0.3], [1.0, 0.2], [2.0, -0.1]])
    return X, np.array([1.0, 1.0, -1.0, -1.0])


def test_fsv_coefficients_are_signed_weights_as_the_margin_formulations():
    X, y = _negative_direction()
    coefs = []
    for f in (FSVFormulation(X, y), MarginFormulation(X, y, penalty="l1")):
        f.set_weights(np.ones(2))
        f.solve()
        w, _ = f.solution()
        np.testing.assert_array_equal(f.coef_value(), w)  # signed, as solution()
        np.testing.assert_array_equal(f.magnitudes(), np.abs(w))  # |w| only for φ
        coefs.append(f.coef_value())
    np.testing.assert_allclose(coefs[0], coefs[1], atol=1e-7)
    assert coefs[0][0] == pytest.approx(-0.8, abs=1e-7)


@pytest.mark.parametrize("backend", ["highs", "cvxpy"])
def test_fsv_history_records_the_signed_weights_on_every_backend(backend):
    X, y = make_weston_linear(30, random_state=0)
    fit = FSV(C=1.0, backend=backend).fit(-X, y)  # the relevant weights are negative
    first = fit.history_[0].coef
    assert first.min() < 0
    np.testing.assert_array_equal(np.sign(fit.coef_[0][fit.support_]), np.sign(
        fit.history_[-1].coef[fit.support_]))


# -- a backend of one's own ---------------------------------------------------------------------
class RecordingHighs(Backend):
    """The HiGHS step under another name, recording what it was given."""

    name, description, sparse_input = "recording-highs", "HiGHS, recorded", True

    def __init__(self):
        self.built = []

    def refusal(self, formulation, surrogate):
        return get_backend("highs").refusal(formulation, surrogate)

    def build(self, formulation, X, y):
        self.built.append(unwrap(formulation).__name__)
        return get_backend("highs").build(formulation, X, y)


class WestonWatkinsOnScs(Backend):
    """The Weston–Watkins step on SCS: served by no other fast backend."""

    name, description = "ww-scs", "the Weston-Watkins step on SCS"

    def refusal(self, formulation, surrogate):
        return None if unwrap(formulation) is WestonWatkinsFormulation else "serves scheme='ww'"

    def build(self, formulation, X, y):
        step = formulation(X, y)
        solve = step.solve
        step.solve = lambda solver=None, options=None: solve("SCS", options)
        return step


def test_a_registered_backend_is_chosen_by_name_and_runs_the_same_steps(registry):
    X, y = make_weston_linear(30, random_state=1)
    mine = register_backend(RecordingHighs())
    fits = {
        name: AROM(n_features_to_select=3, backend=name).fit(X, y)
        for name in ("recording-highs", "highs")
    }
    assert mine.built == ["MarginFormulation"]
    assert fits["recording-highs"].backend_ == "recording-highs"
    np.testing.assert_array_equal(fits["recording-highs"].support_, fits["highs"].support_)
    assert [r.objective for r in fits["recording-highs"].history_] == [
        r.objective for r in fits["highs"].history_
    ]
    # The generic selector takes it too, on a formulation it serves.
    sel = ZeroNormSelector(partial(FSVFormulation, C=1.0), surrogate=None,
                           backend="recording-highs")
    assert sel.fit(X, y).backend_ == "recording-highs" and mine.built[-1] == "FSVFormulation"


def test_auto_takes_a_registered_backend_where_it_alone_serves(registry):
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], 12)
    X = rng.normal(size=(36, 6))
    X[:, 0] += 4 * (y == "a")
    X[:, 1] += 4 * (y == "b")
    before = MulticlassAROM(scheme="ww", C=1.0, max_iter=3).fit(X, y).backend_
    register_backend(WestonWatkinsOnScs())
    after = MulticlassAROM(scheme="ww", C=1.0, max_iter=3).fit(X, y)
    assert (before, after.backend_) == ("cvxpy", "ww-scs")
    assert {r.solver for r in after.history_} == {"SCS"}
    # What it does not serve keeps the built-in choice, and asking for it says why not.
    assert MulticlassAROM(scheme="ovr", penalty="l2", C=1.0, max_iter=2).fit(X, y).backend_ == (
        "libsvm"
    )
    with pytest.raises(InputError, match="backend='ww-scs'.*serves scheme='ww'"):
        AROM(backend="ww-scs").fit(X[:, :4], y == "a")


def test_choose_backend_is_the_one_place_and_registering_checks_the_contract(registry):
    X, y = make_weston_linear(20, random_state=0)
    arom_l1 = partial(MarginFormulation, penalty="l1")
    assert choose_backend("auto", arom_l1, LogSurrogate(), X).name == "highs"
    assert choose_backend("auto", FSVFormulation, ExpSurrogate(5.0), X).name == "highs"
    assert choose_backend("auto", arom_l1, LogSurrogate(), X, ["solver"]).name == "cvxpy"
    l2 = partial(MarginFormulation, penalty="l2")
    assert choose_backend("auto", l2, LogSurrogate(), X).name == "libsvm"
    assert choose_backend("auto", l2, LogSurrogate(), np.vstack([X] * 40)).name == "ipm"
    assert choose_backend("auto", l2, LogSurrogate(eps=0.1), X).name == "cvxpy"

    class NoBuild:
        name = "broken"

    with pytest.raises(InputError, match="missing refusal, build"):
        register_backend(NoBuild())
    with pytest.raises(InputError, match="'auto'"):
        register_backend(type("Auto", (RecordingHighs,), {"name": "auto"})())


def test_an_unregistered_backend_is_no_longer_chosen_and_built_ins_stay(registry):
    register_backend(RecordingHighs())
    assert type(unregister_backend("recording-highs")) is RecordingHighs
    with pytest.raises(InputError, match="recording-highs"):
        AROM(backend="recording-highs").fit(*make_weston_linear(20, random_state=0))
    with pytest.raises(InputError, match="no backend named 'recording-highs'"):
        unregister_backend("recording-highs")
    for name in ("highs", "cvxpy"):
        with pytest.raises(InputError, match="package's own"):
            unregister_backend(name)


def test_auto_takes_dual_coordinate_descent_for_the_binary_l2_step_on_sparse_x():
    # Sparse X: the l2 hinge step by coordinate descent on the CSR rows; what it does not serve
    # (the l0 slacks, another surrogate) and dense X keep their backends.
    X, _ = make_weston_linear(30, n_features=60, random_state=0)
    sparse = sp.csr_matrix(np.where(np.abs(X) > 1, X, 0.0))
    l2 = partial(MarginFormulation, penalty="l2", C=1.0)
    l0_slacks = partial(MarginFormulation, penalty="l2", slack_penalty="l0", slack_scale=0.5)
    assert choose_backend("auto", l2, LogSurrogate(), sparse).name == "dcd"
    assert choose_backend("auto", l2, LogSurrogate(), X).name == "libsvm"
    assert choose_backend("auto", l0_slacks, LogSurrogate(), sparse).name == "libsvm"
    assert choose_backend("auto", l2, LogSurrogate(0.1), sparse).name == "cvxpy"
    hard = partial(MarginFormulation, penalty="l2", C=None)  # the hard margin: libsvm
    assert choose_backend("auto", hard, LogSurrogate(), sparse).name == "libsvm"
    with pytest.raises(InputError, match="backend='dcd'.*soft margin"):
        choose_backend("dcd", hard, LogSurrogate(), sparse)
    with pytest.raises(InputError, match="backend='dcd'.*slack_penalty='l0'"):
        choose_backend("dcd", l0_slacks, LogSurrogate(), sparse)
