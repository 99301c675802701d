"""Experiment E10: quality of the features greedy RLS selects (Pahikkala et al., 2010, §4.2–4.3).

Protocol (that of Pahikkala et al. (2010), with the choices it leaves open marked): for every data
set, stratified ``n_folds``-fold cross-validation (10 in Pahikkala et al.), repeated ``n_repeats``
times with different shuffles *(choice)*. On each training part

1. the features are standardised with the training part's mean and deviation *(choice)*;
2. ``λ`` is chosen by grid search on the LOO accuracy of RLS with **all** features (Pahikkala
   et al.; ties go to the smaller LOO squared error);
3. ``"greedy"`` — greedy RLS (:func:`~zeronorm_opt.fast.greedy_rls.greedy_rls`) adds the
   feature with the best LOO criterion (``selection_loss``: ``"zero_one"``, i.e. LOO accuracy,
   as Pahikkala et al.; or ``"squared"``) until the largest feature count of the grid; after each
   count of the grid the RLS model on the selected features is scored on the test fold, and
   its LOO accuracy on the training part is recorded (Pahikkala et al. §4.3: LOO vs test accuracy);
4. ``"random"`` — the same counts of features drawn at random (nested draws, ``n_random``
   draws averaged), the baseline of Pahikkala et al. (2010).

The classifier is RLS with a constant feature of value ``bias`` in the model from the start
(regularised like the others, which keeps the LOO shortcut exact; Pahikkala et al. have no bias) and
predicts ``+1`` when its output is positive, else ``−1``. The counts larger than a set's
number of features are dropped; the RLS model with all features is recorded too.

Data: ``"colon"`` and ``"leukemia"`` (:func:`~zeronorm_opt.datasets.load_microarray`; skipped
with a message when their ``.npz`` files are not found) and ``"breast_cancer"``
(:func:`sklearn.datasets.load_breast_cancer`, 569 × 30, malignant = +1).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from ..datasets import load_microarray
from ..exceptions import InputError
from .pipeline import Experiment, check_methods
from .report import SPREAD_NOTE, format_mean_se
from .runner import run, run_items
from .yeast_multiclass import cv_splits

__all__ = [
    "E10_DATASETS",
    "E10_METHODS",
    "E10Config",
    "load_e10_dataset",
    "run_e10",
    "summarise_e10",
]

E10_METHODS = ("greedy", "random")
E10_DATASETS = ("colon", "leukemia", "breast_cancer")


@dataclass
class E10Config:
    """Settings of E10 (defaults: problems/e10_greedy_rls_quality.toml)."""

    datasets: Sequence[str] = E10_DATASETS
    n_folds: int = 10
    n_repeats: int = 1
    feature_counts: Sequence[int] = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100, 200, 500, 1000)
    alpha_grid: Sequence[float] = tuple(10.0**k for k in range(-3, 6))
    selection_loss: str = "zero_one"
    bias: float = 1.0
    n_random: int = 10
    methods: Sequence[str] = E10_METHODS
    data_dir: str | None = None
    seed: int = 0
    #: Data sets skipped because their files were not found: name → message (set by run_e10).
    skipped: dict = field(default_factory=dict)

    def __post_init__(self):
        check_methods("E10", self.methods, E10_METHODS)
        bad = [d for d in self.datasets if d not in E10_DATASETS]
        if bad or not self.datasets:
            raise InputError(f"unknown E10 data sets {bad}; choose from {list(E10_DATASETS)}.")
        if self.n_folds < 2 or self.n_repeats < 1 or self.n_random < 1:
            raise InputError("n_folds must be >= 2, n_repeats and n_random >= 1.")
        if not self.feature_counts or any(int(c) < 1 for c in self.feature_counts):
            raise InputError("feature_counts must be a non-empty list of positive integers.")
        if not self.alpha_grid or any(not a > 0 for a in self.alpha_grid):
            raise InputError("alpha_grid must be a non-empty list of positive λ values.")
        if self.selection_loss not in ("zero_one", "squared"):
            raise InputError(
                f"selection_loss must be 'zero_one' (LOO accuracy) or 'squared'; got "
                f"{self.selection_loss!r}."
            )
        if not self.bias >= 0:
            raise InputError(f"bias must be >= 0 (0: no intercept); got {self.bias!r}.")

    def counts_for(self, n_features: int) -> list[int]:
        """The feature counts of the grid that a set with ``n_features`` features allows."""
        return sorted({int(c) for c in self.feature_counts if int(c) <= n_features})


@functools.lru_cache(maxsize=8)
def load_e10_dataset(name: str, data_dir: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``X`` (float64) and ``y`` (±1 floats) of an E10 data set.

    Raises :class:`FileNotFoundError` when a microarray file is missing.

    Examples
    --------
    >>> X, y = load_e10_dataset("breast_cancer")
    >>> X.shape, sorted(set(y.tolist()))
    ((569, 30), [-1.0, 1.0])
    """
    if name == "breast_cancer":
        data = load_breast_cancer()
        # scikit-learn codes malignant as 0: make malignant the positive class.
        return data.data.astype(np.float64), np.where(data.target == 0, 1.0, -1.0)
    if name not in E10_DATASETS:
        raise InputError(f"unknown E10 data set {name!r}; choose from {list(E10_DATASETS)}.")
    data = load_microarray(name, data_dir)
    return data.X, data.y.astype(np.float64)


class _RLSClassifier:
    """RLS on a column subset with the constant bias feature; sign predictions, LOO accuracy."""

    def __init__(self, X, y, alpha: float, bias: float):
        from ..fast.rls import rls_fit

        self.bias = bias
        fit = rls_fit(self._design(X), y, alpha)
        self.coef = fit.coef[:, 0]
        loo = fit.loo_predictions[:, 0]
        self.loo_accuracy = float(np.mean(np.where(loo > 0, 1.0, -1.0) == y))
        self.loo_squared = float(np.mean((loo - y) ** 2))

    def _design(self, X):
        if self.bias > 0:
            return np.hstack([X, np.full((X.shape[0], 1), self.bias)])
        return X

    def accuracy(self, X, y) -> float:
        out = self._design(X) @ self.coef
        return float(np.mean(np.where(out > 0, 1.0, -1.0) == y))


def choose_alpha(X, y, config: E10Config) -> float:
    """λ of the grid with the best LOO accuracy of RLS on all features (ties: lower LOO MSE)."""
    scored = []
    for alpha in config.alpha_grid:
        model = _RLSClassifier(X, y, alpha, config.bias)
        scored.append((-model.loo_accuracy, model.loo_squared, alpha))
    return float(min(scored)[2])


def run_fold(
    config: E10Config, dataset: str, repeat: int, fold: int, methods: Sequence[str]
) -> list[dict]:
    """Greedy RLS and the random baseline on one training / test fold; one record each."""
    from ..fast.greedy_rls import greedy_rls

    X, y = load_e10_dataset(dataset, config.data_dir)
    train, test = cv_splits(y, config, repeat)[fold]
    scaler = StandardScaler().fit(X[train])
    Xtr, Xte, ytr, yte = scaler.transform(X[train]), scaler.transform(X[test]), y[train], y[test]
    alpha = choose_alpha(Xtr, ytr, config)
    everything = _RLSClassifier(Xtr, ytr, alpha, config.bias)
    counts = config.counts_for(X.shape[1])
    base = {
        "dataset": dataset,
        "repeat": repeat,
        "fold": fold,
        "alpha": alpha,
        "counts": counts,
        "all_features_test_accuracy": everything.accuracy(Xte, yte),
        "all_features_loo_accuracy": everything.loo_accuracy,
    }

    def measure(method: str) -> dict:
        if method == "greedy":
            loss, bias = config.selection_loss, config.bias
            res = greedy_rls(Xtr, ytr, counts[-1], alpha, loss=loss, bias=bias)
            order = [res.selected]
            # LOO accuracy by greedy RLS's own rank-one updates (only for the zero-one loss).
            own = 1.0 - res.loo_loss if config.selection_loss == "zero_one" else None
        else:
            rng = np.random.default_rng([config.seed, repeat, fold, E10_DATASETS.index(dataset)])
            order = [rng.permutation(X.shape[1]) for _ in range(config.n_random)]
            own = None
        test_acc, loo_acc = [], []
        for c in counts:
            subsets = [o[:c] for o in order]
            models = [_RLSClassifier(Xtr[:, s], ytr, alpha, config.bias) for s in subsets]
            pairs = zip(models, subsets, strict=True)
            test_acc.append(float(np.mean([m.accuracy(Xte[:, s], yte) for m, s in pairs])))
            loo_acc.append(float(np.mean([m.loo_accuracy for m in models])))
        record = {"test_accuracy": test_acc, "loo_accuracy": loo_acc}
        if method == "greedy":
            record["selected"] = res.selected[: min(counts[-1], 100)].tolist()
            if own is not None:
                # Cross-check: the closed-form refit gives the LOO accuracy the rank-one
                # updates computed during the selection.
                own_at = np.array([own[c - 1] for c in counts])
                record["loo_check_max_diff"] = float(np.max(np.abs(own_at - loo_acc)))
        return record

    return run_items(methods, base, measure, {"test_accuracy": None, "loo_accuracy": None})


def run_e10(config: E10Config | None = None, **options) -> list[dict]:
    """Run E10 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Data sets whose files are missing are skipped (listed in ``config.skipped`` and reported
    through ``progress``).

    Examples
    --------
    >>> import numpy as np
    >>> config = E10Config(datasets=["breast_cancer"], n_folds=3, feature_counts=[1, 5, 30],
    ...                    n_random=2)
    >>> records = run_e10(config)
    >>> len(records), sorted({r["method"] for r in records})
    (6, ['greedy', 'random'])
    >>> greedy = [r for r in records if r["method"] == "greedy"]
    >>> bool(np.mean([r["test_accuracy"][1] for r in greedy]) > 0.9)
    True
    """
    return run(EXPERIMENT, config, **options)


def _check_datasets(config: E10Config, message) -> None:
    # Data sets whose files are missing are skipped, and said so.
    for name in config.datasets:
        try:
            load_e10_dataset(name, config.data_dir)
        except FileNotFoundError as exc:
            config.skipped[name] = str(exc)
            message(f"E10: skipping {name}: {exc}")


def _curve_cells(records: list[dict], field: str) -> list[str]:
    """``mean ± SE`` (in %) of ``field`` at each number of features, over the folds."""
    values = np.asarray([r[field] for r in records], dtype=float)
    return [format_mean_se(column, 100, 1) for column in values.T]


def summarise_e10(records: list[dict], config: E10Config) -> str:
    """Per data set: test and LOO accuracy against the number of selected features."""
    lines = [
        f"E10 greedy RLS quality: stratified {config.n_folds}-fold CV x {config.n_repeats}, "
        f"λ by LOO accuracy on all features, selection by LOO {config.selection_loss} loss, "
        f"random baseline averaged over {config.n_random} draws; accuracies in %, "
        f"{SPREAD_NOTE} over the folds"
    ]
    for name in config.datasets:
        if name in config.skipped:
            lines += ["", f"{name}: skipped — {config.skipped[name]}"]
            continue
        rs = [r for r in records if r["dataset"] == name and r["status"] == "ok"]
        if not rs:
            lines += ["", f"{name}: no successful fold"]
            continue
        counts = rs[0]["counts"]
        alphas = [r["alpha"] for r in rs if r["method"] == rs[0]["method"]]
        everything_test = 100 * np.mean([r["all_features_test_accuracy"] for r in rs])
        everything_loo = 100 * np.mean([r["all_features_loo_accuracy"] for r in rs])
        head = f"{'features':>9}"
        curves = {}
        for method in config.methods:
            mine = [r for r in rs if r["method"] == method]
            if mine:
                curves[method] = (
                    _curve_cells(mine, "test_accuracy"),
                    _curve_cells(mine, "loo_accuracy"),
                )
                head += f"{method + ' test':>16}{method + ' LOO':>15}"
        lines += [
            "",
            f"{name}: {len(alphas)} folds, median λ = {np.median(alphas):g}; all features: test "
            f"{everything_test:.1f}, LOO {everything_loo:.1f}",
            head,
            "-" * len(head),
        ]
        for i, c in enumerate(counts):
            row = f"{c:>9}"
            for test, loo in curves.values():
                row += f"{test[i]:>16}{loo[i]:>15}"
            lines.append(row)
        checks = [r["loo_check_max_diff"] for r in rs if "loo_check_max_diff" in r]
        if checks:
            lines.append(
                f"greedy RLS's own LOO accuracy vs a closed-form refit: max difference "
                f"{max(checks):.2g}"
            )
    return "\n".join(lines)


def _tidy(records: list[dict], config: E10Config) -> list[dict]:
    # One row per (record, feature count): test error and LOO error, for the report.
    return [
        {
            "method": r["method"], "dataset": r["dataset"], "features": c,
            "error": 1.0 - test, "loo_error": 1.0 - loo, "status": r["status"],
        }
        for r in records
        if r.get("test_accuracy") is not None
        for c, test, loo in zip(r["counts"], r["test_accuracy"], r["loo_accuracy"], strict=True)
    ]  # fmt: skip


def plot_e10(records: list[dict], config: E10Config, folder) -> list:
    """Per data set: test error (and greedy RLS's LOO error) against the number of features."""
    from .report import plot_panels

    out = []
    rows = _tidy(records, config)
    for name in dict.fromkeys(r["dataset"] for r in rows):
        curves = [{**r, "curve": f"{r['method']}: test"} for r in rows if r["dataset"] == name]
        curves += [
            {**r, "curve": f"{r['method']}: LOO", "error": r["loo_error"]}
            for r in rows
            if r["dataset"] == name and r["method"] == "greedy"
        ]
        out.append(
            plot_panels(
                curves, "features", [("error", "error %", 100.0)],
                folder / f"e10_{name}_error_vs_features.png", by="curve", log="x",
                title=f"E10 {name}: error against the number of selected features",
                xlabel="features selected",
            )
        )  # fmt: skip
    return out


EXPERIMENT = Experiment(
    id="e10",
    module=__name__,
    spec_keys=(
        "datasets", "n_folds", "n_repeats", "feature_counts", "alpha_grid", "selection_loss",
        "bias", "n_random", "methods",
    ),
    config_class=E10Config,
    run_unit="run_fold",
    units=lambda c: [
        {"dataset": name, "repeat": r, "fold": f}
        for name in c.datasets if name not in c.skipped
        for r in range(c.n_repeats) for f in range(c.n_folds)
    ],  # fmt: skip
    prepare=_check_datasets,
    summarise=summarise_e10,
    trial_field="repeat",
    fold_field="fold",
    setting_fields=("dataset",),
    sweep_fields=("datasets", "skipped"),
    train_size_field=None,
    tidy=_tidy,
    plots=plot_e10,
    group_fields=("dataset", "features"),
    metrics=(("error", "test error %", 100.0), ("loo_error", "LOO error %", 100.0)),
    data="colon.npz, leukemia.npz in $ZERONORM_OPT_DATA (skipped if absent); breast_cancer "
    "ships with scikit-learn",
    cost="3 data sets × 10 folds: about 10 min on 2 cores",
)
