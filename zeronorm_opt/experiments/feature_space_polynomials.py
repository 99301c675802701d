"""Experiment E5: zero-norm in a polynomial feature space (Weston et al. 2003, section 6).

Targets on ``n = 10`` inputs ``N(0, 1)``: ``x1·x2 + x3``, ``x1``, and random degree-2
polynomials with a given fraction of zero coefficients (±1 otherwise,
:meth:`~zeronorm_opt.datasets.SparsePolynomial.random`); label = sign of the target. For each
target, trial and training size the methods learn from ``n_train`` points and are tested on
500 points of the same target:

* ``poly-SVM``: ``SVC`` with the kernel ``Σ_{p=1}^2 (x·y)^p`` of the feature space
  (:class:`~zeronorm_opt.kernels.PolynomialSumKernel`), hard margin approximated by a large C;
* ``l2-AROM`` (and ``l1-AROM``): :class:`~zeronorm_opt.estimators.polynomial.PolynomialAROM`
  in the degree-2 space, hard margin, **run to convergence with no feature budget** (the
  paper compares zero-norm classifiers with SVMs here, not selections of r features), predicting
  with the final model;
* ``linear-SVM``: a hard-margin linear SVM on the inputs, only for the linear targets
  (``x1``), as in the paper's figure.

Each random polynomial is drawn once per (target, trial), with its test set, and serves every
training size; one whose sign is the same on all test points is redrawn (a constant target has
nothing to learn). A training draw with a single class gives, for every method, the constant
prediction of that class (status ``"single-class"``).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.dummy import DummyClassifier
from sklearn.svm import SVC

from ..datasets import SparsePolynomial, make_sparse_polynomial
from ..exceptions import InputError
from ..kernels import PolynomialSumKernel, merge_symmetric_copies
from .pipeline import Experiment, check_methods
from .report import SPREAD_NOTE, mean_se_cell
from .runner import run, run_items

#: Rows of the E5 table.
E5_METHODS = ("poly-SVM", "l2-AROM", "l1-AROM", "linear-SVM")
#: Targets given by name; the others are "sparse-<fraction of zero coefficients>".
FIXED_TARGETS = ("x1x2+x3", "x1")
#: Redraws allowed for a random polynomial whose sign is constant on the test set.
MAX_REDRAWS = 100


@dataclass
class E5Config:
    """Settings of E5 (defaults: problems/e5_sparse_polynomials.toml)."""

    targets: Sequence[str] = (
        "x1x2+x3",
        "x1",
        "sparse-0.95",
        "sparse-0.9",
        "sparse-0.8",
        "sparse-0",
    )
    train_sizes: Sequence[int] = (10, 20, 40, 80, 160)
    n_trials: int = 50
    n_test: int = 500
    n_inputs: int = 10
    degree: int = 2
    svm_C: float = 1e7
    linear_targets: Sequence[str] = ("x1",)
    methods: Sequence[str] = ("poly-SVM", "l2-AROM", "linear-SVM")
    seed: int = 0

    def __post_init__(self):
        check_methods("E5", self.methods, E5_METHODS)
        for target in self.targets:
            _sparseness(target)
        if any(int(s) < 2 for s in self.train_sizes):
            raise InputError("every training size must be at least 2.")
        if self.n_trials < 1 or self.n_test < 2:
            raise InputError("n_trials must be positive and n_test at least 2.")


def _sparseness(target: str) -> float | None:
    """None for a fixed target, else the fraction of zero coefficients of "sparse-<s>"."""
    if target in FIXED_TARGETS:
        return None
    if target.startswith("sparse-"):
        try:
            s = float(target[len("sparse-") :])
        except ValueError:
            s = -1.0
        if 0.0 <= s < 1.0:
            return s
    raise InputError(
        f"unknown E5 target {target!r}: use {list(FIXED_TARGETS)} or 'sparse-<s>' with s in "
        "[0, 1) the fraction of zero coefficients (e.g. 'sparse-0.95')."
    )


def target_label(target: str) -> str:
    """Display name: ``x1*x2+x3``, ``x1``, ``95% zeros``."""
    s = _sparseness(target)
    if s is None:
        return "x1*x2+x3" if target == "x1x2+x3" else target
    return f"{100 * s:g}% zeros"


def target_monomials(poly: SparsePolynomial) -> list[str]:
    """Canonical names (as in ``selected_monomials_``) of the monomials of a polynomial."""
    n = poly.linear.size
    # Coefficient of each ordered coordinate: the linear part, then Q_ij on (i, j) with i ≤ j.
    coef = np.concatenate([poly.linear, np.triu(poly.quadratic).ravel()])
    names, merged = merge_symmetric_copies(coef != 0, n, 2)
    return [str(s) for s in names[merged > 0]]


def _draw_problem(config: E5Config, target: str, trial: int):
    """The polynomial of one (target, trial) and its test set (shared by all sizes)."""
    rng = np.random.default_rng([config.seed, zlib.crc32(target.encode()), trial])
    # The generators take a seed or RandomState (scikit-learn style): seed them from rng.
    seeds = iter(rng.integers(2**31, size=2 * MAX_REDRAWS).tolist())
    s = _sparseness(target)
    for _ in range(MAX_REDRAWS):
        if s is None:
            poly = SparsePolynomial.named(target, config.n_inputs)
        else:
            poly = SparsePolynomial.random(config.n_inputs, s, random_state=next(seeds))
        X_te, y_te = make_sparse_polynomial(
            config.n_test, config.n_inputs, target=poly, random_state=next(seeds)
        )
        if np.unique(y_te).size == 2:
            return poly, X_te, y_te
    raise InputError(f"target {target!r}: {MAX_REDRAWS} draws all had a constant sign.")


def _fit_method(name: str, config: E5Config, X, y):
    from ..estimators.polynomial import PolynomialAROM

    if name == "poly-SVM":
        return SVC(kernel=PolynomialSumKernel(config.degree), C=config.svm_C).fit(X, y)
    if name == "linear-SVM":
        return SVC(kernel="linear", C=config.svm_C).fit(X, y)
    return PolynomialAROM(degree=config.degree, penalty=name[:2]).fit(X, y)


def run_unit(
    config: E5Config, target: str, trial: int, n_train: int, methods: Sequence[str]
) -> list[dict]:
    """All requested methods on one (target, trial, training size); one record per method."""
    from ..estimators.polynomial import selected_monomials

    poly, X_te, y_te = _draw_problem(config, target, trial)
    rng = np.random.default_rng([config.seed, zlib.crc32(target.encode()), trial, n_train])
    X, y = make_sparse_polynomial(
        n_train, config.n_inputs, target=poly, random_state=int(rng.integers(2**31))
    )
    truth = target_monomials(poly)

    def measure(name: str) -> dict:
        if np.unique(y).size < 2:
            model = DummyClassifier(strategy="most_frequent").fit(X, y)
            status = "single-class"
        else:
            model = _fit_method(name, config, X, y)
            status = "ok"
        record = {"error": float(np.mean(model.predict(X_te) != y_te)), "status": status}
        if hasattr(model, "steps"):  # the PolynomialAROM pipeline
            chosen = selected_monomials(model)
            record.update(
                selected=chosen,
                n_monomials=len(chosen),
                recovered=set(truth) <= set(chosen),
                n_iter=model[-1].n_iter_,
                stop_reason=model[-1].stop_reason_,
            )
        return record

    fields = {"target": target, "trial": trial, "n_train": n_train}
    return run_items(methods, fields, measure, {"error": None})


def _methods_for(config: E5Config, target: str) -> list[str]:
    return [
        m for m in config.methods if m != "linear-SVM" or target in tuple(config.linear_targets)
    ]


def run_e5(config: E5Config | None = None, **options) -> list[dict]:
    """Run E5 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Examples
    --------
    >>> config = E5Config(targets=["x1"], train_sizes=[20], n_trials=1)
    >>> sorted(r["method"] for r in run_e5(config))
    ['l2-AROM', 'linear-SVM', 'poly-SVM']
    """
    return run(EXPERIMENT, config, **options)


def summarise_e5(records: list[dict], config: E5Config) -> str:
    """The E5 table: test error % (mean ± standard error over trials) per target, method and
    size; for AROM also the mean number of selected monomials and the % of trials that kept all the
    target's monomials."""
    sizes = list(config.train_sizes)
    head = f"{'target':<12}{'method':<18}" + "".join(f"{f'm={s}':>16}" for s in sizes)
    lines = [
        f"E5 sparse polynomials: {config.n_inputs} inputs, degree-{config.degree} feature space, "
        f"test {config.n_test}; trials per size: {config.n_trials}; test error %: {SPREAD_NOTE}",
        head,
        "-" * len(head),
    ]
    single = 0
    for target in config.targets:
        label = target_label(target)
        for method in _methods_for(config, target):
            mine = [r for r in records if r["target"] == target and r["method"] == method]
            by_size = {s: [r for r in mine if r["n_train"] == s] for s in sizes}
            single += sum(r["status"] == "single-class" for rs in by_size.values() for r in rs)
            cells = [mean_se_cell(by_size[s], "error", 100) for s in sizes]
            lines.append(f"{label:<12}{method:<18}" + "".join(f"{c:>16}" for c in cells))
            label = ""
            if "AROM" in method:
                cells = []
                for s in sizes:
                    rs = [r for r in by_size[s] if r.get("n_monomials") is not None]
                    if not rs:
                        cells.append("-")
                        continue
                    k = np.mean([r["n_monomials"] for r in rs])
                    rec = 100 * np.mean([r["recovered"] for r in rs])
                    cells.append(f"{k:.1f} [{rec:.0f}%]")
                lines.append(
                    f"{'':<12}{'  monomials [rec]':<18}" + "".join(f"{c:>16}" for c in cells)
                )
    lines.append(
        "monomials [rec]: mean number of monomials AROM selected [% of trials whose selection "
        "contains every monomial of the target]."
    )
    if single:
        lines.append(f"{single} records had single-class training sets (constant prediction).")
    return "\n".join(lines)


def plot_e5(records: list[dict], config: E5Config, folder) -> list:
    """Test error against the training size, one panel line per (target, method)."""
    from .report import ERROR_PANEL, plot_panels

    rows = [{**r, "curve": f"{r['target']}: {r['method']}"} for r in records]
    return [
        plot_panels(
            rows, "n_train", [ERROR_PANEL], folder / "e5_error_vs_train_size.png", by="curve",
            title="E5 sparse polynomials: test error against the training size",
            xlabel="training-set size m",
        )
    ]  # fmt: skip


EXPERIMENT = Experiment(
    id="e5",
    module=__name__,
    spec_keys=(
        "n_inputs", "degree", "targets", "train_sizes", "n_test", "n_trials", "svm_C",
        "linear_targets", "methods",
    ),
    config_class=E5Config,
    run_unit="run_unit",
    units=lambda c: [
        {"target": t, "trial": k, "n_train": int(n)}
        for t in c.targets for n in c.train_sizes for k in range(c.n_trials)
    ],  # fmt: skip
    items=lambda config, unit: _methods_for(config, unit["target"]),
    summarise=summarise_e5,
    setting_fields=("target", "n_train"),
    sweep_fields=("train_sizes", "targets", "linear_targets"),
    plots=plot_e5,
    cost="6 targets × 5 sizes × 50 trials: about 30 min on 2 cores",
)
