"""E2/E3 runner: one run per method equals separate runs, resumability, validation, CLI."""

import numpy as np
import pytest

import zeronorm_opt.experiments.microarray_selection as ms
from zeronorm_opt.cli import main
from zeronorm_opt.datasets import load_microarray
from zeronorm_opt.estimators import support_at_budget
from zeronorm_opt.estimators.baselines import SVMRFE, FisherScore
from zeronorm_opt.estimators.r2w2 import R2W2
from zeronorm_opt.estimators.zero_norm import AROM, FSV
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.experiments.catalogue import load_problem
from zeronorm_opt.experiments.microarray_selection import (
    MicroarrayConfig,
    config_from_spec,
    rfe_path,
    run_microarray,
    selection_path,
    split_indices,
    summarise_microarray,
)

GRID = (2000, 1000, 500, 250, 100, 50, 20)


def _load(name):
    try:
        return load_microarray(name, impute=None)
    except FileNotFoundError:
        pytest.skip(f"{name}.npz not available (set ZERONORM_OPT_DATA to the data folder)")


@pytest.fixture(scope="module")
def colon_split():
    """The standardised training part of colon split 0 (50 × 2000), as the runner makes it."""
    data = _load("colon")
    Xtr, ytr, _, _ = ms._prepare(MicroarrayConfig(), data.X, data.y, 0)
    return Xtr, ytr


# ---------------------------------------------------------------------------------------------
# one run per method == separate runs at each gene count
# ---------------------------------------------------------------------------------------------
def test_corr_and_r2w2_rankings_equal_separate_fits(colon_split):
    X, y = colon_split
    config = MicroarrayConfig(gene_counts=GRID)
    corr, _ = selection_path("CORR", X, y, config)
    for r in GRID:
        assert np.array_equal(corr[r][0], FisherScore(r).fit(X, y).support_)
    r2w2, _ = selection_path("R2W2", X, y, config)
    for r in (100, 20):
        assert np.array_equal(r2w2[r][0], R2W2(r, radius="variance").fit(X, y).support_)


def test_rfe_path_equals_separate_svmrfe_runs_on_colon(colon_split):
    X, y = colon_split
    path = rfe_path(X, y, GRID, halving_above=125)
    for r in GRID[1:]:
        assert np.array_equal(path[r], SVMRFE(r, halving_above=125).fit(X, y).support_), r
    # Nested: every smaller selection lies inside the larger ones.
    for big, small in zip(GRID, GRID[1:], strict=False):
        assert path[small].sum() == small and np.all(path[big][path[small]])


def test_arom_budget_rule_on_one_history_equals_budgeted_runs(colon_split):
    X, y = colon_split
    path, n_iter = selection_path("l2-AROM", X, y, MicroarrayConfig(gene_counts=GRID))
    assert n_iter > 1
    for r in (2000, 500, 100, 50, 20):
        budgeted = AROM(penalty="l2", n_features_to_select=r).fit(X, y)
        assert np.array_equal(path[r][0], budgeted.support_), r
        assert path[r][1] == 0  # l2-AROM's first iterate is dense: no padding


def test_fsv_budget_rule_and_padding(colon_split):
    X, y = colon_split[0][:, :300], colon_split[1]  # a slice keeps the LPs small
    solver = ["SCIPY", "CLARABEL"]  # CLARABEL for the QP of the budgeted runs' refit
    history = FSV(solver=solver).fit(X, y).history_
    first = history[0].support_size
    for r in (300, 100, first, 10, 3):
        support, padded = support_at_budget(history, r, X.shape[1])
        assert np.array_equal(
            support, FSV(n_features_to_select=r, solver=solver).fit(X, y).support_
        )
        # Genes beyond FSV's first, sparse LP solution are filled in index order: "padded".
        assert padded == (0 if r == X.shape[1] else max(0, r - first))


# ---------------------------------------------------------------------------------------------
# splits and preprocessing
# ---------------------------------------------------------------------------------------------
def test_splits_are_reproducible_and_stratified():
    y = np.array([1] * 40 + [-1] * 22)
    config = MicroarrayConfig()
    train, test = split_indices(config, y, 3)
    again, _ = split_indices(config, y, 3)
    other, _ = split_indices(config, y, 4)
    assert np.array_equal(train, again) and not np.array_equal(np.sort(train), np.sort(other))
    assert len(train) == 50 and len(test) == 12 and set(train).isdisjoint(test)
    assert np.sum(y[test] < 0) == 4  # 22/62 of 12, rounded: class proportions kept


def test_lymphoma_imputed_and_standardised_from_the_training_part_only():
    data = _load("lymphoma")
    config = MicroarrayConfig(dataset="lymphoma", n_train=60, gene_counts=[4026])
    Xtr, ytr, Xte, _ = ms._prepare(config, data.X, data.y, 0)
    assert Xtr.shape == (60, 4026) and Xte.shape == (36, 4026)
    assert np.all(np.isfinite(Xtr)) and np.all(np.isfinite(Xte))
    assert np.allclose(Xtr.mean(axis=0), 0.0, atol=1e-10)
    # Changing the test samples leaves the training part untouched.
    _, test = split_indices(config, data.y, 0)
    X2 = data.X.copy()
    X2[test] = 100.0
    assert np.array_equal(ms._prepare(config, X2, data.y, 0)[0], Xtr)


# ---------------------------------------------------------------------------------------------
# the runner: resumability, table, validation, CLI
# ---------------------------------------------------------------------------------------------
def test_interrupted_run_redoes_only_the_lost_record(tmp_path, monkeypatch):
    _load("colon")
    path = tmp_path / "e2.jsonl"
    config = MicroarrayConfig(n_trials=2, gene_counts=[2000, 100, 20], methods=["CORR", "RFE"])
    first = run_microarray(config, results_path=path)
    assert len(first) == 4
    # Same split for every method of a trial: with all genes the SVMs are the same.
    for t in range(2):
        assert len({r["errors"][0] for r in first if r["trial"] == t}) == 1
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    calls = []
    original = ms.run_trial
    monkeypatch.setattr(ms, "run_trial", lambda *a: calls.append(a) or original(*a))
    messages = []
    second = run_microarray(config, results_path=path, progress=messages.append)
    assert [(c[3], c[4]) for c in calls] == [(1, ["RFE"])]  # only the lost record is redone
    assert any("resuming" in m for m in messages)
    key = lambda r: (r["trial"], r["method"])  # noqa: E731
    assert {key(r): r["errors"] for r in first} == {key(r): r["errors"] for r in second}
    # Other gene counts are another configuration: computed, never mixed with these records.
    other = run_microarray(
        MicroarrayConfig(n_trials=1, gene_counts=[50], methods=["CORR"]), results_path=path
    )
    assert [r["gene_counts"] for r in other] == [[50]]
    assert len(run_microarray(config, results_path=path)) == 4


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dataset": "brown_yeast"}, "dataset"),
        ({"n_train": 0}, "n_train"),
        ({"n_train": 3}, "at least 4"),
        ({"n_trials": 2.5}, "n_trials"),
        ({"gene_counts": []}, "gene_counts"),
        ({"gene_counts": [20, 20]}, "repeated"),
        ({"gene_counts": [0]}, "positive"),
        ({"methods": ["CORR", "LASSO"]}, "unknown methods"),
        ({"methods": ["CORR", "CORR"]}, "without repeats"),
        ({"final_svm_C": -1.0}, "final_svm_C"),
        ({"rfe_halving_above": -1}, "rfe_halving_above"),
        ({"r2w2_radius": "huge"}, "r2w2_radius"),
        ({"impute": "median"}, "impute"),
    ],
)
def test_config_validation(kwargs, match):
    with pytest.raises(InputError, match=match):
        MicroarrayConfig(**kwargs)


def test_settings_the_data_cannot_satisfy_are_rejected():
    _load("colon")
    with pytest.raises(InputError, match="n_train=61"):
        run_microarray(MicroarrayConfig(n_train=61, gene_counts=[20], methods=["CORR"]))
    with pytest.raises(InputError, match="exceeds the 2000 genes"):
        run_microarray(MicroarrayConfig(gene_counts=[3000, 20], methods=["CORR"]))


def test_catalogue_entries_build_valid_configs():
    e2, e3 = config_from_spec(load_problem("e2")), config_from_spec(load_problem("e3"))
    assert (e2.dataset, e2.n_train, e2.gene_counts) == ("colon", 50, GRID)
    assert (e3.dataset, e3.n_train, e3.gene_counts[0]) == ("lymphoma", 60, 4026)
    assert e2.methods == e3.methods == ms.MICROARRAY_METHODS


def test_summary_marks_padding_and_failures():
    config = MicroarrayConfig(n_trials=2, gene_counts=[2000, 20], methods=["FSV"])
    ok = {"method": "FSV", "gene_counts": [2000, 20], "errors": [0.25, 0.5], "padded": [0, 4]}
    failed = {"method": "FSV", "gene_counts": [2000, 20], "errors": None, "padded": None}
    failed.update(trial=1, status="SolverError('...')")
    table = summarise_microarray([ok, failed], config)
    # one successful trial: its error alone (a standard error needs two)
    assert "FSV" + " " * 17 + "25.00" + " " * 10 + "50.00*" in table
    assert "FSV: at r=20, 16.0 genes" in table
    assert "FSV: 1 of 2 trials failed, e.g. trial 1: SolverError" in table


def test_cli_runs_two_trials_and_prints_the_table(capsys, tmp_path):
    _load("colon")
    results = tmp_path / "e2.jsonl"
    argv = ["run", "e2", "--trials", "2", "--methods", "CORR", "l2-AROM"]
    assert main([*argv, "--results", str(results)]) == 0
    captured = capsys.readouterr()
    assert "colon: 50 train / 12 test" in captured.out
    assert "CORR" in captured.out and "l2-AROM" in captured.out and "2/2 units" in captured.err
    assert len(results.read_text().splitlines()) == 4
    assert main(["run", "e2", "--trials", "1", "--train-sizes", "40", "50"]) == 2
    assert "one training size" in capsys.readouterr().err


@pytest.mark.slow
def test_e2_on_twenty_splits_reproduces_the_paper_picture():
    """A short E2 (20 splits): no failure, one split per trial, selection as good as all genes."""
    _load("colon")
    config = config_from_spec(load_problem("e2"), n_trials=20)
    records = run_microarray(config)
    assert len(records) == 20 * 5 and all(r["status"] == "ok" for r in records)
    for t in range(20):  # all genes: the same split and the same SVM for every method
        assert len({r["errors"][0] for r in records if r["trial"] == t}) == 1

    def mean_error(method, r):
        rs = [x["errors"][x["gene_counts"].index(r)] for x in records if x["method"] == method]
        return float(np.mean(rs))

    all_genes = mean_error("CORR", 2000)
    assert all_genes < 0.3
    for method in ("RFE", "l2-AROM"):  # the multivariate selections lose little down to 250
        assert mean_error(method, 250) <= all_genes + 0.05
