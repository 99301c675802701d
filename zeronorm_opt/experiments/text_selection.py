"""Experiment E8: iFSA / osFSA against information gain on text (Català and Martin, §4, Tables 1–2).

Protocol of Català and Martin, §4.1, per repetition: the documents are split into 5 stratified
subsets. One is the validation set that tunes the parameters — the number of features ``r`` and the
SVM's ``C`` ∈ {10¹ … 10⁷}: each method selects on the other 4 subsets, a linear SVM is trained there
and scored on the validation set. The ``r`` values tried are those of iFSA: the shortest prefixes of
its path that reach 85 %, 86 %, …, 100 % of its final alignment; IG and osFSA try the same ``r``
values. With the chosen parameters, a 4-fold cross-validation over the other 4 subsets (select and
train on 3, test on 1) gives the accuracy. iFSA keeps its chosen *fraction* (its ``r`` follows from
each fold's path); IG and osFSA keep the chosen ``r``.

Alignment uses the ideal kernel for unbalanced classes (``+1/m₊``, ``−1/m₋``), the choice of
Català and Martin for one class against the rest. Data:
:func:`~zeronorm_opt.datasets.make_zipf_corpus` (planted words, so the recall of relevant words is
reported too) or a folder of text files (:func:`~zeronorm_opt.datasets.load_text_corpus`) as tf-idf.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from ..datasets import load_text_corpus, make_zipf_corpus
from ..exceptions import InputError
from ..fast.alignment import ideal_target, incremental_selection, one_shot_alignments
from .pipeline import Experiment, check_methods
from .report import SPREAD_NOTE, format_mean_se
from .runner import run, run_items

__all__ = ["E8_METHODS", "E8Config", "run_e8", "summarise_e8"]

E8_METHODS = ("noFS", "IG", "osFSA", "iFSA")


@dataclass
class E8Config:
    """Settings of E8 (defaults: problems/e8_text.toml)."""

    n_documents: int = 500
    vocabulary_size: int = 2000
    n_indicative: int = 20
    positive_fraction: float = 0.2
    n_repeats: int = 5
    C_grid: Sequence[float] = tuple(10.0**k for k in range(1, 8))
    fractions: Sequence[float] = tuple(np.round(np.linspace(0.85, 1.0, 16), 2))
    methods: Sequence[str] = E8_METHODS
    corpus_dir: str | None = None
    positive_class: str | None = None
    seed: int = 0
    corpus_options: dict = field(default_factory=dict)

    def __post_init__(self):
        check_methods("E8", self.methods, E8_METHODS)
        if (self.corpus_dir is None) != (self.positive_class is None):
            raise InputError("a text corpus needs both corpus_dir and positive_class.")
        if self.n_repeats < 1 or not self.C_grid:
            raise InputError("n_repeats must be positive and C_grid not empty.")
        if not self.fractions or not all(0 < f <= 1 for f in self.fractions):
            raise InputError("fractions must be a non-empty list of numbers in (0, 1].")


def load_corpus(config: E8Config, repeat: int):
    """tf-idf matrix (``scipy.sparse`` CSR), labels ±1, and the planted words (``None`` for a
    real corpus).

    The matrix stays sparse through the whole experiment: every consumer reads it as it is —
    information gain (:class:`~zeronorm_opt.estimators.baselines.InformationGainFilter`), the
    linear-kernel alignments of osFSA and iFSA (:mod:`zeronorm_opt.fast.alignment`), and
    liblinear's ``LinearSVC``, whose cost per pass is O(nnz) — so nothing is densified.
    """
    if config.corpus_dir is not None:
        return *_folder_corpus(config.corpus_dir, config.positive_class), None
    # A new synthetic corpus per repetition (Català and Martin repeat on 100 corpora of TechTC).
    counts, y, words = make_zipf_corpus(
        config.n_documents,
        config.vocabulary_size,
        n_indicative=config.n_indicative,
        positive_fraction=config.positive_fraction,
        random_state=int(np.random.default_rng([config.seed, repeat]).integers(2**31)),
        return_indicative=True,
        **config.corpus_options,
    )
    # idf from the whole corpus: unsupervised, as a vectoriser fitted on the collection.
    X = TfidfTransformer().fit_transform(counts).tocsr()
    return X, y, words


@functools.cache
def _folder_corpus(corpus_dir: str, positive_class: str) -> tuple[sp.csr_matrix, np.ndarray]:
    # A real corpus is the same for every repetition: read and vectorise it once per process
    # (kept sparse, as load_corpus says why).
    X, y, _ = load_text_corpus(corpus_dir, positive_class)
    return sp.csr_matrix(X), y


def _ifsa_prefixes(X, y, fractions) -> tuple[list[int], dict[float, int]]:
    """iFSA's selection order and, per fraction, the shortest prefix reaching it."""
    order, path, _ = incremental_selection(X, ideal_target(y, balanced=True), "linear")
    if not order:
        return [], {f: 0 for f in fractions}
    path = np.asarray(path)
    return order, {f: int(np.argmax(path >= f * path[-1])) + 1 for f in fractions}


def _ranked(method: str, X, y) -> np.ndarray:
    """Features best first, by IG or by single-feature (unbalanced) alignment."""
    from ..estimators.baselines import InformationGainFilter

    if method == "IG":
        return np.argsort(-InformationGainFilter().fit(X, y).scores_, kind="stable")
    scores = one_shot_alignments(X, ideal_target(y, balanced=True), "linear")
    return np.argsort(-scores, kind="stable")


def _accuracy(X, y, Xt, yt, features, C) -> float:
    if len(features) == 0:  # no feature: the majority class
        return float(np.mean(yt == (1 if np.mean(y > 0) > 0.5 else -1)))
    # liblinear's dual coordinate descent, not libsvm: at the large C of Català and Martin's grid
    # (up to 10⁷) on data a few words cannot separate, libsvm runs for minutes per fit, while
    # each liblinear pass costs O(nnz). An unconverged fit (at most max_iter passes) is what a
    # bounded budget gives at such C; it is not an error. liblinear visits the samples in a
    # random order: a fixed seed makes that fit, so the experiment, reproducible (with None it
    # drew the seed from numpy's global state, and an unconverged fit at C ≥ 10⁴ changed from
    # one process to the next).
    svm = LinearSVC(C=C, dual=True, max_iter=5000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm.fit(X[:, features], y)
    return float(svm.score(Xt[:, features], yt))


def run_repeat(config: E8Config, repeat: int, methods: Sequence[str]) -> list[dict]:
    """Tune on the validation subset, then 4-fold CV, for each method; one record each."""
    X, y, planted = load_corpus(config, repeat)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=config.seed + repeat).split(X, y))
    val = folds[0][1]
    rest = np.setdiff1d(np.arange(y.size), val)
    Xr, yr, Xv, yv = X[rest], y[rest], X[val], y[val]
    order, prefix = _ifsa_prefixes(Xr, yr, config.fractions)
    r_values = sorted({r for r in prefix.values() if r > 0}) or [1]
    cv = list(StratifiedKFold(4, shuffle=True, random_state=config.seed + repeat).split(Xr, yr))

    def measure(method: str) -> dict:
        # 1. Parameters on the validation subset (ties: fewer features, then smaller C).
        if method == "noFS":
            candidates = [(None, np.arange(X.shape[1]))]
        elif method == "iFSA":
            candidates = [(f, order[: prefix[f]]) for f in sorted(config.fractions)]
        else:
            ranked = _ranked(method, Xr, yr)
            candidates = [(r, ranked[:r]) for r in r_values]
        best = max(
            (
                (_accuracy(Xr, yr, Xv, yv, feats, C), -len(feats), -C, param, C)
                for param, feats in candidates
                for C in config.C_grid
            ),
            key=lambda t: t[:3],
        )
        _, _, _, param, C = best
        # 2. 4-fold CV on the other subsets with those parameters.
        accs, sizes, recalls, precisions = [], [], [], []
        for tr, te in cv:
            Xa, ya, Xb, yb = Xr[tr], yr[tr], Xr[te], yr[te]
            if method == "noFS":
                feats = np.arange(X.shape[1])
            elif method == "iFSA":
                o, p = _ifsa_prefixes(Xa, ya, [param])
                feats = np.asarray(o[: p[param]], dtype=int)
            else:
                feats = _ranked(method, Xa, ya)[:param]
            accs.append(_accuracy(Xa, ya, Xb, yb, feats, C))
            sizes.append(len(feats))
            if planted is not None and method != "noFS":
                hits = len(set(planted.tolist()) & set(np.asarray(feats).tolist()))
                recalls.append(hits / len(planted))
                precisions.append(hits / max(1, len(feats)))
        return {
            "accuracy": float(np.mean(accs)),
            "n_features": float(np.mean(sizes)),
            "recall": float(np.mean(recalls)) if recalls else None,
            "precision": float(np.mean(precisions)) if precisions else None,
            "C": C,
            "parameter": None if param is None else float(param),
        }

    failed = dict.fromkeys(("accuracy", "n_features", "recall", "precision"))
    return run_items(methods, {"repeat": repeat}, measure, failed)


def run_e8(config: E8Config | None = None, **options) -> list[dict]:
    """Run E8 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Examples
    --------
    >>> config = E8Config(n_documents=120, vocabulary_size=400, n_indicative=5, n_repeats=1,
    ...                   C_grid=[10.0], fractions=[0.9, 1.0], methods=["IG", "iFSA"])
    >>> sorted(r["method"] for r in run_e8(config))
    ['IG', 'iFSA']
    """
    return run(EXPERIMENT, config, **options)


def summarise_e8(records: list[dict], config: E8Config) -> str:
    """Tables 1–2 of Català and Martin: accuracy and number of features per method (plus the recall
    of the planted words on the synthetic corpus).
    """
    data = (
        f"corpus {config.corpus_dir} ({config.positive_class} against the rest)"
        if config.corpus_dir
        else (
            f"synthetic Zipf corpus: {config.n_documents} documents, "
            f"{config.vocabulary_size} words, {config.n_indicative} planted, "
            f"{100 * config.positive_fraction:.0f} % positive"
        )
    )
    head = (
        f"{'method':<7}{'repeats':>8}{'accuracy %':>16}{'features':>10}{'recall %':>10}"
        f"{'precision %':>13}"
    )
    lines = [f"E8 text: {data}", head, "-" * len(head)]
    for method in config.methods:
        ok = [r for r in records if r["method"] == method and r["status"] == "ok"]
        if not ok:
            lines.append(f"{method:<7}   (no successful repeat)")
            continue
        rec = [r["recall"] for r in ok if r["recall"] is not None]
        prec = [r["precision"] for r in ok if r["precision"] is not None]
        lines.append(
            f"{method:<7}{len(ok):>8}{format_mean_se([r['accuracy'] for r in ok], 100):>16}"
            f"{np.mean([r['n_features'] for r in ok]):>10.1f}"
            f"{(f'{100 * np.mean(rec):.1f}' if rec else '-'):>10}"
            f"{(f'{100 * np.mean(prec):.1f}' if prec else '-'):>13}"
        )
    lines.append(
        f"accuracy %: {SPREAD_NOTE} over the repeats; "
        "recall: share of the target class's planted words that are selected; precision: share "
        "of the selected words that are planted."
    )
    return "\n".join(lines)


EXPERIMENT = Experiment(
    id="e8",
    module=__name__,
    spec_keys=(
        "n_documents", "vocabulary_size", "n_indicative", "positive_fraction", "n_repeats",
        "C_grid", "fractions", "methods",
    ),
    config_class=E8Config,
    run_unit="run_repeat",
    units=lambda c: [{"repeat": r} for r in range(c.n_repeats)],
    summarise=summarise_e8,
    trial_field="repeat",
    train_size_field=None,
    metrics=(),
    cost="5 repetitions: about 1 min on 2 cores",
)
