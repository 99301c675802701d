"""The soft-margin split-variable LP on a working set of samples (constraint generation).

With many more samples than features, the soft-margin LP of l1-AROM and FSV::

    minimise    s·Σ_j c_j (p_j + q_j) + Σ_i d_i ξ_i
    subject to  y_i (x_i·(p − q) + b) + ξ_i ≥ 1,    p, q, ξ ≥ 0

has few binding margins at its optimum: a vertex has at most ``2n + 1`` non-zero ``p, q, b``, so
only about ``n`` samples lie on the margin; the others are slack (``ξ_i = 0``) or margin errors
(``ξ_i > 0``, a hinge linear in ``(w, b)`` near the optimum). :class:`SampleWorkingSetLP` holds
each sample in one of three ways:

* a **row** (and its ξ_i), exactly as in the whole LP — the samples near the margin;
* an **error**, in one of 16 aggregate rows ``Σ_{i∈E_g} d_i (y_i f(x_i) − 1) + t_g ≥ 0`` with
  ``t_g ≥ 0`` at cost 1, i.e. ``t_g = max(0, Σ_{i∈E_g} d_i (1 − y_i f(x_i)))`` — the samples
  below the margin, grouped in the order of their margins (one dense row per group, however
  many errors: with noisy labels they are the bulk of the whole LP's rows);
* **left out** (counted 0) — the samples above the margin.

Whatever the sets, the model is a relaxation: an error's share and a left-out sample's 0 are at
most their hinges. Its optimum ``(w, b)`` is the whole LP's once every error has
``y_i f(x_i) ≤ 1`` and every left-out sample ``≥ 1`` (within HiGHS's primal feasibility
tolerance): the hinges are then what the model counts, so the relaxation's optimum is feasible
for the whole LP at the same objective. Each solve checks every sample's margin and moves the
misjudged ones (most violated first) to rows until none is left — constraint generation, as
Dedieu, Mazumder and Wang solve the l1-SVM with many samples; column generation over the
features (:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP`) runs on top, priced with the
errors' duals ``t_g``'s row dual times ``d_i``.

The sets are guessed from a solution. The first LP's, as Dedieu, Mazumder and Wang start from a
first-order solution: liblinear's l1-regularised squared-hinge SVM on the same weighted costs
(scikit-learn's ``LinearSVC``), scaled by the factor that minimises this LP's objective along
it; its samples with margins in ``[0, 1)`` and the ``2n + 2`` nearest the margin become rows,
the misclassified ones errors, and its signs and margins give HiGHS a starting basis. A later
LP (same constraints, new costs) keeps the last model and basis, or is rebuilt from the last
solution's margins when the last model holds more than ``KEEP_ROWS`` times the rows needed.

Measured (2 cores shared with four other processes, load about 6: compare the ratios within a
run; the estimators' fits with the rows-only working sets before and this module after, in one
process with liblinear's l1-SVM, data of ``benchmarks/bench_many_samples.py``: Gaussian
``m × 200``, labels from a noisy rule on 10 columns, C = 1):

==============  =========  ==============================  ==============================
data            liblinear  l1-AROM before → after          FSV before → after
==============  =========  ==============================  ==============================
dense 3000×200  0.46 s     57.6 s (125×) → 8.2 s (18×)     27.3 s (59×) → 6.8 s (15×)
dense 10⁴×200   1.03 s     246 s (239×) → 23.7 s (23×)     170 s (165×) → 15.0 s (15×)
==============  =========  ==============================  ==============================

Same supports and objectives. At 30 000 × 200 (after only, load 5.6): liblinear 2.3 s,
l1-AROM 198 s (87×), FSV 95 s (42×); at 10⁴ × 1000 l1-AROM had not finished after 20 min
(load 3). The first LP is most of it: the guess's samples inside
the margin (``[0, 1)``) stay rows, a share of ``m``; holding them as errors too (rows only
from margin 0.5 or 0.8) took 2.8–3.4× the simplex iterations, and 64 groups instead of 16
0.9× (3000 × 200). With features outnumbering samples (the sparse text-like sets) the whole
LP (:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP`) is still used.

References
----------
A. Dedieu, R. Mazumder and H. Wang, "Solving L1-regularized SVMs and related linear programs:
revisiting the effectiveness of column and constraint generation", Journal of Machine Learning
Research 23, 2022.
"""

from __future__ import annotations

import time
import warnings

import highspy
import numpy as np
import scipy.sparse as sp

from ..exceptions import InputError
from ..formulations.penalty import check_weights
from .highs_model import _INF, SplitMarginLP, _colwise_dense

__all__ = ["ROW_GENERATION_RATIO", "SampleWorkingSetLP", "margin_lp"]

#: Constraint generation is automatic when the samples outnumber the features by more than
#: this (soft margin): then most margins are slack at the optimum.
ROW_GENERATION_RATIO = 3
#: Least size of the first working set of samples, and of each batch of violated samples added.
MIN_SAMPLE_BATCH = 200
#: HiGHS's ``simplex_strategy`` values: the (serial) dual simplex, the primal simplex.
_DUAL, _PRIMAL = 1, 4
#: Rows aggregating the margin errors (groups of samples in the order of their margins).
ERROR_GROUPS = 16
#: A later LP keeps the last model (and its basis: HiGHS's primal simplex restarts from it)
#: unless it holds more than this times the rows it needs; it is rebuilt from the last
#: margins otherwise (3000 × 200: FSV's second LP 0.3 s kept against 2.5 s rebuilt, l1-AROM's,
#: whose weights change more, 3.2 s against 1.8 s).
KEEP_ROWS = 3
#: liblinear's guess of the first LP: its samples with margins in [this, 1) are rows (the
#: others below, misclassified, aggregated in groups).
FIRST_GUESS_ROWS_ABOVE = 0.0


class SampleWorkingSetLP(SplitMarginLP):
    """:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` holding a working set of samples.

    Same LP, same solution (up to HiGHS's tolerances), same driver protocol; only the soft
    margin (``slack_costs`` given) without the augmented ``slack_scale`` form.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (m, n)
        Read row-wise for the rows it adds and column-wise for the columns; never densified.
    y : array-like of shape (m,)
    slack_costs : float or array-like of shape (m,)
        ``C`` or per-sample costs ``d_i``.
    penalty_scale : float, default=1.0
    column_generation : bool or None, default=None
        As in :class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` (the ratio counted against
        all ``m`` samples).
    sample_batch : int or None, default=None
        Size of the first working set (evenly spaced samples, or those nearest the margin at a
        guess) and most samples added per round; None: ``max(2n, 200)`` at first, then twice
        the features in the model plus two (at least 200).
    first_guess : "liblinear", None or tuple (coef, intercept), default="liblinear"
        The solution the first working sets are guessed from: liblinear's l1-regularised
        squared-hinge SVM on the same costs (scikit-learn's ``LinearSVC``, a first-order
        solution as Dedieu, Mazumder and Wang start from), a given ``(coef of shape (n,),
        intercept)``, or None (the evenly spaced samples, no errors aggregated). Only the
        speed depends on it.

    Attributes
    ----------
    sample_rows : ndarray of int
        The samples whose rows HiGHS holds, in row order.

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
        first_guess="liblinear",
    ) -> None:
        if slack_costs is None:
            raise InputError(
                "SampleWorkingSetLP solves the soft margin: pass slack_costs (e.g. C=1.0), or "
                "use SplitMarginLP for the hard margin."
            )
        self._sample_batch = sample_batch
        self.first_guess = _check_guess(first_guess, np.shape(X)[1])
        super().__init__(
            X,
            y,
            slack_costs,
            penalty_scale=penalty_scale,
            column_generation=column_generation,
        )

    # -- the model --------------------------------------------------------------------------
    def _build(self) -> highspy.Highs:
        """An empty model with the bias column, then the first working set of samples."""
        m, n = self.X.shape
        batch = self._sample_batch or max(2 * n, MIN_SAMPLE_BATCH)
        self.sample_batch = int(min(m, batch))
        #: Margins ``y_i f(x_i)`` of every sample at the last optimal solve (None before).
        self._margins: np.ndarray | None = None
        # Evenly spaced samples: no randomness, both classes in the proportions of the data.
        self._fresh_model(np.unique(np.linspace(0, m - 1, self.sample_batch).astype(np.int64)))
        return self.highs

    def _fresh_model(self, rows: np.ndarray, groups: np.ndarray | None = None) -> None:
        """A new model: the bias, the errors' rows, the rows of ``rows`` (sorted), the errors'
        ``groups`` (−1: none); no features."""
        m = self.X.shape[0]
        self.sample_rows = np.empty(0, dtype=np.int64)
        self._in_rows = np.zeros(m, dtype=bool)
        #: Group of each sample held as a margin error (aggregated in the group's row), −1
        #: for the others (none on the first LP).
        self._group = np.full(m, -1, dtype=np.int64)
        #: ``Σ_{i∈E_g} d_i y_i x_i`` per group: the features' entries of the groups' rows.
        self._error_gradient = np.zeros((ERROR_GROUPS, self.n_coef))
        #: Model row of each group (−1: none) and of each sample row (in ``sample_rows`` order).
        self._group_row = np.full(ERROR_GROUPS, -1, dtype=np.int64)
        self._sample_row_index = np.empty(0, dtype=np.int64)
        self._in_model = np.zeros(self.n_coef, dtype=bool)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")
        h.addCol(0.0, -_INF, _INF, 0, np.empty(0, np.int32), np.empty(0))
        self._col_coef = np.full(1, -1, dtype=np.int64)  # −1: the bias and the t_g; −2 − i: ξ_i
        self._col_sign = np.zeros(1, dtype=np.int8)
        self.highs = h
        self._add_samples(rows)
        if groups is not None:
            self._set_groups(groups)

    def _signed_columns(self, coefs):
        features = np.asarray(coefs, dtype=np.int64)
        rows = self.sample_rows
        live = np.flatnonzero(self._group_row >= 0)
        signed = self.X[rows][:, features]
        signed = (
            sp.diags(self.y[rows]) @ signed if sp.issparse(signed) else self.y[rows, None] * signed
        )
        stacked = sp.coo_matrix(
            sp.vstack(
                [sp.csr_matrix(self._error_gradient[live][:, features]), sp.csr_matrix(signed)]
            )
        )
        model_row = np.concatenate([self._group_row[live], self._sample_row_index])
        return _colwise_dense(
            sp.coo_matrix(
                (stacked.data, (model_row[stacked.row], stacked.col)),
                shape=(self.highs.getNumRow(), features.size),
            )
        )

    def _set_groups(self, groups: np.ndarray, changed=None) -> None:
        """Hold the samples with ``groups ≥ 0`` as errors in their groups' rows (``changed``:
        the groups whose members changed; None: all).

        Row g aggregates the errors E_g of group g: Σ_{i∈E_g} d_i (y_i f(x_i) − 1) + t_g ≥ 0
        with t_g ≥ 0 at cost 1, i.e. t_g = max(0, Σ_{i∈E_g} d_i (1 − y_i f(x_i))): at most
        their hinges' sum, and equal to it when no error is above its margin. A changed group's
        row is freed (its bounds made infinite, t_g then 0) and a new one appended: HiGHS keeps
        its basis, where changing the old row's coefficients one by one costs O(non-zeros) each.
        """
        self._group = groups
        G = ERROR_GROUPS
        changed = np.arange(G) if changed is None else np.asarray(changed)
        errors = np.flatnonzero(groups >= 0)
        d = self.slack_costs[errors]
        members = np.zeros((self.X.shape[0], G))
        members[errors, groups[errors]] = d * self.y[errors]
        # Xᵀ times a dense (m, G) array: a dense (n, G) product, X never densified.
        self._error_gradient = np.asarray(self.X.T @ members).T
        rhs = np.bincount(groups[errors], weights=d, minlength=G)
        counts = np.bincount(groups[errors], minlength=G)
        bias = members.sum(axis=0)
        h = self.highs
        columns = np.flatnonzero(self._col_coef >= 0)
        owners, signs = self._col_coef[columns], self._col_sign[columns]
        for g in changed.tolist():
            if self._group_row[g] >= 0:
                h.changeRowBounds(int(self._group_row[g]), -_INF, _INF)
                self._group_row[g] = -1
            if not counts[g]:
                continue
            t = h.getNumCol()
            h.addCol(1.0, 0.0, _INF, 0, np.empty(0, np.int32), np.empty(0))
            self._col_coef = np.append(self._col_coef, -1)
            self._col_sign = np.append(self._col_sign, 0)
            values = signs * self._error_gradient[g, owners]
            keep = values != 0.0
            index = np.concatenate([[0], columns[keep], [t]]).astype(np.int32)
            value = np.concatenate([[bias[g]], values[keep], [1.0]])
            order = np.argsort(index)
            self._group_row[g] = h.getNumRow()
            h.addRow(float(rhs[g]), _INF, index.size, index[order], value[order])

    def _add_samples(self, samples: np.ndarray) -> None:
        """Append the slack columns and margin rows of ``samples`` (sorted, not in the model)."""
        k = samples.size
        h = self.highs
        first_xi = h.getNumCol()
        h.addCols(
            k,
            self.slack_costs[samples],
            np.zeros(k),
            np.full(k, _INF),
            0,
            np.zeros(k, dtype=np.int32),
            np.empty(0, np.int32),
            np.empty(0),
        )
        self._col_coef = np.concatenate([self._col_coef, -2 - samples])
        self._col_sign = np.concatenate([self._col_sign, np.zeros(k, dtype=np.int8)])
        columns = np.flatnonzero(self._col_coef >= 0)
        block = self.X[samples][:, self._col_coef[columns]]
        y = self.y[samples]
        if sp.issparse(block):
            block = sp.diags(y) @ block @ sp.diags(self._col_sign[columns].astype(float))
            block = sp.csr_matrix(block)
        else:
            block = sp.csr_matrix(y[:, None] * block * self._col_sign[columns])
        block = sp.coo_matrix(block)
        rows = np.concatenate([block.row, np.arange(k), np.arange(k)])
        cols = np.concatenate([columns[block.col], np.zeros(k, np.int64), first_xi + np.arange(k)])
        values = np.concatenate([block.data, y, np.ones(k)])
        matrix = sp.csr_matrix((values, (rows, cols)), shape=(k, first_xi + k))
        matrix.sort_indices()
        first_row = h.getNumRow()
        h.addRows(
            k,
            np.ones(k),
            np.full(k, _INF),
            int(matrix.nnz),
            matrix.indptr[:-1].astype(np.int32),
            matrix.indices.astype(np.int32),
            matrix.data.astype(float),
        )
        self.sample_rows = np.concatenate([self.sample_rows, samples])
        self._sample_row_index = np.concatenate([self._sample_row_index, first_row + np.arange(k)])
        self._in_rows[samples] = True

    # -- solving ----------------------------------------------------------------------------
    def solve_weighted(self, weights):
        """As :meth:`SplitMarginLP.solve_weighted`, on working sets guessed from a solution.

        The first solve starts from :attr:`first_guess` (rows for the samples near or inside
        its margin, the misclassified ones aggregated, a starting basis); a later one from
        the last solution (this LP differs from the last in its costs only) — the last model
        kept, or a new one when it holds more than ``KEEP_ROWS`` times the rows needed.
        Whatever the guess, the optimum returned is the whole LP's (see :meth:`_run`).
        """
        self._costs = self.penalty_scale * check_weights(weights, self.n_coef)
        if self._margins is None and self.first_guess is not None:
            margins, coef = self._guessed_margins()
            if self.column_generation and not self._in_model.any():
                # The working set of features starts from the guess's support.
                self._in_model[self._active & (coef != 0)] = True
            self._reguess(margins, coef, rows_above=FIRST_GUESS_ROWS_ABOVE)
        elif self._margins is not None and self.sample_rows.size > KEEP_ROWS * self._rows_needed():
            # (A starting basis from the last solution measured slower than HiGHS's own.)
            self._reguess(self._margins, None)
        return super().solve_weighted(weights)

    def _guessed_margins(self) -> tuple[np.ndarray, np.ndarray]:
        """Margins and coefficients of :attr:`first_guess`."""
        if isinstance(self.first_guess, str):
            return self._liblinear_margins()
        coef, intercept = self.first_guess
        return self.y * (np.asarray(self.X @ coef).ravel() + intercept), coef

    def _liblinear_margins(self) -> tuple[np.ndarray, np.ndarray]:
        """Margins guessed by liblinear's l1-regularised squared-hinge SVM, scaled to this LP.

        The features are divided by their costs and the samples weighted by their slack
        costs (so liblinear's penalty is this LP's weighted l1 norm); the direction found is
        then scaled by the factor ``a`` that minimises this LP's objective along it.
        """
        from sklearn.svm import LinearSVC

        active = np.flatnonzero(self._active)
        scale = 1.0 / np.maximum(self._costs[active], np.finfo(float).tiny)
        X = self.X[:, active]
        X = X @ sp.diags(scale) if sp.issparse(X) else X * scale
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # liblinear's ConvergenceWarning: a guess anyway
            svc = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1.0)
            svc.fit(X, self.y, sample_weight=self.slack_costs)
        w = svc.coef_.ravel()
        margins = self.y * (np.asarray(X @ w).ravel() + svc.intercept_[0])
        penalty = float(np.abs(w).sum())
        factors = np.geomspace(1e-2, 1e2, 161)
        objective = [
            self.slack_costs @ np.maximum(0.0, 1.0 - a * margins) + a * penalty for a in factors
        ]
        a = factors[int(np.argmin(objective))]
        coef = np.zeros(self.n_coef)
        coef[active] = a * scale * w
        return a * margins, coef

    def _rows_needed(self) -> int:
        """Rows of a new working set: twice the features in the model (an optimal vertex has
        at most one sample on the margin per non-zero coefficient, plus one), at least
        ``MIN_SAMPLE_BATCH``, or the ``sample_batch`` given."""
        features = int((self._in_model & self._active).sum())
        needed = self._sample_batch or max(2 * features + 2, MIN_SAMPLE_BATCH)
        return int(min(self.X.shape[0], needed))

    def _reguess(self, margins: np.ndarray, coef, rows_above: float = 1.0) -> None:
        """A new model from a guessed solution ``coef`` and its ``margins``: rows for the
        samples nearest the margin and those with ``rows_above ≤ margin < 1``, the others below
        the margin errors (in groups), the same feature columns, a starting basis."""
        features = self._in_model & self._active
        n_rows = self.sample_batch = self._rows_needed()
        rows = (margins >= rows_above) & (margins < 1.0)
        rows[np.argsort(np.abs(margins - 1.0), kind="stable")[:n_rows]] = True
        errors = (margins < 1.0) & ~rows
        # Groups of equal size in the order of the margins: a group's row caps only its own
        # errors' pull (its hinges' sum), so errors near the margin cannot pass it for free.
        order = np.flatnonzero(errors)[np.argsort(margins[errors], kind="stable")]
        groups = np.full(self.X.shape[0], -1, dtype=np.int64)
        groups[order] = np.arange(order.size) * ERROR_GROUPS // max(order.size, 1)
        self._fresh_model(np.flatnonzero(rows), groups)
        self._add_coefficients(np.flatnonzero(features), self._costs[features])
        if coef is not None:
            self._guess_basis(margins, coef)

    def _guess_basis(self, margins: np.ndarray, coef: np.ndarray) -> None:
        """A starting basis from a guessed solution (HiGHS completes it: an alien basis)."""
        S = highspy.HighsBasisStatus
        h = self.highs
        owner, sign = self._col_coef, self._col_sign
        rows = self.sample_rows
        on_margin = np.zeros(self.X.shape[0], dtype=bool)
        k = int(np.count_nonzero(coef)) + 1
        on_margin[rows[np.argsort(np.abs(margins[rows] - 1.0), kind="stable")[:k]]] = True
        below = margins < 1.0
        col = np.full(owner.size, S.kLower, dtype=object)
        col[owner == -1] = S.kBasic  # the bias and the groups' t
        features = owner >= 0
        value = np.where(features, sign * coef[np.maximum(owner, 0)], 0.0)
        col[features & (value > 0)] = S.kBasic
        slack = owner <= -2
        sample = -2 - owner
        col[slack] = np.where(below[sample[slack]] & ~on_margin[sample[slack]], S.kBasic, S.kLower)
        row = np.full(h.getNumRow(), S.kLower, dtype=object)
        row[self._sample_row_index] = np.where(below[rows] | on_margin[rows], S.kLower, S.kBasic)
        basis = highspy.HighsBasis()
        basis.col_status = list(col)
        basis.row_status = list(row)
        basis.alien = True
        basis.valid = True
        h.setBasis(basis)

    def _current_coef(self, x: np.ndarray) -> np.ndarray:
        owner, sign = self._col_coef, self._col_sign
        coef = np.zeros(self.n_coef)
        coef[owner[sign > 0]] = x[sign > 0]
        coef[owner[sign < 0]] -= x[sign < 0]
        return coef

    def _run(self):
        """Solve the working set; add the samples it misjudges and re-solve until none is left.

        The model is a relaxation of the whole LP whatever the working sets: a sample held as
        a row is exact, one held as an error contributes ``d_i (1 − y_i f(x_i))`` and one left
        out 0, both at most its hinge ``d_i max(0, 1 − y_i f(x_i))``. Its optimum is the whole
        LP's once every error has ``y_i f(x_i) ≤ 1`` and every left-out sample ``≥ 1`` (within
        HiGHS's primal feasibility tolerance): the hinges are then what the model counts.
        """
        h = self.highs
        tolerance = self._primal_tolerance()
        elapsed, iterations = 0.0, 0
        # After a change of costs (a reweighting step) or added columns the last basis stays
        # primal feasible: the primal simplex restarts from it (on 3000 × 200 the second
        # l1-AROM LP took 1.6 s against 3.3 s with the dual simplex); after added rows it
        # stays dual feasible: the dual simplex, as for a cold start.
        warm = h.getBasis().valid
        while True:
            h = self.highs
            h.setOptionValue("simplex_strategy", _PRIMAL if warm else _DUAL)
            status, seconds, its = super()._run()
            warm = False
            elapsed, iterations = elapsed + seconds, iterations + its
            start = time.perf_counter()
            if status != highspy.HighsModelStatus.kOptimal:
                return status, elapsed, iterations
            x = np.asarray(h.getSolution().col_value)
            margins = self.y * (np.asarray(self.X @ self._current_coef(x)).ravel() + x[0])
            self._margins = margins
            outside = ~self._in_rows
            # How far each sample outside the rows is from what the model assumes of it.
            wrong = np.where(self._group >= 0, margins - 1.0, np.where(outside, 1.0 - margins, 0.0))
            violated = np.flatnonzero(wrong > tolerance)
            if violated.size:
                worst = violated[np.argsort(-wrong[violated], kind="stable")]
                self._move_to_rows(np.sort(worst[: self.sample_batch]))
            elapsed += time.perf_counter() - start
            if not violated.size:
                return status, elapsed, iterations

    def _move_to_rows(self, samples: np.ndarray) -> None:
        """Make ``samples`` (sorted, outside the rows) rows, errors among them included."""
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

    def _reduced_costs(self, coefs, costs):
        row_duals = np.asarray(self.highs.getSolution().row_dual)
        errors = self._group >= 0
        duals = np.zeros(self.X.shape[0])
        duals[errors] = row_duals[self._group_row[self._group[errors]]] * self.slack_costs[errors]
        duals[self.sample_rows] = row_duals[self._sample_row_index]
        return costs - np.abs(self._pricing(coefs, duals))

    def _slack_values(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(1.0 - self._margins, 0.0)


def _check_guess(guess, n_features: int):
    """``first_guess`` validated: "liblinear", None, or ``(coef of shape (n,), intercept)``."""
    if guess is None or (isinstance(guess, str) and guess == "liblinear"):
        return guess
    try:
        coef, intercept = guess
        coef, intercept = np.asarray(coef, dtype=float), float(intercept)
    except (TypeError, ValueError):
        coef = None
    if coef is None or coef.shape != (n_features,) or not np.all(np.isfinite(coef)):
        raise InputError(
            "first_guess must be 'liblinear', None or a pair (coef of shape "
            f"({n_features},), intercept) of finite numbers; got {guess!r:.80}."
        )
    return coef, intercept


def margin_lp(X, y, slack_costs=None, *, slack_scale=None, penalty_scale=1.0) -> SplitMarginLP:
    """The margin LP model for these data: on a working set of samples when they are many.

    :class:`SampleWorkingSetLP` for the soft margin when the samples outnumber the features more
    than :data:`ROW_GENERATION_RATIO` to one, :class:`SplitMarginLP` otherwise (both solve the
    same LP).

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((400, 4))
    >>> type(margin_lp(X, np.sign(X[:, 0]), 1.0)).__name__
    'SampleWorkingSetLP'
    >>> type(margin_lp(X, np.sign(X[:, 0]))).__name__  # hard margin: every row
    'SplitMarginLP'
    """
    m, n = X.shape
    if slack_costs is not None and slack_scale is None and m > ROW_GENERATION_RATIO * n:
        return SampleWorkingSetLP(X, y, slack_costs, penalty_scale=penalty_scale)
    return SplitMarginLP(X, y, slack_costs, slack_scale=slack_scale, penalty_scale=penalty_scale)
