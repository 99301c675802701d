"""Experiment E6: the non-linear 52-feature problem (Weston et al., 2000; Català and Martin).

Only ``x1, x2`` of 52 features are relevant and the classes need a quadratic kernel
(:func:`~zeronorm_opt.datasets.make_weston_nonlinear`). Each run draws ``n_train + n_test``
points, standardises them with the training part's mean and deviation (Català and Martin, §5.1),
runs each method on the training part and records the recall of ``{x1, x2}``, the number of features
kept, whether exactly ``{x1, x2}`` was kept, and the test error of an SVM with the method's kernel
on the kept features.

Methods: ``"dFSA"`` — decremental selection by alignment with the quadratic kernel
``(1 + x·x')²``, stopping by itself (no validation set, as in Català and Martin), then the quadratic
SVM on the kept features; ``"AS-RBF"`` — adaptive scaling with the Gaussian kernel (Grandvalet and
Canu, 2002; :class:`~zeronorm_opt.AdaptiveScaling`), features with a non-zero scale kept, error of
its own classifier; ``"SVM"`` — the quadratic-kernel SVM on all features (error only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ..datasets import make_weston_nonlinear
from ..exceptions import InputError
from .pipeline import Experiment, PaperFigure, check_methods
from .report import SPREAD_NOTE, format_mean_se, paper_figure
from .runner import run, run_items

if TYPE_CHECKING:  # imported when E6 runs (the command line lists and shows it without cvxpy)
    from ..estimators.adaptive_scaling import AdaptiveScaling

__all__ = ["E6_METHODS", "E6Config", "draw_e6", "run_e6", "summarise_e6"]

E6_METHODS = ("dFSA", "AS-RBF", "SVM")
RELEVANT = frozenset({0, 1})

#: Català and Martin, Table 4 (dFSA, quadratic kernel, 500 runs per size): recall %, features
#: kept and % of runs keeping exactly {x1, x2}. The paper prints no spread.
PAPER = tuple(
    PaperFigure(
        "Català & Martin, Table 4", "dFSA", {"n_train": n},
        {"recall": recall, "n_kept": kept, "exact": exact},
    )  # fmt: skip
    for n, recall, kept, exact in ((50, 99.4, 6.38, 38.6), (100, 100.0, 2.40, 95.9),
                                   (150, 100.0, 2.00, 100.0))  # fmt: skip
)

#: AdaptiveScaling on E6 *(choice; see experiments/adaptive_scaling_e6.py)*: σ₀, C = E6_C_TIMES_M
#: / n_train, and the stopping tolerance.
E6_SIGMA0 = 0.1
E6_C_TIMES_M = 10.0
E6_TOL = 1e-5


def draw_e6(seed: int, run: int, n_train: int, n_test: int, n_features: int = 52):
    """One E6 draw: ``Xtr, ytr, Xte, yte``, both parts standardised with the training part's
    mean and deviation (Català and Martin, §5.1). One seed per ``(seed, run, n_train)``: every
    method of a run sees the same draw, and a rerun is identical.

    Examples
    --------
    >>> Xtr, ytr, Xte, yte = draw_e6(0, 0, 40, 10)
    >>> Xtr.shape, Xte.shape, bool(abs(Xtr.mean()) < 1e-12)
    ((40, 52), (10, 52), True)
    """
    rng = np.random.default_rng([seed, run, n_train])
    X, y = make_weston_nonlinear(
        n_train + n_test, n_features, random_state=int(rng.integers(2**31)), standardize=False
    )
    scaler = StandardScaler().fit(X[:n_train])
    return scaler.transform(X[:n_train]), y[:n_train], scaler.transform(X[n_train:]), y[n_train:]


@dataclass
class E6Config:
    """Settings of E6 (defaults: problems/e6_nonlinear_52d.toml)."""

    train_sizes: Sequence[int] = (50, 100, 150)
    n_runs: int = 500
    n_test: int = 500
    n_features: int = 52
    svm_C: float = 1.0
    #: AdaptiveScaling: σ₀, C = adaptive_scaling_C_times_m / n_train (or the fixed
    #: adaptive_scaling_C), tolerance, further estimator parameters (choices of this
    #: implementation, not of Grandvalet and Canu, 2002).
    adaptive_scaling_sigma0: float = E6_SIGMA0
    adaptive_scaling_C_times_m: float = E6_C_TIMES_M
    adaptive_scaling_tol: float = E6_TOL
    adaptive_scaling_C: float | None = None
    adaptive_scaling_params: dict = field(default_factory=dict)
    #: True: C and σ₀ chosen by AdaptiveScaling's span estimate (its defaults; the fixed
    #: σ₀ and C above are then unused unless adaptive_scaling_C is given).
    adaptive_scaling_auto: bool = True
    methods: Sequence[str] = E6_METHODS
    seed: int = 0

    def __post_init__(self):
        check_methods("E6", self.methods, E6_METHODS)
        if any(int(s) < 4 for s in self.train_sizes):
            raise InputError("every training size must be at least 4.")
        if self.n_runs < 1 or self.n_test < 1:
            raise InputError("n_runs and n_test must be positive.")


def _quadratic_svm(C: float) -> SVC:
    # The kernel dFSA selects for: (1 + x·x')², Català and Martin, eq. 4 (E6 and E7).
    return SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=C)


def _adaptive_scaling(config: E6Config, n_train: int) -> AdaptiveScaling:
    # The one place E6 builds its adaptive-scaling estimator.
    from ..estimators.adaptive_scaling import AdaptiveScaling

    C = config.adaptive_scaling_C
    fixed = {
        "C": config.adaptive_scaling_C_times_m / n_train if C is None else C,
        "sigma0": config.adaptive_scaling_sigma0,
    }
    if config.adaptive_scaling_auto and C is None:
        fixed = {}  # AdaptiveScaling's own choice of C and σ₀
    return AdaptiveScaling(
        kernel="rbf", tol=config.adaptive_scaling_tol, **fixed, **config.adaptive_scaling_params
    )


def run_trial(config: E6Config, run: int, n_train: int, methods: Sequence[str]) -> list[dict]:
    """All requested methods on one draw; one record per method."""
    from ..estimators.alignment import AlignmentSelector

    Xtr, ytr, Xte, yte = draw_e6(config.seed, run, n_train, config.n_test, config.n_features)

    def measure(name: str) -> dict:
        record = {}
        if name == "AS-RBF":
            model = _adaptive_scaling(config, n_train).fit(Xtr, ytr)
            kept = model.get_support(indices=True)
            predicted = model.predict(Xte)
            record.update(
                scale=[float(v) for v in model.scale_],
                scale_on_relevant=float(model.scale_[sorted(RELEVANT)].sum() / model.scale_.sum()),
                n_iter=int(model.n_iter_),
                stop_reason=model.stop_reason_,
                # The hyper-parameters used and, when chosen automatically, every grid
                # point's estimated error and size: what explains a run's selection.
                C=float(model.C_),
                sigma0=float(model.sigma0_),
                search=model.search_,
            )
        else:
            if name == "dFSA":
                sel = AlignmentSelector("decremental", kernel="poly", degree=2).fit(Xtr, ytr)
                kept = sel.get_support(indices=True)
            else:
                kept = np.arange(Xtr.shape[1])
            svm = _quadratic_svm(config.svm_C).fit(Xtr[:, kept], ytr)
            predicted = svm.predict(Xte[:, kept])
        return record | {
            "error": float(np.mean(predicted != yte)),
            "kept": [int(j) for j in kept],
            "n_kept": len(kept),
            "recall": len(RELEVANT & set(kept.tolist())) / len(RELEVANT),
            "exact": set(kept.tolist()) == RELEVANT,
        }

    failed = {"error": None, "kept": None, "recall": None, "exact": None}
    return run_items(methods, {"run": run, "n_train": n_train}, measure, failed, labels=ytr)


def run_e6(config: E6Config | None = None, **options) -> list[dict]:
    """Run E6 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Examples
    --------
    >>> records = run_e6(E6Config(train_sizes=[100], n_runs=2, n_test=50))
    >>> [r["exact"] for r in records if r["method"] == "dFSA"]
    [True, True]
    """
    return run(EXPERIMENT, config, **options)


def summarise_e6(records: list[dict], config: E6Config) -> str:
    """Català and Martin's Table 4 (recall %, features kept, % exactly {x1, x2}), test errors
    (mean ± standard error), the paper's figures (:data:`PAPER`) beside ours.

    References
    ----------
    N. Català and M. Martin, "Feature selection for support vector machines by alignment with ideal
    kernel", Universitat Politècnica de Catalunya, Barcelona.
    """
    head = (
        f"{'method':<7}{'train':>6}{'runs':>6}{'recall %':>10}{'features':>10}{'exact %':>9}"
        f"{'error %':>16}   paper (recall / features / exact)"
    )
    lines = [
        f"E6 non-linear problem: {config.n_features} features, 2 relevant; test {config.n_test}",
        head,
        "-" * len(head),
    ]
    for method in config.methods:
        for n in config.train_sizes:
            rs = [r for r in records if r["method"] == method and r["n_train"] == n]
            ok = [r for r in rs if r["status"] == "ok"]
            if not ok:
                lines.append(f"{method:<7}{n:>6}{len(rs):>6}   (no successful run)")
                continue
            row = f"{method:<7}{n:>6}{len(ok):>6}"
            if method == "SVM":
                row += f"{'-':>10}{config.n_features:>10}{'-':>9}"
            else:
                row += (
                    f"{100 * np.mean([r['recall'] for r in ok]):>10.1f}"
                    f"{np.mean([len(r['kept']) for r in ok]):>10.2f}"
                    f"{100 * np.mean([r['exact'] for r in ok]):>9.1f}"
                )
            row += f"{format_mean_se([r['error'] for r in ok], 100, 1):>16}"
            figure = paper_figure(EXPERIMENT, method, {"n_train": n})
            if figure:
                row += "   {recall:.1f} / {n_kept:.2f} / {exact:.1f}".format(**figure.values)
            failed = len(rs) - len(ok)
            lines.append(row + (f"  ({failed} failed)" if failed else ""))
    lines.append(f"error %: {SPREAD_NOTE} over the runs; paper: {PAPER[0].ref}.")
    return "\n".join(lines)


def plot_e6(records: list[dict], config: E6Config, folder) -> list:
    """Table 4's recall, features kept and exact-pair rate against the training size (ours and
    the paper's), the selection frequency per feature (dFSA, adaptive scaling; the paper prints
    no per-feature figure) and the mean scale factors of adaptive scaling per training size."""
    from .report import plot_bars, plot_panels, plot_selection_frequency

    selectors = [r for r in records if r["method"] != "SVM"]
    out = [
        plot_panels(
            selectors, "n_train",
            [("recall", "recall %", 100.0), ("n_kept", "features kept", 1.0),
             ("exact", "exactly {x1, x2} %", 100.0)],
            folder / "e6_table_4.png", xlabel="training-set size m", paper=PAPER,
            title="E6: Català & Martin's Table 4, ours (lines) and the paper's (hollow markers)",
        ),
        plot_selection_frequency(
            selectors, "kept", config.n_features,
            folder / "e6_selection_frequency.png", first=10,
            title="E6: selection frequency per feature (x1, x2 relevant)",
        ),
    ]  # fmt: skip
    scales = {
        f"m={n}": [r["scale"] for r in records if r["method"] == "AS-RBF"
                   and r["n_train"] == n and r.get("scale")]
        for n in config.train_sizes
    }  # fmt: skip
    scales = {k: v for k, v in scales.items() if v}
    if scales:
        out.append(
            plot_bars(
                scales, folder / "e6_adaptive_scaling_scales.png",
                title="E6: scale factors σ_k of adaptive scaling (RBF)", ylabel="σ_k",
            )
        )  # fmt: skip
    return out


EXPERIMENT = Experiment(
    id="e6",
    module=__name__,
    spec_keys=(
        "n_features", "train_sizes", "n_runs", "n_test", "svm_C", "adaptive_scaling_sigma0",
        "adaptive_scaling_C_times_m", "adaptive_scaling_tol", "methods",
    ),
    config_class=E6Config,
    run_unit="run_trial",
    units=lambda c: [{"run": r, "n_train": int(n)} for n in c.train_sizes for r in range(c.n_runs)],
    summarise=summarise_e6,
    trial_field="run",
    setting_fields=("n_train",),
    metrics=(
        ("recall", "recall %", 100.0),
        ("n_kept", "features kept", 1.0),
        ("exact", "exact {x1, x2} %", 100.0),
        ("error", "test error %", 100.0),
    ),
    plots=plot_e6,
    paper=PAPER,
    cost="3 sizes × 500 runs × 3 methods: about 1 h on 2 cores",
)
