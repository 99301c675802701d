"""The least hinge loss with at most ``r`` features, proven: the budget form of the zero-norm SVM.

The problem is ``min Σ_i ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0``, ``‖w‖₀ ≤ r``. For a
fixed support ``S`` it is a linear program ``f(S)`` whose dual is

    f(S) = max Σ_i α_i   s.t.   0 ≤ α ≤ 1,   Σ_i α_i y_i = 0,   Σ_i α_i y_i x_ij = 0  (j ∈ S),

and ``f`` only decreases when ``S`` grows, so the optimum is ``min f(S)`` over the supports of
exactly ``r`` features. Any ``α`` in the box with ``Σ α_i y_i = 0`` is a lower bound *for every
support on which its residuals* ``g_j(α) = Σ_i α_i y_i x_ij`` *vanish* (weak duality). Why not
the big-M MILP: its relaxation lets ``|w_j| ≤ M s_j`` cost nothing, so its bound stays 0 on the
colon data for r = 2 and 3 after minutes. The duals bound without ``M``:

* **one dual per anchor, many pairs**: vectors with ``g_a = 0`` (an *anchor family* of feature
  ``a``) bound the pair ``{a, b}`` by ``L`` as soon as two of them of value ``≥ L`` have
  residuals of opposite signs on ``b`` (their combination zeroing ``g_b`` keeps the box, the
  zero residuals and a value ``≥ L``), or more generally when the upper concave envelope of the
  points ``(g_b, Σα)`` reaches ``L`` at 0 (:func:`~zeronorm_opt.exact._kernels.bounds_pair`);
* **steered vertices**: the dual optimum of ``{a}`` alone sits on the top face of the dual
  polytope, where all vertices look alike; each further family vector is the vertex of value
  ``≥ L`` that pushes the residuals the family has on the still unbounded pairs across zero (a
  Lagrangian LP with the least multiplier keeping ``Σα ≥ L``). On colon (62 × 2000) about eight
  such vertices per gene bound all but about 300 of the 2 million pairs;
* **an exact LP per leftover pair** — a 3-unknown LP solved by a small bounded-variable simplex
  on its dual (:func:`~zeronorm_opt.exact._kernels.dual_vertex`, about 50 µs), whose optimal
  ``α`` joins the certificate; every pair below ``L`` is such a leftover, so the least of them
  is the optimum when it beats the incumbent.

Budget 1 is the enumeration of the single features (one dual each); a budget ``r ≥ 3`` is
enumerated support by support when there are at most ``max_supports`` of them (small
problems); otherwise the incumbent is returned with the trivial bound 0 (or proven when its
loss is 0). The incumbent comes from the supports passed in (e.g. the relaxations'), a greedy
forward selection from the best single features and, for r = 2, the pair scan itself.

The lower bound comes with a :class:`HingeLossCertificate` — the dual vectors — that
:func:`check_hinge_certificate` re-checks from the data alone. Residuals are accepted up to
``tol``, so (as with any LP or MILP solver's tolerances) a certified bound ``L`` means
``Σ ξ ≥ L − tol·(|b| + ‖w‖₁)`` on the standardised data: no classifier of moderate weights
beats it.

References
----------
.. [1] Bradley, P. S. and Mangasarian, O. L. (1998). Feature selection via concave
   minimization and support vector machines. ICML.
.. [2] Weston, J., Elisseeff, A., Schölkopf, B. and Tipping, M. (2003). Use of the zero-norm
   with linear models and kernel methods. JMLR 3, 1439–1461.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import comb

import numpy as np

from .._validation import check_binary_labels, check_finite_matrix
from ..exceptions import InputError
from . import _kernels as K
from .farkas import equivalence_classes, standardise
from .hinge_certificate import HingeLossCertificate

__all__ = ["BudgetProgress", "BudgetResult", "minimum_hinge_loss"]

#: Pair anchors per compiled call (progress and the time limit are checked between calls).
CHUNK = 64
#: Steered family vertices per anchor before the leftover pairs get their own LP.
ROUNDS = 16


@dataclass
class BudgetProgress:
    """A snapshot of a running :func:`minimum_hinge_loss` (what the progress line shows)."""

    done: int
    total: int
    incumbent: float
    bound: float
    elapsed: float

    def line(self) -> str:
        return (
            f"pairs: {self.done}/{self.total} anchors | incumbent loss {self.incumbent:.4f}, "
            f"bound {self.bound:.4f} | {self.elapsed:.0f} s"
        )


@dataclass
class BudgetResult:
    """The best support of at most ``budget`` features and the certified lower bound.

    Attributes
    ----------
    budget : int
    support : ndarray of int
        Features of the best support found (``len ≤ budget``).
    coef : ndarray of shape (n,)
        Its hinge-loss optimal weights in the units of X (zero off the support).
    intercept : float
    loss : float
        ``Σ_i max(0, 1 − y_i(coef·x_i + intercept))``.
    lower_bound : float
        Certified: no support of ``budget`` features has a smaller least hinge loss.
    status : str
        ``"optimal"``, ``"time_limit"`` or ``"enumeration_limit"`` (too many supports to bound).
    elapsed : float
    certificate : HingeLossCertificate
        The proof of ``lower_bound`` (:func:`check_hinge_certificate`).
    stats : dict
        Dual vectors of the anchor families, LPs for single supports, seconds.
    """

    budget: int
    support: np.ndarray
    coef: np.ndarray
    intercept: float
    loss: float
    lower_bound: float
    status: str
    elapsed: float
    certificate: HingeLossCertificate
    stats: dict = field(default_factory=dict)

    @property
    def proven_optimal(self) -> bool:
        return self.loss - self.lower_bound <= 1e-9 * max(1.0, self.loss)


class _Search:
    def __init__(self, X, y, budget, tol, progress):
        self.X = X
        self.Z = standardise(X)
        self.y = y.astype(float)
        self.YZ = np.ascontiguousarray(self.y[:, None] * self.Z)
        self.cls = equivalence_classes(self.Z)
        self.budget = min(budget, int(np.unique(self.cls).size))
        self.tol = tol
        self.progress = progress
        self.start = time.perf_counter()
        self.best = (np.inf, np.zeros(0, np.int64), np.zeros(0))
        self.alphas: list[np.ndarray] = []
        self.supports: list[tuple[int, ...]] = []
        self.lps = 0
        self.level = np.inf  # the pair scan's level: every family-bounded pair is above it

    # -- the LP of one support --------------------------------------------------------------
    def solve(self, S) -> tuple[float, np.ndarray, np.ndarray]:
        """``(f(S), α, (b, w_S))`` on the standardised data."""
        S = np.asarray(S, dtype=np.int64)
        alpha = np.empty(self.Z.shape[0])
        value, pi, _ = K.dual_vertex(self.YZ, self.y, S, np.ones(alpha.size), alpha)
        self.lps += 1
        return value, alpha, pi

    def offer(self, S, value=None, pi=None) -> float:
        S = np.sort(np.asarray(S, dtype=np.int64))
        if value is None:
            value, _, pi = self.solve(S)
        if value < self.best[0]:
            self.best = (float(value), S, np.asarray(pi, dtype=float))
        return value

    def keep(self, S, alpha) -> None:
        self.supports.append(tuple(int(j) for j in S))
        self.alphas.append(np.asarray(alpha, dtype=float).copy())

    # -- incumbents -------------------------------------------------------------------------
    def singles(self) -> np.ndarray:
        n = self.Z.shape[1]
        values = np.empty(n)
        for a in range(n):
            values[a], alpha, pi = self.solve([a])
            if self.budget == 1:
                self.keep((a,), alpha)
            self.offer([a], values[a], pi)
        return values

    def greedy(self, singles: np.ndarray, candidates: list, starts: int = 16) -> None:
        """Forward selection to ``budget`` features from each candidate support and from each
        of the best ``starts`` single features."""
        n = self.Z.shape[1]
        seeds = [list(S) for S in candidates if 0 < len(S) < self.budget]
        seeds += [[int(a)] for a in np.argsort(singles, kind="stable")[:starts]]
        for S in seeds:
            while len(S) < self.budget:
                trials = [(self.solve([*S, b])[0], b) for b in range(n)
                          if self.cls[b] not in self.cls[S]]  # fmt: skip
                S.append(min(trials)[1])
            self.offer(S)

    # -- lower bounds -----------------------------------------------------------------------
    def pairs(self, deadline) -> str:
        n = self.Z.shape[1]
        level = self.level = self.best[0]
        cap = 4 * (ROUNDS + 1)
        family = pair_lps = 0
        for first in range(0, n, CHUNK):
            last = min(n, first + CHUNK)
            while True:
                n_vec, alpha, pair, value = K.budget_pair_scan(
                    self.YZ, self.y, self.cls, first, last, level, ROUNDS, self.tol, cap
                )
                if n_vec.max(initial=0) <= cap:
                    break
                cap = int(n_vec.max())
            chunk_lps = int((pair[:, :cap] >= 0).sum())
            for r, a in enumerate(range(first, last)):
                for t in range(n_vec[r]):
                    b = int(pair[r, t])
                    self.keep((a,) if b < 0 else (a, b), alpha[r, t])
                    if b >= 0:
                        pair_lps += 1
                        if value[r, t] < self.best[0]:
                            self.offer([a, b])
                    else:
                        family += 1
            self.lps += chunk_lps
            elapsed = time.perf_counter() - self.start
            if self.progress is not None:
                self.progress(BudgetProgress(last, n, self.best[0], 0.0, elapsed))
            if deadline is not None and time.perf_counter() > deadline and last < n:
                return "time_limit"
        self.stats = {"family_vectors": family, "pair_lps": pair_lps}
        return "optimal"

    def enumerate(self, max_supports: int) -> str:
        reps = np.unique(self.cls, return_index=True)[1]
        if comb(reps.size, self.budget) > max_supports:
            return "enumeration_limit"
        for S in itertools.combinations(np.sort(reps), self.budget):
            value, alpha, pi = self.solve(S)
            self.keep(S, alpha)
            self.offer(S, value, pi)
        return "optimal"


def minimum_hinge_loss(
    X,
    y,
    budget: int,
    *,
    supports: Sequence = (),
    time_limit: float | None = None,
    max_supports: int = 200_000,
    tol: float = 1e-9,
    progress: bool | Callable[[BudgetProgress], None] = False,
) -> BudgetResult:
    """The least soft-margin hinge loss with at most ``budget`` features, with a certified bound.

    Solves ``min Σ_i ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0``, ``‖w‖₀ ≤ budget``
    (the budget form of the zero-norm SVM, C = 1) by enumeration with LP-duality bounds (see
    the module docstring): exactly for budgets 1 and 2 at any size, and for larger budgets
    when there are at most ``max_supports`` supports.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes.
    budget : int
        At most this many features (≥ 1).
    supports : sequence of array-like of int, optional
        Candidate supports (e.g. the relaxations', or the optimum of a smaller budget): each is
        an incumbent and, if smaller than the budget, a start of the forward selection.
    time_limit : float, optional
        Seconds for the pair scan; when it ends first the bound is 0 (the scan proves nothing
        until every pair is bounded).
    max_supports : int
        Budgets ≥ 3 are enumerated only below this many supports.
    tol : float
        Largest residual a dual vector may leave on the features it bounds.
    progress : bool or callable
        ``True`` prints a line per chunk of anchors; a callable receives a
        :class:`BudgetProgress`.

    Returns
    -------
    BudgetResult

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.exact import check_hinge_certificate, minimum_hinge_loss
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 8))
    >>> y = np.where(X[:, 2] - X[:, 5] + 0.8 * rng.normal(size=30) > 0, 1, -1)
    >>> result = minimum_hinge_loss(X, y, budget=2)
    >>> result.proven_optimal, sorted(result.support.tolist())
    (True, [2, 5])
    >>> check_hinge_certificate(X, y, result.certificate) == result.lower_bound
    True

    References
    ----------
    .. [1] Weston, J., Elisseeff, A., Schölkopf, B. and Tipping, M. (2003). Use of the
       zero-norm with linear models and kernel methods. JMLR 3, 1439–1461.
    """
    X = check_finite_matrix(X)
    _, y = check_binary_labels(y, X.shape[0])
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise InputError(f"budget must be a positive integer (features); got {budget!r}.")
    if time_limit is not None and not (np.isfinite(time_limit) and time_limit > 0):
        raise InputError(f"time_limit must be a positive number of seconds; got {time_limit!r}.")
    if not (np.isfinite(tol) and 0 < tol < 1e-3):
        raise InputError(f"tol must lie in (0, 1e-3); got {tol!r}.")
    if progress is True:
        progress = _print_line
    elif progress is False or progress is None:
        progress = None
    elif not callable(progress):
        raise InputError("progress must be True, False or a callable receiving a BudgetProgress.")
    search = _Search(X, y, int(budget), float(tol), progress)
    n = X.shape[1]
    candidates = [np.unique(np.asarray(S, dtype=np.int64)) for S in supports]
    for S in candidates:
        if S.size > budget or (S.size and (S.min() < 0 or S.max() >= n)):
            raise InputError(
                f"a candidate support must hold at most {budget} feature indices in "
                f"[0, {n}); got {S.tolist()}."
            )
        search.offer(S)
    singles = search.singles()
    search.stats = {}
    status = "optimal"
    if search.budget > 1 and search.best[0] > 0:
        search.greedy(singles, candidates)
    if search.budget > 1 and search.best[0] > 0:  # (a loss of 0 needs no bound)
        if search.budget == 2:
            deadline = None if time_limit is None else search.start + time_limit
            status = search.pairs(deadline)
        else:
            status = search.enumerate(max_supports)
    value, S, pi = search.best
    coef, intercept = _in_units_of_x(X, S, pi)
    loss = float(np.maximum(0.0, 1.0 - y * (X @ coef + intercept)).sum())
    if status != "optimal":
        bound = 0.0
    elif value <= 0.0:
        bound = 0.0  # nothing is below 0: no dual needed
    else:  # the family vectors are all above the level; each explicit support has its dual
        explicit = [float(a.sum()) for S_, a in zip(search.supports, search.alphas, strict=True)
                    if len(S_) == search.budget]  # fmt: skip
        bound = min(search.level, min(explicit, default=np.inf))
        # a hair below: a checker summing the duals in another order must still reach it
        bound -= 1e-12 * max(1.0, bound)
    certificate = HingeLossCertificate(
        budget=int(budget), lower_bound=float(bound), tol=float(tol),
        supports=search.supports if status == "optimal" else [],
        alphas=np.array(search.alphas) if status == "optimal" else np.zeros((0, X.shape[0])),
    )  # fmt: skip
    return BudgetResult(
        budget=int(budget), support=S, coef=coef, intercept=intercept, loss=loss,
        lower_bound=float(bound), status=status, elapsed=time.perf_counter() - search.start,
        certificate=certificate,
        stats={**search.stats, "lps": search.lps, "vectors": len(search.alphas)},
    )  # fmt: skip


def _in_units_of_x(X, S, pi) -> tuple[np.ndarray, float]:
    """The simplex multipliers ``(b, w_S)`` on the standardised data, in the units of X."""
    mean, sd = X.mean(axis=0), X.std(axis=0)
    coef = np.zeros(X.shape[1])
    live = sd[S] > 0
    coef[S[live]] = pi[1:][live] / sd[S[live]]
    return coef, float(pi[0] - coef @ mean)


def _print_line(p: BudgetProgress) -> None:
    print(p.line(), flush=True)
