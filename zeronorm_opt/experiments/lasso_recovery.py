"""Experiment E11: sparse recovery with more features than examples (Rosasco, 2007).

Each trial draws ``y = Φβ + noise·ε`` with ``n`` examples, ``p > n`` standardised columns and
``k`` non-zero coefficients (:func:`~zeronorm_opt.datasets.synthetic_regression.
make_sparse_regression`) and solves the Lasso

    min_β  (1/n) ‖y − Φβ‖² + λ ‖β‖₁

along a path ``λ = ratio · λ_max`` (``λ_max = 2‖Φᵀy‖_∞ / n``, the smallest λ giving ``β = 0``;
ratios from large to small) with every method:

* ``"ISTA"`` / ``"FISTA"`` — :func:`~zeronorm_opt.fast.ista.ista` / :func:`~zeronorm_opt.fast.
  ista.fista`, warm-started along the path, stopped on the relative duality gap ``tol``;
* ``"cvxpy"`` — :class:`~zeronorm_opt.formulations.regression.LassoFormulation` (compiled once,
  λ a Parameter) with an interior-point solver at tight tolerances: the reference;
* ``"sklearn"`` — :func:`sklearn.linear_model.lasso_path` (coordinate descent). scikit-learn
  minimises ``(1/(2n))‖y − Φβ‖² + α‖β‖₁``, half of the objective above with ``α = λ/2``: the same
  minimiser, so it is called with ``α = λ/2``;
* ``"BP"`` — basis pursuit ``min ‖β‖₁ s.t. Φβ = y`` on the **noiseless** draw (same ``Φ``, ``β``):
  :class:`~zeronorm_opt.formulations.regression.BasisPursuitFormulation`.

Per method and λ the records hold the support recovery of ``|β̂_j| > support_tol`` against the
true support (recall, precision, exact), the maximum coefficient difference to the cvxpy
solution (the solver cross-check), the relative duality gap of the solution (a certificate that
needs no reference) and the iterations.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import lasso_path
from threadpoolctl import threadpool_limits

from ..datasets.synthetic_regression import make_sparse_regression
from ..exceptions import InputError
from .pipeline import Experiment, check_methods
from .runner import run, run_items

__all__ = ["E11_METHODS", "E11Config", "lambda_max", "run_e11", "summarise_e11"]

E11_METHODS = ("ISTA", "FISTA", "cvxpy", "sklearn", "BP")
_PATH_METHODS = ("ISTA", "FISTA", "cvxpy", "sklearn")


@dataclass
class E11Config:
    """Settings of E11 (defaults: problems/e11_lasso_recovery.toml)."""

    train_sizes: Sequence[int] = (50, 100)
    n_features: int = 400
    n_nonzero: int = 10
    noise: float = 0.1
    n_trials: int = 10
    lambda_ratios: Sequence[float] = (
        0.5, 0.3, 0.2, 0.1, 0.05, 0.03, 0.02, 0.01, 0.005, 0.003, 0.002, 0.001,
    )  # fmt: skip
    tol: float = 1e-9
    max_iter: int = 100_000
    sklearn_tol: float = 1e-12
    cvxpy_solver: str = "CLARABEL"
    cvxpy_options: dict | None = None
    support_tol: float = 1e-4
    methods: Sequence[str] = E11_METHODS
    seed: int = 0

    def __post_init__(self):
        check_methods("E11", self.methods, E11_METHODS)
        if not self.train_sizes or any(int(n) < 2 for n in self.train_sizes):
            raise InputError("train_sizes (the values of n) must be a non-empty list of n >= 2.")
        if any(int(n) >= self.n_features for n in self.train_sizes):
            raise InputError(
                f"E11 is sparse recovery with p > n: every training size must be below "
                f"n_features={self.n_features}; got {list(self.train_sizes)}."
            )
        if not 1 <= self.n_nonzero <= self.n_features:
            raise InputError("n_nonzero must lie in [1, n_features].")
        ratios = [float(r) for r in self.lambda_ratios]
        if not ratios or any(not 0 < r <= 1 for r in ratios):
            raise InputError("lambda_ratios (λ / λ_max) must be a non-empty list in (0, 1].")
        # Large to small: the warm starts of ISTA / FISTA / coordinate descent follow the path.
        self.lambda_ratios = tuple(sorted(set(ratios), reverse=True))
        if self.n_trials < 1 or self.max_iter < 1 or not self.noise >= 0:
            raise InputError("n_trials and max_iter must be >= 1 and noise >= 0.")
        if not (self.tol >= 0 and self.sklearn_tol >= 0 and self.support_tol >= 0):
            raise InputError("tol, sklearn_tol and support_tol must be >= 0.")


def lambda_max(Phi: np.ndarray, y: np.ndarray) -> float:
    """Smallest λ at which ``β = 0`` solves ``(1/n)‖y − Φβ‖² + λ‖β‖₁``: ``2‖Φᵀy‖_∞ / n``.

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.fast.ista import fista
    >>> Phi, y = np.eye(3), np.array([3.0, -1.0, 0.5])
    >>> lam = lambda_max(Phi, y)
    >>> lam, bool(np.all(fista(Phi, y, lam).coef == 0))
    (2.0, True)
    """
    return float(2.0 * np.abs(Phi.T @ y).max() / Phi.shape[0])


def _recovery(coef: np.ndarray, truth: np.ndarray, tol: float) -> dict:
    found, true = np.abs(coef) > tol, truth != 0
    hits = int(np.sum(found & true))
    return {
        "support_size": int(found.sum()),
        "recall": hits / int(true.sum()),
        "precision": hits / max(1, int(found.sum())),
        "exact": bool(np.array_equal(found, true)),
    }


def _cvxpy_path(config: E11Config, Phi, y, lams) -> list[np.ndarray]:
    from ..formulations.regression import LassoFormulation

    formulation = LassoFormulation(Phi, y, lams[0])
    options = config.cvxpy_options
    if options is None and config.cvxpy_solver == "CLARABEL":
        options = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
    coefs = []
    for lam in lams:
        formulation.alpha = lam  # a Parameter: the problem is compiled once
        formulation.solve(solver=config.cvxpy_solver, solver_options=options)
        coefs.append(formulation.coef_value())
    return coefs


def _path(config: E11Config, method: str, Phi, y, lams) -> tuple[list, list, list]:
    """Coefficients, iterations and convergence flags of a method along the λ path."""
    from ..fast.ista import fista, ista

    if method == "sklearn":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            _, coefs, _, n_iter = lasso_path(
                Phi,
                y,
                alphas=np.asarray(lams) / 2.0,  # sklearn's objective is half of Rosasco's
                tol=config.sklearn_tol,
                max_iter=config.max_iter,
                return_n_iter=True,
            )
        iters = [int(i) for i in n_iter]
        return [coefs[:, i] for i in range(len(lams))], iters, [i < config.max_iter for i in iters]
    solve = ista if method == "ISTA" else fista
    coefs, iters, converged, coef = [], [], [], None
    for lam in lams:
        res = solve(Phi, y, lam, tol=config.tol, max_iter=config.max_iter, coef_init=coef)
        coef = res.coef
        coefs.append(coef)
        iters.append(res.n_iter)
        converged.append(bool(res.converged))
    return coefs, iters, converged


def run_trial(config: E11Config, trial: int, n: int, methods: Sequence[str]) -> list[dict]:
    """All requested methods on one draw; one record per method."""
    # One BLAS thread: ISTA / FISTA are thousands of small matrix-vector products, which
    # threading slows down (10-30x measured on the 2 shared cores); same for every method.
    with threadpool_limits(limits=1, user_api="blas"):
        return _run_trial(config, trial, n, methods)


def _run_trial(config: E11Config, trial: int, n: int, methods: Sequence[str]) -> list[dict]:
    from ..fast.ista import lasso_dual_gap, lasso_objective
    from ..formulations.regression import BasisPursuitFormulation

    state = int(np.random.default_rng([config.seed, trial, n]).integers(2**31))
    args = (n, config.n_features, config.n_nonzero)
    Phi, y, truth = make_sparse_regression(
        *args, noise=config.noise, random_state=state, return_coef=True
    )
    lam_max = lambda_max(Phi, y)
    lams = [r * lam_max for r in config.lambda_ratios]
    reference = None
    if any(m in _PATH_METHODS for m in methods):
        start = time.perf_counter()
        reference = _cvxpy_path(config, Phi, y, lams)
        reference_seconds = time.perf_counter() - start

    def measure(method: str) -> dict:
        if method == "BP":
            # The noiseless draw: same Φ and β (the noise is drawn last).
            Phi0, y0 = make_sparse_regression(*args, noise=0.0, random_state=state)
            bp = BasisPursuitFormulation(Phi0, y0)
            bp.solve()
            coef = bp.coef_value()
            return _recovery(coef, truth, config.support_tol) | {
                "max_error": float(np.abs(coef - truth).max())
            }
        if method == "cvxpy":
            coefs, seconds = reference, reference_seconds
            iters, converged = None, [True] * len(lams)
        else:
            start = time.perf_counter()
            coefs, iters, converged = _path(config, method, Phi, y, lams)
            seconds = time.perf_counter() - start
        recovery = [_recovery(c, truth, config.support_tol) for c in coefs]
        objectives = [lasso_objective(Phi, y, c, lam) for c, lam in zip(coefs, lams, strict=True)]
        return {
            "lambda_max": lam_max,
            "lambda_ratios": list(config.lambda_ratios),
            **{key: [r[key] for r in recovery] for key in recovery[0]},
            "support": [np.flatnonzero(np.abs(c) > config.support_tol).tolist() for c in coefs],
            "max_diff_to_cvxpy": [
                float(np.abs(c - r).max()) for c, r in zip(coefs, reference, strict=True)
            ],
            "relative_gap": [
                lasso_dual_gap(Phi, y, c, lam) / max(f, np.finfo(float).tiny)
                for c, lam, f in zip(coefs, lams, objectives, strict=True)
            ],
            "iterations": iters,
            "converged": converged,
            "seconds": seconds,
        }

    return run_items(methods, {"trial": trial, "n": n}, measure)


def run_e11(config: E11Config | None = None, **options) -> list[dict]:
    """Run E11 (:func:`~zeronorm_opt.experiments.runner.run` and its options).

    Examples
    --------
    >>> config = E11Config(train_sizes=[30], n_features=80, n_nonzero=3, n_trials=1,
    ...                    lambda_ratios=[0.5, 0.1], methods=["FISTA", "sklearn", "BP"])
    >>> records = run_e11(config)
    >>> [r["method"] for r in records]
    ['FISTA', 'sklearn', 'BP']
    >>> max(max(r["max_diff_to_cvxpy"]) for r in records[:2]) < 1e-4, records[2]["exact"]
    (True, True)
    """
    return run(EXPERIMENT, config, **options)


def _recovery_table(path: list[dict], config: E11Config, n: int) -> list[str]:
    """Support recovery along λ and the solvers' agreement, for one n."""
    source = next(
        (m for m in ("cvxpy", "FISTA", "ISTA", "sklearn") if any(r["method"] == m for r in path)),
        None,
    )
    if source is None:
        return []
    mine = [r for r in path if r["method"] == source]
    others = [m for m in ("ISTA", "FISTA", "sklearn") if m in config.methods]
    head = (
        f"{'λ/λ_max':>8}{'|S|':>7}{'recall %':>10}{'precision %':>13}{'exact %':>9}"
        + "".join(f"{'Δβ ' + m:>13}" for m in others)
        + f"{'supports agree %':>18}"
    )
    lines = [
        "",
        f"n = {n} (p/n = {config.n_features / n:.1f}): recovery by the {source} solutions; "
        "Δβ = max |β − β_cvxpy| over the trials",
        head,
        "-" * len(head),
    ]
    by_trial: dict[int, list[dict]] = {}
    for r in path:
        by_trial.setdefault(r["trial"], []).append(r)
    for i, ratio in enumerate(config.lambda_ratios):
        row = (
            f"{ratio:>8.3g}{np.mean([r['support_size'][i] for r in mine]):>7.1f}"
            f"{100 * np.mean([r['recall'][i] for r in mine]):>10.1f}"
            f"{100 * np.mean([r['precision'][i] for r in mine]):>13.1f}"
            f"{100 * np.mean([r['exact'][i] for r in mine]):>9.1f}"
        )
        for m in others:
            diffs = [r["max_diff_to_cvxpy"][i] for r in path if r["method"] == m]
            row += f"{(f'{max(diffs):.1e}' if diffs else '-'):>13}"
        agree = [len({tuple(r["support"][i]) for r in group}) == 1 for group in by_trial.values()]
        lines.append(row + f"{100 * np.mean(agree):>18.1f}")
    return lines


def _cost_table(path: list[dict], config: E11Config) -> list[str]:
    """Time, iterations, duality gaps and convergence per method, for one n."""
    head = (
        f"{'method':<9}{'seconds/path':>13}{'iterations/path':>17}{'max rel. gap':>14}"
        f"{'converged %':>13}"
    )
    lines = ["", head, "-" * len(head)]
    for method in config.methods:
        mine = [r for r in path if r["method"] == method]
        if not mine:
            continue
        iters = "-"
        if mine[0]["iterations"] is not None:
            iters = f"{np.mean([sum(r['iterations']) for r in mine]):.0f}"
        lines.append(
            f"{method:<9}{np.mean([r['seconds'] for r in mine]):>13.3f}{iters:>17}"
            f"{max(max(r['relative_gap']) for r in mine):>14.1e}"
            f"{100 * np.mean([c for r in mine for c in r['converged']]):>13.1f}"
        )
    return lines


def summarise_e11(records: list[dict], config: E11Config) -> str:
    """Support recovery along λ, the solvers' agreement, their cost, and basis pursuit."""
    ok = [r for r in records if r["status"] == "ok"]
    lines = [
        f"E11 Lasso / ISTA: p = {config.n_features} features, {config.n_nonzero} non-zero "
        f"(|β_j| in [1, 3]), noise {config.noise:g}, {config.n_trials} trial(s) per n; objective "
        f"(1/n)‖y − Φβ‖² + λ‖β‖₁, support |β_j| > {config.support_tol:g}"
    ]
    for n in sorted({int(s) for s in config.train_sizes}):
        path = [r for r in ok if r["n"] == n and r["method"] in _PATH_METHODS]
        lines += _recovery_table(path, config, n) + _cost_table(path, config)
        bp = [r for r in ok if r["n"] == n and r["method"] == "BP"]
        if bp:
            lines.append(
                f"basis pursuit (noiseless, min ‖β‖₁ s.t. Φβ = y): exact support in "
                f"{sum(r['exact'] for r in bp)}/{len(bp)} trials, max |β̂ − β| "
                f"{max(r['max_error'] for r in bp):.1e}, "
                f"{np.mean([r['seconds'] for r in bp]):.2f} s per solve"
            )
    failed = [r for r in records if r["status"] != "ok"]
    if failed:
        shown = "; ".join(
            f"{r['method']} n={r['n']} trial {r['trial']}: {r['status']}" for r in failed[:3]
        )
        lines.append(f"{len(failed)} failed record(s): {shown}")
    return "\n".join(lines)


EXPERIMENT = Experiment(
    id="e11",
    module=__name__,
    spec_keys=(
        "train_sizes", "n_features", "n_nonzero", "noise", "n_trials", "lambda_ratios", "tol",
        "max_iter", "sklearn_tol", "cvxpy_solver", "support_tol", "methods",
    ),
    config_class=E11Config,
    run_unit="run_trial",
    units=lambda c: [{"trial": t, "n": int(n)} for n in c.train_sizes for t in range(c.n_trials)],
    summarise=summarise_e11,
    setting_fields=("n",),
    metrics=(("seconds", "seconds", 1.0),),
    cost="2 sizes × 10 trials: about 5 min on 2 cores",
)
