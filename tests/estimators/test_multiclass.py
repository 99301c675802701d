"""Multiclass zero-norm (SPEC P7): formulations, libsvm fast path, estimator and E4 runner."""

import cvxpy as cp
import numpy as np
import pytest
from sklearn.svm import SVC, LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import InfeasibleError, InputError, LogSurrogate, successive_linearisation
from zeronorm_opt.cli import main
from zeronorm_opt.estimators.multiclass import MulticlassAROM
from zeronorm_opt.experiments.catalogue import load_problem
from zeronorm_opt.experiments.yeast_multiclass import E4Config, run_e4, summarise_e4
from zeronorm_opt.fast.one_vs_rest import OneVsRestLibsvm
from zeronorm_opt.formulations.binary import MarginFormulation
from zeronorm_opt.formulations.multiclass import (
    OneVsRestFormulation,
    WestonWatkinsFormulation,
)

FORMS = {"ww": WestonWatkinsFormulation, "ovr": OneVsRestFormulation}


def _classes_in_few_features(m, n_noise=50, n_classes=4, shift=3.0, seed=0):
    """Class k > 0 has mean ``shift`` in feature k−1 (class 0: mean 0): only features 0..Q−2
    carry class information; ``n_noise`` N(0, 1) features do not."""
    rng = np.random.default_rng(seed)
    y = np.arange(m) % n_classes
    X = rng.normal(size=(m, n_classes - 1 + n_noise))
    X[:, : n_classes - 1] += shift * np.eye(n_classes)[y][:, 1:]
    return X, y


@pytest.fixture(scope="module")
def separable():
    """4 well separated classes in 12 features (hard-margin feasible for WW and OvR)."""
    return _classes_in_few_features(40, n_noise=9, shift=8.0, seed=1)


@pytest.fixture(scope="module")
def overlapping():
    return _classes_in_few_features(60, n_noise=7, shift=1.5, seed=2)


def _binary(seed=7):
    rng = np.random.default_rng(seed)
    y = np.repeat([-1, 1], 12)
    X = rng.normal(size=(24, 10))
    X[:, 0] += 1.5 * y
    X[:, 1] += 0.8 * y
    return X, y


# -- equivalences -------------------------------------------------------------------------------


@pytest.mark.parametrize("penalty", ["l1", "l2"])
@pytest.mark.parametrize("C", [None, 0.5])
def test_weston_watkins_with_two_classes_is_the_binary_svm(penalty, C):
    # With w_0, w_1 and v = w_1 − w_0 the WW constraints are y_i (v·x_i + b_1 − b_0) ≥ 1.
    # min Σ|w_0j| + |w_1j| over the split of v is Σ|v_j|; min w_0j² + w_1j² is v_j²/2, so the
    # l2 WW machine with C is the binary one with 2C at half the objective.
    X, y = _binary()
    ww = WestonWatkinsFormulation(X, y, penalty, C=C)
    binary_C = None if C is None else (C if penalty == "l1" else 2 * C)
    binary = MarginFormulation(X, y, penalty, C=binary_C)
    res_ww = successive_linearisation(ww, LogSurrogate(), normalise_weights=True, tol=1e-8)
    res_bin = successive_linearisation(binary, LogSurrogate(), normalise_weights=True, tol=1e-8)
    assert res_ww.n_iter == res_bin.n_iter
    assert np.array_equal(res_ww.support, res_bin.support)
    W, b = ww.solution()
    v, beta = binary.solution()
    np.testing.assert_allclose(W[1] - W[0], v, atol=1e-6 * np.abs(v).max())
    assert b[1] - b[0] == pytest.approx(beta, abs=1e-6)
    ratio = 1.0 if penalty == "l1" else 0.5
    assert ww.problem.value == pytest.approx(ratio * binary.problem.value, rel=1e-6)


@pytest.mark.parametrize("C", [None, 0.3])
def test_ovr_l2_step_is_independent_per_class_svms(overlapping, separable, C):
    # For fixed weights c the one-vs-rest QP separates: class k is the linear SVM on the data
    # rescaled by z = 1/√c, and w_k = z ∘ u_k.
    X, y = separable if C is None else overlapping
    c = np.random.default_rng(4).uniform(0.5, 3.0, X.shape[1])
    f = OneVsRestFormulation(X, y, "l2", C=C)
    f.set_weights(c)
    f.solve()
    W, b = f.solution()
    z = 1.0 / np.sqrt(c)
    for k in range(4):
        svc = SVC(kernel="linear", C=1e7 if C is None else C, tol=1e-10)
        svc.fit(X * z, np.where(y == k, 1, -1))
        np.testing.assert_allclose(W[k], z * svc.coef_[0], atol=1e-4 * np.abs(W).max())
        assert b[k] == pytest.approx(svc.intercept_[0], abs=1e-3)


@pytest.mark.parametrize("C", [None, 1.0])
def test_libsvm_fast_path_equals_the_cvxpy_ovr_qp(separable, overlapping, C):
    X, y = separable if C is None else overlapping
    qp = OneVsRestFormulation(X, y, "l2", C=C)
    fast = OneVsRestLibsvm(X, y, C=C, tol=1e-8)
    # One step at arbitrary weights, then the whole driver run.
    c = np.random.default_rng(5).uniform(0.5, 3.0, X.shape[1])
    for f in (qp, fast):
        f.set_weights(c)
        f.solve()
    np.testing.assert_allclose(fast.solution()[0], qp.solution()[0], atol=1e-5)
    runs = [
        successive_linearisation(f, LogSurrogate(), normalise_weights=True, max_iter=30)
        for f in (qp, fast)
    ]
    assert np.array_equal(runs[0].support, runs[1].support)
    assert {r.solver for r in runs[1].history} == {"libsvm"}
    W_qp, b_qp = qp.solution()
    W_fast, b_fast = fast.solution()
    scale = np.abs(W_qp).max()
    np.testing.assert_allclose(W_fast, W_qp, atol=1e-4 * scale)
    np.testing.assert_allclose(b_fast, b_qp, atol=1e-3)
    assert fast.last_solve.value == pytest.approx(qp.problem.value, rel=1e-4)
    # When libsvm hits its iteration cap, the class's SVM falls back to the interior-point QP.
    capped = OneVsRestLibsvm(X, y, C=C, max_iter=1)
    capped.set_weights(c)
    assert capped.solve().solver == "libsvm+cvxpy"
    qp.set_weights(c)
    qp.set_active(np.ones(X.shape[1], dtype=bool))
    qp.solve()
    np.testing.assert_allclose(capped.solution()[0], qp.solution()[0], atol=1e-5)


# -- optimality and feasibility ----------------------------------------------------------------


def _hinge(margins):
    return cp.sum(cp.pos(1 - margins))


@pytest.mark.parametrize("scheme", ["ww", "ovr"])
@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_first_step_is_the_plain_multiclass_svm(overlapping, scheme, penalty):
    X, y = overlapping
    C = 0.7
    f = FORMS[scheme](X, y, penalty, C=C)
    # (eps > 0 only so the weights computed after the single step are finite)
    res = successive_linearisation(f, LogSurrogate(eps=1.0), max_iter=1, prune_tol=0)
    # The plain multiclass SVM stated directly, with hinge losses instead of slacks.
    Q, n = 4, X.shape[1]
    W, b = cp.Variable((Q, n)), cp.Variable(Q)
    S = X @ W.T + np.ones((len(y), 1)) @ cp.reshape(b, (1, Q), order="C")
    if scheme == "ww":
        pairs = [(i, k) for i in range(len(y)) for k in range(Q) if k != y[i]]
        loss = sum(_hinge(S[i, y[i]] - S[i, k]) for i, k in pairs)
    else:
        loss = _hinge(cp.multiply(np.where(y[:, None] == np.arange(Q), 1.0, -1.0), S))
    reg = cp.sum(cp.abs(W)) if penalty == "l1" else 0.5 * cp.sum_squares(W)
    direct = cp.Problem(cp.Minimize(reg + C * loss))
    direct.solve(solver="CLARABEL")
    assert f.problem.value == pytest.approx(direct.value, rel=1e-6)
    group = np.abs(W.value).sum(0) if penalty == "l1" else np.sqrt((W.value**2).sum(0))
    np.testing.assert_allclose(res.coef, group, atol=1e-4 * group.max())


@pytest.mark.parametrize("scheme", ["ww", "ovr"])
@pytest.mark.parametrize("penalty", ["l1", "l2"])
@pytest.mark.parametrize("C", [None, 1.0])
def test_surrogate_never_increases_iterates_feasible_pruned_never_return(
    separable, overlapping, scheme, penalty, C
):
    X, y = separable if C is None else overlapping
    f = FORMS[scheme](X, y, penalty, C=C)
    seen = []

    def check_iterate(record):
        W, b = f.solution()
        S = X @ W.T + b
        if scheme == "ww":
            i, k = f.pairs[:, 0], f.pairs[:, 1]
            margins = S[i, y[i]] - S[i, k]
            slack = np.zeros(len(i)) if C is None else f.xi.value
        else:
            margins = (f.Y * S).ravel()
            slack = np.zeros(margins.size) if C is None else f.xi.value.ravel()
        assert np.all(slack >= -1e-7) and np.all(margins >= 1 - slack - 1e-6)
        # The group magnitudes the driver saw are those of the returned W.
        group = np.abs(W).sum(0) if penalty == "l1" else np.sqrt((W**2).sum(0))
        np.testing.assert_allclose(record.coef, np.where(record.coef > 0, group, 0), atol=1e-12)
        seen.append(record.coef > 0)

    # ε > 0 (small, so features do vanish within 12 steps) and no weight normalisation: the
    # plain majorise-minimise of base + s·Σ ln(ε + h), whose value may never increase.
    res = successive_linearisation(
        f, LogSurrogate(eps=1e-9), max_iter=12, tol=1e-10, callback=check_iterate
    )
    objs = res.objective_path
    assert np.all(np.diff(objs) <= 1e-6 * np.maximum(1.0, np.abs(objs[:-1])))
    for before, after in zip(seen, seen[1:], strict=False):
        assert not np.any(after & ~before)  # a removed feature never returns
    assert seen[-1].sum() < X.shape[1]  # and some were removed


def test_hard_margin_on_inseparable_data_names_C(overlapping):
    X, y = overlapping
    for f in (WestonWatkinsFormulation(X, y), OneVsRestFormulation(X, y, "l2")):
        with pytest.raises(InfeasibleError, match="C="):
            f.solve()
    with pytest.raises(InfeasibleError, match="C="):
        OneVsRestLibsvm(X, y).solve()
    with pytest.raises(InfeasibleError, match="C="):
        MulticlassAROM().fit(X, y)
    WestonWatkinsFormulation(X, y, C=1.0).solve()  # the soft version runs


def test_dpp_compiled_once_labels_of_any_type_and_extensions(separable):
    X, y = separable
    labels = np.array(["d", "c", "b", "a"])[y]
    f = WestonWatkinsFormulation(X, labels, "l1")
    assert list(f.classes) == ["a", "b", "c", "d"]
    f.solve()
    cache = f.problem._cache
    compiled = cache.param_prog
    successive_linearisation(f, LogSurrogate(), normalise_weights=True, max_iter=4)
    assert f.problem._cache is cache and cache.param_prog is compiled
    assert np.array_equal(np.array(["a", "b", "c", "d"])[f.predict_codes()], labels)
    # A user constraint on the matrix W: feature 0 may not be used by any class.
    g = OneVsRestFormulation(X, y, "l1", C=1.0).add_constraints(lambda form: [form.W[:, 0] == 0])
    g.solve()
    assert np.all(np.abs(g.solution()[0][:, 0]) < 1e-8)
    text = g.describe()
    assert "y_i^k (w_k·x_i + b_k)" in text and "weights" in text
    assert "1 user extension" in repr(g) and "Q=4" in repr(g)
    with pytest.raises(InputError, match="libsvm"):
        OneVsRestLibsvm(X, y).add_constraints(lambda form: [form.W[:, 0] == 0]).solve()
    with pytest.raises(InputError, match="solver"):
        OneVsRestLibsvm(X, y).solve(solver="CLARABEL")


def test_bad_formulation_input():
    X = np.ones((4, 2))
    with pytest.raises(InputError, match="single class"):
        WestonWatkinsFormulation(X, [1, 1, 1, 1])
    with pytest.raises(InputError, match="labels"):
        OneVsRestFormulation(X, [0, 1, 2])
    with pytest.raises(InputError, match="NaN"):
        WestonWatkinsFormulation(np.full((4, 2), np.nan), [0, 1, 2, 0])
    with pytest.raises(InputError, match="penalty"):
        OneVsRestFormulation(X, [0, 1, 2, 0], penalty="l0")
    with pytest.raises(InputError, match="C"):
        WestonWatkinsFormulation(X, [0, 1, 2, 0], C=-1.0)


# -- the estimator -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        dict(scheme="ww", penalty="l1"),
        dict(scheme="ww", penalty="l2"),
        dict(scheme="ovr", penalty="l1"),
        dict(scheme="ovr", penalty="l2"),  # the libsvm fast path
    ],
)
def test_recovery_of_the_informative_features_and_accuracy(params):
    # 4 classes whose means differ in features 0, 1, 2 only, among 50 noise features.
    X, y = _classes_in_few_features(120, seed=11)
    Xte, yte = _classes_in_few_features(1000, seed=12)
    budget = MulticlassAROM(C=1.0, n_features_to_select=3, max_iter=15, **params).fit(X, y)
    assert np.flatnonzero(budget.support_).tolist() == [0, 1, 2]
    assert budget.coef_.shape == (4, 53) and np.all(budget.coef_[:, 3:] == 0)
    reference = LinearSVC(C=1.0).fit(X[:, :3], y).score(Xte[:, :3], yte)
    assert budget.score(Xte, yte) >= reference - 0.03
    assert budget.backend_ == ("libsvm" if params == dict(scheme="ovr", penalty="l2") else "cvxpy")
    if budget.backend_ == "libsvm":  # the cvxpy QP path (any solver) selects the same features
        qp = MulticlassAROM(C=1.0, n_features_to_select=3, max_iter=15, solver="CLARABEL", **params)
        assert qp.fit(X, y).backend_ == "cvxpy"
        assert np.array_equal(qp.support_, budget.support_)


@pytest.mark.parametrize(
    "params", [dict(scheme="ww", penalty="l1"), dict(scheme="ovr", penalty="l2")]
)
def test_converged_support_contains_the_informative_features(params):
    X, y = _classes_in_few_features(120, seed=11)
    model = MulticlassAROM(C=1.0, **params).fit(X, y)
    assert model.stop_reason_ == "converged"
    assert model.support_[:3].all() and model.support_.sum() < 10


def test_estimator_two_classes_string_labels_and_refit():
    X, y = _binary()
    labels = np.where(y > 0, "yes", "no")
    model = MulticlassAROM(scheme="ww", penalty="l2", C=1.0, n_features_to_select=2).fit(X, labels)
    assert list(model.classes_) == ["no", "yes"] and model.coef_.shape == (2, 10)
    scores = model.decision_function(X)
    assert scores.shape == (24,)
    assert np.array_equal(model.predict(X), model.classes_[(scores > 0).astype(int)])
    # The final WW machine on 2 features equals the binary soft-margin SVM with 2C.
    sel = model.get_support()
    svc = SVC(kernel="linear", C=2.0, tol=1e-10).fit(X[:, sel], labels)
    v = model.coef_[1, sel] - model.coef_[0, sel]
    np.testing.assert_allclose(v, svc.coef_[0], atol=1e-4)
    # refit=False keeps the last iterate on the support (no retraining).
    raw = MulticlassAROM(scheme="ovr", penalty="l1", C=1.0, refit=False).fit(X, labels)
    assert raw.history_ and raw.n_iter_ == len(raw.history_)
    assert np.all(raw.coef_[:, ~raw.support_] == 0)


def test_bad_estimator_input(overlapping):
    X, y = overlapping
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        MulticlassAROM(C=1.0).fit(bad, y)
    with pytest.raises(InputError, match="one class"):
        MulticlassAROM(C=1.0).fit(X, np.zeros(len(y)))
    for params, message in [
        (dict(scheme="ovo"), "'scheme' parameter"),
        (dict(penalty="l0"), "'penalty' parameter"),
        (dict(backend="libsvm"), "backend='libsvm'"),
        (dict(backend="magic"), "'backend' parameter"),
        (dict(scheme="ovr", penalty="l2", backend="libsvm", solver="OSQP"), "libsvm"),
        (dict(n_features_to_select=99), "out of range"),
        (dict(C=-1.0), "'C' parameter"),
        (dict(max_iter=0), "'max_iter' parameter"),
    ]:
        with pytest.raises(InputError, match=message):
            MulticlassAROM(**{"C": 1.0, **params}).fit(X, y)


# Soft margin (the checks' random data are rarely separable); max_iter caps the cvxpy runs so
# the many small fits stay quick — the checks test the API, not convergence.
@parametrize_with_checks(
    [
        MulticlassAROM(C=1.0, max_iter=10),
        MulticlassAROM(scheme="ovr", penalty="l2", C=1.0),
        MulticlassAROM(scheme="ovr", penalty="l1", C=1.0, max_iter=10),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# -- E4 -----------------------------------------------------------------------------------------


def test_e4_runner_on_one_fold_resumes_and_rejects_train_sizes(tmp_path, monkeypatch):
    spec = load_problem("e4")
    assert spec["runner"] == "yeast_multiclass" and spec["feature_counts"] == [10, 20, 40]
    X, y = _classes_in_few_features(64, n_noise=12, seed=3)
    config = E4Config(
        feature_counts=[3], n_folds=4, folds=[0], methods=["WW-SVM", "OvR-AROM", "OvR-RFE"]
    )
    path = tmp_path / "e4.jsonl"
    records = run_e4(config, results_path=path, data=(X, y))
    assert {(r["method"], r["n_features"]) for r in records} == {
        ("WW-SVM", None),
        ("OvR-AROM", 3),
        ("OvR-RFE", 3),
    }
    assert all(r["status"] == "ok" and r["n_test"] == 16 for r in records)
    assert sorted(next(r for r in records if r["method"] == "OvR-RFE")["selected"]) == [0, 1, 2]
    import zeronorm_opt.experiments.yeast_multiclass as e4

    calls = []
    original = e4.run_fold
    monkeypatch.setattr(e4, "run_fold", lambda *a: calls.append(a) or original(*a))
    again = run_e4(config, results_path=path, data=(X, y))
    assert calls == [] and len(again) == 3  # everything came from the file
    table = summarise_e4(again, config)
    assert "OvR-AROM" in table and "3 features" in table
    assert main(["run", "e4", "--train-sizes", "10"]) == 2


@pytest.mark.parametrize("scheme", ["ww", "ovr"])
def test_literal_sum_scale_rule_of_the_l2_step(overlapping, scheme):
    # scale_rule="sum" is the paper's literal z ← z ∘ Σ_k |w_kj| for the l2 step: the first step
    # is the same as with "norm" (all weights 1); the driver's coefficient is then Σ_k |w_kj|
    # instead of ‖w_·j‖₂, and the next step's weights are 1/(Σ_k |w_kj|)² up to normalisation.
    X, y = overlapping
    common = dict(scheme=scheme, penalty="l2", C=1.0, max_iter=2, backend="cvxpy", tol=0.0)
    lit = MulticlassAROM(scale_rule="sum", **common).fit(X, y)
    mm = MulticlassAROM(scale_rule="norm", **common).fit(X, y)
    first = FORMS[scheme](X, y, penalty="l2", C=1.0)
    first.solve()
    W1, _ = first.solution()
    np.testing.assert_allclose(lit.history_[0].coef, np.abs(W1).sum(axis=0), atol=1e-5)
    np.testing.assert_allclose(mm.history_[0].coef, np.sqrt((W1**2).sum(axis=0)), atol=1e-5)
    s = lit.history_[0].coef
    active = s > 1e-6 * s.max()
    w2 = lit.history_[1].weights[active]
    ratio = w2 * s[active] ** 2  # constant when w2 ∝ 1/s²
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-4)
    # The two rules differ where several classes use a feature.
    assert not np.allclose(lit.history_[1].coef, mm.history_[1].coef, atol=1e-3)


def test_literal_sum_rule_fast_path_equals_cvxpy(separable):
    X, y = separable
    common = dict(scheme="ovr", penalty="l2", C=10.0, scale_rule="sum", max_iter=6)
    fast = MulticlassAROM(backend="libsvm", **common).fit(X, y)
    qp = MulticlassAROM(backend="cvxpy", **common).fit(X, y)
    assert fast.get_support().tolist() == qp.get_support().tolist()
    with pytest.raises(InputError, match="'scale_rule' parameter"):
        MulticlassAROM(scale_rule="max").fit(X, y)
