"""The soft-margin split-variable LP on a working set of samples (constraint generation).

With many more samples than features, the soft-margin LP of l1-AROM and FSV::

    minimise    s·Σ_j c_j (p_j + q_j) + Σ_i d_i ξ_i
    subject to  y_i (x_i·(p − q) + b) + ξ_i ≥ 1,    p, q, ξ ≥ 0

has few binding margins at its optimum: a vertex has at most ``2n + 1`` non-zero ``p, q, b``, so
only about ``n`` samples lie on the margin; the others are slack (``ξ_i = 0``) or margin errors
(``ξ_i > 0``, a hinge linear in ``(w, b)`` near the optimum). :class:`SampleWorkingSetLP` holds
each sample in one of three ways:

* **one by one** (its margin constraint and ξ_i), exactly as in the whole LP — the samples near
  the margin;
* an **error**, in an aggregate constraint ``Σ_{i∈E_g} d_i (y_i f(x_i) − 1) + t_g ≥ 0`` (16
  per batch of errors) with ``t_g ≥ 0`` at cost 1, i.e. ``t_g = max(0, Σ_{i∈E_g} d_i (1 −
  y_i f(x_i)))`` — the samples below the margin, grouped in the order of their margins (with
  noisy labels they are the bulk of the whole LP's constraints);
* **left out** (counted 0) — the samples above the margin.

Whatever the sets, the model is a relaxation: an error's share and a left-out sample's 0 are at
most their hinges. Its optimum ``(w, b)`` is the whole LP's once every error has
``y_i f(x_i) ≤ 1`` and every left-out sample ``≥ 1`` (within HiGHS's tolerance): the hinges are
then what the model counts. Each solve checks every sample's margin and moves the misjudged
ones (most violated first) into the model until none is left — constraint generation, as
Dedieu, Mazumder and Wang solve the l1-SVM with many samples; column generation over the
features (optional here) runs with it.

HiGHS holds this model's **dual**: one row ``|Σ_i π_i y_i x_ij| ≤ c_j`` per feature and one
``Σ_i π_i y_i = 0`` for the bias, one column ``π_i ∈ [0, d_i]`` per sample held one by one and
one ``σ_g ∈ [0, 1]`` per group of errors (``π_i = σ_g d_i``); ``(w, b)`` are its row duals, and
a sample's margin check is its column's reduced cost. So each change of the LP keeps HiGHS's
dual simplex warm from the last basis: a reweighting step changes the rows' bounds ``± c_j``
(the dual LP's right-hand side), an added sample is a column (flipped to the bound its reduced
cost asks for), an added feature a row, a pruned feature a freed row (bounds ``±∞``: HiGHS
keeps its factorisation, which deleting a row would discard; the freed rows are deleted once
they are half the rows). Held as the primal, a
reweighting step changes the costs and only the primal simplex restarts warm (3000 × 200, the
second l1-AROM LP: 3 344 primal simplex iterations against about 1 000 dual ones here), and
the dual has ``n + 1`` rows where the primal had a row per sample held.

The sets are guessed from a solution. The first LP's, as Dedieu, Mazumder and Wang start from a
first-order solution: liblinear's l1-regularised squared-hinge SVM on the same weighted costs
(scikit-learn's ``LinearSVC``), scaled by the factor that minimises this LP's objective along
it (an exact search over the kinks of that piecewise-linear function). Its samples with margins
in ``[0.5, 1.4)``, at most the ``12 n`` nearest the margin, and at least the ``2n + 2`` nearest,
are held one by one, those below the errors, and its signs and margins give HiGHS a starting
basis (the samples nearest the margin basic). The window matters most: with the samples below
the margin only (``[0, 1)``), the first LP of 10⁴ × 200 took four rounds and 2 069 dual simplex
iterations, with ``[0.5, 1.4)`` one round and 841 (the solution's margin samples had guessed
margins from 0.67 to 1.34); the cap holds 3 000 columns instead of 6 142 at 30 000 × 200 (3.0 s
against 5.0 s, one more small round). The iterations depend on the guess's accuracy: from the
exact solution, 0; from it with 1 % noise on the coefficients, 89; with 5 %, 1 058 — liblinear's
guess is at about the latter (3000 × 200: 600–800).

On a dense X with many features for its samples (``INTERIOR_POINT_GUESS_MIN_FEATURES``,
``INTERIOR_POINT_GUESS_MAX_RATIO``) the iterations from liblinear's guess cost more than a
better guess: the dual simplex works on a dense basis of order ``n`` (3000 × 1000: about
25 ms an iteration, 830 of them from liblinear's guess). There the guess is this LP's own
interior point (:func:`~zeronorm_opt.fast.margin_ipm.margin_interior_point`, its normal
equations of order ``n``), stopped at a relative error of 1e-5: its margins are nearly the
optimum's, and the ratios of its dual slacks to its values rank the samples' columns and the
features' rows by how likely they are basic at the optimum (:class:`_Partition`): the most
likely, one per row of the model, are HiGHS's starting basis, which it takes as it is
(10⁴ × 1000: the first LP 24 iterations and 1.8 s, against 156 and 6 s plus an alien basis's
extra factorisation, 1.6 s, from the samples nearest its margin, and 9 433 and 260 s from
liblinear's guess; 3000 × 200: 0 against 25 from the samples nearest its margin and 774
from liblinear's guess). A later LP whose costs changed by a median factor above 1.1 starts
afresh from it too, stopped at 1e-4 (l1-AROM's second LP: 0–6 iterations; FSV's second at
3000 × 1000: 4 037 iterations and 97 s from the last basis).

A later LP keeps the last model and basis. First, when at least 30 % of the samples held one by
one are far from the margin (``|y_i f(x_i) − 1| > 0.2``) at the last solution, their columns
(nonbasic) are deleted — those below become errors in new groups — so that HiGHS's pricing
passes shorten (30 000 × 200, l1-AROM's second LP: 1.9 s against 3.9 s); not from 500
feature rows, where HiGHS's new factorisation of the basis after the deletion costs more
(10⁴ × 1000, FSV's third LP: 2.15 s against 0.45 s). And when the
reweighting changes the rows' costs by a median factor above 2 on at least 100 features
(l1-AROM's second LP: a factor of about 50; FSV's: 1.2), HiGHS's interior-point method solves
it first, with a crossover to a vertex: the last basis is far from the new optimum (10⁴ × 200:
0.2 s against 0.5 s for the dual simplex from the last basis; on FSV's second LP the dual
simplex wins, 0.3 s against 0.75 s).

Measured figures (l1-AROM 9.8× and FSV 7.7× liblinear's l1-SVM at 10⁴ × 200, from 53× and
46× with the primal model) and what was tried and not kept: ``docs/about/benchmarks.rst``
("Many samples"), ``python -m benchmarks.bench_dense_rows``.

References
----------
A. Dedieu, R. Mazumder and H. Wang, "Solving L1-regularized SVMs and related linear programs:
revisiting the effectiveness of column and constraint generation", Journal of Machine Learning
Research 23, 2022.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import highspy
import numpy as np
import scipy.sparse as sp

from ..exceptions import InputError
from ..formulations.penalty import check_weights
from .highs_model import _FAST_OPTIONS, HighsStepResult, SplitMarginLP
from .margin_ipm import InteriorPoint, margin_interior_point

__all__ = [
    "DENSE_MIN_SAMPLES",
    "DENSE_ROW_GENERATION_RATIO",
    "ROW_GENERATION_RATIO",
    "SampleWorkingSetLP",
    "margin_lp",
]

#: Constraint generation is automatic (soft margin) when the samples outnumber the features by
#: more than this: then most margins are slack at the optimum.
ROW_GENERATION_RATIO = 3
#: ... and on a dense X from this many samples, when they are more than this share of the
#: features: held as the dual, the working set is faster however many features there are
#: (whole l1-AROM fits, C = 1, working set against whole LP, same steps and supports: 300 ×
#: 1000 0.5 s against 1.1 s; 500 × 1000 1.3 s against 3.7 s; 800 × 800 2.0 s against 7.8 s;
#: 1500 × 500 3.2 s against 19.7 s; FSV 1.5 s against 3.4 s at 500 × 1000).
DENSE_MIN_SAMPLES = 300
DENSE_ROW_GENERATION_RATIO = 0.25
#: Least size of the first working set of samples, and of each batch of violated samples added.
MIN_SAMPLE_BATCH = 200
#: Columns aggregating a batch of margin errors (groups of samples in the order of their
#: margins).
ERROR_GROUPS = 16
#: A later LP first takes out of the model the samples held one by one whose margins at the
#: last solution are farther from 1 than this, when they are at least ``SHRINK_SHARE`` of
#: those held and the model has fewer than ``LARGE_BASIS_ROWS`` feature rows.
SHRINK_MARGIN = 0.2
SHRINK_SHARE = 0.3
#: From this many feature rows, deleting columns or rows from the model (which makes HiGHS
#: factorise its basis anew and recompute its edge weights: 1.2 s and 0.5 s on a dense basis
#: of order 900) costs more than it saves: no shrink (FSV's third LP at 10⁴ × 1000, 907 rows:
#: 2.15 s with it, 0.45 s without, 44 iterations either way), and a pruned feature's row is
#: freed instead of deleted until the freed rows are ``FREED_ROWS_SHARE`` of the model's
#: feature rows (see :meth:`SampleWorkingSetLP.remove_coefficients`). Below, the path is as
#: before (10⁴ × 200: the factorisations are cheap, freed rows cost iterations).
LARGE_BASIS_ROWS = 500
FREED_ROWS_SHARE = 0.5
#: A later LP (a reweighting step) is first solved by HiGHS's interior-point method, with a
#: crossover to a vertex, when the model holds at least this many feature rows and their costs
#: changed by a median factor above ``exp(IPM_COST_CHANGE)``; by the dual simplex from the
#: last basis otherwise (l1-AROM's second LP at 10⁴ × 200: 0.2 s against 0.5 s; FSV's second,
#: whose costs change less, 0.75 s against 0.3 s).
IPM_MIN_FEATURES = 100
IPM_COST_CHANGE = np.log(2.0)
#: liblinear's guess of the first LP: its samples with margins in [ABOVE, BELOW), at most the
#: ``FIRST_ROWS_PER_FEATURE·n`` nearest the margin, are held one by one (the others below are
#: errors, aggregated in groups).
FIRST_GUESS_ROWS_ABOVE = 0.5
FIRST_GUESS_ROWS_BELOW = 1.4
FIRST_ROWS_PER_FEATURE = 12
#: The first guess is this LP's interior point instead of liblinear's solution on a dense X
#: from this many features, with at most ``INTERIOR_POINT_GUESS_MAX_RATIO`` samples per
#: feature (its Newton steps cost ``m n²`` each; whole fits, same steps and supports: l1-AROM
#: 0.40 s against 0.20 s at 1000 × 200, 0.55 s against 0.35 s at 3000 × 200, 1.5 s against
#: 1.3 s at 10⁴ × 200, but 2.5–3.8 s against 4.8 s at 3·10⁴ × 200; FSV alike). It stops at
#: ``INTERIOR_POINT_GUESS_TOL`` and is used when its error is below
#: ``INTERIOR_POINT_GUESS_MAX_ERROR`` (10⁴ × 1000, l1-AROM, the basis from the samples nearest
#: the guessed margin: a fit of 25 s at 1e-5, 30 s at 1e-6 — more Newton steps, the same 156
#: simplex iterations — and 39 s at 1e-4, where the first LP took 1 097; from the ranked
#: :class:`_Partition`, 24 iterations at 1e-5, 114 at 1e-4 after 3 Newton steps fewer: no
#: faster).
INTERIOR_POINT_GUESS_MIN_FEATURES = 100
INTERIOR_POINT_GUESS_MAX_RATIO = 20
INTERIOR_POINT_GUESS_TOL = 1e-5
INTERIOR_POINT_GUESS_MAX_ERROR = 1e-3
#: A later LP's interior point stops at this error instead: its guess of the optimal partition
#: (:class:`_Partition`) is as good there (10⁴ × 1000: l1-AROM's second interior point 17
#: Newton steps instead of 22, then 6 dual simplex iterations instead of 0, the fit 1 s
#: faster; FSV's second 17 instead of 19, then 37 iterations instead of 1, the fit as fast).
INTERIOR_POINT_LATER_TOL = 1e-4
#: A later LP on such a model starts afresh from the interior point's guess when its costs
#: changed by a median factor above this (from the last basis, 3000 × 1000: FSV's second LP, a
#: factor of 1.28, took 4 037 dual simplex iterations and 97 s, its third, 1.14, 728 and 20 s,
#: its fourth, 1.08, 385–545 and 14 s; 10⁴ × 1000: FSV's second, 1.115, 991 and 13.6 s; an
#: interior point there takes 5–8 s, then a few iterations; l1-AROM's second, a factor of
#: about 50: 3 222 iterations of HiGHS's interior point and crossover, 19 s, against 2 from
#: the guess).
INTERIOR_POINT_COST_CHANGE = np.log(1.1)
#: ... and on the features whose pull at the last solution, ``|Σ_i π_i y_i x_ij|`` (the dual
#: row's activity), is at least this share of their new cost; the others, which would need it
#: to grow this much to leave 0, are held at 0 in the guess (the simplex still checks them).
#: l1-AROM's second LP at 10⁴ × 1000: 615 of 983 features (799 at 0.005), the least share on
#: the LP's 338 non-zero coefficients 0.012 (0.022 at 3000 × 1000), the LP again 0 simplex
#: iterations from the guess, its interior point 0.5× the first's time (0.7× at 0.005)
#: instead of 1.1×. Reweightings that lower costs (FSV's) keep every feature (shares ≥ 1).
INTERIOR_POINT_MIN_PULL = 0.01
#: A later interior point starts from the last one's iterate (on the same features or fewer,
#: each value and dual slack raised to at least ``WARM_INTERIOR_POINT_SHIFT``: the iterate of
#: an optimum sits on the boundary) when the costs changed by a median factor of at most
#: ``exp(WARM_INTERIOR_POINT_COST_CHANGE)``; from the default start when that iterate does
#: not get below ``INTERIOR_POINT_GUESS_MAX_ERROR``. FSV's second LP at 10⁴ × 1000 (906
#: features, costs changed by 1.1): 14 → 10 Newton steps (shifts from 0.01 to 0.3 alike, 11
#: at 1; unshifted, 59 steps without converging); FSV's eight later interior points on
#: three Gaussian sets of 500 × 40 and 1000 × 60: 11–14 → 6–11 steps at 0.3, while at 0.01
#: two took more (16 and 22 against 11 and 14). l1-AROM's second (a factor of about 50)
#: stalls from it at an error of 0.3, hence the bound.
WARM_INTERIOR_POINT_COST_CHANGE = np.log(2.0)
WARM_INTERIOR_POINT_SHIFT = 0.3


class SampleWorkingSetLP(SplitMarginLP):
    """:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` holding a working set of samples.

    Same LP, same solution (up to HiGHS's tolerances), same driver protocol; only the soft
    margin (``slack_costs`` given) without the augmented ``slack_scale`` form. HiGHS holds the
    LP's dual (one row per feature in the model and one for the bias, one column per sample
    of the working set and per group of margin errors); the primal ``(w, b)`` are its row duals.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (m, n)
        Read row-wise for the columns it adds and column-wise for the rows; never densified.
    y : array-like of shape (m,)
    slack_costs : float or array-like of shape (m,)
        ``C`` or per-sample costs ``d_i``.
    penalty_scale : float, default=1.0
    column_generation : bool or None, default=None
        As in :class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` (the ratio counted against
        all ``m`` samples): here a working set of the dual's feature rows.
    sample_batch : int or None, default=None
        Size of the first working set (evenly spaced samples, or those nearest the margin at a
        guess) and most samples added per round; None: ``max(2n + 2, 200)``.
    first_guess : "auto", "liblinear", "interior-point", None or tuple (coef, intercept), \
default="auto"
        The solution the first working sets are guessed from: liblinear's l1-regularised
        squared-hinge SVM on the same costs (scikit-learn's ``LinearSVC``, a first-order
        solution as Dedieu, Mazumder and Wang start from), this LP's own interior point
        (:func:`~zeronorm_opt.fast.margin_ipm.margin_interior_point`, stopped early), a given
        ``(coef of shape (n,), intercept)``, or None (the evenly spaced samples, no errors
        aggregated). "auto": the interior point on a dense X with at least
        ``INTERIOR_POINT_GUESS_MIN_FEATURES`` features and at most
        ``INTERIOR_POINT_GUESS_MAX_RATIO`` samples per feature, liblinear otherwise. Only the
        speed depends on it.

    Attributes
    ----------
    sample_rows : ndarray of int
        The samples the model holds one by one (their margin constraints; in HiGHS, the dual's
        columns), in the order they were added.

    References
    ----------
    A. Dedieu, R. Mazumder and H. Wang, "Solving L1-regularized SVMs and related linear
    programs: revisiting the effectiveness of column and constraint generation", Journal of
    Machine Learning Research 23, 2022.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((600, 5))
    >>> y = np.sign(X[:, 0] + 0.1 * rng.standard_normal(600))
    >>> lp = SampleWorkingSetLP(X, y, 1.0, sample_batch=50)
    >>> step = lp.solve_weighted(np.ones(5))
    >>> bool(lp.sample_rows.size < 600)
    True
    >>> whole = SplitMarginLP(X, y, 1.0)
    >>> bool(np.allclose(step.coef, whole.solve_weighted(np.ones(5)).coef, atol=1e-6))
    True
    >>> bool(np.isclose(lp.objective_value(), whole.highs.getInfo().objective_function_value))
    True
    """

    def __init__(
        self,
        X,
        y,
        slack_costs,
        *,
        penalty_scale: float = 1.0,
        column_generation: bool | None = None,
        sample_batch: int | None = None,
        first_guess="auto",
    ) -> None:
        if slack_costs is None:
            raise InputError(
                "SampleWorkingSetLP solves the soft margin: pass slack_costs (e.g. C=1.0), or "
                "use SplitMarginLP for the hard margin."
            )
        self._sample_batch = sample_batch
        self.first_guess = _check_guess(first_guess, np.shape(X)[1])
        #: The last interior point's iterate, features and costs (a later one may start from
        #: it: see :data:`WARM_INTERIOR_POINT_COST_CHANGE`).
        self._last_point: tuple[InteriorPoint, np.ndarray, np.ndarray] | None = None
        super().__init__(
            X,
            y,
            slack_costs,
            penalty_scale=penalty_scale,
            column_generation=column_generation,
        )

    # -- the model (the LP's dual) ----------------------------------------------------------
    def _build(self) -> highspy.Highs:
        """An empty model: the bias row, no feature rows, no sample columns."""
        m, n = self.X.shape
        self.sample_batch = int(min(m, self._sample_batch or max(2 * n + 2, MIN_SAMPLE_BATCH)))
        #: Margins ``y_i f(x_i)`` of every sample at the last optimal solve (None before).
        self._margins: np.ndarray | None = None
        self._costs = np.full(self.n_coef, self.penalty_scale)
        self._last_costs = self._costs  # of the last solve
        # Evenly spaced samples: no randomness, both classes in the proportions of the data.
        self._fresh_model(np.unique(np.linspace(0, m - 1, self.sample_batch).astype(np.int64)))
        return self.highs

    def _fresh_model(self, samples: np.ndarray, groups: np.ndarray | None = None) -> None:
        """A new model: the bias row, the columns of ``samples`` and of the errors' ``groups``
        (−1: none); no feature rows."""
        m = self.X.shape[0]
        self.sample_rows = np.empty(0, dtype=np.int64)
        self._in_rows = np.zeros(m, dtype=bool)
        #: Group of each sample held as a margin error (aggregated in the group's column),
        #: −1 for the others.
        self._group = np.full(m, -1, dtype=np.int64)
        #: ``Σ_{i∈E_g} d_i y_i x_i`` per group: the feature rows' entries of the groups' columns.
        self._error_gradient = np.zeros((ERROR_GROUPS, self.n_coef))
        self._error_bias = np.zeros(ERROR_GROUPS)
        #: Model column of each group (−1: none).
        self._group_col = np.full(ERROR_GROUPS, -1, dtype=np.int64)
        #: Owner of each model column: sample i ≥ 0, or −1 (a group's, live or retired).
        self._col_sample = np.empty(0, dtype=np.int64)
        #: Feature of each model row after the bias row (row 0).
        self._row_feature = np.empty(0, dtype=np.int64)
        self._in_model = np.zeros(self.n_coef, dtype=bool)
        h = highspy.Highs()
        for name, value in _FAST_OPTIONS.items():
            h.setOptionValue(name, value)
        h.addRow(0.0, 0.0, 0, np.empty(0, np.int32), np.empty(0))  # Σ π_i y_i = 0 (the bias)
        self.highs = h
        self._add_samples(samples)
        if groups is not None:
            self._set_groups(groups)

    @property
    def _row_live(self) -> np.ndarray:
        """Whether each feature row still holds its feature (False: freed, see
        :meth:`remove_coefficients`): a row is freed exactly when its feature is removed."""
        return self._active[self._row_feature]

    def _signed_block(self, samples: np.ndarray, features: np.ndarray):
        """``y_i x_ij`` for ``samples`` × ``features`` (sparse if X is)."""
        block = self.X[samples][:, features]
        if sp.issparse(block):
            return sp.csr_matrix(sp.diags(self.y[samples]) @ block)
        return self.y[samples, None] * block

    def _add_samples(self, samples: np.ndarray) -> None:
        """Append the columns ``π_i ∈ [0, d_i]`` of ``samples`` (sorted, not in the model)."""
        k = samples.size
        if not k:
            return
        block = sp.csr_matrix(self._signed_block(samples, self._row_feature))  # k × features
        rows = 1 + np.concatenate([np.full(k, -1), block.indices])
        cols = np.concatenate([np.arange(k), np.repeat(np.arange(k), np.diff(block.indptr))])
        values = np.concatenate([self.y[samples], block.data])
        matrix = sp.csc_matrix((values, (rows, cols)), shape=(self.highs.getNumRow(), k))
        matrix.sort_indices()
        self.highs.addCols(
            k,
            -np.ones(k),
            np.zeros(k),
            self.slack_costs[samples],
            int(matrix.nnz),
            matrix.indptr[:-1].astype(np.int32),
            matrix.indices.astype(np.int32),
            matrix.data.astype(float),
        )
        self._col_sample = np.concatenate([self._col_sample, samples])
        self.sample_rows = np.concatenate([self.sample_rows, samples])
        self._in_rows[samples] = True

    def _set_groups(self, groups: np.ndarray, changed=None) -> None:
        """Hold the samples with ``groups ≥ 0`` as errors in their groups' columns
        (``changed``: the groups whose members changed; None: all).

        Group g's column ``σ_g ∈ [0, 1]`` stands for ``π_i = σ_g d_i`` for each of its errors:
        in the primal, the row ``Σ_{i∈E_g} d_i (y_i f(x_i) − 1) + t_g ≥ 0`` with ``t_g ≥ 0`` at
        cost 1. A changed group's column is retired (fixed at 0: HiGHS keeps its basis) and a
        new one appended.
        """
        self._group = groups
        G = max(int(groups.max()) + 1, self._group_col.size)
        if G > self._group_col.size:  # new groups (the errors of a shrunk working set)
            extra = G - self._group_col.size
            self._error_gradient = np.vstack([self._error_gradient, np.zeros((extra, self.n_coef))])
            self._error_bias = np.concatenate([self._error_bias, np.zeros(extra)])
            self._group_col = np.concatenate([self._group_col, np.full(extra, -1, np.int64)])
        changed = np.arange(G) if changed is None else np.asarray(changed)
        errors = np.flatnonzero(np.isin(groups, changed))
        d = self.slack_costs[errors]
        slot = np.searchsorted(changed, groups[errors])
        members = np.zeros((self.X.shape[0], changed.size))
        members[errors, slot] = d * self.y[errors]
        # Xᵀ times a dense (m, changed) array: a dense product, X never densified.
        self._error_gradient[changed] = np.asarray(self.X.T @ members).T
        self._error_bias[changed] = members.sum(axis=0)
        total = np.bincount(slot, weights=d, minlength=changed.size)
        h = self.highs
        for k, g in enumerate(changed.tolist()):
            if self._group_col[g] >= 0:
                h.changeColBounds(int(self._group_col[g]), 0.0, 0.0)
                self._group_col[g] = -1
            if not total[k] and not np.any(slot == k):
                continue
            entries = self._error_gradient[g, self._row_feature]
            values = np.concatenate([[self._error_bias[g]], entries])
            index = np.flatnonzero(values).astype(np.int32)
            self._group_col[g] = h.getNumCol()
            h.addCol(-float(total[k]), 0.0, 1.0, index.size, index, values[index])
            self._col_sample = np.append(self._col_sample, -1)

    def _shrink(self) -> None:
        """Take the samples held one by one but far from the margin at the last solution
        (``|y_i f(x_i) − 1| > SHRINK_MARGIN``, their columns nonbasic) out of the model: those
        above left out, those below errors in new groups; the retired groups' nonbasic columns
        deleted too. HiGHS keeps its basis (only nonbasic columns go) and its pricing passes
        get shorter; a misjudged sample comes back through the checks of
        :meth:`_solve_working_sets`."""
        S = highspy.HighsBasisStatus
        h = self.highs
        if np.count_nonzero(self._row_live) >= LARGE_BASIS_ROWS:
            return
        basic = np.fromiter((s == S.kBasic for s in h.getBasis().col_status), bool)
        owner = self._col_sample
        held = owner >= 0
        margins = np.where(held, self._margins[np.maximum(owner, 0)], 1.0)
        far = held & ~basic & (np.abs(margins - 1.0) > SHRINK_MARGIN)
        if far.sum() < SHRINK_SHARE * held.sum():
            return
        retired = ~held & ~basic & ~np.isin(np.arange(owner.size), self._group_col)
        gone = np.flatnonzero(far | retired)
        h.deleteCols(gone.size, gone.astype(np.int32))
        kept = np.ones(owner.size, dtype=bool)
        kept[gone] = False
        new_index = np.cumsum(kept) - 1
        live = self._group_col >= 0
        self._group_col[live] = new_index[self._group_col[live]]
        self._col_sample = owner[kept]
        leaving = owner[far]
        self._in_rows[leaving] = False
        self.sample_rows = self._col_sample[self._col_sample >= 0]
        below = leaving[self._margins[leaving] < 1.0]
        if below.size:
            order = below[np.argsort(self._margins[below], kind="stable")]
            first = self._group_col.size
            groups = self._group.copy()
            groups[order] = first + np.arange(order.size) * ERROR_GROUPS // order.size
            self._set_groups(groups, np.unique(groups[order]))

    def _add_coefficients(self, coefs, costs) -> None:
        """Append the rows ``|Σ_i π_i y_i x_ij| ≤ c_j`` of the features ``coefs`` (sorted, not
        in the model) at ``costs``."""
        coefs = np.asarray(coefs, dtype=np.int64)
        k = coefs.size
        if not k:
            return
        samples = self._col_sample
        live = samples >= 0
        block = sp.csr_matrix(self._signed_block(samples[live], coefs).T)  # features × samples
        cols = np.flatnonzero(live)[block.indices]
        groups = np.flatnonzero(self._group_col >= 0)
        part = sp.coo_matrix(self._error_gradient[groups][:, coefs].T)  # features × groups
        rows = np.concatenate([np.repeat(np.arange(k), np.diff(block.indptr)), part.row])
        cols = np.concatenate([cols, self._group_col[groups][part.col]])
        values = np.concatenate([block.data, part.data])
        matrix = sp.csr_matrix((values, (rows, cols)), shape=(k, self.highs.getNumCol()))
        matrix.sort_indices()
        costs = np.asarray(costs, dtype=float)
        self.highs.addRows(
            k,
            -costs,
            costs,
            int(matrix.nnz),
            matrix.indptr[:-1].astype(np.int32),
            matrix.indices.astype(np.int32),
            matrix.data.astype(float),
        )
        self._row_feature = np.concatenate([self._row_feature, coefs])
        self._in_model[coefs] = True

    def remove_coefficients(self, mask) -> None:
        """Take the coefficients where ``mask`` is True out of the problem for good (``w_j =
        0``): their rows deleted, or, in a model of at least ``LARGE_BASIS_ROWS`` feature
        rows, freed (bounds ``±∞``) until the freed rows are ``FREED_ROWS_SHARE`` of them,
        then deleted together.

        A freed row is a basic slack (a unit column of the basis): HiGHS keeps its
        factorisation and edge weights, where deleting a row makes it factorise the basis
        anew and recompute the weights (FSV's later LPs at 10⁴ × 1000, a few features pruned
        each: 1.2 s and 0.5 s on a dense basis of order 900, for 9–43 iterations). A row
        that is nonbasic at the last solution is deleted at once.
        """
        mask = np.asarray(mask, dtype=bool) & self._active
        if not mask.any():
            return
        leaving = np.flatnonzero(mask[self._row_feature] & self._row_live)
        large = np.count_nonzero(self._row_live) >= LARGE_BASIS_ROWS
        self._active &= ~mask
        self._in_model &= ~mask
        if not leaving.size:
            return
        h = self.highs
        basic = highspy.HighsBasisStatus.kBasic
        status = h.getBasis().row_status
        freed = ~self._row_live
        if (
            not large
            or freed.sum() >= FREED_ROWS_SHARE * freed.size
            or any(status[1 + row] != basic for row in leaving.tolist())
        ):
            gone = np.flatnonzero(freed)
            h.deleteRows(gone.size, (1 + gone).astype(np.int32))
            self._row_feature = self._row_feature[~freed]
            return
        for row in leaving.tolist():
            h.changeRowBounds(1 + row, -highspy.kHighsInf, highspy.kHighsInf)

    def objective_value(self) -> float:
        """The LP's objective ``s·Σ_j c_j |w_j| + Σ_i d_i ξ_i`` at the last solve."""
        if self.last_step is None:
            raise InputError("the model has not been solved yet: call solve() first.")
        coef = self.coef_value()
        return float(self._costs @ np.abs(coef) + self.slack_costs @ self._xi)

    def solve(self, solver=None, solver_options: dict | None = None):
        """As :meth:`SplitMarginLP.solve` (the objective reported is the LP's, not its
        dual's as HiGHS holds it)."""
        return replace(super().solve(solver, solver_options), value=self.objective_value())

    # -- solving ----------------------------------------------------------------------------
    def solve_weighted(self, weights):
        """Solve with penalty weights ``c``, on working sets guessed from a solution.

        The first solve starts from :attr:`first_guess` (the samples near or inside its
        margin held one by one, the misclassified ones aggregated), a later one from the last
        model (this LP differs from the last in its costs only: the dual's row bounds, so
        HiGHS's dual simplex restarts from the last basis). After each run every sample's
        margin is checked and the features outside the model priced; the misjudged ones are
        added until none is left (see :meth:`_solve_working_sets`): the optimum returned is
        the whole LP's.
        """
        weights = check_weights(weights, self.n_coef)
        self._costs = costs = self.penalty_scale * weights
        reguessed = self._interior_point_due(costs) and self._reguess_by_interior_point()
        if self._margins is None and self.first_guess is not None:
            margins, coef, partition = self._guessed_margins()
            if self.column_generation and not self._in_model.any():
                # The working set of features starts from the guess's support.
                self._in_model[self._active & (coef != 0)] = True
            self._reguess(margins, FIRST_GUESS_ROWS_ABOVE, FIRST_GUESS_ROWS_BELOW)
            self._guess_basis(margins, coef, partition)
        if self.column_generation and not self._in_model.any():
            self._add_first_columns(costs)
        elif not self.column_generation and (self._active & ~self._in_model).any():
            missing = np.flatnonzero(self._active & ~self._in_model)
            self._add_coefficients(missing, costs[missing])
        elif self._margins is not None and not reguessed:
            self._shrink()
        live = np.flatnonzero(self._row_live)
        rows = self._row_feature[live]
        # Row by row: highspy's changeRowsBounds is newer than the highspy floor (1.11); n
        # calls per step cost about a millisecond per thousand features.
        for row, cost in zip((1 + live).tolist(), costs[rows].tolist(), strict=True):
            self.highs.changeRowBounds(row, -cost, cost)
        # A reweighting step that changes the costs of many features a lot (l1-AROM's second:
        # a median factor of about 50 at 3000 × 200; FSV's: 1.2): the last basis is far from
        # the new optimum, HiGHS's interior-point method (then a crossover to a vertex) first.
        ipm = (
            self._margins is not None
            and not reguessed
            and rows.size >= IPM_MIN_FEATURES
            and _cost_change(self._last_costs[rows], costs[rows]) > IPM_COST_CHANGE
        )
        self._last_costs = costs
        status, elapsed, iterations = self._solve_working_sets(ipm)
        if status != highspy.HighsModelStatus.kOptimal:
            raise self._not_solved(status)
        coef, b = self._primal()
        #: ``π_i`` of every sample at this solve (a later interior point's features).
        self._last_duals = self._sample_duals()
        self._xi = np.maximum(1.0 - self._margins, 0.0)
        self.last_step = HighsStepResult(
            coef=coef,
            b=b,
            xi=self._xi.copy(),
            status="optimal",
            solve_time=elapsed,
            simplex_iterations=iterations,
        )
        return self.last_step

    def _primal(self) -> tuple[np.ndarray, float]:
        """``(w, b)``: the row duals of the last solve (0 for the features outside the model)."""
        duals = np.asarray(self.highs.getSolution().row_dual)
        coef = np.zeros(self.n_coef)
        live = self._row_live
        coef[self._row_feature[live]] = -duals[1:][live]
        return coef, -float(duals[0])

    def _sample_duals(self) -> np.ndarray:
        """``π_i`` of every sample: its column's value, ``σ_g d_i`` for an error, 0 else."""
        x = np.asarray(self.highs.getSolution().col_value)
        pi = np.zeros(self.X.shape[0])
        errors = self._group >= 0
        pi[errors] = x[self._group_col[self._group[errors]]] * self.slack_costs[errors]
        live = self._col_sample >= 0
        pi[self._col_sample[live]] = x[live]
        return pi

    def _solve_working_sets(self, ipm: bool = False):
        """Solve the working sets (the first run by HiGHS's interior-point method if ``ipm``,
        the others by its dual simplex); add the samples misjudged and the features violated,
        and re-solve until none is left.

        The model is the dual of a relaxation of the whole LP: a sample held one by one is
        exact, an error contributes ``d_i (1 − y_i f(x_i))`` (aggregated in its group, capped
        below by 0) and a left-out sample 0, both at most its hinge ``d_i max(0, 1 − y_i
        f(x_i))``; a feature outside the model is held at ``w_j = 0``. Its optimum is the whole
        LP's once every error has ``y_i f(x_i) ≤ 1``, every left-out sample ``≥ 1`` and every
        feature outside ``|Σ_i π_i y_i x_ij| ≤ c_j`` (within HiGHS's tolerances): the hinges
        are then what the model counts, and the dual solution is feasible for the whole dual.
        HiGHS's dual simplex restarts from the last basis after each addition (a new column at
        the bound its reduced cost asks for, a new row with its slack basic).
        """
        tolerance = self._dual_tolerance()
        elapsed, iterations = 0.0, 0
        h = self.highs
        while True:
            if ipm:
                h.setOptionValue("solver", "ipm")
            status, seconds, its = self._run()
            elapsed, iterations = elapsed + seconds, iterations + its
            if ipm:
                h.setOptionValue("solver", "simplex")
                ipm = False
                if status != highspy.HighsModelStatus.kOptimal:
                    continue  # a second opinion from the dual simplex
            start = time.perf_counter()
            if status != highspy.HighsModelStatus.kOptimal:
                return status, elapsed, iterations
            coef, b = self._primal()
            margins = self.y * (np.asarray(self.X @ coef).ravel() + b)
            self._margins = margins
            # How far each sample outside the columns is from what the model assumes of it.
            wrong = np.where(
                self._group >= 0, margins - 1.0, np.where(self._in_rows, 0.0, 1.0 - margins)
            )
            violated = np.flatnonzero(wrong > tolerance)
            entering = np.empty(0, dtype=np.int64)
            outside = np.flatnonzero(self._active & ~self._in_model)
            if outside.size:
                pricing = self._pricing(outside, self._sample_duals())
                excess = np.abs(pricing) - self._costs[outside]
                entering = np.flatnonzero(excess > self._primal_tolerance())
                most = entering[np.argsort(-excess[entering], kind="stable")]
                entering = np.sort(outside[most[: self.pricing_batch]])
            if violated.size:
                worst = violated[np.argsort(-wrong[violated], kind="stable")]
                self._move_to_rows(np.sort(worst[: self.sample_batch]))
            if entering.size:
                self._add_coefficients(entering, self._costs[entering])
            elapsed += time.perf_counter() - start
            if not violated.size and not entering.size:
                return status, elapsed, iterations

    def _guessed_margins(self) -> tuple[np.ndarray, np.ndarray, _Partition | None]:
        """Margins and coefficients of :attr:`first_guess`, and the interior point's
        :class:`_Partition` when it made them (None otherwise)."""
        if self.first_guess == "auto":
            wide = self._interior_point_pays(int(self._active.sum()))
            guess = "interior-point" if wide else "liblinear"
        else:
            guess = self.first_guess
        if guess == "interior-point":
            found = self._interior_point_margins()
            if found is not None:
                return found
        if isinstance(guess, str):
            return (*self._liblinear_margins(), None)
        coef, intercept = guess
        return self.y * (np.asarray(self.X @ coef).ravel() + intercept), coef, None

    def _liblinear_margins(self) -> tuple[np.ndarray, np.ndarray]:
        """Margins guessed by liblinear's l1-regularised squared-hinge SVM, scaled to this LP.

        The features are divided by their costs and the samples weighted by their slack
        costs (so liblinear's penalty is this LP's weighted l1 norm); the direction found is
        then scaled by the factor ``a`` that minimises this LP's objective along it.
        """
        svc, X, active, scale = self._liblinear_guess(self._costs)
        w = svc.coef_.ravel()
        margins = self.y * (np.asarray(X @ w).ravel() + svc.intercept_[0])
        a = _best_factor(margins, self.slack_costs, float(np.abs(w).sum()))
        coef = np.zeros(self.n_coef)
        coef[active] = a * scale * w
        return a * margins, coef

    def _interior_point_pays(self, n_features: int) -> bool:
        """Whether the interior point's guess beats liblinear's on these data: a dense X with
        at least ``INTERIOR_POINT_GUESS_MIN_FEATURES`` features (rows of the dual) and at most
        ``INTERIOR_POINT_GUESS_MAX_RATIO`` samples for each."""
        return (
            not sp.issparse(self.X)
            and n_features >= INTERIOR_POINT_GUESS_MIN_FEATURES
            and self.X.shape[0] <= INTERIOR_POINT_GUESS_MAX_RATIO * n_features
        )

    def _interior_point_due(self, costs: np.ndarray) -> bool:
        """Whether a later LP starts afresh from the interior point's guess: where it pays
        (:meth:`_interior_point_pays`, the feature rows in the model counted), when the costs
        changed by a median factor above ``exp(INTERIOR_POINT_COST_CHANGE)``."""
        rows = self._row_feature[self._row_live]
        return (
            self._margins is not None
            and self.first_guess == "auto"
            and self._interior_point_pays(rows.size)
            and _cost_change(self._last_costs[rows], costs[rows]) > INTERIOR_POINT_COST_CHANGE
        )

    def _reguess_by_interior_point(self) -> bool:
        """A new model and basis guessed by the interior point (False if it fell short)."""
        found = self._interior_point_margins(INTERIOR_POINT_LATER_TOL)
        if found is None:
            return False
        margins, coef, partition = found
        self._reguess(margins, FIRST_GUESS_ROWS_ABOVE, FIRST_GUESS_ROWS_BELOW)
        self._guess_basis(margins, coef, partition)
        return True

    def _interior_point_margins(
        self, tol: float = INTERIOR_POINT_GUESS_TOL
    ) -> tuple[np.ndarray, np.ndarray, _Partition] | None:
        """Margins and coefficients of this LP's interior point, stopped at a guess's accuracy
        (a coefficient whose value is below its dual slack counted 0), and its guess of the
        optimal partition (:class:`_Partition`); None when it did not get that far.

        Its margins are nearly the optimum's where liblinear's squared hinge only resembles
        the hinge: on 3000 × 1000 the first LP took 159 dual simplex iterations from it
        against 830 from liblinear's guess (the simplex on a dense basis of order ``n``,
        about 25 ms an iteration there). A later LP's is on the features whose pull at the
        last solution is at least ``INTERIOR_POINT_MIN_PULL`` of their new cost (its Newton
        steps cost ``m k²``), the others held at 0.
        """
        active = np.flatnonzero(self._active)
        if self._margins is not None:
            pull = np.abs(np.asarray(self.X.T @ (self.y * self._last_duals)).ravel()[active])
            active = active[pull >= INTERIOR_POINT_MIN_PULL * self._costs[active]]
        costs = self._costs[active]
        scale = _column_scale(costs)
        X = self.X[:, active]
        B = (
            sp.diags(self.y) @ X @ sp.diags(scale)
            if sp.issparse(X)
            else self.y[:, None] * X * scale
        )
        start = self._warm_start(active, costs)
        point = margin_interior_point(
            B, self.y, costs * scale, self.slack_costs, tol=tol, start=start
        )
        if start is not None and point.error > INTERIOR_POINT_GUESS_MAX_ERROR:
            point = margin_interior_point(B, self.y, costs * scale, self.slack_costs, tol=tol)
        self._last_point = (point, active, costs)
        if point.error > INTERIOR_POINT_GUESS_MAX_ERROR:
            return None
        w = np.where((point.p < point.z_p) & (point.q < point.z_q), 0.0, point.p - point.q)
        coef = np.zeros(self.n_coef)
        coef[active] = w * scale
        margins = self.y * (np.asarray(X @ coef[active]).ravel() + point.b)
        return margins, coef, _Partition.of(point, active, self.n_coef)

    def _warm_start(self, active: np.ndarray, costs: np.ndarray) -> InteriorPoint | None:
        """The last interior point's iterate on the features ``active`` (a subset of its own)
        in this LP's column scales, each value and dual slack raised to at least
        :data:`WARM_INTERIOR_POINT_SHIFT`, when the costs changed by a median factor of at most
        ``exp(WARM_INTERIOR_POINT_COST_CHANGE)``; None otherwise."""
        if self._last_point is None:
            return None
        point, last_active, last_costs = self._last_point
        where = np.minimum(np.searchsorted(last_active, active), last_active.size - 1)
        if not np.array_equal(last_active[where], active) or (
            _cost_change(last_costs[where], costs) > WARM_INTERIOR_POINT_COST_CHANGE
        ):
            return None
        # p and q in this LP's units (w_j / scale_j), their dual slacks in the inverse ones;
        # off the boundary, where the last optimum's iterate sits, to a centred start.
        ratio = _column_scale(last_costs[where]) / _column_scale(costs)

        def raised(v):
            return np.maximum(v, WARM_INTERIOR_POINT_SHIFT)

        return InteriorPoint(
            p=raised(point.p[where] * ratio), q=raised(point.q[where] * ratio),
            z_p=raised(point.z_p[where] / ratio), z_q=raised(point.z_q[where] / ratio),
            xi=raised(point.xi), z_xi=raised(point.z_xi), surplus=raised(point.surplus),
            z_surplus=raised(point.z_surplus), b=point.b, duals=point.duals,
            error=point.error, iterations=0,
        )  # fmt: skip

    def _reguess(self, margins: np.ndarray, rows_above: float, rows_below: float) -> None:
        """A new model from a guessed solution's ``margins``: one column each for the
        ``sample_batch`` samples nearest the margin and those with ``rows_above ≤ margin <
        rows_below`` (at most ``FIRST_ROWS_PER_FEATURE·n``, the nearest), the others below the
        margin errors (in groups), the same feature rows."""
        features = np.flatnonzero(self._in_model & self._active)
        nearest = np.argsort(np.abs(margins - 1.0), kind="stable")
        window = (margins >= rows_above) & (margins < rows_below)
        rows = np.zeros(margins.size, dtype=bool)
        rows[nearest[: FIRST_ROWS_PER_FEATURE * self.n_coef]] = True
        rows &= window
        rows[nearest[: self.sample_batch]] = True
        errors = (margins < 1.0) & ~rows
        # Groups of equal size in the order of the margins: a group's column caps only its
        # own errors' pull (its hinges' sum), so errors near the margin cannot pass it for free.
        order = np.flatnonzero(errors)[np.argsort(margins[errors], kind="stable")]
        groups = np.full(self.X.shape[0], -1, dtype=np.int64)
        groups[order] = np.arange(order.size) * ERROR_GROUPS // max(order.size, 1)
        self._fresh_model(np.flatnonzero(rows), groups)
        self._add_coefficients(features, self._costs[features])

    def _guess_basis(
        self, margins: np.ndarray, coef: np.ndarray, partition: _Partition | None = None
    ) -> None:
        """A starting basis from a guessed solution: the sample columns and feature rows the
        interior point's ``partition`` ranks most likely basic, as many as the model's rows
        (without it, the ``k + 1`` samples nearest the margin basic, ``k`` non-zero
        coefficients, and the rows of the zero ones); the other samples at the bound of their
        side, the other rows at the bound of the coefficient's sign.

        With exactly one basic variable per row HiGHS takes the basis as it is, and factorises
        it once, in the run (a singular one is repaired there with slack columns); otherwise
        it completes it as an alien basis (factorised by ``setBasis``, then again by the run:
        10⁴ × 1000, 1.6 s each on a dense basis of order 1001).
        """
        S = highspy.HighsBasisStatus
        h = self.highs
        owner = self._col_sample
        live = np.flatnonzero(owner >= 0)
        col = np.full(owner.size, S.kUpper, dtype=object)  # the groups' σ_g at 1
        below = margins[owner[live]] < 1.0
        col[live] = np.where(below, S.kUpper, S.kLower)
        w = coef[self._row_feature]
        if partition is None:
            k = int(np.count_nonzero(w)) + 1
            near = np.argsort(np.abs(margins[owner[live]] - 1.0), kind="stable")[:k]
            col[live[near]] = S.kBasic
            row_basic = w == 0
            sign = w
        else:
            # The bias row (an equality) is nonbasic: one basic per feature row, and one more.
            col_basic, row_basic = partition.basic(owner[live], self._row_feature)
            col[live[col_basic]] = S.kBasic
            sign = partition.sign[self._row_feature]
        row = np.where(row_basic, S.kBasic, np.where(sign < 0, S.kLower, S.kUpper))
        basis = highspy.HighsBasis()
        basis.col_status = list(col)
        basis.row_status = [S.kLower, *row.astype(object)]
        basic = np.count_nonzero(col == S.kBasic) + np.count_nonzero(row_basic)
        basis.alien = basic != h.getNumRow()
        basis.valid = True
        h.setBasis(basis)

    def _move_to_rows(self, samples: np.ndarray) -> None:
        """Give ``samples`` (sorted, outside the columns) a column each, errors among them."""
        self._add_samples(samples)
        changed = np.unique(self._group[samples])
        changed = changed[changed >= 0]
        if changed.size:
            groups = self._group.copy()
            groups[samples] = -1
            self._set_groups(groups, changed)

    def _primal_tolerance(self) -> float:
        value = self.highs.getOptionValue("primal_feasibility_tolerance")
        return float(value[-1] if isinstance(value, tuple) else value)

    def _slack_values(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(1.0 - self._margins, 0.0)


@dataclass
class _Partition:
    """An interior point's guess of the optimal partition of the model held in HiGHS (the
    LP's dual): how likely each sample's column ``π_i`` is strictly between its bounds (the
    sample on the margin, ``ξ_i = s_i = 0``) and each feature's row strictly inside ``± c_j``
    (``w_j = 0``), as the least ratio of dual slack to value of the two primal variables that
    vanish then; and the sign of each coefficient.

    At an interior point every product ``x z`` is near the same ``μ``, so a variable tending to
    0 has a ratio ``z / x`` growing like ``1 / μ`` and one staying positive a ratio tending to
    0: ranking the samples' and the features' ratios together and taking as many as the
    model has rows chooses the basis of the optimum when the iterate has separated them. The
    ``k + 1`` samples nearest the margin (``k`` coefficients above their dual slack) miss
    that ranking where a coefficient or a margin is small: 10⁴ × 1000, the first l1-AROM LP
    took 156 dual simplex iterations from them (57 statuses wrong), 24 from the ranking.
    """

    sample_ratio: np.ndarray
    feature_ratio: np.ndarray
    sign: np.ndarray

    @classmethod
    def of(cls, point, active: np.ndarray, n_coef: int) -> _Partition:
        """From an :class:`~zeronorm_opt.fast.margin_ipm.InteriorPoint` on the features
        ``active`` (of ``n_coef``; the others held at 0: their rows basic)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            samples = np.minimum(point.z_xi / point.xi, point.z_surplus / point.surplus)
            features = np.full(n_coef, np.inf)
            features[active] = np.minimum(point.z_p / point.p, point.z_q / point.q)
        sign = np.zeros(n_coef)
        sign[active] = np.sign(point.p - point.q)
        # 0/0 (an exact zero of both) counts as not basic, x/0 as basic.
        return cls(np.nan_to_num(samples, nan=0.0), np.nan_to_num(features, nan=0.0), sign)

    def basic(self, samples: np.ndarray, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of the model's sample columns and feature rows are basic: the ``features.size
        + 1`` of largest ratio (the samples' first among equals)."""
        ratio = np.concatenate([self.sample_ratio[samples], self.feature_ratio[features]])
        chosen = np.argsort(-ratio, kind="stable")[: features.size + 1]
        basic = np.zeros(ratio.size, dtype=bool)
        basic[chosen] = True
        return basic[: samples.size], basic[samples.size :]


def _column_scale(costs: np.ndarray) -> np.ndarray:
    """The interior point's column scales ``1 / max(c_j, 1)``: costs above 1 become 1 in
    their own units (``w_j' = c_j w_j``), since a reweighting's costs span orders of
    magnitude (l1-AROM's second LP at 3000 × 1000: 1 to 3e4, where the unscaled Newton steps
    stalled at an error of 2e-2). Costs below 1 stay: in their units the columns would grow
    as large (FSV's ``e^(−5 v_j)`` down to 1e-6 or less)."""
    return 1.0 / np.maximum(costs, 1.0)


def _cost_change(old: np.ndarray, new: np.ndarray) -> float:
    """Median factor (as ``|log|``) between the rows' costs of two LPs (the same rows)."""
    if not old.size:
        return 0.0
    tiny = np.finfo(float).tiny
    return float(np.median(np.abs(np.log(np.maximum(new, tiny) / np.maximum(old, tiny)))))


def _best_factor(margins: np.ndarray, costs: np.ndarray, penalty: float) -> float:
    """The ``a`` in ``[0.01, 100]`` minimising ``Σ_i d_i max(0, 1 − a m_i) + a·penalty``.

    The objective is convex and piecewise linear in ``a``, with kinks at ``1/m_i``: its slope
    ``penalty − Σ_{a m_i < 1} d_i m_i`` grows as the samples pass their margin, so the minimum
    is the first kink where the slope turns non-negative (one sort, no grid).
    """
    positive = margins > 0
    kinks = 1.0 / margins[positive]
    order = np.argsort(kinks, kind="stable")
    pull = costs[positive][order] * margins[positive][order]
    # Slope just after each kink: penalty − (every sample's d_i m_i) + (those passed so far).
    start = penalty - costs @ margins
    if start >= 0:  # rising from a = 0 on
        return 1e-2
    slope = start + np.cumsum(pull)
    if not slope.size or slope[-1] < 0:  # falling for every a
        return 1e2
    return float(np.clip(kinks[order][np.argmax(slope >= 0)], 1e-2, 1e2))


FIRST_GUESSES = ("auto", "liblinear", "interior-point")


def _check_guess(guess, n_features: int):
    """``first_guess`` validated: "auto", "liblinear", "interior-point", None, or ``(coef of
    shape (n,), intercept)``."""
    if guess is None or (isinstance(guess, str) and guess in FIRST_GUESSES):
        return guess
    try:
        coef, intercept = guess
        coef, intercept = np.asarray(coef, dtype=float), float(intercept)
    except (TypeError, ValueError):
        coef = None
    if coef is None or coef.shape != (n_features,) or not np.all(np.isfinite(coef)):
        raise InputError(
            "first_guess must be 'auto', 'liblinear', 'interior-point', None or a pair (coef "
            f"of shape ({n_features},), intercept) of finite numbers; got {guess!r:.80}."
        )
    return coef, intercept


def margin_lp(X, y, slack_costs=None, *, slack_scale=None, penalty_scale=1.0) -> SplitMarginLP:
    """The margin LP model for these data: on a working set of samples when they are many.

    :class:`SampleWorkingSetLP` for the soft margin when the samples outnumber the features more
    than :data:`ROW_GENERATION_RATIO` to one, or, on a dense X, from :data:`DENSE_MIN_SAMPLES`
    samples and more than :data:`DENSE_ROW_GENERATION_RATIO` samples per feature;
    :class:`SplitMarginLP` otherwise (both solve the same LP).

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((400, 4))
    >>> type(margin_lp(X, np.sign(X[:, 0]), 1.0)).__name__
    'SampleWorkingSetLP'
    >>> type(margin_lp(X, np.sign(X[:, 0]))).__name__  # hard margin: every row
    'SplitMarginLP'
    """
    m, n = X.shape
    many = m > ROW_GENERATION_RATIO * n or (
        not sp.issparse(X) and m >= DENSE_MIN_SAMPLES and m > DENSE_ROW_GENERATION_RATIO * n
    )
    if slack_costs is not None and slack_scale is None and many:
        return SampleWorkingSetLP(X, y, slack_costs, penalty_scale=penalty_scale)
    return SplitMarginLP(X, y, slack_costs, slack_scale=slack_scale, penalty_scale=penalty_scale)
