"""Experiments E2 (colon) and E3 (lymphoma): microarray gene selection (Weston et al., 2003, §5).

For each trial the samples are split at random into a training and a test part (the same
split for every method of the trial, reproducible from ``(seed, trial)``; stratified by class
by default, *(choice)*: the paper only says "random splits"). Missing values are filled and the
genes standardised with statistics of the training part only. Each method selects ``r`` genes
on the training part for every ``r`` of the grid (e.g. 2000, 1000, …, 20), a soft-margin linear
SVM is trained on the selected genes and its error on the held-out samples recorded. The
largest ``r`` of the grid may equal the number of genes: that column is the plain linear SVM.

Every gene count of a method comes from **one** run of the method per trial:

* CORR and R2W2 rank the genes once (``ranking_``); the ``r`` best are kept.
* RFE: one elimination path (:func:`rfe_path`) that halves the genes while many remain, one
  at a time below ``halving_above``, and stops at every gene count of the grid on the way.
* FSV and l2-AROM: one run of the driver without a budget; the history holds the whole path
  and :func:`support_at_budget` applies the budget rule of Weston et al. (2003) for each ``r``
  (identical to fitting with ``n_features_to_select=r``: the budgeted run's history is a prefix of
  it).

When a method gives fewer than ``r`` genes a non-zero weight (FSV's LP solutions have at most
about ``m`` non-zeros; most of R2W2's scale factors reach 0), the selection is completed in
gene-index order, the estimators' tie rule; such genes are counted as *padded* in the records
and the cells are marked in the table.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from .._validation import check_binary_labels, check_positive
from ..datasets import load_microarray
from ..exceptions import InputError
from . import pipeline
from .pipeline import Experiment
from .report import SPREAD_NOTE, format_mean_se
from .runner import run, run_items

#: The rows of the paper's tables 2 and 3.
MICROARRAY_METHODS = ("CORR", "RFE", "R2W2", "FSV", "l2-AROM")
#: Two-class sets the runner accepts.
BINARY_SETS = ("colon", "lymphoma", "leukemia")
#: Selected genes are stored in the records for gene counts up to this (keeps files small).
STORE_SELECTED_UP_TO = 100


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


@dataclass(frozen=True)
class MicroarrayConfig:
    """Settings of E2/E3 (defaults: E2, ``problems/e2_colon.toml``), checked at construction.

    Parameters
    ----------
    dataset : {"colon", "lymphoma", "leukemia"}
    n_train : int
        Training samples per split; the remaining samples are the test part.
    n_trials : int
        Number of random splits.
    gene_counts : sequence of int
        Numbers of genes to select (stored in decreasing order; the table's columns).
    methods : sequence of str
        Rows, a subset of ``MICROARRAY_METHODS``.
    stratify : bool
        Keep the class proportions in both parts of every split.
    final_svm_C : float
        ``C`` of the linear SVM trained on the selected genes.
    rfe_C, rfe_halving_above : float, int
        ``C`` of RFE's linear SVMs; RFE removes half of the genes per step while more than
        ``rfe_halving_above`` remain, then one at a time.
    r2w2_radius : {"variance", "ball"}
        Radius of R2W2's bound (see :class:`~zeronorm_opt.estimators.r2w2.R2W2`).
    fsv_solver : str, list of str or None
        cvxpy solver (or fallback list) of FSV's LPs.
    fsv_solver_options : dict or None
        Their options (one dict, or one per solver name; see
        :func:`~zeronorm_opt.solvers.solve_problem`).
    impute : {"mean", "zero"}
        Missing values (lymphoma) are filled with the training part's gene mean, or 0.
    max_iter : int
        Maximum number of LPs/QPs of FSV and l2-AROM.
    seed : int
        Seed of the splits.
    data_dir : str or None
        Folder of the ``.npz`` files (see :func:`~zeronorm_opt.datasets.load_microarray`).

    Examples
    --------
    >>> MicroarrayConfig(gene_counts=[20, 2000, 100]).gene_counts
    (2000, 100, 20)
    >>> MicroarrayConfig(methods=["SVM"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: unknown methods ['SVM']; choose from ('CORR', ...
    """

    dataset: str = "colon"
    n_train: int = 50
    n_trials: int = 500
    gene_counts: Sequence[int] = (2000, 1000, 500, 250, 100, 50, 20)
    methods: Sequence[str] = MICROARRAY_METHODS
    stratify: bool = True
    final_svm_C: float = 1.0
    rfe_C: float = 1.0
    rfe_halving_above: int = 125
    r2w2_radius: str = "variance"
    fsv_solver: str | Sequence[str] | None = ("SCIPY", "HIGHS")
    # HiGHS's dual simplex through scipy: the same LP vertices as cvxpy's HIGHS interface,
    # about 7 times faster on colon. (Its interior point is faster still, but its presolve
    # wrongly declared one of E2's feasible LPs infeasible.)
    fsv_solver_options: dict | None = field(
        default_factory=lambda: {"SCIPY": {"scipy_options": {"method": "highs-ds"}}, "HIGHS": {}}
    )
    impute: str = "mean"
    max_iter: int = 50
    seed: int = 0
    data_dir: str | None = None

    def __post_init__(self) -> None:
        if self.dataset not in BINARY_SETS:
            raise InputError(f"dataset must be one of {BINARY_SETS}; got {self.dataset!r}.")
        for name in ("n_train", "n_trials", "max_iter"):
            value = getattr(self, name)
            if not _is_int(value) or value < 1:
                raise InputError(f"{name} must be a positive integer; got {value!r}.")
        if self.n_train < 4:
            raise InputError(f"n_train must be at least 4 (two per class); got {self.n_train}.")
        counts = list(self.gene_counts)
        if not counts or not all(_is_int(k) and k >= 1 for k in counts):
            raise InputError(
                f"gene_counts must be a non-empty list of positive integers; got {counts!r}."
            )
        if len(set(counts)) != len(counts):
            raise InputError(f"gene_counts has repeated values: {counts}; list each once.")
        object.__setattr__(self, "gene_counts", tuple(sorted(counts, reverse=True)))
        methods = list(self.methods)
        unknown = [m for m in methods if m not in MICROARRAY_METHODS]
        if unknown or not methods or len(set(methods)) != len(methods):
            raise InputError(
                f"unknown methods {unknown}; choose from {MICROARRAY_METHODS}, each once."
                if unknown
                else f"methods must be a non-empty list without repeats; got {methods}."
            )
        object.__setattr__(self, "methods", tuple(methods))
        check_positive(self.final_svm_C, "final_svm_C")
        check_positive(self.rfe_C, "rfe_C")
        if not _is_int(self.rfe_halving_above) or self.rfe_halving_above < 0:
            raise InputError(
                f"rfe_halving_above must be an integer >= 0; got {self.rfe_halving_above!r}."
            )
        if self.r2w2_radius not in ("variance", "ball"):
            raise InputError(f"r2w2_radius must be 'variance' or 'ball'; got {self.r2w2_radius!r}.")
        if self.impute not in ("mean", "zero"):
            raise InputError(f"impute must be 'mean' or 'zero'; got {self.impute!r}.")
        if not _is_int(self.seed):
            raise InputError(f"seed must be an integer; got {self.seed!r}.")
        if isinstance(self.fsv_solver, list):
            object.__setattr__(self, "fsv_solver", tuple(self.fsv_solver))

    def check_data(self, X: np.ndarray, y: np.ndarray) -> None:
        """Reject settings the loaded data cannot satisfy (sizes, gene counts, two classes)."""
        m, n = X.shape
        check_binary_labels(y, m)
        if self.n_train > m - 2:
            raise InputError(
                f"n_train={self.n_train} leaves fewer than 2 test samples of {m} in "
                f"{self.dataset}; pass n_train <= {m - 2}."
            )
        if self.gene_counts[0] > n:
            raise InputError(
                f"gene count {self.gene_counts[0]} exceeds the {n} genes of {self.dataset}; "
                f"pass gene_counts between 1 and {n}."
            )


# ---------------------------------------------------------------------------------------------
# One run per method → every gene count
# ---------------------------------------------------------------------------------------------
def rfe_path(
    X, y, gene_counts: Sequence[int], *, C: float = 1.0, halving_above: int = 125
) -> dict[int, np.ndarray]:
    """One SVM-RFE elimination that stops at every gene count: ``{r: support}``.

    The elimination runs from the largest count to the smallest, each stretch by
    :class:`~zeronorm_opt.estimators.baselines.SVMRFE` on the survivors of the previous one
    (halving while more than ``halving_above`` genes remain, then one at a time, never
    jumping over a count). The supports are nested. When every count is either on the halving
    chain ``n, ⌈n/2⌉, …`` or at most ``halving_above`` (colon with the default 125), each
    support equals that of a separate ``SVMRFE(r, halving_above=halving_above)`` fit.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> path = rfe_path(X, y, [50, 10, 2], halving_above=25)
    >>> [int(path[r].sum()) for r in (50, 10, 2)], bool(np.all(path[10] >= path[2]))
    ([50, 10, 2], True)
    """
    from ..estimators.baselines import SVMRFE

    n = X.shape[1]
    current = np.arange(n)
    path = {}
    for r in sorted(set(gene_counts), reverse=True):
        if r < current.size:
            rfe = SVMRFE(r, C=C, halving_above=halving_above).fit(X[:, current], y)
            current = current[rfe.get_support()]
        mask = np.zeros(n, dtype=bool)
        mask[current] = True
        path[r] = mask
    return path


def _ranked(ranking: np.ndarray, scores: np.ndarray, counts) -> dict:
    """``{r: (support, padded)}`` of a ranking; padded = selected genes with a zero score."""
    full = ranking.size
    return {
        r: (ranking <= r, 0 if r >= full else int(np.sum((ranking <= r) & (scores == 0))))
        for r in counts
    }


def selection_path(method: str, X, y, config: MicroarrayConfig) -> tuple[dict, int | None]:
    """Run ``method`` once on ``(X, y)``: ``({r: (support, n_padded)}, n_iter or None)``.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> config = MicroarrayConfig(gene_counts=[202, 10, 2])
    >>> path, _ = selection_path("CORR", X, y, config)
    >>> [int(path[r][0].sum()) for r in config.gene_counts]
    [202, 10, 2]
    """
    from ..estimators._budget import support_at_budget
    from ..estimators.baselines import FisherScore
    from ..estimators.r2w2 import R2W2
    from ..estimators.zero_norm import AROM, FSV

    counts, n = config.gene_counts, X.shape[1]
    if method == "CORR":
        sel = FisherScore(n_features_to_select=counts[-1]).fit(X, y)
        return _ranked(sel.ranking_, sel.scores_, counts), None
    if method == "R2W2":
        sel = R2W2(counts[-1], radius=config.r2w2_radius).fit(X, y)
        return _ranked(sel.ranking_, sel.scale_, counts), sel.n_iter_
    if method == "RFE":
        path = rfe_path(X, y, counts, C=config.rfe_C, halving_above=config.rfe_halving_above)
        return {r: (mask, 0) for r, mask in path.items()}, None
    if method == "FSV":
        est = FSV(
            max_iter=config.max_iter,
            solver=config.fsv_solver,
            solver_options=config.fsv_solver_options,
        )
    else:  # l2-AROM, hard margin; the libsvm dual path when n > m (backend="auto")
        est = AROM(penalty="l2", max_iter=config.max_iter)
    est.fit(X, y)
    path = {r: support_at_budget(est.history_, r, n, est.prune_tol) for r in counts}
    return path, est.n_iter_


# ---------------------------------------------------------------------------------------------
# Trials
# ---------------------------------------------------------------------------------------------
def split_indices(config: MicroarrayConfig, y: np.ndarray, trial: int) -> list[np.ndarray]:
    """Training and test indices of one trial (the same for every method; reproducible)."""
    rng = np.random.default_rng([config.seed, trial])
    return train_test_split(
        np.arange(y.size),
        train_size=config.n_train,
        stratify=y if config.stratify else None,
        random_state=int(rng.integers(2**31)),
    )


def _prepare(config: MicroarrayConfig, X, y, trial: int):
    """Split, fill missing values and standardise with the training part's statistics."""
    train, test = split_indices(config, y, trial)
    strategy = "mean" if config.impute == "mean" else "constant"
    imputer = SimpleImputer(strategy=strategy, fill_value=0.0, keep_empty_features=True)
    prepare = make_pipeline(imputer, StandardScaler())
    # scikit-learn's NaN check sums the array, which makes numpy warn on the NaNs it looks for.
    with np.errstate(invalid="ignore"):
        Xtr = prepare.fit_transform(X[train])
        return Xtr, y[train], prepare.transform(X[test]), y[test]


def run_method(config: MicroarrayConfig, method: str, Xtr, ytr, Xte, yte) -> dict:
    """One method on one split: test errors, padded counts and selections per gene count."""
    path, n_iter = selection_path(method, Xtr, ytr, config)
    errors, padded, selected = [], [], {}
    for r in config.gene_counts:
        mask, n_pad = path[r]
        svm = SVC(kernel="linear", C=config.final_svm_C).fit(Xtr[:, mask], ytr)
        errors.append(float(np.mean(svm.predict(Xte[:, mask]) != yte)))
        padded.append(n_pad)
        if r <= STORE_SELECTED_UP_TO:
            selected[str(r)] = [int(j) for j in np.flatnonzero(mask)]
    return {"errors": errors, "padded": padded, "selected": selected, "n_iter": n_iter}


def run_trial(config: MicroarrayConfig, X, y, trial: int, methods: Sequence[str]) -> list[dict]:
    """The requested methods on the split of ``trial``; one record per method."""
    Xtr, ytr, Xte, yte = _prepare(config, X, y, trial)
    fields = {
        "dataset": config.dataset,
        "n_train": config.n_train,
        "trial": trial,
        "gene_counts": list(config.gene_counts),
        "n_test": int(yte.size),
    }
    failed = dict.fromkeys(("errors", "padded", "selected", "n_iter"))
    return run_items(
        methods, fields, lambda method: run_method(config, method, Xtr, ytr, Xte, yte), failed
    )


def load_data(config: MicroarrayConfig) -> tuple[np.ndarray, np.ndarray]:
    """The data set of ``config`` (missing values still NaN), checked against the settings."""
    data = load_microarray(config.dataset, config.data_dir, impute=None)
    config.check_data(data.X, data.y)
    return data.X, data.y


def run_microarray(config: MicroarrayConfig | None = None, **options) -> list[dict]:
    """Run E2/E3 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Examples
    --------
    >>> config = MicroarrayConfig(n_trials=1, gene_counts=[2000, 20], methods=["CORR"])
    >>> records = run_microarray(config)
    >>> records[0]["gene_counts"], len(records[0]["errors"]), records[0]["n_test"]
    ([2000, 20], 2, 12)
    """
    return run(EXPERIMENT, config, **options)


# ---------------------------------------------------------------------------------------------
# Table and command line
# ---------------------------------------------------------------------------------------------
def summarise_microarray(records: list[dict], config: MicroarrayConfig) -> str:
    """The E2/E3 table: test error % (mean ± standard error over the trials) per method and
    gene count.

    A cell is marked ``*`` when, in some trial, the method gave fewer than ``r`` genes a
    non-zero weight (the rest of the selection is in index order); the trials in which a
    method failed are counted below the table and left out of its cells.

    Examples
    --------
    >>> config = MicroarrayConfig(n_trials=1, gene_counts=[2000, 20], methods=["CORR"])
    >>> record = {"method": "CORR", "gene_counts": [2000, 20], "errors": [0.25, 0.0],
    ...           "padded": [0, 0], "n_test": 12, "status": "ok"}
    >>> print(summarise_microarray([record], config).splitlines()[-1])
    CORR                25.00            0.00
    """
    counts = list(config.gene_counts)
    n_test = next((r["n_test"] for r in records if "n_test" in r), "?")
    split = "stratified" if config.stratify else "random"
    head = f"{'genes':<9}" + "".join(f"{k:>16}" for k in counts)
    lines = [
        f"{config.dataset}: {config.n_train} train / {n_test} test ({split} splits), "
        f"trials: {config.n_trials}; linear SVM (C={config.final_svm_C:g}) on the selected "
        f"genes; test error %: {SPREAD_NOTE}",
        head,
        "-" * len(head),
    ]
    notes, failures = [], []
    for method in config.methods:
        rs = [r for r in records if r["method"] == method]
        row = f"{method:<9}"
        for k in counts:
            ok = [r for r in rs if r["errors"] is not None and k in r["gene_counts"]]
            errs = [r["errors"][r["gene_counts"].index(k)] for r in ok]
            pads = np.array([r["padded"][r["gene_counts"].index(k)] for r in ok], dtype=int)
            cell = format_mean_se(errs, 100)
            if np.any(pads > 0):
                cell += "*"
                notes.append((method, k, float(np.mean(k - pads))))
            row += f"{cell:>16}"
        lines.append(row)
        failed = [r for r in rs if r["errors"] is None]
        if failed:
            failures.append(f"{method}: {len(failed)} of {len(rs)} trials failed, e.g. ")
            failures[-1] += f"trial {failed[0].get('trial')}: {failed[0].get('status', '')}"[:200]
    if notes:
        lines.append(
            "* fewer than r genes had a non-zero weight in some trials; the selection was "
            "completed in gene-index order."
        )
        for method in dict.fromkeys(m for m, _, _ in notes):
            k, nonzero = max((k, nz) for m, k, nz in notes if m == method)
            lines.append(f"  {method}: at r={k}, {nonzero:.1f} genes with non-zero weight (mean)")
    if failures:
        lines.append("failures (left out of the cells):")
        lines.extend(f"  {f}" for f in failures)
    return "\n".join(lines)


def config_from_spec(spec: dict, **overrides) -> MicroarrayConfig:
    """A :class:`MicroarrayConfig` from a catalogue TOML ``spec``, with keyword overrides
    (None values are ignored)."""
    overrides = {k: v for k, v in overrides.items() if v is not None}
    return pipeline.config_from_spec(EXPERIMENT, spec, overrides)


def _tidy(records: list[dict], config: MicroarrayConfig) -> list[dict]:
    # One row per (record, gene count) with a scalar error, for the report's summary table.
    return [
        {"method": r["method"], "genes": k, "error": e, "status": r["status"]}
        for r in records
        if r.get("errors") is not None
        for k, e in zip(r["gene_counts"], r["errors"], strict=True)
    ]


def plot_microarray(records: list[dict], config: MicroarrayConfig, folder) -> list:
    """Test error against the number of genes selected (log axis of genes)."""
    from .report import ERROR_PANEL, plot_panels

    rows = _tidy(records, config)
    path = folder / f"{config.dataset}_error_vs_genes.png"
    plot = plot_panels(
        rows, "genes", [ERROR_PANEL], path, log="x", xlabel="genes selected",
        title=f"{config.dataset}: test error against the number of genes",
        note="paper: Weston et al. (2003)'s colon and lymphoma tables print every number as '123' "
        "in the text available here, so no paper markers",
    )  # fmt: skip
    return [plot]


EXPERIMENT = Experiment(
    id="e2",
    module=__name__,
    spec_keys=("dataset", "n_train", "n_trials", "gene_counts", "methods"),
    config_class=MicroarrayConfig,
    run_unit="run_trial",
    units=lambda c: [{"trial": t} for t in range(c.n_trials)],
    shared=load_data,
    summarise=summarise_microarray,
    train_size_field="n_train",
    plots=plot_microarray,
    tidy=_tidy,
    group_fields=("genes",),
    data="microarray .npz (colon.npz / lymphoma.npz) in $ZERONORM_OPT_DATA",
    cost="colon, 500 splits × 5 methods: about 1 h on 2 cores (lymphoma about 3 h)",
)
