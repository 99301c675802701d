"""The relaxation ladder: the exact row is a lower bound every relaxation respects."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from matplotlib.container import BarContainer
from scipy.optimize import linprog

from zeronorm_opt import InputError
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.ladder import (
    LADDER_METHODS,
    ladder_over_draws,
    relaxation_ladder,
    summarise_ladder,
    support_objective,
)

# the rungs that solve margin problems: their supports carry a separator by construction
MARGIN_RUNGS = ("l1-AROM", "l2-AROM", "FSV", "l1 SVM", "bridge q=0.5", "Lasso")


def separable_on(X, y, support) -> bool:
    """Independent check (scipy's LP): is there (w, b) on ``support`` with y(w·x + b) ≥ 1?"""
    Xs = X[:, support]
    A = -np.hstack([y[:, None] * Xs, y[:, None]])
    res = linprog(
        np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(len(y)), bounds=[(None, None)] * A.shape[1]
    )
    return res.status == 0


def draw(seed, m=24, n=12):
    X, y = make_weston_linear(m + 200, n_features=n, random_state=seed)
    return X[:m], y[:m], X[m:], y[m:]


@pytest.fixture(scope="module")
def ladders():
    return [relaxation_ladder(*draw(seed), time_limit=60) for seed in range(3)]


def test_exact_row_is_never_beaten(ladders):
    for ladder in ladders:
        assert ladder.exact_gap == 0.0  # proven optimal on these small problems
        exact = ladder["exact"]
        assert exact.feasible
        for row in ladder.rows:
            if row.feasible:
                assert row.support_size >= exact.support_size, row.method
                assert row.gap >= 0


def test_relaxation_supports_are_feasible(ladders):
    for seed, ladder in enumerate(ladders):
        X, y, _, _ = draw(seed)
        y = np.where(y > 0, 1.0, -1.0)
        for method in MARGIN_RUNGS + ("exact",):
            row = ladder[method]
            assert row.support.any()
            assert separable_on(X, y, row.support), method
            assert row.feasible


def test_exact_row_equals_enumeration():
    X, y, _, _ = draw(4, m=20, n=8)
    y = np.where(y > 0, 1.0, -1.0)
    ladder = relaxation_ladder(X, y, methods=["exact", "l1 SVM"])
    best = next(
        k for k in range(9) if any(separable_on(X, y, list(s)) for s in combinations(range(8), k))
    )
    assert ladder["exact"].support_size == best


def test_soft_margin_exact_objective_is_lowest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 10))
    y = np.sign(X[:, 0] + X[:, 1] + rng.normal(size=30))  # noisy: not separable
    ladder = relaxation_ladder(X, y, C=0.5, methods=["exact", "l1-AROM", "FSV", "l1 SVM"])
    exact = ladder["exact"].objective
    for row in ladder.rows:
        assert row.objective >= exact - 1e-6, row.method
    # the objective column is |S| + C·(least hinge loss on S)
    for row in ladder.rows:
        assert row.objective == pytest.approx(support_objective(X, y, row.support, 0.5))


def test_table_plot_and_summary():
    results = ladder_over_draws(lambda s: draw(s, n=10), 2, methods=["exact", "l1 SVM"])
    text = results[0].to_text()
    assert "exact" in text and "l1 SVM" in text
    fig = results[0].plot()
    assert len(fig.axes) == 2
    summary = summarise_ladder(results)
    assert [s["method"] for s in summary] == ["exact", "l1 SVM"]
    assert summary[0]["frac_exact"] == 1.0 and summary[0]["max_gap"] == 0.0
    assert summary[1]["mean_gap"] >= 0
    assert 0.0 <= summary[1]["mean_test_error"] <= 1.0


def test_bad_input_is_typed():
    X, y, Xt, _ = draw(0, n=8)
    with pytest.raises(InputError, match="unknown ladder methods"):
        relaxation_ladder(X, y, methods=["exact", "magic"])
    with pytest.raises(InputError, match="both X_test and y_test"):
        relaxation_ladder(X, y, Xt)
    assert "exact" in LADDER_METHODS


# ---------------------------------------------------------------------------------------------
# The figure and the gap column say what is known
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def colon_unproven():
    """Colon on its 100 highest-variance genes, one 50-sample split, the exact search stopped
    by a time limit too short to exclude the pairs: an incumbent above the proven bound."""
    from zeronorm_opt.datasets.microarray import load_microarray

    try:
        data = load_microarray("colon")
    except FileNotFoundError:
        pytest.skip("colon data not found (set ZERONORM_OPT_DATA)")
    X, y = data.X[:, np.argsort(data.X.var(axis=0))[::-1][:100]], data.y
    train = np.random.default_rng(0).permutation(X.shape[0])[:50]
    X = (X - X[train].mean(axis=0)) / X[train].std(axis=0)
    X, y = X[train], np.where(y[train] > 0, 1.0, -1.0)
    ladder = relaxation_ladder(X, y, methods=["exact", "FSV", "greedy RLS"], time_limit=1e-4)
    return X, y, ladder


def _exact_interval(ax):
    return [c for c in ax.containers if c.get_label().startswith("exact: proven bound")]


def test_unproven_exact_row_is_drawn_as_an_interval(colon_unproven):
    _, _, ladder = colon_unproven
    exact = ladder["exact"]
    assert not ladder.exact_proven and ladder.exact_gap > 0
    assert ladder.exact_bound < exact.support_size  # what was proved vs what was found
    fig = ladder.plot()
    ax = fig.axes[0]
    # no bar at the exact row's position: a bar would read as an optimum
    bars = [bar for c in ax.containers if isinstance(c, BarContainer) for bar in c]
    assert len(bars) == 2  # FSV and greedy RLS
    assert all(abs(bar.get_x() + bar.get_width() / 2) > 0.25 for bar in bars)
    (interval,) = _exact_interval(ax)
    (segment,) = interval.lines[2][0].get_segments()
    assert sorted(segment[:, 1]) == pytest.approx([ladder.exact_bound, exact.support_size])
    assert "not proven optimal" in ladder.to_text()


def test_infeasible_support_has_no_size_gap(colon_unproven):
    X, y, ladder = colon_unproven
    row = ladder["greedy RLS"]
    assert not separable_on(X, y, row.support)  # independent check: no separator on S
    assert not row.feasible and row.gap == np.inf
    line = next(li for li in ladder.to_text().splitlines() if li.startswith("greedy RLS"))
    assert line.split()[3:5] == ["infeasible", "infeasible"]  # objective and gap columns
    summary = {s["method"]: s for s in summarise_ladder([ladder])}
    assert summary["greedy RLS"]["frac_infeasible"] == 1.0
    assert summary["greedy RLS"]["frac_exact"] == 0.0
    assert np.isnan(summary["greedy RLS"]["mean_gap"])


def test_no_test_set_no_test_error_panel():
    X, y, Xt, yt = draw(1, n=10)
    without = relaxation_ladder(X, y, methods=["exact", "l1 SVM"])
    assert len(without.plot().axes) == 1
    fig = relaxation_ladder(X, y, Xt, yt, methods=["exact", "l1 SVM"]).plot()
    assert len(fig.axes) == 2 and "test error" in fig.axes[1].get_ylabel()
    # a proven exact row is a bar with the optimum's dashed line, no interval
    assert without.exact_proven and not _exact_interval(without.plot().axes[0])


# ---------------------------------------------------------------------------------------------
# the stored full-set ladders of the docs (docs/methods/relaxation_ladder_microarray.json)
# ---------------------------------------------------------------------------------------------
STORED = Path(__file__).resolve().parent.parent / "docs/methods/relaxation_ladder_microarray.json"


def _full_set(name):
    from zeronorm_opt.datasets.microarray import load_microarray

    try:
        data = load_microarray(name, impute="mean")
    except FileNotFoundError:
        pytest.skip(f"{name} data not found (set ZERONORM_OPT_DATA)")
    X = np.log10(data.X) if name == "colon" else data.X
    return X, data.y


@pytest.mark.parametrize(
    "name", ["colon", pytest.param("lymphoma", marks=pytest.mark.slow)]
)  # fmt: skip
def test_stored_exact_row_is_certified(name):
    """The exact row the docs draw: its certificate re-checked from the data, its separator's
    margins checked, and no rung of the stored ladder below the certified bound."""
    from zeronorm_opt.exact import SeparabilityCertificate, check_certificate

    entry = json.loads(STORED.read_text())[name]
    exact = entry["exact"]
    X, y = _full_set(name)
    # the stored weights are on the standardised data, as the script solved it
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    coef = np.zeros(X.shape[1])
    coef[exact["support"]] = exact["coef"]
    certificate = SeparabilityCertificate.from_dict(exact["certificate"])
    bound = check_certificate(Z, y, certificate, support=exact["support"], coef=coef,
                              intercept=exact["intercept"])  # fmt: skip
    assert bound == exact["lower_bound"] >= 2
    separating = [r for r in entry["rows"] if r["feasible"]]
    assert all(r["support_size"] >= bound for r in separating)
    if name == "colon":
        assert bound == len(exact["support"])  # proven optimal
