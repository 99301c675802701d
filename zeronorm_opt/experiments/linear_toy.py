"""Experiment E1: the linear toy problem of the zero-norm paper (Weston et al. 2003).

For each trial and training size: draw ``n_train + n_test`` points of
:func:`~zeronorm_opt.datasets.make_weston_linear` (standardised as the paper does), let each
method select ``n_features_to_select`` features on the training part, train a soft-margin
linear SVM on the selected features, and measure the test error. The "SVM" row trains on all
features. Also counted: trials where the selected pair is two relevant, non-redundant
features (one of each group).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.svm import SVC

from ..datasets import WESTON_LINEAR_GROUPS, make_weston_linear
from ..exceptions import InputError
from .pipeline import Experiment, check_methods
from .report import SPREAD_NOTE, mean_se_cell
from .runner import run, run_items

#: The rows of E1: the plain SVM (no selection), then the selectors of :func:`e1_selector`.
E1_METHODS = ("SVM", "CORR", "RFE", "R2W2", "FSV", "l2-AROM", "l1-AROM")


def e1_selector(name: str, k: int):
    """The selector of the E1 row ``name`` keeping ``k`` features (None for the plain SVM).

    The estimators are imported here, when a trial runs: listing and showing E1 import no
    solver library.
    """
    from ..estimators.baselines import SVMRFE, FisherScore
    from ..estimators.r2w2 import R2W2
    from ..estimators.zero_norm import AROM, FSV

    factories = {
        "SVM": lambda: None,
        "CORR": lambda: FisherScore(n_features_to_select=k),
        # The RFE of Weston et al. (2003): half of the remaining features per step while many
        # remain, then one.
        "RFE": lambda: SVMRFE(n_features_to_select=k),
        "R2W2": lambda: R2W2(n_features_to_select=k, radius="variance"),
        "FSV": lambda: FSV(n_features_to_select=k),
        "l2-AROM": lambda: AROM(penalty="l2", n_features_to_select=k),
        "l1-AROM": lambda: AROM(penalty="l1", n_features_to_select=k),
    }
    return factories[name]()


#: Why E1 has no paper markers: the text of Weston et al. (2003) available to the project
#: prints every number as "123", so Table 1's errors cannot be read (the protocol's constants
#: come from the project's specification instead).
PAPER_NOTE = (
    "paper: Weston et al. (2003), Table 1 prints every number as '123' in the text available "
    "here, so no paper markers"
)


@dataclass
class E1Config:
    """Settings of E1 (defaults: problems/e1_linear_toy.toml)."""

    train_sizes: Sequence[int] = (10, 20, 30)
    n_trials: int = 100
    n_test: int = 500
    n_features: int = 202
    n_features_to_select: int = 2
    final_svm_C: float = 1.0
    methods: Sequence[str] = E1_METHODS
    seed: int = 0
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        check_methods("E1", self.methods, E1_METHODS)
        if any(int(s) < 2 for s in self.train_sizes):
            raise InputError("every training size must be at least 2.")
        if self.n_trials < 1 or self.n_test < 1:
            raise InputError("n_trials and n_test must be positive.")
        if not self.final_svm_C > 0:
            raise InputError(f"final_svm_C must be > 0; got {self.final_svm_C!r}.")


def run_trial(config: E1Config, trial: int, n_train: int, methods: Sequence[str]) -> list[dict]:
    """All requested methods on one draw; returns one record per method."""
    # One seed per (trial, size): every method sees the same data; reruns are identical.
    rng = np.random.default_rng([config.seed, trial, n_train])
    X, y = make_weston_linear(
        n_train + config.n_test, config.n_features, random_state=int(rng.integers(2**31))
    )
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]

    def measure(name: str) -> dict:
        selector = e1_selector(name, config.n_features_to_select)
        if selector is None:
            selected = np.arange(X.shape[1])
        else:
            selected = np.flatnonzero(selector.fit(Xtr, ytr).get_support())
        svm = SVC(kernel="linear", C=config.final_svm_C).fit(Xtr[:, selected], ytr)
        error = float(np.mean(svm.predict(Xte[:, selected]) != yte))
        if selector is None:
            return {"error": error, "selected": None, "relevant_pair": None}
        kept = [int(j) for j in selected]
        # A relevant pair: one feature of each redundant group and nothing else.
        pair = len(kept) == 2 and all(len(set(kept) & set(g)) == 1 for g in WESTON_LINEAR_GROUPS)
        return {"error": error, "selected": kept, "relevant_pair": pair}

    failed = {"error": None, "selected": None, "relevant_pair": None}
    return run_items(methods, {"trial": trial, "n_train": n_train}, measure, failed, labels=ytr)


def run_e1(config: E1Config | None = None, **options) -> list[dict]:
    """Run E1 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Examples
    --------
    >>> records = run_e1(E1Config(train_sizes=[20], n_trials=1, methods=["SVM", "l1-AROM"]))
    >>> sorted(r["method"] for r in records)
    ['SVM', 'l1-AROM']
    """
    return run(EXPERIMENT, config, **options)


def summarise_e1(records: list[dict], config: E1Config) -> str:
    """The E1 table: test error % (mean ± standard error) per method and size, and the
    relevant-pair count."""
    sizes = list(config.train_sizes)
    head = f"{'method':<9}" + "".join(f"{f'm={s} error %':>18}{'pairs':>7}" for s in sizes)
    lines = [
        f"E1 linear toy: {config.n_features} features, select {config.n_features_to_select}, "
        f"test {config.n_test}; trials per size: {config.n_trials}",
        head,
        "-" * len(head),
    ]
    for method in config.methods:
        row = f"{method:<9}"
        for s in sizes:
            rs = [r for r in records if r["method"] == method and r["n_train"] == s]
            cell = mean_se_cell(rs, "error", 100)
            pairs = [r["relevant_pair"] for r in rs if r["relevant_pair"] is not None]
            row += f"{cell:>18}{(str(sum(pairs)) if pairs else '-'):>7}"
        lines.append(row)
    lines += [
        "",
        f"error %: test error on {config.n_test} fresh points of a linear SVM trained on the "
        f"{config.n_features_to_select} selected features (SVM: on all {config.n_features}), "
        f"{SPREAD_NOTE} over the trials;",
        f"pairs: trials (out of {config.n_trials} per size) whose "
        f"{config.n_features_to_select} selected features are relevant and non-redundant "
        "(one of x1..x3 and one of x4..x6); m: training-set size.",
    ]
    return "\n".join(lines)


def plot_e1(records: list[dict], config: E1Config, folder) -> list:
    """Test error against the training size, and how often each feature is selected."""
    from .report import ERROR_PANEL, plot_panels, plot_selection_frequency

    return [
        plot_panels(
            records, "n_train", [ERROR_PANEL], folder / "e1_error_vs_train_size.png",
            title="E1 linear toy: test error against the training size",
            xlabel="training-set size m", note=PAPER_NOTE,
        ),
        plot_selection_frequency(
            records, "selected", config.n_features, folder / "e1_selection_frequency.png",
            title="E1: selection frequency per feature, all sizes (x1..x6 relevant)", first=12,
        ),
    ]  # fmt: skip


EXPERIMENT = Experiment(
    id="e1",
    module=__name__,
    spec_keys=(
        "n_features", "train_sizes", "n_test", "n_trials", "n_features_to_select", "final_svm_C",
        "methods",
    ),
    config_class=E1Config,
    run_unit="run_trial",
    units=lambda c: [
        {"trial": t, "n_train": int(n)} for n in c.train_sizes for t in range(c.n_trials)
    ],
    summarise=summarise_e1,
    setting_fields=("n_train",),
    plots=plot_e1,
    cost="about 5 min on 2 cores (100 trials × 3 sizes × 7 methods)",
)
