"""The two-class zero-norm estimators :class:`AROM` and :class:`FSV`.

Both are configurations of :class:`~zeronorm_opt.ZeroNormSelector`: feature selectors
(``transform``, ``get_support``, ``get_feature_names_out``) and linear classifiers
(``predict``, ``decision_function``) running the successive-linearisation driver over the
declarative formulations :class:`~zeronorm_opt.formulations.MarginFormulation` and
:class:`~zeronorm_opt.formulations.FSVFormulation`.
"""

from __future__ import annotations

from functools import partial
from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._validation import Interval, StrOptions, check_binary_labels
from ..exceptions import InputError
from ..formulations import FSVFormulation, MarginFormulation
from ..formulations.binary import check_slack_penalty
from ..scaling import data_scale, unit_scale_C
from ..surrogates import ExpSurrogate, LogSurrogate
from ._params import NON_NEGATIVE, POSITIVE, ZERO_NORM
from .selector import ZeroNormSelector


def _fit_on_columns(X, support, C, fit) -> tuple[np.ndarray, np.ndarray | float]:
    """The soft-margin machine ``fit(columns, C) -> (W, b)`` on the selected columns only.

    The removed coefficients are zero either way, and a problem over every feature with the
    removed ones fixed cost ~20x more on the microarray data (same solution to ~1e-12, tested);
    only these columns of a sparse X are densified. ``C`` has units (:mod:`zeronorm_opt.scaling`):
    the same machine is solved on the columns divided by their RMS ``s`` with ``C·s²``
    (``W = W_s / s``), a ``ScaleError`` when ``C·s²`` is beyond the solvers. An empty support
    gives the machine of one all-zero column (``W = 0``, its intercepts). ``W`` is returned
    zero outside ``support``.
    """
    support = np.asarray(support, dtype=bool)
    columns = X[:, support] if support.any() else np.zeros((X.shape[0], 1))
    if sp.issparse(columns):
        columns = columns.toarray()
    s = data_scale(columns)
    W, b = fit(columns / s, unit_scale_C(C, s))
    W = np.asarray(W, dtype=float)
    full = np.zeros(W.shape[:-1] + (X.shape[1],))
    full[..., support] = W[..., : int(support.sum())] / s
    return full, b


class _ZeroNormClassifier(ZeroNormSelector):
    """Shared by AROM, FSV and MulticlassAROM: class labels, and the hard margin without user
    constraints solved at unit scale."""

    def _task(self) -> str:
        return "classification"

    def _scale_free(self) -> bool:
        # The hard margin (with AROM's l0 slacks too: a hard margin on the augmented data) is
        # invariant under X → cX, w → w/c; a soft margin's C has units, and user constraints
        # are stated in the units of X: those are solved as given.
        return self.C is None and self.extra_constraints is None


class _LogZeroNorm:
    """Shared by AROM and MulticlassAROM: the default surrogate ``ln(ε + t)`` with ``epsilon``,
    weights normalised between steps (z / max z: exact AROM for the hard margin)."""

    def _check_params(self, X) -> None:
        super()._check_params(X)
        if self.surrogate is not None and self.epsilon != 0:
            raise InputError(
                "epsilon is the ε of the default surrogate ln(ε + t); with surrogate= pass ε "
                "through the surrogate (e.g. LogSurrogate(eps=...)) and leave epsilon=0."
            )

    def _surrogate(self):
        return LogSurrogate(eps=self.epsilon) if self.surrogate is None else self.surrogate

    def _driver_options(self, formulation) -> dict:
        return {"normalise_weights": True}


class _BinaryZeroNorm(_ZeroNormClassifier):
    """Shared by AROM and FSV: ±1 labels, the soft-margin l2 SVM as the budgeted refit."""

    def _encode_labels(self, y):
        return check_binary_labels(y)[1]  # ±1, +1 for classes_[1]

    def _own_final_model(self, X, y_fit, support, budget, last, cache=None):
        # With a budget: a soft-margin l2 SVM on the selected features with their original
        # scaling (Weston et al. 2003). Under the user's constraints, which index every feature
        # (f.v[j]), the base class's refit of the full formulation (:meth:`_refit_formulation`,
        # compiled once per training set), keeping the features they require.
        if (budget is None and last is not None) or self.extra_constraints is not None:
            return super()._own_final_model(X, y_fit, support, budget, last, cache)

        def svm(columns, C):
            f = MarginFormulation(columns, y_fit, penalty="l2", C=C)
            f.solve(self.solver, self.solver_options)
            return f.solution()

        return _fit_on_columns(X, support, self.refit_C, svm)

    def _refit_formulation(self, X, y_fit):
        return self._with_user_constraints(
            MarginFormulation(X, y_fit, penalty="l2", C=self.refit_C)
        )


class AROM(_LogZeroNorm, _BinaryZeroNorm):
    """Approximation of the zero-norm minimisation (AROM): l1- or l2-AROM.

    Minimises ``Σ_j ln(ε + |v_j|)`` over the (hard or soft) margin constraints by a sequence
    of weighted LPs (``penalty="l1"``) or QPs (``penalty="l2"``), ``min Σ_j |v_j|/z_j``
    (``Σ (v_j/z_j)²``) with ``z = |v^k|``, run by the successive-linearisation driver. A
    feature whose scale factor reaches zero never returns. A configuration of
    :class:`~zeronorm_opt.ZeroNormSelector` with
    :class:`~zeronorm_opt.formulations.MarginFormulation` and ``LogSurrogate(eps=epsilon)``.

    Parameters
    ----------
    penalty : {"l1", "l2"}, default="l1"
        l1-AROM (sequence of LPs) or l2-AROM (sequence of SVM QPs).
    n_features_to_select : int, float or None, default=None
        Exact number of features to keep: an integer, or a fraction in ``(0, 1]`` of the
        features. The run stops at the last iterate before ``‖v‖₀ ≤ r``, keeps the ``r``
        largest scale factors and retrains a linear SVM (``refit_C``) on them with the
        original scaling. None: keep the support AROM converges to and its last iterate.
    C : float or None, default=None
        None: hard margin (the data must be linearly separable; its selection does not depend
        on the units of X: the run is solved on ``X / data_scale_``). A positive number: hinge
        slacks with penalty ``C Σ ξ_i`` in every LP/QP; ``C`` then has units (on ``cX`` the
        l2 step is the step on X with ``C c²``) and X is used as given.
    surrogate : object with ``value`` and ``derivative``, default=None
        The concave penalty; None: ``LogSurrogate(eps=epsilon)`` (AROM). Another surrogate
        (e.g. ``PowerSurrogate``) runs the same steps with its weights; pass ``epsilon``
        through it.
    estimator : estimator or None, default=None
        A scikit-learn model retrained on the selected features instead of AROM's own linear
        SVM (``predict`` delegates to it); with a budget and ``extra_constraints``, on a
        selection that keeps the features the constraints require (``required_features_``).
    max_iter : int, default=50
        Maximum number of LPs/QPs; past it, as :class:`~zeronorm_opt.ZeroNormSelector`.
    time_limit : float or None, default=None
        As in :class:`~zeronorm_opt.ZeroNormSelector`.
    tol : float, default=1e-5
        Convergence tolerance on the normalised scale factors.
    epsilon : float, default=0.0
        ε of ``ln(ε + |v|)``; 0 gives AROM's exact weights ``1/z``. In a hard-margin run it
        applies to the weights on ``X / data_scale_`` (scale-free).
    prune_tol : float, default=1e-6
        Relative threshold below which a scale factor is zero (and the feature removed).
    slack_penalty : {"hinge", "l0"}, default="hinge"
        ``"l0"`` (with ``C=None``): augment the data with slack coordinates so AROM minimises
        the number of features plus training errors.
    slack_scale : float, default=1.0
        The ``c`` of the slack coordinates in the ``"l0"`` form, in the units of X.
    refit_C : float, default=1.0
        ``C`` of the soft-margin linear SVM retrained on the selected features when
        ``n_features_to_select`` is given. It has units (``C/c²`` on ``cX`` is the same
        machine); a ``ScaleError`` names the value to pass when ``refit_C`` times the
        squared RMS entry of the selected columns exceeds what the solvers resolve (1e9).
    solver : str, list of str or None, default=None
        cvxpy solver name (or fallback list) for every solve; None: HiGHS for LPs, Clarabel
        for QPs.
    solver_options : dict or None, default=None
        Options passed to the solver.
    extra_constraints : callable or None, default=None
        ``extra_constraints(formulation) -> list of cvxpy constraints``, added to every solve
        and to the refit. It receives the formulation of the current fit: its variables
        (``formulation.v`` the weights, ``formulation.b`` the bias) and its training data
        (``formulation.X``, ``formulation.y`` in ±1), e.g. ``lambda f: [f.v[0] >= 0.1]``.
    backend : {"auto", "cvxpy", "highs", "libsvm", "ipm", "dcd"} or str, default="auto"
        What solves the steps (:mod:`zeronorm_opt.backends`; a backend registered with
        :func:`~zeronorm_opt.backends.register_backend` is chosen by its name too).
        ``"cvxpy"``: the declarative reweighted formulation through the driver (any cvxpy
        solver, user constraints). ``"highs"``: for ``penalty="l1"`` only, the same LPs
        built once in split variables in HiGHS and re-solved from the previous basis as only
        the costs change, holding a working set of features priced from the row duals when
        they outnumber the samples five to one
        (:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP`; same iterates, tested against
        the cvxpy form). ``"libsvm"``: for ``penalty="l2"`` only, the SVM dual on the
        rescaled active features solved by libsvm
        (:class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual`: their Gram matrix up to
        m = 4096 samples, the linear kernel beyond; same supports and iterates as the cvxpy
        form, tested). ``"ipm"``: for ``penalty="l2"`` with hinge slacks only, the same SVM
        in the primal by a primal–dual interior-point method whose normal equations have the
        order of the active features
        (:class:`~zeronorm_opt.fast.svm_primal_ipm.IpmRescaledSVM`: cost linear in m; same
        supports and iterates, tested). ``"dcd"``: for ``penalty="l2"`` with hinge slacks
        only, the SVM dual by coordinate descent on the rows with the bias exact
        (:class:`~zeronorm_opt.fast.svm_dual_cd.CoordinateDescentRescaledDual`: memory linear
        in X; same supports and iterates, tested). ``"auto"``: a fast path when it solves
        exactly the problem these options describe — HiGHS for ``penalty="l1"``; for
        ``penalty="l2"`` on sparse X, coordinate descent (libsvm with
        ``slack_penalty="l0"``), on dense X the interior-point method when ``m ≥ 3 n``
        (``IPM_MIN_EXAMPLES_PER_FEATURE``; not with ``slack_penalty="l0"``) and libsvm
        otherwise (the measured crossover, see the benchmarks page) — and cvxpy when any of
        ``extra_constraints``, ``solver``, ``solver_options`` or ``surrogate`` (for the l2
        fast paths also ``epsilon > 0``) asks for the formulation. A ``scipy.sparse`` X is
        never densified by the HiGHS, coordinate-descent, binary libsvm and cvxpy paths (same
        result as the dense X); the interior-point path needs dense data and raises a
        TypeError for it.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Weights of the final linear model (zero outside the support).
    intercept_ : ndarray of shape (1,)
        Bias of the final linear model.
    support_ : ndarray of bool of shape (n_features,)
        Mask of the selected features (what ``get_support()`` returns).
    classes_ : ndarray of shape (2,)
        The two class labels, in the order ``predict`` maps the sign to.
    history_ : list of IterationRecord
        As in :class:`~zeronorm_opt.ZeroNormSelector`.
    n_iter_ : int
        As in :class:`~zeronorm_opt.ZeroNormSelector`.
    stop_reason_ : {"converged", "budget", "max_iter", "time_limit"}
        As in :class:`~zeronorm_opt.ZeroNormSelector`.
    backend_ : {"cvxpy", "highs", "libsvm", "ipm", "dcd"}
        What solved the steps.
    data_scale_ : float
        The run was solved on ``X / data_scale_`` (the root-mean-square entry of X for the
        hard margin without ``extra_constraints``; 1.0 otherwise), weights mapped back.
    required_features_ : ndarray of int
        Features kept for ``extra_constraints``, as in :class:`~zeronorm_opt.ZeroNormSelector`.
    estimator_ : estimator
        The retrained ``estimator``, when one is given.
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    ZeroNormSelector : the generic estimator, over any formulation.
    ZeroNormCV : the number of features chosen by cross-validation.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt import AROM
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> arom = AROM(penalty="l1", n_features_to_select=2).fit(X, y)
    >>> int(arom.get_support().sum())
    2
    >>> arom.transform(X).shape
    (30, 2)
    """

    _parameter_constraints: dict = {
        "penalty": [StrOptions({"l1", "l2"})],
        "C": [*POSITIVE, None],
        "epsilon": NON_NEGATIVE,
        "slack_penalty": [StrOptions({"hinge", "l0"})],
        "slack_scale": POSITIVE,
        "refit_C": POSITIVE,
        **ZERO_NORM,
    }

    def __init__(
        self,
        penalty="l1",
        *,
        n_features_to_select=None,
        C=None,
        surrogate=None,
        estimator=None,
        max_iter=50,
        time_limit=None,
        tol=1e-5,
        epsilon=0.0,
        prune_tol=1e-6,
        slack_penalty="hinge",
        slack_scale=1.0,
        refit_C=1.0,
        solver=None,
        solver_options=None,
        extra_constraints=None,
        backend="auto",
    ):
        self.penalty = penalty
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.surrogate = surrogate
        self.estimator = estimator
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.tol = tol
        self.epsilon = epsilon
        self.prune_tol = prune_tol
        self.slack_penalty = slack_penalty
        self.slack_scale = slack_scale
        self.refit_C = refit_C
        self.solver = solver
        self.solver_options = solver_options
        self.extra_constraints = extra_constraints
        self.backend = backend

    def _check_params(self, X) -> None:
        super()._check_params(X)
        check_slack_penalty(self.slack_penalty, self.C)

    def _formulation(self, scale: float = 1.0):
        # The c of the slack coordinates c·δ_i is in the units of X: c / scale on X / scale.
        return partial(
            MarginFormulation,
            penalty=self.penalty,
            C=self.C,
            slack_penalty=self.slack_penalty,
            slack_scale=self.slack_scale / scale,
        )


class FSV(_BinaryZeroNorm):
    """Feature selection via concave minimisation (FSV).

    Minimises ``Σ_j (1 − exp(−α |w_j|))`` over the margin constraints by the successive
    linearisation algorithm: ``v⁰ = 0``, then the LP with costs ``α exp(−α v^k)`` until the
    objective stops decreasing. A configuration of :class:`~zeronorm_opt.ZeroNormSelector`
    with :class:`~zeronorm_opt.formulations.FSVFormulation` and ``ExpSurrogate(alpha)``.

    Parameters
    ----------
    alpha : float, default=5.0
        α of the concave penalty. With ``C=None`` it applies to the weights on
        ``X / data_scale_`` (the selection does not depend on the units of X); with ``C``, to
        the weights on X as given.
    n_features_to_select : int, float or None, default=None
        Exact number of features to keep (an integer or a fraction in ``(0, 1]``; same
        procedure and refit as :class:`AROM`). None: the support the run converges to and
        its last iterate.
    C : float or None, default=None
        None: hard margin. Positive: hinge slacks ``C Σ ξ`` in every LP.
    trade_off : float or None, default=None
        λ ∈ [0, 1) of the original FSV variant: ``(1−λ)·(mean slack of positives + mean slack
        of negatives) + λ·Σ_j (1 − e^{−α v_j})``. Exclusive with ``C``.
    surrogate : object with ``value`` and ``derivative``, default=None
        None: ``ExpSurrogate(alpha)``. Another concave penalty runs the same LPs with its
        weights (the first LP uses ``φ'(0)`` where finite, else unit weights).
    estimator, max_iter, time_limit, tol, prune_tol, refit_C, solver, solver_options
        As in :class:`AROM`.
    extra_constraints : callable or None, default=None
        As in :class:`AROM`; it receives the
        :class:`~zeronorm_opt.formulations.FSVFormulation` (``formulation.w``, ``.b``, ``.X``).
    backend : {"auto", "cvxpy", "highs"} or str, default="auto"
        What solves the LPs, ``"cvxpy"`` and ``"highs"`` as for :class:`AROM`'s l1 steps (the
        l2 backends ``"libsvm"`` and ``"ipm"`` do not serve FSV); ``"auto"``, HiGHS unless
        ``extra_constraints``, ``solver``, ``solver_options`` or ``surrogate`` asks for the
        formulation.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Weights of the final linear model (zero outside the support).
    intercept_ : ndarray of shape (1,)
        Bias of the final linear model.
    support_ : ndarray of bool of shape (n_features,)
        Mask of the selected features (what ``get_support()`` returns).
    classes_ : ndarray of shape (2,)
        The two class labels, in the order ``predict`` maps the sign to.
    history_ : list of IterationRecord
        As in :class:`AROM`.
    n_iter_ : int
        Number of convex problems solved by the successive-linearisation driver.
    stop_reason_ : {"converged", "budget", "max_iter", "time_limit"}
        As in :class:`AROM`.
    backend_ : str
        What solved the steps (as in :class:`AROM`).
    required_features_ : ndarray of int
        Features kept because ``extra_constraints`` require them (as in :class:`AROM`).
    data_scale_ : float
        As in :class:`AROM`.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and
    support vector machines", Proceedings of the 15th International Conference on Machine
    Learning (ICML), 82–90, 1998.

    Examples
    --------
    >>> from zeronorm_opt import FSV
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> fsv = FSV(n_features_to_select=2).fit(X, y)
    >>> fsv.coef_.shape
    (1, 202)
    """

    _parameter_constraints: dict = {
        "alpha": POSITIVE,
        "C": [*POSITIVE, None],
        "trade_off": [Interval(Real, 0, 1, closed="left"), None],
        "refit_C": POSITIVE,
        **ZERO_NORM,
    }

    def __init__(
        self,
        alpha=5.0,
        *,
        n_features_to_select=None,
        C=None,
        trade_off=None,
        surrogate=None,
        estimator=None,
        max_iter=50,
        time_limit=None,
        tol=1e-5,
        prune_tol=1e-6,
        refit_C=1.0,
        solver=None,
        solver_options=None,
        extra_constraints=None,
        backend="auto",
    ):
        self.alpha = alpha
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.trade_off = trade_off
        self.surrogate = surrogate
        self.estimator = estimator
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.tol = tol
        self.prune_tol = prune_tol
        self.refit_C = refit_C
        self.solver = solver
        self.solver_options = solver_options
        self.extra_constraints = extra_constraints
        self.backend = backend

    def _check_params(self, X) -> None:
        super()._check_params(X)
        if self.trade_off is not None and self.C is not None:
            raise InputError("pass either trade_off (λ-variant) or C (hinge penalty), not both.")

    def _formulation(self, scale: float = 1.0):
        return partial(FSVFormulation, trade_off=self.trade_off, C=self.C)

    def _surrogate(self):
        return ExpSurrogate(alpha=self.alpha) if self.surrogate is None else self.surrogate

    def _driver_options(self, formulation) -> dict:
        # The first LP linearises φ at v⁰ = 0: weights φ'(0) (α for the exponential).
        with np.errstate(divide="ignore"):
            start = np.asarray(self._surrogate().derivative(np.zeros(formulation.n_coef)), float)
        if not np.all(np.isfinite(start)):
            start = np.ones(formulation.n_coef)
        return {"initial_weights": start}
