"""The reweighted penalty, a component a formulation composes.

:class:`ReweightedPenalty` owns everything the successive-linearisation driver changes between
solves — the weights ``c`` and the active set — and the cvxpy term
``s · Σ_j c_j g_j(x)`` they enter, with ``g_j(x) = |x_j|`` (``"l1"``) or ``x_j²`` (``"l2"``), or
for a group of coefficients (a column ``x_{·j}`` of a matrix) ``Σ_k |x_kj|`` or ``Σ_k x_kj²``.
A formulation states its loss and constraints on :attr:`ReweightedPenalty.coef` and adds
:attr:`ReweightedPenalty.term` to its objective; nothing else is needed for the driver.

The problem handed to the solver has the size of the hand-written one:

* ``"l1"``: ``x = x⁺ − x⁻`` with ``x⁺, x⁻ ≥ 0`` (variable bounds, no rows) and the linear cost
  ``s c·(x⁺ + x⁻)`` — no epigraph rows for ``|x_j|``;
* a removed coefficient is the product ``a_j · x_j`` with the 0/1 mask Parameter ``a``
  (Parameter times Variable keeps the problem DPP), which removes its column from every
  constraint instead of adding one equality row per coefficient; its unused variables get a unit
  cost so that they stay at 0.

For a hard-margin l1 problem with ``m`` points and ``n`` features HiGHS then receives ``m`` rows
and ``2n + 1`` columns, the split-variable LP one would write by hand.

A formulation created with ``compact_loss=True`` states its own loss on
:meth:`ReweightedPenalty.loss_product` (``A x``) or :attr:`ReweightedPenalty.loss_coef`,
expressions equal to ``A coef`` and ``coef`` at every point where the removed coefficients are
zero, which cvxpy compiles faster: ``A x`` while nothing is removed (no mask product), the
masked ``A (a ∘ x)`` while most coefficients are active, and ``A_K (a_K ∘ x_K)`` once at
most half are, on the set ``K`` of the coefficients active at that moment (kept, with the
mask inside it, until the active set halves again, unless ``K`` is already small). Compiling
``X (a ∘ x)`` costs cvxpy one Parameter slice per non-zero of ``X`` (about 0.6 s of CPU for
the 96 × 4026 lymphoma data under load), ``X x`` about a third of it and the restricted
product a few milliseconds. The problem the solver receives has the same rows, columns and
solution; the loss's non-zeros shrink to those of ``K``. The public
:attr:`ReweightedPenalty.coef` never changes: user constraints stated on it mean the same in
every layout.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .._validation import check_active_mask
from ..exceptions import InputError

__all__ = ["PENALTIES", "ReweightedPenalty", "check_weights"]

#: The penalties the component implements: ``g(x) = |x|`` and ``g(x) = x²``.
PENALTIES = ("l1", "l2")

#: Below this largest active l1 cost, a problem whose objective is the penalty alone is solved
#: with the costs divided by their largest active value (same argmin). HiGHS's presolve declared
#: such a split LP "unbounded" when every active cost was tiny (FSV on colon, costs 1e-60..1e-8).
TINY_COST = 1e-6


def _head(indices, k: int = 5) -> str:
    """The first ``k`` indices as text, with an ellipsis when there are more."""
    shown = ", ".join(str(int(i)) for i in indices[:k])
    return f"[{shown}{', ...' if len(indices) > k else ''}]"


def check_weights(weights, n_coef: int) -> np.ndarray:
    """``weights`` as a float array of shape ``(n_coef,)``, finite and non-negative.

    The InputError names the entries that are wrong (0 is legal: no penalty).

    Examples
    --------
    >>> check_weights([1, 0.5], 2)
    array([1. , 0.5])
    """
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (n_coef,):
        raise InputError(f"weights must have shape ({n_coef},); got shape {weights.shape}.")
    problems = []
    nonfinite = np.flatnonzero(~np.isfinite(weights))
    if nonfinite.size:
        problems.append(f"{nonfinite.size} non-finite (NaN/inf) at indices {_head(nonfinite)}")
    negative = np.flatnonzero(weights < 0)
    if negative.size:
        problems.append(f"{negative.size} negative at indices {_head(negative)}")
    if problems:
        raise InputError(
            "weights must be finite and non-negative (0 means no penalty); got "
            + "; ".join(problems)
            + "."
        )
    return weights


class ReweightedPenalty:
    """The weighted penalty ``s · Σ_j c_j g_j(x)`` with its weights and active set.

    Parameters
    ----------
    n_coef : int
        Number of penalised coefficients (weights), ``j = 1 … n_coef``.
    penalty : {"l1", "l2"}, default="l1"
        ``g_j = |x_j|`` (the term is linear: an LP stays an LP) or ``g_j = x_j²`` (a QP).
    scale : float or None, default=None
        The constant ``s ≥ 0`` in front of the sum (the driver's ``penalty_scale``). None:
        1 for ``"l1"`` and ½ for ``"l2"`` (``½ Σ c_j x_j²``, the SVM's ``½‖w‖²`` at unit weights).
        Changed later by :meth:`set_scale` without recompiling (e.g. the Lasso's λ).
    group_size : int or None, default=None
        None: ``x`` is a vector of length ``n_coef``. An integer ``Q``: ``x`` is a ``(Q, n_coef)``
        matrix and coefficient ``j`` is its column, penalised as a group
        (``g_j = Σ_k |x_kj|`` or ``Σ_k x_kj²``) and removed as a whole.
    name : str, default="coef"
        Prefix of the cvxpy variables and parameters (``"coef_pos"``, ``"coef_cost"``...).
    compact_loss : bool, default=False
        Track the layout of :attr:`loss_coef` (vectors only): the formulation states its loss
        on :attr:`loss_coef` and rebuilds its problem when :attr:`layout_key` changes. False:
        :attr:`loss_coef` is :attr:`coef` and the layout never changes.

    Attributes
    ----------
    coef : cvxpy.Expression
        The coefficients ``x`` (removed ones exactly 0): state the loss and constraints on it.
    term : cvxpy.Expression
        ``s · Σ_j c_j g_j(x)``, to add to the objective.
    variables, parameters : dict
        The cvxpy variables and parameters the component created (to register them).
    abs_coef : cvxpy.Expression or None
        For ``"l1"``: ``x⁺ + x⁻``, equal to ``|x|`` at a solution where the weights are
        positive (an upper bound on ``|x|`` everywhere); None for ``"l2"``.
    loss_coef : cvxpy.Expression
        :attr:`coef` in the form the current layout compiles fastest (see the module notes).
    layout_key : object
        Changes exactly when :attr:`loss_coef` becomes a different expression.

    Notes
    -----
    The Parameters hold what enters the compiled problem: ``{name}_cost`` holds ``s·c_j``
    (``"l1"``, the linear cost of ``x⁺_j`` and ``x⁻_j``), ``{name}_root_cost`` holds
    ``√(s·c_j)`` (``"l2"``; ``Σ (r_j x_j)²`` stays better conditioned than ``Σ r_j² x_j²``
    when the weights span many decades), both 1 on removed coefficients, and
    ``{name}_active`` holds the 0/1 mask. The weights themselves are :attr:`weights`; set them
    with :meth:`set_weights`, never by writing the Parameters.

    Examples
    --------
    A sparse solution of ``A x ≥ b``: the penalty is the objective, the loss is empty.

    >>> import cvxpy as cp, numpy as np
    >>> pen = ReweightedPenalty(3, "l1")
    >>> A = np.array([[1.0, 2.0, 0.0], [0.0, 2.0, 1.0]])
    >>> problem = cp.Problem(cp.Minimize(pen.term), [A @ pen.coef >= 1])
    >>> _ = problem.solve()
    >>> np.round(pen.coef_value(), 6) + 0.0
    array([0. , 0.5, 0. ])
    >>> pen.set_weights([1.0, 5.0, 1.0]); _ = problem.solve()
    >>> np.round(pen.coef_value(), 6) + 0.0
    array([1., 0., 1.])
    >>> round(pen.term_value(), 6), np.round(pen.magnitudes(), 6) + 0.0
    (2.0, array([1., 0., 1.]))
    """

    #: A restricted layout of at most this many coefficients is not rebuilt to shrink further:
    #: a cvxpy compilation costs tens of milliseconds, masked columns almost nothing.
    SMALL_LAYOUT = 256

    def __init__(
        self,
        n_coef: int,
        penalty: str = "l1",
        *,
        scale: float | None = None,
        group_size: int | None = None,
        name: str = "coef",
        compact_loss: bool = False,
    ) -> None:
        if penalty not in PENALTIES:
            raise InputError(f"penalty must be 'l1' or 'l2'; got {penalty!r}.")
        if int(n_coef) != n_coef or n_coef < 1:
            raise InputError(f"n_coef must be a positive integer; got {n_coef!r}.")
        if group_size is not None and (int(group_size) != group_size or group_size < 1):
            raise InputError(f"group_size must be a positive integer or None; got {group_size!r}.")
        self.penalty = penalty
        self.n_coef = int(n_coef)
        self.group_size = None if group_size is None else int(group_size)
        self.name = name
        self._scale = self._check_scale(0.5 if scale is None and penalty == "l2" else scale)
        self._weights = np.ones(self.n_coef)
        self._active = np.ones(self.n_coef, dtype=bool)
        #: Whether the objective is this term alone (then the argmin does not depend on a
        #: positive factor of the costs); set by the formulation before each solve.
        self.scale_invariant = False
        #: The factor the l1 costs were divided by in the Parameter (1 unless they are tiny in
        #: a scale-invariant problem; then :meth:`term_value` multiplies it back).
        self.cost_unit = 1.0
        shape = (self.n_coef,) if self.group_size is None else (self.group_size, self.n_coef)
        self.active_param = cp.Parameter(
            self.n_coef, nonneg=True, name=f"{name}_active", value=np.ones(self.n_coef)
        )
        self.variables: dict[str, cp.Variable] = {}
        if penalty == "l1":
            self.pos = cp.Variable(shape, nonneg=True, name=f"{name}_pos")
            self.neg = cp.Variable(shape, nonneg=True, name=f"{name}_neg")
            self.variables.update({self.pos.name(): self.pos, self.neg.name(): self.neg})
            raw = self.pos - self.neg
            self.cost_param = cp.Parameter(self.n_coef, nonneg=True, name=f"{name}_cost")
            split_sum = self.pos + self.neg
            if self.group_size is None:
                self.term = self.cost_param @ split_sum
            else:
                self.term = cp.sum(split_sum @ self.cost_param)
            self.abs_coef = self._masked(split_sum)
            self._param = self.cost_param
        else:
            self.raw = cp.Variable(shape, name=name)
            self.variables[name] = self.raw
            raw = self.raw
            self.root_cost_param = cp.Parameter(
                self.n_coef, nonneg=True, name=f"{name}_root_cost"
            )
            self.term = cp.sum_squares(self._broadcast_product(self.root_cost_param, raw))
            self.abs_coef = None
            self._param = self.root_cost_param
        self.coef = self._masked(raw)
        self._raw = raw
        self.compact_loss = bool(compact_loss) and self.group_size is None
        # None: nothing removed (the loss uses x itself); FULL: the masked product a ∘ x (many
        # coefficients still active); an index array K: the restricted product on K.
        self._layout: np.ndarray | str | None = None
        self._loss_coefs: dict = {}
        self.parameters: dict[str, cp.Parameter] = {
            self._param.name(): self._param,
            self.active_param.name(): self.active_param,
        }
        self._update_params()

    # -- building blocks ------------------------------------------------------------------------
    def _broadcast_product(self, vector, matrix):
        """``vector_j · x_j`` (or ``· x_kj`` for every k of a group)."""
        if self.group_size is None:
            return cp.multiply(vector, matrix)
        return cp.multiply(matrix, vector[None, :])

    def _masked(self, expression):
        return self._broadcast_product(self.active_param, expression)

    @staticmethod
    def _check_scale(scale) -> float:
        scale = 1.0 if scale is None else float(scale)
        if not np.isfinite(scale) or scale < 0:
            raise InputError(f"the penalty scale must be a finite number >= 0; got {scale!r}.")
        return scale

    def _update_params(self) -> None:
        # Removed coefficients get a unit cost: their variables appear nowhere else, so the cost
        # keeps them at 0 (and out of the term's value) whatever their weight.
        cost = self._scale * self._weights
        self.cost_unit = 1.0
        if self.penalty == "l1" and self.scale_invariant:
            top = float(cost[self._active].max(initial=0.0))
            if 0.0 < top < TINY_COST:
                self.cost_unit = top
        cost = np.where(self._active, cost / self.cost_unit, 1.0)
        self._param.value = cost if self.penalty == "l1" else np.sqrt(cost)

    def set_scale_invariant(self, flag: bool) -> None:
        """Declare whether the objective is this term alone (see :attr:`cost_unit`)."""
        if bool(flag) != self.scale_invariant:
            self.scale_invariant = bool(flag)
            self._update_params()

    def constraints(self) -> list[cp.Constraint]:
        """The component's own constraints: none (bounds and the mask live in the variables)."""
        return []

    # -- the driver's side ----------------------------------------------------------------------
    @property
    def scale(self) -> float:
        """The constant ``s`` in front of ``Σ_j c_j g_j``."""
        return self._scale

    def set_scale(self, scale: float) -> None:
        """Change ``s`` (no recompilation: only the Parameter values change)."""
        self._scale = self._check_scale(scale)
        self._update_params()

    @property
    def weights(self) -> np.ndarray:
        """The weights ``c`` (a copy), one per coefficient."""
        return self._weights.copy()

    def set_weights(self, weights) -> None:
        """Set the weights ``c`` (finite, non-negative, shape ``(n_coef,)``)."""
        self._weights = check_weights(weights, self.n_coef).copy()
        self._update_params()

    @property
    def active(self) -> np.ndarray:
        """Boolean mask of the coefficients still free (a copy)."""
        return self._active.copy()

    def set_active(self, mask) -> None:
        """Free (True) or fix at zero (False) each coefficient."""
        mask = check_active_mask(mask, self.n_coef)
        if np.array_equal(mask, self._active):
            return  # the driver sets the mask at every step; cvxpy checks each value it gets
        self._active = mask
        self.active_param.value = self._active.astype(float)
        self._update_params()
        if self.compact_loss:
            self._layout = self._next_layout(self._layout, self._active)

    # -- the compact loss -----------------------------------------------------------------------
    @staticmethod
    def _next_layout(layout, active: np.ndarray):
        """The layout for the mask ``active``, keeping the current one while it still fits.

        A restricted layout is kept (only the mask Parameter changes: no recompilation) while
        it contains every active coefficient and, unless it is small (at most
        :attr:`SMALL_LAYOUT` coefficients, where a compilation costs more than the masked
        columns it would drop), at most twice as many; rebuilding on a set half as large costs
        a compilation of at most the current size, so at most about ``log2(n)`` rebuilds
        happen in a run whose active set only shrinks.
        """
        n_active = int(active.sum())
        if n_active == active.size:
            return None
        if isinstance(layout, np.ndarray):
            outside = np.ones(active.size, dtype=bool)
            outside[layout] = False
            small = layout.size <= ReweightedPenalty.SMALL_LAYOUT
            if not active[outside].any() and (small or 2 * n_active > layout.size):
                return layout
        elif isinstance(layout, str) and 2 * n_active > active.size:  # "full"
            return layout
        # Few active coefficients: restrict to them. Most still active (or none): the masked
        # product on all of them, whose compilation the restriction would not shorten.
        if n_active == 0 or 2 * n_active > active.size:
            return "full"
        return np.flatnonzero(active)

    def set_loss_columns(self, columns) -> None:
        """Write the loss on the coefficients ``columns`` only (None: back to the usual layout).

        The loss then reads ``A_K (a_K ∘ x_K)`` with ``K = columns``; an active coefficient
        outside ``K`` appears in the penalty alone, where its positive cost holds it at 0: the
        problem is the full one with those coefficients fixed at zero. This is the restricted
        problem of column generation (see :mod:`~zeronorm_opt.formulations.pricing`); the
        layout returns to the one :meth:`set_active` keeps when ``columns`` is None.
        """
        if columns is None:
            self._layout = self._next_layout(None, self._active)
            return
        if not self.compact_loss:
            raise InputError("only a penalty created with compact_loss=True has loss columns.")
        self._layout = np.unique(np.asarray(columns, dtype=np.int64))

    @property
    def layout_key(self):
        """``None``, ``"full"`` or the bytes of the restricted index set."""
        layout = self._layout
        return layout.tobytes() if isinstance(layout, np.ndarray) else layout

    def loss_product(self, matrix) -> cp.Expression:
        """``matrix @ coef`` (``matrix`` of shape ``(k, n_coef)``) in the current layout's form.

        In a restricted layout only the columns of ``K`` are multiplied
        (``matrix[:, K] (a_K ∘ x_K)``): cvxpy then never canonicalises the full matrix, which
        the scatter of :attr:`loss_coef` would make it do.

        Examples
        --------
        >>> import numpy as np
        >>> pen = ReweightedPenalty(4, "l1", compact_loss=True)
        >>> pen.set_active([True, False, True, False])  # half removed: restricted to K
        >>> np.frombuffer(pen.layout_key, dtype=np.int64)
        array([0, 2])
        >>> A = np.arange(8.0).reshape(2, 4)
        >>> pen.loss_product(A).shape  # A[:, K] (a_K ∘ x_K), equal to A @ pen.coef
        (2,)
        """
        if self.compact_loss and isinstance(self._layout, np.ndarray):
            kept = self._layout
            return matrix[:, kept] @ cp.multiply(self.active_param[kept], self._raw[kept])
        return matrix @ self.loss_coef

    @property
    def loss_coef(self) -> cp.Expression:
        """:attr:`coef` as the current layout writes it (equal wherever removed ones are 0)."""
        if not self.compact_loss or isinstance(self._layout, str):  # "full"
            return self.coef
        if self._layout is None:
            return self._raw  # the mask is all ones: a ∘ x = x
        key = self.layout_key
        expression = self._loss_coefs.get(key)
        if expression is None:
            kept = self._layout
            scatter = sp.csr_matrix(
                (np.ones(kept.size), (kept, np.arange(kept.size))), shape=(self.n_coef, kept.size)
            )
            expression = scatter @ cp.multiply(self.active_param[kept], self._raw[kept])
            # One expression per layout (a formulation may ask several times per build); the
            # last few only, as a fit visits each layout once.
            if len(self._loss_coefs) >= 4:
                self._loss_coefs.pop(next(iter(self._loss_coefs)))
            self._loss_coefs[key] = expression
        return expression

    # -- values of the last solve ---------------------------------------------------------------
    def coef_value(self) -> np.ndarray:
        """``x`` at the last solve (vector or ``(Q, n_coef)`` matrix), removed entries exactly 0."""
        if self._raw.value is None:
            raise InputError("the problem has not been solved yet: call solve() first.")
        x = np.asarray(self._raw.value, dtype=float).copy()
        if self.group_size is None:
            x[~self._active] = 0.0
        else:
            x[:, ~self._active] = 0.0
        return x + 0.0  # fold -0 into 0

    def set_coef_value(self, x) -> None:
        """Store a solution found outside cvxpy (a fast path) in the variables."""
        x = np.asarray(x, dtype=float)
        if self.penalty == "l1":
            self.pos.value, self.neg.value = np.maximum(x, 0.0), np.maximum(-x, 0.0)
        else:
            self.raw.value = x

    def magnitudes(self) -> np.ndarray:
        """``h_j`` at the last solve: ``|x_j|`` / ``x_j²``, or ``Σ_k |x_kj|`` / ``Σ_k x_kj²``."""
        x = self.coef_value()
        h = np.abs(x) if self.penalty == "l1" else x**2
        return h if self.group_size is None else h.sum(axis=0)

    def term_value(self) -> float:
        """Value of :attr:`term` at the last solve."""
        value = self.term.value
        if value is None:
            raise InputError("the problem has not been solved yet: call solve() first.")
        return self.cost_unit * float(value)

    def __repr__(self) -> str:
        group = "" if self.group_size is None else f", group_size={self.group_size}"
        return (
            f"<ReweightedPenalty {self.penalty}, n_coef={self.n_coef}{group}, "
            f"scale={self._scale:g}, active={int(self._active.sum())}>"
        )
