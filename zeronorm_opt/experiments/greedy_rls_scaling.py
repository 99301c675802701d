"""Experiment E9: run time of greedy RLS against the number of examples (Pahikkala et al., 2010).

Two Gaussian classes (:func:`~zeronorm_opt.datasets.synthetic_regression.make_two_gaussians`),
``n = 1000`` features, ``k = 50`` selected by the squared LOO loss, ``m`` from 500 to 50 000.
Per size and trial the runner times

* ``"greedy-rls"`` — :func:`~zeronorm_opt.fast.greedy_rls.greedy_rls` (Algorithm 3,
  ``O(k·m·n)`` time, ``O(m·n)`` memory), all ``k`` rounds, at every ``m``;
* ``"lowrank"`` — the low-rank updated LS-SVM of Ojeda et al.
  (:func:`~zeronorm_opt.fast.rls_reference.greedy_rls_lowrank`, Algorithm 2, ``O(k·m²·n)`` time,
  ``O(m²)`` memory), only for ``m ≤ lowrank_max_m``. At the smallest such ``m`` it runs all
  ``k`` rounds and the record says whether it selected exactly greedy RLS's features (the
  algorithms are equivalent). At larger ``m`` only ``lowrank_rounds`` rounds are run
  and the total is *extrapolated* linearly in the rounds, as ``benchmarks/bench_greedy_rls.py``
  does (each round scores all remaining candidates, ``n − t`` of them, at the same cost); the
  rounds run are still compared with greedy RLS's first features.

Times are wall-clock seconds (``time.perf_counter``) with the BLAS threads the machine has;
process CPU seconds are recorded too (Pahikkala et al. (2010) report CPU seconds on one 2010 core).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..datasets.synthetic_regression import make_two_gaussians
from ..exceptions import InputError
from .pipeline import Experiment, PaperFigure, check_methods
from .report import SPREAD_NOTE, format_mean_se
from .runner import run

__all__ = ["E9_METHODS", "E9Config", "PAPER", "run_e9", "summarise_e9"]

E9_METHODS = ("greedy-rls", "lowrank")
#: Pahikkala et al. (2010), Fig. 3: "a bit less than twelve minutes" for m = 50 000 (Core 2
#: Duo E6600, 2010): an upper bound, the only run time the text prints.
PAPER = (
    PaperFigure(
        "Pahikkala, Airola & Salakoski, Fig. 3", "greedy-rls", {"m": 50_000}, {"seconds": 12 * 60},
        upper_bound=True,
    ),
)


@dataclass
class E9Config:
    """Settings of E9 (defaults: problems/e9_greedy_rls_scaling.toml)."""

    train_sizes: Sequence[int] = (500, 1000, 2000, 5000, 10_000, 20_000, 50_000)
    n_features: int = 1000
    n_informative: int = 50
    separation: float = 1.0
    n_selected: int = 50
    alpha: float = 1.0
    #: The low-rank LS-SVM runs only for m ≤ lowrank_max_m (0: never).
    lowrank_max_m: int = 2000
    #: Rounds of the low-rank LS-SVM run above its smallest m; the rest is extrapolated.
    lowrank_rounds: int = 1
    n_trials: int = 1
    methods: Sequence[str] = E9_METHODS
    seed: int = 0

    def __post_init__(self):
        check_methods("E9", self.methods, E9_METHODS)
        if not self.train_sizes or any(int(s) < 2 for s in self.train_sizes):
            raise InputError("train_sizes must be a non-empty list of sizes >= 2.")
        if not 1 <= self.n_selected <= self.n_features:
            raise InputError(
                f"n_selected must lie in [1, n_features={self.n_features}]; got {self.n_selected}."
            )
        if not 0 <= self.n_informative <= self.n_features:
            raise InputError("n_informative must lie in [0, n_features].")
        if self.lowrank_rounds < 1 or self.n_trials < 1 or self.lowrank_max_m < 0:
            raise InputError("lowrank_rounds and n_trials must be >= 1, lowrank_max_m >= 0.")
        if not self.alpha > 0:
            raise InputError(f"alpha (λ) must be positive; got {self.alpha!r}.")

    @property
    def lowrank_sizes(self) -> list[int]:
        """The sizes at which the low-rank LS-SVM runs (sorted)."""
        return sorted({int(m) for m in self.train_sizes if int(m) <= self.lowrank_max_m})

    def lowrank_rounds_at(self, m: int) -> int:
        """All ``k`` rounds at the smallest low-rank size (the full check), else a few."""
        sizes = self.lowrank_sizes
        if sizes and m == sizes[0]:
            return self.n_selected
        return min(self.n_selected, self.lowrank_rounds)


def draw(config: E9Config, trial: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The data of one (trial, m), the same for both methods."""
    rng = np.random.default_rng([config.seed, trial, m])
    X, y = make_two_gaussians(
        m,
        config.n_features,
        config.n_informative,
        random_state=int(rng.integers(2**31)),
        separation=config.separation,
    )
    return X, y.astype(np.float64)


def _timed(fn, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def run_size(config: E9Config, trial: int, m: int, methods: Sequence[str]) -> list[dict]:
    """Time the requested methods on one draw of ``m`` examples; one record per method."""
    from ..fast.greedy_rls import greedy_rls
    from ..fast.rls_reference import greedy_rls_lowrank

    X, y = draw(config, trial, m)
    k, n = config.n_selected, config.n_features
    records = []
    greedy = None
    # No "status": the schema stores its default, "ok" (an error here stops the run).
    base = {"trial": trial, "m": m}
    if "greedy-rls" in methods:
        greedy, wall, cpu = _timed(greedy_rls, X, y, k, config.alpha)
        records.append(
            base | {
                "method": "greedy-rls",
                "seconds": wall,
                "cpu_seconds": cpu,
                "ns_per_kmn": 1e9 * wall / (k * m * n),
                "rounds": k,
                "extrapolated": False,
                "selected": greedy.selected.tolist(),
                "n_informative_selected": int(np.sum(greedy.selected < config.n_informative)),
            }
        )
    if "lowrank" in methods:
        rounds = config.lowrank_rounds_at(m)
        (selected, _), wall, cpu = _timed(greedy_rls_lowrank, X, y, rounds, config.alpha)
        if greedy is None:  # resumed without the greedy record: its first features again
            greedy = greedy_rls(X, y, rounds, config.alpha)
        records.append(
            base | {
                "method": "lowrank",
                "seconds": wall * k / rounds,
                "cpu_seconds": cpu * k / rounds,
                "measured_seconds": wall,
                "ns_per_kmn": 1e9 * wall / (rounds * m * m * n),
                "rounds": rounds,
                "extrapolated": rounds < k,
                "selected": selected.tolist(),
                "same_as_greedy": selected.tolist() == greedy.selected[:rounds].tolist(),
            }
        )
    return records


def run_e9(config: E9Config | None = None, **options) -> list[dict]:
    """Run E9 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    ``n_jobs > 1`` runs sizes in parallel; the times then share the cores (and BLAS threads),
    so keep ``n_jobs=1`` for timings that mean something.

    Examples
    --------
    >>> config = E9Config(train_sizes=[60, 120], n_features=40, n_informative=5, n_selected=4,
    ...                   lowrank_max_m=60)
    >>> records = run_e9(config)
    >>> [(r["m"], r["method"], r["extrapolated"]) for r in records]
    [(60, 'greedy-rls', False), (60, 'lowrank', False), (120, 'greedy-rls', False)]
    >>> [r["same_as_greedy"] for r in records if r["method"] == "lowrank"]
    [True]
    """
    return run(EXPERIMENT, config, **options)


def _mean(records: list[dict], field: str) -> float:
    return float(np.mean([r[field] for r in records]))


def summarise_e9(records: list[dict], config: E9Config) -> str:
    """Run time per ``m`` (mean ± standard error over trials) beside the low-rank LS-SVM and
    Pahikkala et al.
    """
    k, n = config.n_selected, config.n_features
    head = (
        f"{'m':>7}{'greedy RLS [s]':>16}{'ns/(k·m·n)':>12}{'informative':>13}"
        f"{'low-rank LS-SVM [s]':>22}{'ratio':>8}   same features as greedy RLS"
    )
    lines = [
        f"E9 greedy RLS scaling: two Gaussian classes, n = {n} features ({config.n_informative} "
        f"informative), select k = {k}, λ = {config.alpha:g}, squared LOO loss; "
        f"{SPREAD_NOTE} over {config.n_trials} trial(s), wall-clock seconds",
        head,
        "-" * len(head),
    ]
    extrapolated_note = False
    for m in sorted({int(s) for s in config.train_sizes}):
        fast = [r for r in records if r["m"] == m and r["method"] == "greedy-rls"]
        low = [r for r in records if r["m"] == m and r["method"] == "lowrank"]
        row = f"{m:>7}"
        if fast:
            informative = f"{_mean(fast, 'n_informative_selected'):.0f}/{k}"
            row += (
                f"{format_mean_se([r['seconds'] for r in fast]):>16}"
                f"{_mean(fast, 'ns_per_kmn'):>12.3f}"
                f"{informative:>13}"
            )
        else:
            row += f"{'-':>16}{'-':>12}{'-':>13}"
        if low:
            seconds = _mean(low, "seconds")
            rounds = low[0]["rounds"]
            mark = " (extrapolated)" if low[0]["extrapolated"] else ""
            extrapolated_note |= bool(mark)
            cell = f"{seconds:.1f}{mark}"
            ratio = f"{seconds / _mean(fast, 'seconds'):.0f}x" if fast else "-"
            same = all(r["same_as_greedy"] for r in low)
            what = f"all {rounds}" if rounds == k else f"first {rounds}"
            row += f"{cell:>22}{ratio:>8}   {'yes' if same else 'NO'} ({what})"
        else:
            row += f"{'-':>22}{'-':>8}   -"
        lines.append(row)
    if extrapolated_note:
        lines.append(
            f"(extrapolated): {config.lowrank_rounds} of {k} rounds of the low-rank LS-SVM run, "
            "total scaled by the number of rounds."
        )
    for figure in PAPER:
        m = figure.setting["m"]
        at_m = [r for r in records if r["m"] == m and r["method"] == figure.method]
        ours = f"{_mean(at_m, 'seconds'):.1f} s" if at_m else "not run"
        lines.append(
            f"{figure.ref} (2.4 GHz Core 2 Duo, 2010): a bit under 12 min "
            f"(< {figure.values['seconds']:g} s) for k = 50 of n = 1000 at m = {m:,}; here: {ours}."
        )
    return "\n".join(lines)


def plot_e9(records: list[dict], config: E9Config, folder) -> list:
    """Run time against m on log–log axes, with the paper's upper bound at m = 50 000."""
    from .report import plot_panels

    return [
        plot_panels(
            records, "m", [("seconds", "seconds", 1.0)], folder / "e9_time_vs_m.png", log=True,
            title="E9: run time against the number of examples m (log–log)",
            xlabel="training examples m", paper=PAPER,
        )
    ]  # fmt: skip


EXPERIMENT = Experiment(
    id="e9",
    module=__name__,
    spec_keys=(
        "train_sizes", "n_features", "n_selected", "n_informative", "separation", "alpha",
        "lowrank_max_m", "lowrank_rounds", "n_trials", "methods",
    ),
    config_class=E9Config,
    run_unit="run_size",
    units=lambda c: [
        {"trial": t, "m": m} for m in sorted({int(m) for m in c.train_sizes})
        for t in range(c.n_trials)
    ],  # fmt: skip
    # The low-rank LS-SVM only up to lowrank_max_m: a cell above it has no record at all (not a
    # stored placeholder), so raising the limit later computes it.
    items=lambda c, unit: [
        m for m in c.methods if m == "greedy-rls" or unit["m"] in c.lowrank_sizes
    ],
    summarise=summarise_e9,
    setting_fields=("m",),
    # lowrank_max_m only says which cells have a low-rank row: raising it computes the new ones.
    sweep_fields=("train_sizes", "lowrank_max_m"),
    metrics=(("seconds", "seconds", 1.0),),
    plots=plot_e9,
    paper=PAPER,
    cost="m up to 50 000: about 15 min on 1 core (timings: keep --n-jobs 1)",
)
