"""scikit-learn estimator of multiclass zero-norm minimisation: :class:`MulticlassAROM`.

A configuration of :class:`~zeronorm_opt.ZeroNormSelector`: it runs the successive-
linearisation driver over the multiclass formulations of
:mod:`zeronorm_opt.formulations.multiclass` (Weston–Watkins or one-vs-rest constraints, one
scale vector shared by all classes), keeps one support for all classes and retrains
the final multiclass machine on the selected features with their original scaling.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from .._validation import StrOptions
from ..fast.one_vs_rest import OneVsRestLibsvm
from ..formulations.multiclass import (
    OneVsRestFormulation,
    WestonWatkinsFormulation,
)
from ._params import NON_NEGATIVE, POSITIVE, ZERO_NORM
from .zero_norm import _fit_on_columns, _LogZeroNorm, _ZeroNormClassifier


def fit_final_machine(
    X, codes, scheme: str, C: float, support=None, solver=None, solver_options=None
) -> tuple[np.ndarray, np.ndarray]:
    """The final multiclass machine on the features of ``support`` (original scaling).

    ``scheme="ww"``: the soft-margin Weston–Watkins QP ``½ Σ_k ‖w_k‖² + C Σ ξ_ik`` (cvxpy;
    scikit-learn has no Weston–Watkins machine). ``scheme="ovr"``: one soft-margin linear
    SVM per class, ``½‖w_k‖² + C Σ_i ξ_ik``, by scikit-learn's libsvm ``SVC`` (hinge loss,
    unpenalised bias: exactly the one-vs-rest QP; ``LinearSVC`` would penalise the bias and
    default to the squared hinge).

    Returns
    -------
    W : ndarray of shape (Q, n_features)
        Zero outside ``support``.
    b : ndarray of shape (Q,)

    References
    ----------
    J. Weston and C. Watkins, "Support vector machines for multi-class pattern recognition",
    Proceedings of the 7th European Symposium on Artificial Neural Networks (ESANN), 1999.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0, 1.0], [0.0, 2.0, 1.0], [-2.0, -2.0, 1.0]])
    >>> W, b = fit_final_machine(X, [0, 1, 2], "ovr", C=10.0, support=[True, True, False])
    >>> W.shape, bool(np.all(W[:, 2] == 0))
    ((3, 3), True)
    """
    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    support = np.ones(X.shape[1], dtype=bool) if support is None else support

    def machine(columns, C):
        if scheme == "ww":
            f = WestonWatkinsFormulation(columns, codes, penalty="l2", C=C)
            f.solve(solver, solver_options)
        else:
            f = OneVsRestLibsvm(columns, codes, C=C)
            f.solve()
        return f.solution()

    # As the binary refit: the selected columns only, at unit scale (C has units).
    return _fit_on_columns(X, support, C, machine)


class MulticlassAROM(_LogZeroNorm, _ZeroNormClassifier):
    """Multiclass zero-norm feature selection and classifier (multiclass AROM).

    Minimises ``Σ_j ln h_j(W)``, with ``h_j = Σ_k |w_kj|`` (``penalty="l1"``, a sequence of
    LPs) or ``Σ_k w_kj²`` (``penalty="l2"``, a sequence of QPs), over the Weston–Watkins or
    one-vs-rest margin constraints: one weight (scale) per feature shared by all classes, so
    the features are selected jointly — ``‖Σ_k |w_k|‖₀``, the number of features used by any
    class, is what is made small. A removed feature never returns. The final machine (same
    scheme) is retrained on the selected features with their original scaling and predicts
    ``argmax_k (w_k·x + b_k)``. A configuration of :class:`~zeronorm_opt.ZeroNormSelector`.

    Parameters
    ----------
    scheme : {"ww", "ovr"}, default="ww"
        Weston–Watkins joint constraints or one-vs-rest constraints.
    penalty : {"l1", "l2"}, default="l1"
        The step of the successive linearisation: weighted ``Σ_j c_j Σ_k |w_kj|`` (LP) or
        ``½ Σ_j c_j Σ_k w_kj²`` (QP).
    n_features_to_select : int, float or None, default=None
        Exact number of features to keep (an integer or a fraction in ``(0, 1]``): the last
        iterate before the support has at most this many features, and its features of
        largest group magnitude. None: the support the iteration converges to.
    C : float or None, default=None
        None: hard margin (the data must be separable under the scheme's constraints; the
        selection does not depend on the units of X: the run is solved on
        ``X / data_scale_``). A positive number: slacks ``ξ_ik`` with penalty ``C Σ ξ`` in
        every step; ``C`` then has units and X is used as given.
    surrogate : object with ``value`` and ``derivative``, default=None
        None: ``LogSurrogate(eps=epsilon)``; another concave penalty runs the same steps.
    estimator : estimator or None, default=None
        A scikit-learn model retrained on the selected features instead of the scheme's own
        machine (with a budget and ``extra_constraints``, on a selection that keeps the
        features the constraints require: ``required_features_``).
    max_iter, time_limit, tol
        As in :class:`~zeronorm_opt.AROM`.
    epsilon : float, default=0.0
        ε of ``ln(ε + h)``; 0 gives the exact AROM weights.
    prune_tol : float, default=1e-6
        A feature whose group magnitude falls below ``prune_tol·max`` is removed for good.
    refit : bool, default=True
        Retrain the final machine on the selected features (original scaling, soft margin
        with ``refit_C``). False: keep the last iterate's weights on the support (with a
        budget and ``extra_constraints``, a support that keeps the features they require;
        these weights restricted to it need not satisfy the constraints — the refit does).
    refit_C : float or None, default=None
        ``C`` of the final machine; None: ``C`` if given, else 1.0. It has units (``C/c²``
        on ``cX`` is the same machine): a ``ScaleError`` names the value to pass when it
        times the squared RMS entry of the selected columns exceeds what the solvers
        resolve (1e9).
    solver : str, list of str or None, default=None
        cvxpy solver (or fallback list) of every step and of the final Weston–Watkins QP;
        None: HiGHS for LPs, Clarabel for QPs.
    solver_options : dict or None
        Options passed to the solver.
    extra_constraints : callable or None, default=None
        ``extra_constraints(formulation) -> list of cvxpy constraints`` added to every step:
        it receives the formulation of the current fit (``formulation.W`` of shape
        (n_classes, n_features), ``formulation.b``, ``formulation.X``). The final machine
        (``refit=True``) obeys them too: the scheme's l2 machine solved in cvxpy under them
        (one-vs-rest included, not libsvm), keeping the features they require.
    scale_rule : {"norm", "sum"}, default="norm"
        How the l2 step updates the shared scale vector: ``"norm"``, ``z ← z ∘ ‖w_·j‖₂`` (the
        majorise–minimise step of ``Σ_j ln Σ_k w_kj²``: the surrogate never increases);
        ``"sum"``, the paper's literal ``z ← z ∘ Σ_k |w_kj|``, which majorises no fixed
        objective. The two agree for features used by one class; the l1 step always uses the
        sum.
    backend : {"auto", "cvxpy", "libsvm"} or str, default="auto"
        What solves the steps (:mod:`zeronorm_opt.backends`; ``"highs"`` and ``"ipm"`` serve
        only the two-class problems).
        ``"libsvm"``: for ``scheme="ovr", penalty="l2"`` only, each step is one libsvm linear
        SVM per class on the rescaled data (:class:`~zeronorm_opt.fast.one_vs_rest.
        OneVsRestLibsvm`, same iterates as the cvxpy QP). ``"auto"``: libsvm for
        ``scheme="ovr", penalty="l2"`` without ``solver``, ``solver_options``,
        ``extra_constraints``, ``surrogate`` or ``epsilon > 0`` on dense X; cvxpy otherwise.
        A ``scipy.sparse`` X stays sparse on the cvxpy path (the final machine densifies the
        selected columns only); ``backend="libsvm"`` with sparse X is a TypeError.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, one row of ``coef_`` each.
    coef_ : ndarray of shape (n_classes, n_features)
        Weights of the final machine (zero outside the support), one row per class.
    intercept_ : ndarray of shape (n_classes,)
        Bias of each class's machine.
    support_ : ndarray of bool of shape (n_features,)
        The one support shared by all classes.
    history_ : list of IterationRecord
        As in :class:`~zeronorm_opt.AROM`; its ``coef`` are the per-feature group magnitudes.
    n_iter_ : int
        Number of convex problems solved by the successive-linearisation driver.
    stop_reason_ : {"converged", "budget", "max_iter", "time_limit"}
        As in :class:`~zeronorm_opt.AROM`.
    backend_ : {"cvxpy", "libsvm"}
        What solved the steps.
    data_scale_ : float
        As in :class:`~zeronorm_opt.AROM`.
    required_features_ : ndarray of int
        As in :class:`~zeronorm_opt.AROM`.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    J. Weston and C. Watkins, "Support vector machines for multi-class pattern
    recognition", Proceedings of the 7th European Symposium on Artificial Neural Networks
    (ESANN), 219–224, 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import MulticlassAROM
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat(["a", "b", "c"], 20)
    >>> X = rng.normal(size=(60, 8))
    >>> X[:, 0] += 4 * (y == "a")
    >>> X[:, 1] += 4 * (y == "b")
    >>> model = MulticlassAROM(scheme="ww", penalty="l1", C=1.0).fit(X, y)
    >>> model.coef_.shape
    (3, 8)
    >>> bool(model.get_support()[:2].all()), model.score(X, y) > 0.9
    (True, True)
    """

    _parameter_constraints: dict = {
        "scheme": [StrOptions({"ww", "ovr"})],
        "penalty": [StrOptions({"l1", "l2"})],
        "C": [*POSITIVE, None],
        "epsilon": NON_NEGATIVE,
        "refit": ["boolean"],
        "refit_C": [*POSITIVE, None],
        "scale_rule": [StrOptions({"norm", "sum"})],
        **ZERO_NORM,
    }

    def __init__(
        self,
        scheme="ww",
        *,
        penalty="l1",
        n_features_to_select=None,
        C=None,
        surrogate=None,
        estimator=None,
        max_iter=50,
        time_limit=None,
        tol=1e-5,
        epsilon=0.0,
        prune_tol=1e-6,
        refit=True,
        refit_C=None,
        solver=None,
        solver_options=None,
        extra_constraints=None,
        scale_rule="norm",
        backend="auto",
    ):
        self.scheme = scheme
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
        self.refit = refit
        self.refit_C = refit_C
        self.solver = solver
        self.solver_options = solver_options
        self.extra_constraints = extra_constraints
        self.scale_rule = scale_rule
        self.backend = backend

    def _formulation(self, scale: float = 1.0):
        Form = WestonWatkinsFormulation if self.scheme == "ww" else OneVsRestFormulation
        return partial(Form, penalty=self.penalty, C=self.C, scale_rule=self.scale_rule)

    def _own_final_model(self, X, y_fit, support, budget, last, cache=None):
        if not self.refit and last is not None:
            if budget is not None and self.extra_constraints is not None:
                # The last iterate's weights, restricted to a selection that still answers to
                # the constraints: the refit (discarded) finds the features they require.
                self._refit_keeping_required(X, y_fit, support, budget, last, cache)
            return last
        if self.extra_constraints is not None:
            # The user's constraints index W: the scheme's l2 machine as one cvxpy problem
            # under them (libsvm takes no constraint), keeping the features they require.
            return self._refit_keeping_required(X, y_fit, support, budget, last, cache)
        return fit_final_machine(
            X, y_fit, self.scheme, self._final_C(), support, self.solver, self.solver_options
        )

    def _final_C(self) -> float:
        return self.refit_C if self.refit_C is not None else (self.C or 1.0)

    def _refit_formulation(self, X, y_fit):
        # The final machine of fit_final_machine (½ Σ_k ‖w_k‖² + C Σ ξ: the l2 step with unit
        # weights), one-vs-rest in cvxpy rather than libsvm, with the user's constraints.
        Form = WestonWatkinsFormulation if self.scheme == "ww" else OneVsRestFormulation
        return self._with_user_constraints(Form(X, y_fit, penalty="l2", C=self._final_C()))
