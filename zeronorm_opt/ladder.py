"""The relaxation ladder: every approximation of the zero-norm measured against the exact one.

:func:`relaxation_ladder` runs, on one data set, the exact zero-norm (hard margin: the certified
search :func:`~zeronorm_opt.exact.minimum_separating_support`; soft margin: the mixed-integer
program :class:`~zeronorm_opt.formulations.ExactZeroNormFormulation`) and the relaxations of the
papers — l1-AROM, l2-AROM, FSV, the one-step l1 SVM, the bridge penalty ``Σ|w_j|^q``, greedy
RLS and the Lasso — and scores each selected support S with the *same* yardstick:

* ``support_size`` ``|S|`` and ``gap`` ``|S| − |S*|`` (``S*`` the exact row's support; ``inf``
  — "infeasible" in the table — when no separator on ``S`` exists, as for a greedy-RLS
  support that does not separate the data);
* ``objective`` — the exact problem's objective restricted to ``S``: ``|S|`` when a
  hard-margin separator on ``S`` exists (``inf`` when none does), or ``|S| + C·min Σ ξ`` over
  the separators on ``S`` with ``C``;
* ``test_error`` — a linear SVM (``sklearn.svm.SVC``, ``C=refit_C``) retrained on ``S``
  and evaluated on the test set (the protocol of Weston et al. 2003's experiments);
* ``time`` — wall-clock seconds of the selection.

:func:`ladder_over_draws` repeats it over draws and :func:`summarise_ladder` gives the
distribution of the gaps per method.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import lasso_path
from sklearn.svm import SVC

from ._validation import check_binary_labels, check_finite_matrix, check_positive, support_mask
from .driver import successive_linearisation
from .estimators.greedy_rls import GreedyRLS
from .estimators.zero_norm import AROM, FSV
from .exact import minimum_separating_support
from .exceptions import InputError, SolverError, ZeroNormError
from .formulations.binary import MarginFormulation
from .formulations.exact import ExactSolveInfo, ExactZeroNormFormulation
from .surrogates import PowerSurrogate

__all__ = [
    "LADDER_METHODS",
    "LadderResult",
    "LadderRow",
    "ladder_over_draws",
    "relaxation_ladder",
    "summarise_ladder",
    "support_objective",
]

#: The rungs, from the exact problem down (names as they appear in the table).
LADDER_METHODS = (
    "exact",
    "l1-AROM",
    "l2-AROM",
    "FSV",
    "l1 SVM",
    "bridge q=0.5",
    "greedy RLS",
    "Lasso",
)


@dataclass
class LadderRow:
    """One method of the ladder on one data set (see :func:`relaxation_ladder`)."""

    method: str
    support: np.ndarray
    support_size: int
    objective: float
    #: ``|S| − |S*|``; ``inf`` when ``S`` is infeasible for the margin constraints, ``nan``
    #: when the exact row was not run.
    gap: float
    feasible: bool
    test_error: float
    time: float
    note: str = ""


@dataclass
class LadderResult:
    """The table of :func:`relaxation_ladder` and the exact solve's report.

    Attributes
    ----------
    rows : list of LadderRow
    exact_gap : float
        The exact solve's proven relative gap (0: the exact row is proven optimal).
    C : float or None
        The soft-margin weight (None: hard margin).
    """

    rows: list[LadderRow]
    exact_gap: float = float("nan")
    C: float | None = None
    exact_info: object = field(default=None, repr=False)

    def __getitem__(self, method: str) -> LadderRow:
        for row in self.rows:
            if row.method == method:
                return row
        raise KeyError(method)

    def as_dicts(self) -> list[dict]:
        """The table as a list of dicts (without the support masks)."""
        keys = ("method", "support_size", "objective", "gap", "feasible", "test_error", "time")
        return [{k: getattr(r, k) for k in keys} | {"note": r.note} for r in self.rows]

    @property
    def exact_proven(self) -> bool:
        """Whether the exact row is a proven optimum (False: an incumbent, or not run)."""
        return bool(np.isfinite(self.exact_gap) and self.exact_gap <= 1e-9)

    @property
    def exact_bound(self) -> float:
        """The proven lower bound on the exact objective (hard margin: on ``‖w*‖₀``, rounded
        up to a whole number of features); ``nan`` when the exact row was not run."""
        bound = getattr(self.exact_info, "bound", float("nan"))
        if not np.isfinite(bound):
            return float("nan") if self.exact_info is None else 0.0
        return float(np.ceil(bound - 1e-6)) if self.C is None else float(bound)

    def _gap_text(self, row: LadderRow) -> str:
        if not row.feasible:
            return "infeasible"
        if np.isnan(row.gap):
            return "-"
        # an unproven exact row is an incumbent: the true gaps can only be larger
        exact = self.exact_proven or row.method == "exact"
        return f"{row.gap:.0f}" if exact else f"≥ {row.gap:.0f}"

    def to_text(self) -> str:
        """The table as fixed-width text."""
        head = f"{'method':<14}{'|S|':>5}{'objective':>11}{'gap':>12}{'test err':>10}{'time s':>9}"
        lines = [head, "-" * len(head)]
        for r in self.rows:
            obj = "infeasible" if not np.isfinite(r.objective) else f"{r.objective:.3f}"
            err = "" if np.isnan(r.test_error) else f"{100 * r.test_error:.1f} %"
            lines.append(
                f"{r.method:<14}{r.support_size:>5}{obj:>11}{self._gap_text(r):>12}{err:>10}"
                f"{r.time:>9.2f}" + (f"  {r.note}" if r.note else "")
            )
        if np.isfinite(self.exact_gap) and self.exact_gap > 0:
            lines.append(
                f"(exact row not proven optimal: gap {100 * self.exact_gap:.1f} %, proven "
                f"bound {self.exact_bound:g}; gaps are measured from the incumbent)"
            )
        return "\n".join(lines)

    __str__ = to_text

    def plot(self, fig=None):
        """Bar charts of each rung's exact objective on its support and, with a test set, of
        the test errors.

        Hard margin: the objective is ``|S|`` (grey bars marked "infeasible": no separator on
        ``S``); with ``C``: ``|S| + C·min Σ ξ``. A proven exact row is a red bar (and a dashed
        line across); an unproven one — a time limit stopped the exact solve — is drawn as an
        interval from the proven lower bound to the incumbent, not as a bar: the optimum lies
        somewhere in it. The test-error panel is drawn only when a test set was given.

        Returns a :class:`matplotlib.figure.Figure` (no pyplot state: works with the Agg
        backend and in scripts).
        """
        from matplotlib.figure import Figure

        with_errors = any(np.isfinite(r.test_error) for r in self.rows)
        if fig is None:
            fig = Figure(figsize=(9 if with_errors else 5, 3.4), layout="constrained")
        axes = np.atleast_1d(fig.subplots(1, 2 if with_errors else 1))
        names = [r.method for r in self.rows]
        pos = np.arange(len(names))
        hard = self.C is None
        heights = [r.support_size if hard or not r.feasible else r.objective for r in self.rows]
        colours = [
            "C3" if r.method == "exact" else ("C0" if r.feasible else "0.7") for r in self.rows
        ]
        ax = axes[0]
        bars = [k for k, r in enumerate(self.rows) if r.method != "exact" or self.exact_proven]
        ax.bar(pos[bars], [heights[k] for k in bars], color=[colours[k] for k in bars])
        for k, r in enumerate(self.rows):
            if not r.feasible:
                # above the bar: inside a short one the word would run into the tick labels
                ax.text(k, heights[k], " infeasible", ha="center", va="bottom", fontsize=8,
                        rotation=90)  # fmt: skip
            if r.method != "exact":
                continue
            if self.exact_proven:
                ax.axhline(heights[k], color="C3", ls="--", lw=1, label="exact optimum (proven)")
                continue
            low, high = self.exact_bound, heights[k]
            ax.errorbar(
                [k], [high], yerr=[[high - low], [0.0]], fmt="o", mfc="white", color="C3",
                capsize=6, lw=2, label=f"exact: proven bound {low:g} … incumbent {high:g}",
            )  # fmt: skip
            ax.axhspan(low, high, color="C3", alpha=0.08)
        if "exact" in names:
            ax.legend(fontsize=8)
        ax.margins(y=0.12)
        if hard:  # counts of features: whole numbers on the axis
            from matplotlib.ticker import MaxNLocator

            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        what = "features selected |S|" if hard else "objective |S| + C·Σξ on S"
        ax.set(ylabel=what, title="the exact problem on each support")
        if with_errors:
            errors = [100 * r.test_error for r in self.rows]
            axes[1].bar(pos, errors, color=colours)
            axes[1].set(ylabel="test error (%)", title="linear SVM retrained on S")
        for ax in axes:
            ax.set_xticks(pos, names, rotation=45, ha="right", fontsize=8)
        return fig


# ---------------------------------------------------------------------------------------------
# scoring a support with the exact problem's yardstick
# ---------------------------------------------------------------------------------------------


def support_objective(X, y, support, C: float | None = None) -> float:
    """The exact problem's objective restricted to ``support``.

    Hard margin (``C=None``): ``|S|`` if some ``(w, b)`` with ``w`` zero outside ``S``
    satisfies ``y_i(w·x_i + b) ≥ 1``, else ``inf``. Soft margin: ``|S| + C·min Σ_i ξ_i``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-2.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> support_objective(X, y, [True, False]), support_objective(X, y, [False, True])
    (1.0, inf)
    """
    support = np.asarray(support, dtype=bool)
    k = int(support.sum())
    b = cp.Variable()
    scores = b if k == 0 else X[:, support] @ cp.Variable(k) + b
    xi = cp.Variable(X.shape[0], nonneg=True) if C is not None else 0
    prob = cp.Problem(cp.Minimize(cp.sum(xi)), [cp.multiply(y, scores) >= 1 - xi])
    prob.solve(solver="HIGHS")
    if C is None:
        return float(k) if prob.status == cp.OPTIMAL else float("inf")
    return float(k + C * prob.value)


def _test_error(X, y, X_test, y_test, support, refit_C) -> float:
    if X_test is None or not support.any():
        return float("nan") if X_test is None else float(np.mean(y_test != np.sign(y.mean())))
    svm = SVC(kernel="linear", C=refit_C).fit(X[:, support], y)
    return float(np.mean(svm.predict(X_test[:, support]) != y_test))


# ---------------------------------------------------------------------------------------------
# the rungs: each returns a boolean support mask
# ---------------------------------------------------------------------------------------------


def _lasso_support(X, y, C) -> tuple[np.ndarray, str]:
    """The Lasso on the ±1 labels: the sparsest support along its path that separates the
    data (hard margin), or that minimises the soft objective (with ``C``)."""
    with warnings.catch_warnings():
        # the least-regularised end of the path rarely converges with n > m; its supports
        # are still scored honestly below
        warnings.simplefilter("ignore", ConvergenceWarning)
        _, coefs, _ = lasso_path(X - X.mean(axis=0), y - y.mean(), alphas=60)
    best, best_obj, seen = None, np.inf, set()
    for coef in coefs.T:
        support = np.abs(coef) > 0
        key = support.tobytes()
        if key in seen or not support.any():
            continue
        seen.add(key)
        obj = support_objective(X, y, support, C)
        if C is None and np.isfinite(obj):
            return support, "first separating support on the path"
        if obj < best_obj:
            best, best_obj = support, obj
    if best is None:
        best = np.abs(coefs[:, -1]) > 0
    note = "least objective on the path" if C is not None else "no support on the path separates"
    return best, note


def _run(method, X, y, C, k_hint=0):
    if method in ("l1-AROM", "l2-AROM"):
        return AROM(penalty=method[:2], C=C).fit(X, y).support_, ""
    if method == "FSV":
        return FSV(C=C).fit(X, y).support_, ""
    if method == "l1 SVM":
        f = MarginFormulation(X, y, "l1", C)
        f.solve()
        return support_mask(f.solution()[0]), "one LP"
    if method == "bridge q=0.5":
        f = MarginFormulation(X, y, "l1", C)
        res = successive_linearisation(
            f, PowerSurrogate(q=0.5, eps=0.0), normalise_weights=C is None
        )
        return np.asarray(res.support, dtype=bool), ""
    if method == "greedy RLS":
        k = max(1, min(k_hint, X.shape[1]))
        rls = GreedyRLS(n_features_to_select=k).fit(X, y)
        return rls.get_support(), f"k = {k} (the exact size)"
    if method == "Lasso":
        return _lasso_support(X, y, C)
    raise InputError(f"unknown ladder method {method!r}; choose among {LADDER_METHODS}.")


def relaxation_ladder(
    X,
    y,
    X_test=None,
    y_test=None,
    *,
    C: float | None = None,
    methods: Sequence[str] = LADDER_METHODS,
    time_limit: float | None = 60.0,
    refit_C: float = 1.0,
    solver_options: dict | None = None,
) -> LadderResult:
    """Run the exact zero-norm and its relaxations on one data set; tabulate how far each
    lands from the exact optimum.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes (any labels).
    X_test, y_test : array-like or None
        Test set for the ``test_error`` column (NaN without it).
    C : float or None, default=None
        None: the hard-margin problem ``min ‖w‖₀ s.t. y_i(w·x_i + b) ≥ 1`` (the data must be
        separable). A number: ``min ‖w‖₀ + C Σ ξ_i`` for the exact row, the soft-margin
        versions of the relaxations, and the objective column.
    methods : sequence of str, default=LADDER_METHODS
        Any of ``"exact"``, ``"l1-AROM"``, ``"l2-AROM"``, ``"FSV"``, ``"l1 SVM"`` (one LP:
        AROM's first step), ``"bridge q=0.5"`` (``Σ|w_j|^½`` by successive linearisation over
        the margin constraints), ``"greedy RLS"`` (regularised least squares on the ±1 labels,
        forward selection of as many features as the exact support has — or the smallest
        relaxation's when ``"exact"`` is not run) and ``"Lasso"`` (the first support along
        the Lasso path on the ±1 labels that separates the data; with ``C``, the support of
        least objective on the path).
    time_limit : float or None, default=60
        Seconds for the exact solve; when it stops early the exact row is the
        incumbent and :attr:`LadderResult.exact_gap` its proven gap.
    refit_C : float, default=1.0
        ``C`` of the linear SVM retrained on each support for the test error.
    solver_options : dict or None
        Options of the mixed-integer solver (HiGHS; soft margin only).

    Returns
    -------
    LadderResult
        ``rows`` in the order of ``methods``; ``to_text()`` and ``plot()``.

    References
    ----------
    .. [1] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with
       linear models and kernel methods", *Journal of Machine Learning Research*
       3:1439–1461, 2003.
    .. [2] P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization
       and support vector machines", *Proceedings of the 15th International Conference on
       Machine Learning*, 82–90, 1998.
    .. [3] T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection
       for regularized least-squares", *Proceedings of the 9th International Conference on
       Machine Learning and Applications*, 325–330, 2010.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(20, n_features=12, random_state=0)
    >>> ladder = relaxation_ladder(X, y, methods=["exact", "l1 SVM", "l1-AROM"])
    >>> [r.method for r in ladder.rows]
    ['exact', 'l1 SVM', 'l1-AROM']
    >>> all(r.support_size >= ladder["exact"].support_size for r in ladder.rows)
    True
    """
    X = check_finite_matrix(X)
    _, y = check_binary_labels(y, X.shape[0])
    if (X_test is None) != (y_test is None):
        raise InputError("pass both X_test and y_test, or neither.")
    if X_test is not None:
        X_test = check_finite_matrix(X_test, "X_test")
        _, y_test = check_binary_labels(y_test, X_test.shape[0])
        if X_test.shape[1] != X.shape[1]:
            raise InputError(f"X_test must have {X.shape[1]} features like X.")
    C = check_positive(C, "C", allow_none=True)
    refit_C = check_positive(refit_C, "refit_C")
    unknown = [m for m in methods if m not in LADDER_METHODS]
    if unknown:
        raise InputError(f"unknown ladder methods {unknown}; choose among {LADDER_METHODS}.")

    supports: dict[str, tuple[np.ndarray, float, str]] = {}
    exact_info = None
    relaxations = [m for m in methods if m not in ("exact", "greedy RLS")]
    for method in relaxations:
        start = time.perf_counter()
        try:
            support, note = _run(method, X, y, C)
        except ZeroNormError as exc:  # e.g. a solver failure on one rung: record, go on
            support, note = np.zeros(X.shape[1], dtype=bool), f"failed: {exc}"[:80]
        supports[method] = (support, time.perf_counter() - start, note)
    k_hint = min((s.sum() for s, _, _ in supports.values() if s.any()), default=1)
    if "exact" in methods:
        start = time.perf_counter()
        exact_support, exact_info, note = _exact_row(X, y, C, supports, solver_options, time_limit)
        supports["exact"] = (exact_support, time.perf_counter() - start, note)
        k_hint = int(exact_support.sum())
    if "greedy RLS" in methods:
        start = time.perf_counter()
        support, note = _run("greedy RLS", X, y, C, k_hint)
        supports["greedy RLS"] = (support, time.perf_counter() - start, note)

    exact_size = supports["exact"][0].sum() if "exact" in supports else np.nan
    rows = []
    for method in methods:
        support, elapsed, note = supports[method]
        objective = support_objective(X, y, support, C)
        feasible = bool(np.isfinite(objective))
        rows.append(
            LadderRow(
                method=method,
                support=support,
                support_size=int(support.sum()),
                objective=objective,
                # no separator on S: not a candidate of the exact problem, so no size gap
                gap=float(support.sum() - exact_size) if feasible else float("inf"),
                feasible=feasible,
                test_error=_test_error(X, y, X_test, y_test, support, refit_C),
                time=float(elapsed),
                note=note,
            )
        )
    gap = float(exact_info.gap) if exact_info is not None else float("nan")
    return LadderResult(rows=rows, exact_gap=gap, C=C, exact_info=exact_info)


def _exact_row(X, y, C, supports, solver_options, time_limit):
    """The exact support. Hard margin: the certified search
    (:func:`~zeronorm_opt.exact.minimum_separating_support`) warm-started with every
    relaxation's support; soft margin: the MILP (:func:`_exact_milp_row`)."""
    if C is not None:
        return _exact_milp_row(X, y, C, supports, solver_options, time_limit)
    start = time.perf_counter()
    result = minimum_separating_support(
        X, y, time_limit=time_limit, initial_supports=[s for s, _, _ in supports.values()]
    )
    support = np.isin(np.arange(X.shape[1]), result.support)
    note = ""
    left = None if time_limit is None else time_limit - (time.perf_counter() - start)
    if result.status == "enumeration_limit" and (left is None or left > 1.0):
        # sizes ≥ 4 are beyond enumeration: the MILP, told the certified bound
        # (Σ s ≥ L) and asked for a smaller support (Σ s < |S|), may find one
        smaller = _milp_smaller_support(X, y, result, solver_options, left)
        if smaller is not None:  # the search again, from it: weights and certificate agree
            result = minimum_separating_support(X, y, time_limit=time_limit,
                                                initial_supports=[smaller])  # fmt: skip
            support = np.isin(np.arange(X.shape[1]), result.support)
            note = "incumbent by the MILP; "
    if not result.proven_optimal:
        note += f"not proven: bound {result.lower_bound}"
    return support, result, note.rstrip("; ")


def _milp_smaller_support(X, y, result, solver_options, time_limit):
    """A separating support smaller than the search's incumbent, by the big-M MILP with the
    certified bound as a cut; None when it finds none in the time left."""
    exact = ExactZeroNormFormulation(X, y)
    k, low = result.n_selected, result.lower_bound
    exact.add_constraints(lambda f: [cp.sum(f.s) <= k - 1, cp.sum(f.s) >= low])
    try:
        exact.solve(solver_options=solver_options, time_limit=time_limit)
    except SolverError:  # no incumbent in time, or none smaller exists
        return None
    support = exact.support()
    return support if np.isfinite(support_objective(X, y, support)) else None


def _exact_milp_row(X, y, C, supports, solver_options, time_limit):
    """The exact soft-margin support: the MILP, seeded with the best relaxation.

    The best relaxation's support is feasible for the MILP (``M`` covers its weights), so its
    objective bounds the optimum: with the hard margin the cut ``Σ_j s_j ≤ |S_best|`` is
    added (it prunes the search), and when a time limit stops the MILP with a worse incumbent
    (or none) the relaxation's support is reported as the exact row's incumbent, the gap
    recomputed from the MILP's proven bound.
    """
    scored = [
        (support_objective(X, y, s, C), int(s.sum()), name, s)
        for name, (s, _, _) in supports.items()
        if s.any()
    ]
    best = min(scored, key=lambda t: (t[0], t[1]), default=None)
    exact = ExactZeroNormFormulation(X, y, C, big_m=_big_m_hint(X, y, C, supports))
    if best is not None and C is None and np.isfinite(best[0]):
        exact.add_constraints(lambda f, k=best[1]: [cp.sum(f.s) <= k])
    try:
        info = exact.solve(solver_options=solver_options, time_limit=time_limit)
        support, value = exact.support(), info.value
    except SolverError as exc:
        if best is None or not np.isfinite(best[0]):
            raise
        # no incumbent within the time limit: the relaxation's support is the incumbent
        info = exact.last_solve
        support, value = best[3], np.inf
        if info is None:
            info = ExactSolveInfo(
                status=getattr(exc, "status", None) or "user_limit",
                solver="HIGHS",
                value=float(best[0]),
                solve_time=float(time_limit or 0.0),
                bound=0.0,
            )
    note = ""
    if best is not None and best[0] < value - 1e-9:
        support, value = best[3], best[0]
        note = f"incumbent = {best[2]}'s support; "
        bound = info.bound if np.isfinite(info.bound) else 0.0
        info.value, info.gap = float(value), float((value - bound) / max(abs(value), 1.0))
        info.proven_optimal = info.gap <= 1e-9
        info.n_selected = int(support.sum())
    if not info.proven_optimal:
        note += f"MILP gap {100 * info.gap:.0f} %"
    return support, info, note.rstrip("; ")


def _big_m_hint(X, y, C, supports) -> float | None:
    """A bound M large enough for every relaxation's support: 10 × the largest weight of the
    least-l1 separator on the sparsest feasible relaxation support (None: the default M).

    The exact row then can never lose to a relaxation because of M: each relaxation's
    support remains feasible for the mixed-integer program.
    """
    largest = 0.0
    for support, _, _ in supports.values():
        if not support.any():
            continue
        f = MarginFormulation(X[:, support], y, "l1", C)
        try:
            f.solve()
        except SolverError:
            continue
        largest = max(largest, float(np.abs(f.solution()[0]).max()))
    if largest == 0.0:
        return None
    # the default M (1e4 × the l1 solution on all features) may be smaller or larger:
    # take both into account by returning the larger of the two
    full = MarginFormulation(X, y, "l1", C)
    full.solve()
    return max(10.0 * largest, 1e4 * float(np.abs(full.solution()[0]).max()))


# ---------------------------------------------------------------------------------------------
# over draws
# ---------------------------------------------------------------------------------------------


def ladder_over_draws(
    make_draw: Callable[[int], tuple],
    n_draws: int,
    **kwargs,
) -> list[LadderResult]:
    """Run :func:`relaxation_ladder` on ``n_draws`` data sets.

    Parameters
    ----------
    make_draw : callable
        ``make_draw(seed) -> (X, y, X_test, y_test)``: one draw or random split.
    n_draws : int
    **kwargs
        Passed to :func:`relaxation_ladder`.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> def draw(seed):
    ...     X, y = make_weston_linear(60, n_features=10, random_state=seed)
    ...     return X[:20], y[:20], X[20:], y[20:]
    >>> results = ladder_over_draws(draw, 2, methods=["exact", "l1 SVM"])
    >>> len(results)
    2
    """
    return [relaxation_ladder(*make_draw(seed), **kwargs) for seed in range(int(n_draws))]


def summarise_ladder(results: Sequence[LadderResult]) -> list[dict]:
    """Distribution over draws of each method's gap to the exact ‖w‖₀ and its test error.

    Returns one dict per method: ``mean_size``, ``mean_gap``, ``median_gap``, ``max_gap``
    (over the draws where its support is feasible; ``nan`` when it never is),
    ``frac_exact`` (share of draws where ``S`` is feasible and ``|S| = |S*|``),
    ``frac_infeasible``, ``mean_test_error``, ``mean_time`` and ``n_draws``.
    """

    def finite(stat, values) -> float:  # the statistic of the finite values, nan if none
        values = np.asarray(values)[np.isfinite(values)]
        return float(stat(values)) if values.size else float("nan")

    out = []
    for method in (r.method for r in results[0].rows):
        rows = [res[method] for res in results]
        gaps = np.array([r.gap for r in rows])
        out.append(
            {
                "method": method,
                "mean_size": float(np.mean([r.support_size for r in rows])),
                "mean_gap": finite(np.mean, gaps),
                "median_gap": finite(np.median, gaps),
                "max_gap": finite(np.max, gaps),
                "frac_exact": float(np.mean(gaps == 0)),
                "frac_infeasible": float(np.mean([not r.feasible for r in rows])),
                "mean_test_error": finite(np.mean, [r.test_error for r in rows]),
                "mean_time": float(np.mean([r.time for r in rows])),
                "n_draws": len(rows),
            }
        )
    return out
