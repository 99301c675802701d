"""E9, E10, E11: their data generators, runners (records, resumability, cross-checks) and CLI."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import zeronorm_opt.experiments.greedy_rls_quality as e10
import zeronorm_opt.experiments.greedy_rls_scaling as e9
import zeronorm_opt.experiments.lasso_recovery as e11
from zeronorm_opt.cli import main
from zeronorm_opt.datasets.synthetic_regression import (
    SPARSE_COEF_RANGE,
    make_sparse_regression,
    make_two_gaussians,
)
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.experiments.catalogue import load_problem


def _truncate_last_line(path):
    """Simulate an interruption that cut the last record in half."""
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])


def _spy(monkeypatch, module, name):
    calls, original = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: calls.append(a) or original(*a))
    return calls


# ------------------------------------------------------------------------------- generators


def test_two_gaussians_differ_only_in_the_informative_means():
    X, y = make_two_gaussians(4000, 12, n_informative=4, random_state=0, separation=2.0)
    assert X.shape == (4000, 12) and set(np.unique(y)) == {-1, 1} and (y == 1).sum() == 2000
    gap = X[y == 1].mean(axis=0) - X[y == -1].mean(axis=0)
    np.testing.assert_allclose(gap[:4], 2.0, atol=0.15)
    np.testing.assert_allclose(gap[4:], 0.0, atol=0.15)
    # Identity covariance within each class.
    for label in (-1, 1):
        cov = np.cov(X[y == label], rowvar=False)
        np.testing.assert_allclose(cov, np.eye(12), atol=0.12)
    again = make_two_gaussians(4000, 12, n_informative=4, random_state=0, separation=2.0)
    assert np.array_equal(X, again[0]) and np.array_equal(y, again[1])


def test_sparse_regression_design_and_noise():
    Phi, y, coef = make_sparse_regression(40, 150, 6, noise=0.3, random_state=3, return_coef=True)
    assert Phi.shape == (40, 150) and y.shape == (40,)
    np.testing.assert_allclose((Phi**2).sum(axis=0), 40.0)  # ‖φ_j‖² = n
    nonzero = coef[coef != 0]
    assert nonzero.size == 6
    assert np.all(
        (np.abs(nonzero) >= SPARSE_COEF_RANGE[0]) & (np.abs(nonzero) <= SPARSE_COEF_RANGE[1])
    )
    Phi0, y0, coef0 = make_sparse_regression(40, 150, 6, random_state=3, return_coef=True)
    # Same design and coefficients without noise (the noise is drawn last).
    assert np.array_equal(Phi, Phi0) and np.array_equal(coef, coef0)
    np.testing.assert_allclose(y0, Phi0 @ coef0)
    assert 0.1 < np.std(y - y0) < 0.5


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: make_two_gaussians(1, 5), "n_samples"),
        (lambda: make_two_gaussians(10, 5, n_informative=6), "exceeds n_features"),
        (lambda: make_two_gaussians(10, 5, separation=-1.0), "separation"),
        (lambda: make_two_gaussians(10, 2.5), "n_features"),
        (lambda: make_sparse_regression(10, 5, 6), "exceeds n_features"),
        (lambda: make_sparse_regression(10, 5, 0), "n_nonzero"),
        (lambda: make_sparse_regression(10, 50, 2, noise=float("nan")), "noise"),
    ],
)
def test_generator_input_errors(call, match):
    with pytest.raises(InputError, match=match):
        call()


# ---------------------------------------------------------------------------------------- E9


def test_e9_lowrank_selects_the_greedy_features_and_resumes(tmp_path, monkeypatch):
    path = tmp_path / "e9.jsonl"
    config = e9.E9Config(
        train_sizes=[50, 80, 150],
        n_features=30,
        n_informative=4,
        separation=3.0,
        n_selected=5,
        lowrank_max_m=80,
        lowrank_rounds=2,
    )
    first = e9.run_e9(config, results_path=path)
    cells = sorted((r["m"], r["method"]) for r in first)
    assert cells == [(50, "greedy-rls"), (50, "lowrank"), (80, "greedy-rls"), (80, "lowrank"),
                     (150, "greedy-rls")]  # fmt: skip
    by = {(r["m"], r["method"]): r for r in first}
    # Full check at the smallest m: Algorithm 2 selects exactly greedy RLS's 5 features.
    full = by[(50, "lowrank")]
    assert full["rounds"] == 5 and not full["extrapolated"] and full["same_as_greedy"]
    assert full["selected"] == by[(50, "greedy-rls")]["selected"]
    # Above it only 2 rounds, extrapolated to 5, and still the same first features.
    part = by[(80, "lowrank")]
    assert part["rounds"] == 2 and part["extrapolated"] and part["same_as_greedy"]
    assert part["seconds"] == pytest.approx(part["measured_seconds"] * 5 / 2)
    # Strongly separated informative features are the ones selected first.
    assert set(by[(150, "greedy-rls")]["selected"][:4]) == {0, 1, 2, 3}

    _truncate_last_line(path)  # the last record written: greedy RLS at m = 150
    calls = _spy(monkeypatch, e9, "run_size")
    second = e9.run_e9(config, results_path=path)
    assert calls == [(config, 0, 150, ["greedy-rls"])]
    assert sorted((r["m"], r["method"]) for r in second) == cells
    table = e9.summarise_e9(second, config)
    assert "(extrapolated)" in table and "yes (all 5)" in table and "12 min" in table
    # Raising the low-rank limit later computes only the new cell; greedy RLS's first features
    # are recomputed inside the unit for the comparison. (A fresh file: the record redone
    # after a cut line is glued to the fragment by ResultsStore.append.)
    fresh = tmp_path / "e9b.jsonl"
    e9.run_e9(config, results_path=fresh)
    calls.clear()
    wider = dataclasses.replace(config, lowrank_max_m=150)
    third = {(r["m"], r["method"]): r for r in e9.run_e9(wider, results_path=fresh)}
    assert calls == [(wider, 0, 150, ["lowrank"])]
    assert third[(150, "lowrank")]["rounds"] == 2 and third[(150, "lowrank")]["same_as_greedy"]


def test_e9_config_errors():
    with pytest.raises(InputError, match="unknown E9 methods"):
        e9.E9Config(methods=["greedy-rls", "wrapper"])
    with pytest.raises(InputError, match="n_selected"):
        e9.E9Config(n_features=10, n_selected=20)
    with pytest.raises(InputError, match="alpha"):
        e9.E9Config(alpha=0.0)


# --------------------------------------------------------------------------------------- E10

E10_SMALL = dict(datasets=["breast_cancer"], n_folds=3, feature_counts=[1, 2, 5, 30], n_random=3)


def test_e10_records_cross_checks_and_resume(tmp_path, monkeypatch):
    path = tmp_path / "e10.jsonl"
    config = e10.E10Config(**E10_SMALL)
    first = e10.run_e10(config, results_path=path)
    assert len(first) == 6 and all(r["status"] == "ok" for r in first)
    for r in first:
        assert r["counts"] == [1, 2, 5, 30] and r["alpha"] in config.alpha_grid
        # With all 30 features selected the model is RLS on all features, whatever the order.
        assert r["test_accuracy"][-1] == pytest.approx(r["all_features_test_accuracy"])
        assert r["loo_accuracy"][-1] == pytest.approx(r["all_features_loo_accuracy"])
    greedy = [r for r in first if r["method"] == "greedy"]
    random = [r for r in first if r["method"] == "random"]
    # Greedy RLS's own LOO accuracies (rank-one updates) equal those of closed-form refits.
    assert max(r["loo_check_max_diff"] for r in greedy) < 1e-12
    # The LOO criterion picks informative features: better than random ones at small counts.
    g = np.mean([r["test_accuracy"][:2] for r in greedy])
    rnd = np.mean([r["test_accuracy"][:2] for r in random])
    assert g > rnd + 0.03 and g > 0.88

    _truncate_last_line(path)
    calls = _spy(monkeypatch, e10, "run_fold")
    second = e10.run_e10(config, results_path=path)
    assert len(calls) == 1 and calls[0][1:] == ("breast_cancer", 0, 2, ["random"])
    assert len(second) == 6
    table = e10.summarise_e10(second, config)
    assert "greedy test" in table and "random LOO" in table and "max difference" in table
    # The spread is stated once, then every cell is mean ± SE (two methods × test and LOO).
    cells = 2 * 2 * len(config.feature_counts)
    assert "standard error" in table and table.count("±") == 1 + cells


def test_e10_skips_missing_microarray_data(monkeypatch):
    def missing(name, data_dir=None):
        raise FileNotFoundError(f"{name}.npz not found in [...]")

    monkeypatch.setattr(e10, "load_microarray", missing)
    e10.load_e10_dataset.cache_clear()
    try:
        messages = []
        config = e10.E10Config(**{**E10_SMALL, "datasets": ["colon", "breast_cancer"]})
        records = e10.run_e10(config, progress=messages.append)
        assert {r["dataset"] for r in records} == {"breast_cancer"}
        assert any("skipping colon" in m for m in messages)
        assert "colon: skipped" in e10.summarise_e10(records, config)
    finally:
        e10.load_e10_dataset.cache_clear()


def test_e10_config_errors(capsys):
    with pytest.raises(InputError, match="unknown E10 data sets"):
        e10.E10Config(datasets=["iris"])
    with pytest.raises(InputError, match="selection_loss"):
        e10.E10Config(selection_loss="hinge")
    with pytest.raises(InputError, match="alpha_grid"):
        e10.E10Config(alpha_grid=[1.0, -1.0])
    assert main(["run", "e10", "--train-sizes", "40"]) == 2
    assert "no training sizes" in capsys.readouterr().err


@pytest.mark.slow
def test_e10_colon_loo_is_over_optimistic():
    """Seed 002 §4.3: on colon (62 × 2000) the LOO accuracy of the selected features
    overestimates the test accuracy."""
    try:
        e10.load_e10_dataset("colon")
    except FileNotFoundError:
        pytest.skip("colon.npz not available (set ZERONORM_OPT_DATA to the data folder)")
    config = e10.E10Config(datasets=["colon"], feature_counts=[5, 10, 20], n_random=2)
    greedy = [r for r in e10.run_e10(config) if r["method"] == "greedy"]
    loo = np.mean([r["loo_accuracy"] for r in greedy])
    test = np.mean([r["test_accuracy"] for r in greedy])
    assert loo > test + 0.03


# --------------------------------------------------------------------------------------- E11


def test_e11_solvers_agree_and_basis_pursuit_recovers(tmp_path, monkeypatch):
    path = tmp_path / "e11.jsonl"
    config = e11.E11Config(
        train_sizes=[30], n_features=90, n_nonzero=3, noise=0.05, n_trials=2,
        lambda_ratios=[0.03, 0.3, 0.1],
    )  # fmt: skip
    assert config.lambda_ratios == (0.3, 0.1, 0.03)  # sorted large to small (warm starts)
    first = e11.run_e11(config, results_path=path)
    assert len(first) == 10 and all(r["status"] == "ok" for r in first)
    for trial in (0, 1):
        rs = {r["method"]: r for r in first if r["trial"] == trial}
        Phi, y, truth = make_sparse_regression(
            30, 90, 3, noise=0.05,
            random_state=int(np.random.default_rng([0, trial, 30]).integers(2**31)),
            return_coef=True,
        )  # fmt: skip
        assert rs["FISTA"]["lambda_max"] == pytest.approx(e11.lambda_max(Phi, y))
        assert rs["cvxpy"]["max_diff_to_cvxpy"] == [0.0, 0.0, 0.0]
        for m in ("ISTA", "FISTA", "sklearn"):
            # Same minimiser: sklearn was called with α = λ/2 (its objective is half of ours).
            assert max(rs[m]["max_diff_to_cvxpy"]) < 1e-5
            assert rs[m]["support"] == rs["cvxpy"]["support"]
            assert max(rs[m]["relative_gap"]) < 1e-6 and all(rs[m]["converged"])
        assert rs["FISTA"]["iterations"][-1] <= rs["ISTA"]["iterations"][-1]
        # Recorded recovery is that of the support against the truth.
        true_support = np.flatnonzero(truth).tolist()
        for i, support in enumerate(rs["FISTA"]["support"]):
            hits = len(set(support) & set(true_support))
            assert rs["FISTA"]["recall"][i] == hits / 3
            assert rs["FISTA"]["exact"][i] == (support == true_support)
        # Smaller λ: a larger support and, at the smallest, every true feature found.
        sizes = rs["cvxpy"]["support_size"]
        assert sizes == sorted(sizes) and rs["cvxpy"]["recall"][-1] == 1.0
        assert rs["BP"]["exact"] and rs["BP"]["max_error"] < 1e-6
    _truncate_last_line(path)
    calls = _spy(monkeypatch, e11, "run_trial")
    second = e11.run_e11(config, results_path=path)
    assert calls == [(config, 1, 30, ["BP"])] and len(second) == 10
    table = e11.summarise_e11(second, config)
    assert "Δβ sklearn" in table and "basis pursuit" in table and "exact support in 2/2" in table


def test_e11_config_and_cli(capsys):
    with pytest.raises(InputError, match="p > n"):
        e11.E11Config(train_sizes=[500], n_features=400)
    with pytest.raises(InputError, match="lambda_ratios"):
        e11.E11Config(lambda_ratios=[0.5, 2.0])
    with pytest.raises(InputError, match="unknown E11 methods"):
        e11.E11Config(methods=["ISTA", "OMP"])
    assert main(["run", "e11", "--train-sizes", "400"]) == 2
    assert "p > n" in capsys.readouterr().err
    args = ["run", "e11", "--train-sizes", "40", "--trials", "1", "--methods", "sklearn", "BP"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "n = 40 (p/n = 10.0)" in out and "sklearn" in out and "basis pursuit" in out


def test_cli_e9_and_catalogue(capsys):
    for pid, runner in (("e9", "greedy_rls_scaling"), ("e10", "greedy_rls_quality"),
                        ("e11", "lasso_recovery")):  # fmt: skip
        assert load_problem(pid)["runner"] == runner
    assert load_problem("e9")["n_features"] == 1000 and load_problem("e9")["n_selected"] == 50
    assert main(["run", "e9", "--train-sizes", "60", "--methods", "greedy-rls"]) == 0
    out = capsys.readouterr().out
    assert "E9 greedy RLS scaling" in out and "here: not run" in out
