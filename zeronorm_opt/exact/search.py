"""The sparsest separating support, proven: enumeration by size with Farkas screening.

The hard-margin zero-norm problem ``min ‖w‖₀ s.t. y_i(w·x_i + b) ≥ 1`` asks for the smallest
``k`` such that some ``k`` features separate the data. :func:`minimum_separating_support`
climbs from both ends:

* **the incumbent** (upper bound): the supports it is given (e.g. the relaxations'), the l1
  linear program's and a reweighted-l1 (log penalty) support, each pruned by backward
  elimination (drop a feature while the rest still separates; one LP per try);
* **the lower bound** ``L``: level by level, every support of ``k = 1, 2, 3, …`` features is
  excluded by a Farkas certificate (:mod:`.farkas`). One-feature certificates (three samples
  each) are combined: a pair ``{a, b}`` is excluded when two certificates of ``a`` have
  residuals of opposite signs on ``b``; a triple ``{a, b, c}`` when the origin lies in the
  convex hull of the points ``(r_b, r_c)`` of the certificates of ``a`` (a 2-D test, after a
  cheaper filter). These compiled scans exclude nearly every support; the few they leave get
  one linear program each, which returns either a separator (the optimum is ``k``: every
  smaller size is excluded) or an explicit certificate. Sizes ``k ≥ 4`` are enumerated with
  one LP per support, skipping those inside the zero set of a certificate already found.

The search stops when ``L`` reaches the incumbent's size (proven optimal), when the time limit
ends (the incumbent with the bound ``L`` reached), on Ctrl-C (the same), or when a level has
more supports than ``max_supports`` (sizes ≥ 4 only). The bound comes with a
:class:`~zeronorm_opt.exact.SeparabilityCertificate` that
:func:`~zeronorm_opt.exact.check_certificate` re-checks from the data alone.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import comb

import numpy as np

from .._validation import check_binary_labels, check_finite_matrix
from ..exceptions import InputError, NotSeparableError
from ..live_line import LiveLine
from . import _kernels as K
from .certificate import SeparabilityCertificate, validated_one_feature_certificates
from .farkas import (
    equivalence_classes,
    farkas_residuals,
    separate_or_certify,
    standardise,
)

__all__ = ["MinimumSupportResult", "SearchProgress", "minimum_separating_support"]


@dataclass
class SearchProgress:
    """A snapshot of a running search (what the progress line shows)."""

    level: int
    done: int
    total: int
    incumbent: int
    bound: int
    elapsed: float

    @property
    def gap(self) -> float:
        """``(incumbent − bound) / incumbent``."""
        return (self.incumbent - self.bound) / max(self.incumbent, 1)

    def line(self) -> str:
        return (
            f"size {self.level}: {self.done}/{self.total} anchors | incumbent {self.incumbent} "
            f"features, proven bound {self.bound}, gap {100 * self.gap:.0f} % | "
            f"{self.elapsed:.0f} s"
        )


@dataclass
class MinimumSupportResult:
    """The incumbent of :func:`minimum_separating_support` and its certified lower bound.

    Attributes
    ----------
    support : ndarray of int
        The features of the sparsest separating support found.
    coef : ndarray of shape (n,)
        Separating weights in the units of X, zero outside ``support``
        (``y_i(coef·x_i + intercept) ≥ 1``).
    intercept : float
    lower_bound : int
        Proven: no support of fewer features separates.
    proven_optimal : bool
        ``lower_bound == len(support)``.
    status : str
        ``"optimal"``, ``"time_limit"``, ``"interrupted"`` (Ctrl-C) or
        ``"enumeration_limit"``.
    elapsed : float
        Wall-clock seconds.
    certificate : SeparabilityCertificate
        The proof of ``lower_bound`` (:func:`~zeronorm_opt.exact.check_certificate`).
    levels : list of dict
        Per size ``k``: supports, how many the compiled screens left, LPs, seconds.
    """

    support: np.ndarray
    coef: np.ndarray
    intercept: float
    lower_bound: int
    status: str
    elapsed: float
    certificate: SeparabilityCertificate
    levels: list = field(default_factory=list)

    @property
    def n_selected(self) -> int:
        return int(self.support.size)

    @property
    def proven_optimal(self) -> bool:
        return self.lower_bound >= self.n_selected

    @property
    def bound(self) -> float:
        """``lower_bound`` as a float (the name the mixed-integer results use)."""
        return float(self.lower_bound)

    @property
    def gap(self) -> float:
        """``(|support| − lower_bound) / |support|``: 0 when proven optimal."""
        return (self.n_selected - self.lower_bound) / max(self.n_selected, 1)

    def summary(self) -> str:
        state = "proven optimal" if self.proven_optimal else f"not proven ({self.status})"
        return (
            f"{self.n_selected} features {self.support.tolist()}, lower bound "
            f"{self.lower_bound}, {state}, {self.elapsed:.1f} s"
        )


class _Stop(Exception):
    """Internal: the time limit or Ctrl-C ended the search."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class _Search:
    def __init__(self, X, y, time_limit, per_feature, max_supports, progress):
        self.X = X
        self.y = y
        self.Z = standardise(X)
        self.YZ = np.ascontiguousarray(y[:, None] * self.Z)
        self.cls = equivalence_classes(self.Z)
        self.n = X.shape[1]
        self.per_feature = per_feature
        self.max_supports = max_supports
        self.start = time.perf_counter()
        self.deadline = None if time_limit is None else self.start + time_limit
        self.progress = progress
        self.explicit: list = []
        self.zero_sets = np.zeros((0, self.n), dtype=bool)
        self.levels: list = []
        self.bound = 1  # two classes: the bias alone never separates
        self.best: tuple[np.ndarray, np.ndarray, float] | None = None

    # -- bookkeeping ----------------------------------------------------------------------------
    def tick(self, level: int, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(
                SearchProgress(
                    level,
                    done,
                    total,
                    self.best[0].size,
                    self.bound,
                    time.perf_counter() - self.start,
                )  # fmt: skip
            )
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Stop("time_limit")

    def lp(self, S) -> bool:
        """One LP on support S: a separator becomes the incumbent (True), a certificate is
        recorded (False)."""
        separable, first, second = separate_or_certify(self.Z, self.y, S)
        if separable:
            self.offer(np.asarray(S), first, float(second[0]))
            return True
        r = farkas_residuals(self.Z, self.y, first, second)
        self.explicit.append((tuple(int(j) for j in S), first, second))
        row = (np.abs(r[1:]) <= 1e-9) & (abs(r[0]) <= 1e-9)
        self.zero_sets = np.vstack([self.zero_sets, row[None, :]])
        return False

    def offer(self, S, w, b) -> None:
        if self.best is None or S.size < self.best[0].size:
            self.best = (np.sort(S), np.asarray(w)[np.argsort(S)], b)

    # -- upper bound ----------------------------------------------------------------------------
    def incumbent(self, initial: Sequence) -> None:
        candidates = []
        for s in initial:
            s = np.asarray(s)
            if s.dtype == bool and s.shape == (self.n,):
                candidates.append(np.flatnonzero(s))
            elif s.ndim == 1 and s.dtype.kind in "iu" and ((s >= 0) & (s < self.n)).all():
                candidates.append(np.unique(s.astype(np.int64)))
            else:
                raise InputError(
                    "each of initial_supports must be a boolean mask of the n = "
                    f"{self.n} features or an array of feature indices in 0..{self.n - 1}."
                )
        full = np.arange(self.n)
        separable, w, _ = separate_or_certify(self.Z, self.y, full)
        if not separable:
            raise NotSeparableError(
                "the training data are not linearly separable, so no support separates them; "
                "the hard-margin zero-norm problem has no solution (use the soft-margin "
                "ExactZeroNormFormulation(X, y, C=...))."
            )
        candidates.append(np.flatnonzero(np.abs(w) > 1e-9 * np.abs(w).max()))
        candidates.append(self._reweighted_l1(w))
        for S in candidates:  # each pruned: a large support may prune to a small one
            if S.size:
                self._prune(S)

    def _reweighted_l1(self, w, iterations: int = 8) -> np.ndarray:
        """Support of ``min Σ c_j |w_j|`` with ``c_j = 1/(|w_j| + ε)`` iterated (AROM's l1 form,
        Weston et al. 2003) — one LP per step, on the current support only."""
        from scipy.optimize import linprog

        S = np.flatnonzero(np.abs(w) > 1e-9 * np.abs(w).max())
        weights = w[S]
        m = self.Z.shape[0]
        for _ in range(iterations):
            c = 1.0 / (np.abs(weights) + 1e-3)
            YZ = self.YZ[:, S]
            A = -np.hstack([YZ, -YZ, self.y[:, None], -self.y[:, None]])
            res = linprog(np.concatenate([c, c, [0, 0]]), A_ub=A, b_ub=-np.ones(m),
                          bounds=(0, None), method="highs")  # fmt: skip
            if res.status != 0:
                break
            k = S.size
            new = res.x[:k] - res.x[k : 2 * k]
            keep = np.abs(new) > 1e-7 * np.abs(new).max()
            S, weights = S[keep], new[keep]
        return S

    def _prune(self, S) -> None:
        """Backward elimination: drop features (smallest |w| first) while S still separates."""
        separable, w, b = separate_or_certify(self.Z, self.y, S)
        if not separable:
            return
        changed = True
        while changed:
            changed = False
            for j in S[np.argsort(np.abs(w))]:
                T = S[S != j]
                if T.size == 0:
                    continue
                ok, wT, bT = separate_or_certify(self.Z, self.y, T)
                if ok:
                    S, w, b, changed = T, wT, bT, True
                    break
        self.offer(S, w, float(b[0]))

    # -- lower bound ----------------------------------------------------------------------------
    def run(self) -> str:
        while self.bound < self.best[0].size:
            k = self.bound
            t0 = time.perf_counter()
            if k == 1:
                found, stats = self.level_one()
            elif k in (2, 3):
                found, stats = self.level_scan(k)
            else:
                if comb(self.n, k) > self.max_supports:
                    return "enumeration_limit"
                found, stats = self.level_lp(k)
            self.levels.append({"size": k, **stats, "seconds": time.perf_counter() - t0})
            if found:
                self.bound = k
                return "optimal"
            self.bound = k + 1
        return "optimal"

    def level_one(self):
        self.idx, self.wt, self.counts = validated_one_feature_certificates(
            self.Z, self.y, self.per_feature, 1e-9
        )
        self._rank_features()
        stats = {"supports": self.n, "left_by_screen": int((self.counts == 0).sum()), "lps": 0}
        for a in np.flatnonzero(self.counts == 0):
            stats["lps"] += 1
            if self.lp([a]):
                return True, stats
        return False, stats

    def level_scan(self, k: int):
        """Pairs or triples: compiled screens by anchor, an LP for each leftover."""
        n = self.n
        stats = {"supports": comb(n, k), "left_by_screen": 0, "lps": 0}
        first = 0
        chunk = max(1, min(64, 200_000_000 // max(1, comb(n - 1, k - 1) * 16)))
        while first < n:
            self.tick(k, first, n)
            last = min(n, first + chunk)
            n_left, left = self._scan(k, first, last, 4096)
            for r in range(last - first):
                a = first + r
                if n_left[r] > left.shape[1]:  # more leftovers than room: the slow way
                    rest = self._rescan(k, a)
                else:
                    rest = [(a, *np.atleast_1d(left[r, t]).tolist()) for t in range(n_left[r])]
                for ranked in rest:
                    S = tuple(sorted(int(self.order[j]) for j in ranked))
                    if self._explained(S):
                        continue
                    stats["left_by_screen"] += 1
                    stats["lps"] += 1
                    if self.lp(S):
                        return True, stats
                    self.tick(k, a, n)
            first = last
        self.tick(k, n, n)
        return False, stats

    def _rank_features(self) -> None:
        """The scans run over the features ranked by how well each alone splits the classes
        (fewest samples inside the overlap of the two class ranges first): the supports
        holding the best features are tried first, so a separating support, if any, tends
        to be met early. The proof is the same in any order (each feature keeps its own
        certificates)."""
        pos, neg = self.Z[self.y > 0], self.Z[self.y < 0]
        low = np.maximum(pos.min(0), neg.min(0))
        high = np.minimum(pos.max(0), neg.max(0))
        inside = ((self.Z >= low) & (self.Z <= high)).sum(0)
        self.order = np.argsort(inside, kind="stable")
        o = self.order
        self.ranked = (
            np.ascontiguousarray(self.YZ[:, o]),
            np.ascontiguousarray(self.idx[o]),
            np.ascontiguousarray(self.wt[o]),
            np.ascontiguousarray(self.counts[o]),
            np.ascontiguousarray(self.cls[o]),
        )

    def _scan(self, k: int, first: int, last: int, cap: int):
        data = (*self.ranked, first, last, cap)
        return K.scan_pairs(*data) if k == 2 else K.scan_triples(*data, 32)

    def _rescan(self, k: int, a: int):
        n_left, left = self._scan(k, a, a + 1, comb(self.n, k - 1))
        return [(a, *np.atleast_1d(left[0, t]).tolist()) for t in range(n_left[0])]

    def _explained(self, S) -> bool:
        return bool(self.zero_sets.shape[0] and self.zero_sets[:, list(S)].all(1).any())

    def level_lp(self, k: int):
        stats = {"supports": comb(self.n, k), "left_by_screen": 0, "lps": 0}
        for t, S in enumerate(itertools.combinations(range(self.n), k)):
            if t % 64 == 0:
                self.tick(k, t, stats["supports"])
            if np.unique(self.cls[list(S)]).size < k or self._explained(S):
                continue
            stats["lps"] += 1
            stats["left_by_screen"] += 1
            if self.lp(S):
                return True, stats
        return False, stats


def minimum_separating_support(
    X,
    y,
    *,
    time_limit: float | None = None,
    initial_supports: Sequence = (),
    per_feature: int = 256,
    max_supports: int = 200_000,
    progress: bool | Callable[[SearchProgress], None] = False,
) -> MinimumSupportResult:
    """The fewest features that linearly separate two classes, with a certified lower bound.

    Solves the hard-margin zero-norm problem ``min ‖w‖₀ s.t. y_i(w·x_i + b) ≥ 1`` of Weston
    et al. (2003) exactly by enumerating supports by size, excluding them with Farkas
    certificates of non-separability (combinatorial Benders cuts in the sense of Codato &
    Fischetti, 2006) — see the module docstring and :doc:`/formulations/exact`.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels.
    time_limit : float or None
        Seconds; when it ends, the incumbent is returned with the bound reached.
    initial_supports : sequence of index arrays or boolean masks
        Warm starts (e.g. the supports of FSV or AROM); each is pruned to a minimal
        separating subset.
    per_feature : int, default=256
        One-feature certificates per feature used by the screens (more: fewer LPs, slower
        scans).
    max_supports : int, default=200_000
        Sizes ``k ≥ 4`` are enumerated with one LP per support only when there are at most
        this many supports; otherwise the search stops with ``status="enumeration_limit"``.
    progress : bool or callable
        True: a live line on stderr (incumbent, bound, gap, elapsed); a callable receives a
        :class:`SearchProgress` at every step (and may raise ``KeyboardInterrupt``).

    Returns
    -------
    MinimumSupportResult
        Ctrl-C (``KeyboardInterrupt``) during the search returns the incumbent and the bound
        reached, with ``status="interrupted"``, instead of a traceback.

    Raises
    ------
    NotSeparableError
        The data are not separable at all (no support separates).

    References
    ----------
    .. [1] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with
       linear models and kernel methods", *Journal of Machine Learning Research*
       3:1439–1461, 2003.
    .. [2] G. Codato and M. Fischetti, "Combinatorial Benders' cuts for mixed-integer linear
       programming", *Operations Research* 54(4):756–766, 2006.
    .. [3] P. Kirchberger, "Über Tschebyschefsche Annäherungsmethoden", *Mathematische
       Annalen* 57:509–540, 1903.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 8))
    >>> y = np.sign(X[:, 2] - 0.5 * X[:, 5] + 0.1)     # features 2 and 5 separate
    >>> result = minimum_separating_support(X, y)
    >>> result.support.tolist(), result.lower_bound, result.proven_optimal
    ([2, 5], 2, True)
    """
    X = check_finite_matrix(X)
    _, y = check_binary_labels(y, X.shape[0])
    if time_limit is not None and not (np.isfinite(time_limit) and time_limit > 0):
        raise InputError(f"time_limit must be a positive number of seconds; got {time_limit!r}.")
    if not (isinstance(per_feature, int | np.integer) and per_feature >= 3):
        raise InputError(f"per_feature must be an integer ≥ 3; got {per_feature!r}.")
    line = None
    if progress is True:
        line = LiveLine()

        def progress(p: SearchProgress) -> None:
            line.show(p.line(), now=p.done >= p.total)

    elif progress is False or progress is None:
        progress = None
    elif not callable(progress):
        raise InputError("progress must be True, False or a callable receiving a SearchProgress.")
    search = _Search(X, y, time_limit, int(per_feature), int(max_supports), progress)
    try:
        search.incumbent(initial_supports)
        status = search.run()
    except _Stop as stop:
        status = stop.status
    except KeyboardInterrupt:
        if search.best is None:
            raise
        status = "interrupted"
    if line is not None:
        line.close()
    S, wZ, bZ = search.best
    sd = X.std(axis=0)
    mean = X.mean(axis=0)
    coef = np.zeros(X.shape[1])
    coef[S] = wZ / sd[S]
    intercept = float(bZ - coef[S] @ mean[S])
    certificate = SeparabilityCertificate(
        lower_bound=int(min(search.bound, S.size)),
        per_feature=int(per_feature),
        explicit=search.explicit,
    )
    return MinimumSupportResult(
        support=S,
        coef=coef,
        intercept=intercept,
        lower_bound=certificate.lower_bound,
        status=status,
        elapsed=time.perf_counter() - search.start,
        certificate=certificate,
        levels=search.levels,
    )
