"""Experiment E4: multiclass feature selection on the brown yeast data (Weston et al. 2003).

208 genes × 79 expression measurements, 5 functional classes. Stratified k-fold cross-
validation (8 folds, shuffled with a seed; optionally repeated with other seeds). In each
fold the missing values are imputed by the training fold's feature means and the features
standardised with the training fold's statistics; then each row of the table trains on the
training fold and is scored on the test fold:

* ``WW-SVM``: the soft-margin Weston–Watkins machine on all features;
* ``WW-AROM``: multiclass AROM with Weston–Watkins constraints selects ``k`` features, the WW
  machine is retrained on them;
* ``OvR-SVM``: one soft-margin linear SVM per class (libsvm) on all features;
* ``OvR-AROM``: multiclass AROM with one-vs-rest constraints (shared scale vector), the
  one-vs-rest SVMs retrained on the ``k`` features;
* ``OvR-RFE``: scikit-learn's ``RFE`` around the one-vs-rest linear SVMs, removing one
  feature per step, ranked by ``Σ_k w_kj²``; the one-vs-rest SVMs on the ``k`` survivors.

Every (repetition, fold, row, feature count) is one record of a
:class:`~zeronorm_opt.experiments.results_store.ResultsStore`, so a run is resumable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.feature_selection import RFE
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedKFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ..datasets import load_microarray
from ..exceptions import InputError
from .pipeline import Experiment, check_methods
from .report import SPREAD_NOTE, mean_se_cell
from .runner import run, run_items

#: Rows of the E4 table, in order; the second field says whether the row selects features.
E4_METHODS: dict[str, bool] = {
    "WW-SVM": False,
    "WW-AROM": True,
    "OvR-SVM": False,
    "OvR-AROM": True,
    "OvR-RFE": True,
}
PREPROCESSING = ("standardise", "none")


@dataclass
class E4Config:
    """Settings of E4 (defaults: problems/e4_yeast_multiclass.toml).

    ``folds`` restricts a run to some of the folds (e.g. ``[0]`` for a quick check); None
    runs them all. ``n_repeats`` repeats the cross-validation with other fold seeds.
    """

    feature_counts: Sequence[int] = (10, 20, 40)
    n_folds: int = 8
    n_repeats: int = 1
    C: float = 1.0
    arom_norm: str = "l2"
    preprocessing: str = "standardise"
    methods: Sequence[str] = tuple(E4_METHODS)
    seed: int = 0
    dataset: str = "brown_yeast"
    data_dir: str | None = None
    folds: Sequence[int] | None = None

    def __post_init__(self):
        check_methods("E4", self.methods, E4_METHODS)
        if not self.feature_counts or any(int(k) < 1 for k in self.feature_counts):
            raise InputError("feature_counts must be a non-empty list of positive integers.")
        if self.n_folds < 2 or self.n_repeats < 1:
            raise InputError("n_folds must be at least 2 and n_repeats at least 1.")
        if self.arom_norm not in ("l1", "l2"):
            raise InputError(f"arom_norm must be 'l1' or 'l2'; got {self.arom_norm!r}.")
        if self.preprocessing not in PREPROCESSING:
            raise InputError(f"preprocessing must be one of {PREPROCESSING}.")
        if self.C <= 0:
            raise InputError(f"C must be > 0; got {self.C!r}.")
        if self.folds is not None and any(not 0 <= f < self.n_folds for f in self.folds):
            raise InputError(f"folds must be fold numbers between 0 and {self.n_folds - 1}.")

    def units(self) -> list[tuple[str, int | None]]:
        """(row, feature count) pairs of the table; ``None`` for the all-feature rows."""
        out: list[tuple[str, int | None]] = []
        for method in self.methods:
            counts = [int(k) for k in self.feature_counts] if E4_METHODS[method] else [None]
            out.extend((method, k) for k in counts)
        return out


def ovr_coefficients(estimator: OneVsRestClassifier) -> np.ndarray:
    """The (Q, n) weights of a fitted one-vs-rest linear SVM (RFE squares and sums them).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
    >>> ovr = OneVsRestClassifier(SVC(kernel="linear")).fit(X, [0, 1, 2])
    >>> ovr_coefficients(ovr).shape
    (3, 2)
    """
    return np.vstack([e.coef_ for e in estimator.estimators_])


def load_e4_data(config: E4Config) -> tuple[np.ndarray, np.ndarray]:
    """The data of E4 with its missing values still NaN (imputed inside each fold)."""
    data = load_microarray(config.dataset, config.data_dir, impute=None)
    return data.X, data.y


def cv_splits(y: np.ndarray, config, repeat: int) -> list[tuple[np.ndarray, ...]]:
    """Stratified ``config.n_folds`` folds of one repetition (seed derived from
    ``(config.seed, repeat)``); E10 splits its data sets with them too."""
    seed = int(np.random.default_rng([config.seed, repeat]).integers(2**31))
    skf = StratifiedKFold(n_splits=config.n_folds, shuffle=True, random_state=seed)
    return list(skf.split(np.zeros((len(y), 1)), y))


def run_fold(
    config: E4Config,
    X: np.ndarray,
    y: np.ndarray,
    repeat: int,
    fold: int,
    units: Sequence[tuple[str, int | None]],
) -> list[dict]:
    """The requested (row, feature count) units on one fold; one record per unit."""
    from ..estimators.multiclass import MulticlassAROM, fit_final_machine

    train, test = cv_splits(y, config, repeat)[fold]
    # Impute with the training means, then (optionally) standardise with training statistics.
    scaler = StandardScaler() if config.preprocessing == "standardise" else "passthrough"
    imputer = SimpleImputer(strategy="mean", keep_empty_features=True)
    prepare = make_pipeline(imputer, scaler).fit(X[train])
    Xtr, Xte = prepare.transform(X[train]), prepare.transform(X[test])
    ytr, yte = y[train], y[test]
    classes, codes = np.unique(ytr, return_inverse=True)

    def measure(item: dict) -> dict:
        method, k = item["method"], item["n_features"]
        if k is not None and k > X.shape[1]:
            raise InputError(f"{k} features asked, the data have {X.shape[1]}")
        scheme = "ww" if method.startswith("WW") else "ovr"
        if k is None:  # all features
            support = None
        elif method == "OvR-RFE":
            base = OneVsRestClassifier(SVC(kernel="linear", C=config.C))
            rfe = RFE(base, n_features_to_select=k, step=1, importance_getter=ovr_coefficients)
            support = rfe.fit(Xtr, ytr).support_
        else:
            arom = MulticlassAROM(
                scheme=scheme, penalty=config.arom_norm, n_features_to_select=k, C=config.C,
                refit=False,
            )  # fmt: skip
            support = arom.fit(Xtr, ytr).support_
        W, b = fit_final_machine(Xtr, codes, scheme, config.C, support)
        predicted = classes[np.argmax(Xte @ W.T + b, axis=1)]
        return {
            "error": float(np.mean(predicted != yte)),
            "n_test": int(len(test)),
            "selected": None if k is None else np.flatnonzero(support).tolist(),
        }

    items = [{"method": method, "n_features": k} for method, k in units]
    failed = {"error": None, "n_test": int(len(test)), "selected": None}
    return run_items(items, {"repeat": repeat, "fold": fold}, measure, failed)


def run_e4(config: E4Config | None = None, *, data=None, **options) -> list[dict]:
    """Run E4 (:func:`~zeronorm_opt.experiments.runner.run` and its options); ``data``
    replaces the brown yeast set by another ``(X, y)`` (tests, other data).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 16)
    >>> X = rng.normal(size=(48, 6)) + 3 * np.eye(6)[y]
    >>> config = E4Config(feature_counts=[2], n_folds=4, folds=[0], methods=["OvR-AROM"])
    >>> records = run_e4(config, data=(X, y))
    >>> [(r["method"], r["n_features"], r["status"]) for r in records]
    [('OvR-AROM', 2, 'ok')]
    """
    shared = None if data is None else (np.asarray(data[0]), np.asarray(data[1]))
    return run(EXPERIMENT, config, shared=shared, **options)


def summarise_e4(records: list[dict], config: E4Config) -> str:
    """The E4 table: cross-validation error % (mean ± standard error over the folds) per
    row and count."""
    counts = [int(k) for k in config.feature_counts]
    columns: list[int | None] = [None, *counts]
    labels = ["all", *(f"{k} features" for k in counts)]
    head = f"{'method':<10}" + "".join(f"{label:>17}" for label in labels)
    n_folds = config.n_folds if config.folds is None else len(config.folds)
    lines = [
        f"E4 {config.dataset}: {config.n_folds}-fold stratified CV ({n_folds} folds run) × "
        f"{config.n_repeats} repetition(s); C={config.C:g}, AROM {config.arom_norm} step, "
        f"preprocessing: {config.preprocessing}",
        f"CV error %: {SPREAD_NOTE} over the folds",
        head,
        "-" * len(head),
    ]
    for method in config.methods:
        row = f"{method:<10}"
        for k in columns:
            if (k is None) == E4_METHODS[method]:
                row += f"{'-':>17}"
                continue
            rs = [r for r in records if r["method"] == method and r["n_features"] == k]
            row += f"{mean_se_cell(rs, 'error', 100):>17}"
        lines.append(row)
    return "\n".join(lines)


EXPERIMENT = Experiment(
    id="e4",
    module=__name__,
    spec_keys=(
        "dataset", "n_folds", "n_repeats", "feature_counts", "C", "arom_norm", "preprocessing",
        "methods",
    ),
    config_class=E4Config,
    run_unit="run_fold",
    units=lambda c: [
        {"repeat": r, "fold": f} for r in range(c.n_repeats)
        for f in (range(c.n_folds) if c.folds is None else [int(f) for f in c.folds])
    ],  # fmt: skip
    items=lambda config, unit: config.units(),
    item_fields=("method", "n_features"),
    shared=load_e4_data,
    summarise=summarise_e4,
    trial_field="repeat",
    fold_field="fold",
    setting_fields=("n_features",),
    sweep_fields=("folds", "feature_counts"),
    train_size_field=None,
    data="brown yeast microarray .npz (brown_yeast.npz) in $ZERONORM_OPT_DATA",
    cost="8 folds × 5 rows × 3 feature counts: about 10 min on 2 cores",
)
