"""The exact L0L2 squared-hinge classifier, by branch and bound over supports.

The problem (Dedieu, Hazimeh & Mazumder 2021; the L0L2 SVC of El0ps)::

    minimise  Σ_i max(0, 1 − y_i (w·x_i + b))²  +  λ ‖w‖₀  +  β ‖w‖₂²

is a mixed-integer QP. HiGHS, the mixed-integer solver every installation has, solves MILPs
only, so the method is written here in problem-specific form: a best-first branch and bound
whose nodes fix some features out (``w_j = 0``) and some in (``w_j`` free, ``λ`` paid), and
whose bound at a node is the *perspective relaxation* of the free features' terms: the convex
envelope of ``λ·1[w_j ≠ 0] + β w_j²`` (no bound ``M`` on the weights needed) is the reverse
Huber function::

    φ(w_j) = 2√(λβ) |w_j|              if |w_j| ≤ τ = √(λ/β)
             λ + β w_j²                otherwise

so each node solves one convex problem (squared hinge + ridge on the fixed-in features + ``φ``
on the free ones), a second-order cone program for Clarabel, compiled once with the node's
masks as cvxpy parameters. The node's bound is the Fenchel dual function at the dual point of
Clarabel's solution (valid whatever the solver's accuracy); the same dual point screens the
free features, as El0ps does: one whose "in" (or "out") child is already beaten by the
incumbent is fixed the other way. Branching takes the free feature whose implied indicator
``z_j = min(1, |w_j|/τ)`` is the most fractional; a node whose indicators are all 0 or 1 is
solved exactly by its relaxation. Every node's relaxed support (and its ``|w_j| ≥ τ`` part)
is re-solved as a convex QP to update the incumbent. A time limit or Ctrl-C returns the
incumbent with the least bound of the open nodes.

References
----------
A. Dedieu, H. Hazimeh and R. Mazumder, "Learning sparse classifiers: continuous and mixed
integer optimization perspectives", *Journal of Machine Learning Research* 22(135):1−47, 2021.

T. Guyard, C. Herzet, C. Elvira and A. N. Arslan, "A new branch-and-bound pruning framework
for ℓ0-regularized problems", *Proceedings of the 41st International Conference on Machine
Learning*, 2024 (El0ps).
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from .._validation import check_positive
from ..exceptions import InputError, SolverError
from .binary import _check_xy
from .exact import ExactSolveInfo

__all__ = ["ExactL0L2Formulation", "squared_hinge_ridge_on_support"]

#: Relative gap at which a node is pruned and the solve is declared optimal.
DEFAULT_REL_GAP = 1e-7
#: ``z_j = |w_j|/τ`` within this of 0 or 1 counts as integral.
INTEGRALITY_TOL = 1e-6


def squared_hinge_ridge_on_support(X, y, support, ridge: float, fit_intercept: bool = True):
    """``min Σ max(0, 1 − y_i(w·x_i + b))² + β‖w‖²`` over ``w`` zero off ``support``.

    The objective is piecewise quadratic, smooth and strongly convex in ``w``: the finite
    Newton method of the L2-loss SVM (Keerthi & DeCoste 2005: the Newton step of the quadratic
    on the current active set, with a backtracking line search) ends in a few steps, where
    compiling a cvxpy problem per support took 50 ms (the branch and bound tries thousands).
    Whatever its accuracy, the returned point is feasible, so its value is a true upper bound.

    Returns ``(value, w, b)`` (``w`` of full length, ``b = 0`` without intercept).
    """
    support = np.asarray(support, dtype=bool)
    Z = X[:, support]
    if fit_intercept:
        Z = np.column_stack([Z, np.ones(X.shape[0])])
    k = int(support.sum())
    penalty = np.r_[np.full(k, ridge), np.zeros(Z.shape[1] - k)]

    def value(v):
        slack = np.maximum(0.0, 1.0 - y * (Z @ v))
        return slack @ slack + penalty @ (v * v), slack

    v = np.zeros(Z.shape[1])
    current, slack = value(v)
    for _ in range(100):
        if not v.size:
            break
        grad = -2.0 * Z.T @ (y * slack) + 2.0 * penalty * v
        active = slack > 0
        hessian = 2.0 * Z[active].T @ Z[active] + 2.0 * np.diag(penalty)
        # a tiny shift keeps the system solvable when only b is free and no point is active
        step = -np.linalg.solve(hessian + 1e-12 * np.eye(v.size), grad)
        t = 1.0
        while True:
            trial, trial_slack = value(v + t * step)
            if trial <= current + 1e-4 * t * (grad @ step) or t < 1e-10:
                break
            t *= 0.5
        if trial > current:
            break
        decrease = current - trial
        v, current, slack = v + t * step, trial, trial_slack
        if decrease <= 1e-15 * max(1.0, current):
            break
    w = np.zeros(X.shape[1])
    w[support] = v[:k]
    return float(current), w, float(v[k]) if fit_intercept else 0.0


@dataclass
class _Node:
    bound: float
    fixed_out: np.ndarray
    fixed_in: np.ndarray


class ExactL0L2Formulation:
    """The exact L0L2 squared-hinge problem, solved by branch and bound with perspective bounds.

    ``min Σ_i max(0, 1 − y_i(w·x_i + b))² + λ‖w‖₀ + β‖w‖₂²`` (``b = 0`` with
    ``fit_intercept=False``, the form El0ps's ``L0L2SVC(lmbd=λ, beta=β)`` solves). See the
    module docstring for the method; every bound is a dual value (weak duality), so "proven"
    means up to ``rel_gap`` and floating-point rounding.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels (the larger one is +1).
    l0_weight : float
        ``λ > 0``, the price of one feature.
    ridge : float
        ``β > 0``, the weight of ``‖w‖₂²`` (it makes the perspective bound strong).
    fit_intercept : bool, default=True
        Fit an unpenalised bias ``b``.

    Attributes
    ----------
    last_solve : ExactSolveInfo or None
        The incumbent's value, the proven bound and gap, ``num_iters`` = nodes solved.

    References
    ----------
    .. [1] A. Dedieu, H. Hazimeh and R. Mazumder, "Learning sparse classifiers: continuous and
       mixed integer optimization perspectives", *Journal of Machine Learning Research*
       22(135):1−47, 2021.
    .. [2] T. Guyard, C. Herzet, C. Elvira and A. N. Arslan, "A new branch-and-bound pruning
       framework for ℓ0-regularized problems", *ICML* 2024.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((30, 6))
    >>> y = np.sign(X[:, 0] + 0.1 * rng.standard_normal(30))
    >>> f = ExactL0L2Formulation(X, y, l0_weight=2.0, ridge=0.1)
    >>> info = f.solve()
    >>> info.proven_optimal, f.support().tolist()
    (True, [True, False, False, False, False, False])
    """

    def __init__(self, X, y, l0_weight: float, ridge: float, *, fit_intercept: bool = True):
        self.X, self.y = _check_xy(X, y)
        if not isinstance(self.X, np.ndarray):
            raise InputError("ExactL0L2Formulation takes a dense X; pass X.toarray().")
        self.l0_weight = check_positive(l0_weight, "l0_weight")
        self.ridge = check_positive(ridge, "ridge")
        if not isinstance(fit_intercept, bool):
            raise InputError(f"fit_intercept must be True or False; got {fit_intercept!r}.")
        self.fit_intercept = fit_intercept
        self.last_solve: ExactSolveInfo | None = None
        self._w = self._b = self._support = None
        self._build_relaxation()

    # -- the node relaxation --------------------------------------------------------------------
    def _build_relaxation(self) -> None:
        m, n = self.X.shape
        lam, beta = self.l0_weight, self.ridge
        self.tau = float(np.sqrt(lam / beta))
        self._free = cp.Parameter(n, nonneg=True)  # 1: perspective term
        self._in = cp.Parameter(n, nonneg=True)  # 1: fixed in, β w_j² (λ added outside)
        self._out = cp.Parameter(n, nonneg=True)  # 1: fixed to zero
        w = cp.Variable(n)
        b = cp.Variable() if self.fit_intercept else 0.0
        loss = cp.sum_squares(cp.pos(1 - cp.multiply(self.y, self.X @ w + b)))
        reverse_huber = 2 * np.sqrt(lam * beta) * cp.abs(w) + beta * cp.square(
            cp.pos(cp.abs(w) - self.tau)
        )
        objective = (
            loss
            + beta * cp.sum(cp.multiply(self._in, cp.square(w)))
            + cp.sum(cp.multiply(self._free, reverse_huber))
        )
        self._relaxation = cp.Problem(cp.Minimize(objective), [cp.multiply(self._out, w) == 0])
        self._relaxed_w, self._relaxed_b = w, b

    def relaxation(self, fixed_out, fixed_in) -> tuple[float, np.ndarray, np.ndarray]:
        """The perspective bound of the node fixing ``fixed_out`` to 0 and ``fixed_in`` in.

        Clarabel solves the relaxation; the bound returned is not its (inexact) value but the
        Fenchel dual function at the dual point its solution gives, ``u = 2 y·max(0, 1 −
        y(Xw + b))`` (rescaled on one class so that ``Σ u_i = 0`` with an intercept)::

            D(u) = Σ_i (2p_i − p_i²) − Σ_{j in} c_j − Σ_{j free} max(0, c_j),
            c_j = (x_j·u)²/(4β) − λ,   p_i = y_i u_i / 2,

        a lower bound on every point of the node by weak duality whatever the solver's
        accuracy (and equal to the relaxation's value at its optimum).

        Returns
        -------
        bound : float
            ``D(u)`` (``λ|fixed_in|`` included).
        w : ndarray
            The relaxation's weights (zero on ``fixed_out``).
        c : ndarray
            ``c_j`` per feature: fixing a free ``j`` in raises the bound by ``max(0, −c_j)``,
            fixing it out by ``max(0, c_j)`` (used to screen features at the node).
        """
        fixed_out = np.asarray(fixed_out, dtype=bool)
        fixed_in = np.asarray(fixed_in, dtype=bool)
        self._out.value = fixed_out.astype(float)
        self._in.value = fixed_in.astype(float)
        self._free.value = (~fixed_out & ~fixed_in).astype(float)
        try:
            self._relaxation.solve(solver="CLARABEL")
        except cp.error.SolverError as exc:
            raise SolverError(f"Clarabel failed on a node relaxation ({exc}).") from exc
        if self._relaxation.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            raise SolverError(
                f"Clarabel returned {self._relaxation.status!r} on a node relaxation; the "
                "data may be badly scaled: standardise X."
            )
        w = np.where(fixed_out, 0.0, np.asarray(self._relaxed_w.value, dtype=float))
        b = float(self._relaxed_b.value) if self.fit_intercept else 0.0
        bound, c = self.dual_bound(w, b, fixed_out, fixed_in)
        return bound, w, c

    def dual_bound(self, w, b, fixed_out, fixed_in) -> tuple[float, np.ndarray]:
        """``(D(u), c)`` at the dual point of ``(w, b)`` (see :meth:`relaxation`)."""
        p = np.maximum(0.0, 1.0 - self.y * (self.X @ w + b))
        if self.fit_intercept:  # Σ u_i = 0: shrink the heavier class's multipliers
            pos, neg = p[self.y > 0].sum(), p[self.y < 0].sum()
            if pos > neg:
                p[self.y > 0] *= neg / pos
            elif neg > pos:
                p[self.y < 0] *= pos / neg
        u = 2.0 * self.y * p
        c = (self.X.T @ u) ** 2 / (4.0 * self.ridge) - self.l0_weight
        free = ~fixed_out & ~fixed_in
        bound = np.sum(2.0 * p - p * p) - c[fixed_in].sum() - np.maximum(c[free], 0.0).sum()
        return float(bound), c

    def objective(self, w, b: float = 0.0) -> float:
        """The exact objective at ``(w, b)``."""
        w = np.asarray(w, dtype=float)
        hinge = np.maximum(0.0, 1.0 - self.y * (self.X @ w + b))
        return float(hinge @ hinge + self.l0_weight * np.count_nonzero(w) + self.ridge * w @ w)

    # -- branch and bound -----------------------------------------------------------------------
    def solve(
        self, *, time_limit: float | None = None, rel_gap: float = DEFAULT_REL_GAP
    ) -> ExactSolveInfo:
        """Branch and bound to a proven optimum (or the incumbent and bound at ``time_limit``).

        Parameters
        ----------
        time_limit : float or None
            Wall-clock seconds; None: until optimality is proven. Ctrl-C stops the search the
            same way.
        rel_gap : float, default=1e-7
            A node is pruned when its bound is within ``rel_gap·max(1, incumbent)`` of the
            incumbent.

        Returns
        -------
        ExactSolveInfo
            ``num_iters`` is the number of nodes solved; ``n_selected`` the incumbent's
            number of features.
        """
        if time_limit is not None:
            time_limit = check_positive(time_limit, "time_limit")
        rel_gap = check_positive(rel_gap, "rel_gap", strict=False)
        n = self.X.shape[1]
        start = time.perf_counter()
        seen: dict[bytes, float] = {}
        best = {"value": np.inf, "support": np.zeros(n, dtype=bool)}

        def try_support(support):
            key = support.tobytes()
            if key in seen:
                return
            value, w, b = squared_hinge_ridge_on_support(
                self.X, self.y, support, self.ridge, self.fit_intercept
            )
            value += self.l0_weight * support.sum()
            seen[key] = value
            if value < best["value"]:
                best.update(value=value, support=support.copy(), w=w, b=b)

        def node_done(bound):
            return bound >= best["value"] - rel_gap * max(1.0, abs(best["value"]))

        try_support(np.zeros(n, dtype=bool))
        counter = itertools.count()
        queue = [(-np.inf, next(counter), _Node(-np.inf, np.zeros(n, bool), np.zeros(n, bool)))]
        nodes, stopped, in_hand = 0, False, None
        try:
            while queue:
                if time_limit is not None and time.perf_counter() - start > time_limit:
                    stopped = True
                    break
                _, _, node = heapq.heappop(queue)
                in_hand = node  # its bound stays open until its children are queued
                if node_done(node.bound):
                    in_hand = None
                    continue
                bound, w, c = self.relaxation(node.fixed_out, node.fixed_in)
                nodes += 1
                z = np.minimum(np.abs(w) / self.tau, 1.0)
                free = ~node.fixed_out & ~node.fixed_in
                try_support(node.fixed_in | (free & (z > INTEGRALITY_TOL)))
                try_support(node.fixed_in | (free & (z >= 1 - INTEGRALITY_TOL)))
                if node_done(bound):
                    in_hand = None
                    continue
                # screening: a free feature whose "in" (or "out") child is already pruned by
                # the dual bound is fixed the other way in every child
                cannot_in = free & np.array([node_done(bound + max(0.0, -cj)) for cj in c])
                cannot_out = free & np.array([node_done(bound + max(0.0, cj)) for cj in c])
                if (cannot_in & cannot_out).any():
                    in_hand = None
                    continue
                out, inn = node.fixed_out | cannot_in, node.fixed_in | cannot_out
                fractional = (
                    free
                    & ~cannot_in
                    & ~cannot_out
                    & (z > INTEGRALITY_TOL)
                    & (z < 1 - INTEGRALITY_TOL)
                )
                if not fractional.any():
                    if cannot_in.any() or cannot_out.any():  # re-solve with the fixings
                        heapq.heappush(queue, (bound, next(counter), _Node(bound, out, inn)))
                    in_hand = None  # else the relaxation is exact here (its support was tried)
                    continue
                j = int(np.argmin(np.where(fractional, np.abs(z - 0.5), np.inf)))
                for side in ("out", "in"):
                    child_out, child_in = out.copy(), inn.copy()
                    (child_out if side == "out" else child_in)[j] = True
                    heapq.heappush(queue, (bound, next(counter), _Node(bound, child_out, child_in)))
                in_hand = None
        except KeyboardInterrupt:
            stopped = True
        open_bounds = [entry[0] for entry in queue]
        if stopped and in_hand is not None:
            open_bounds.append(in_hand.bound)
        value = best["value"]
        bound = min([value, *open_bounds]) if stopped else value
        proven = not stopped or not any(not node_done(b) for b in open_bounds)
        if proven:
            bound = value
        self._w, self._b, self._support = best["w"], best["b"], best["support"]
        self.last_solve = ExactSolveInfo(
            status="optimal" if proven else "time_limit",
            solver="CLARABEL (branch and bound)",
            value=float(value),
            solve_time=time.perf_counter() - start,
            num_iters=nodes,
            attempts=[("CLARABEL", "optimal" if proven else "time_limit")],
            bound=float(max(bound, 0.0)),
            gap=float((value - max(bound, 0.0)) / max(abs(value), 1.0)),
            proven_optimal=bool(proven),
            n_selected=int(best["support"].sum()),
        )
        return self.last_solve

    # -- values of the last solve ---------------------------------------------------------------
    def solution(self) -> tuple[np.ndarray, float]:
        """``(w, b)`` of the incumbent of the last solve."""
        if self._w is None:
            raise InputError("the formulation has not been solved yet; call solve() first.")
        return self._w.copy(), self._b

    def support(self) -> np.ndarray:
        """Boolean mask of the incumbent's features."""
        self.solution()  # raises before the first solve
        return self._support.copy()

    def __repr__(self) -> str:
        m, n = self.X.shape
        return (
            f"<ExactL0L2Formulation λ={self.l0_weight:g}, β={self.ridge:g}, "
            f"intercept={self.fit_intercept}, m={m}, n={n}>"
        )
