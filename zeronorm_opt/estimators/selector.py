"""The generic zero-norm estimator: :class:`ZeroNormSelector` over any formulation.

A formulation that satisfies the driver's protocol
(:class:`~zeronorm_opt.formulations.contract.Linearisable`) and declares what the estimator
reads (:class:`~zeronorm_opt.formulations.contract.SelectorFormulation`: its ``task``, its
label convention, ``solution()``, ``add_constraints`` for user constraints, ``accepts_sparse``)
gets a complete scikit-learn estimator: the successive-linearisation run, the feature budget,
the final model, user constraints that see the data of the current fit, labels of any type,
``transform``/``get_support``/``get_feature_names_out`` and ``predict``.
:class:`~zeronorm_opt.AROM`, :class:`~zeronorm_opt.FSV` and
:class:`~zeronorm_opt.MulticlassAROM` are configurations of it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import ClassifierTags, RegressorTags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_not_all_constant,
    require_dense,
    validate_labelled_data,
    validate_xy,
    validates_params,
)
from ..backends import backend_names, choose_backend, get_backend, serves, takes_sparse, unwrap
from ..driver import successive_linearisation
from ..exceptions import ContractError, InputError
from ..fast.progress import FitProgress
from ..formulations.contract import TASKS, check_selector_formulation
from ..scaling import data_scale
from ..surrogates import LogSurrogate
from ._budget import budget_ranking, refit_keeping_required, resolve_budget
from ._params import ZERO_NORM
from ._ranking import SupportSelector


def formulation_solution(formulation) -> tuple[np.ndarray, np.ndarray | float]:
    """``(coef, intercept)`` of a formulation's last solve: its ``solution()`` (see
    :class:`~zeronorm_opt.formulations.contract.SelectorFormulation`), as floats."""
    coef, intercept = formulation.solution()[:2]
    intercept = np.asarray(intercept, dtype=float)
    return np.asarray(coef, dtype=float), float(intercept) if intercept.ndim == 0 else intercept


class ZeroNormSelector(SupportSelector, BaseEstimator):
    """Zero-norm feature selection and prediction over any reweighted formulation.

    Runs the successive-linearisation driver (:func:`~zeronorm_opt.successive_linearisation`)
    on the formulation built from the training data: each step sets the weights
    ``φ'(h(x^k))`` of the surrogate ``φ`` and re-solves the convex problem; a coefficient that
    reaches zero is removed for good. With a feature budget the run stops at the last iterate
    before the support has at most ``r`` features and keeps its ``r`` largest (Weston et al.
    2003). The final model is then fitted on the selected features.

    Parameters
    ----------
    formulation : class or callable
        ``formulation(X, y)`` returns the formulation of the training data: a class of the
        package or the user's own, or a ``functools.partial`` of one
        (``partial(MarginFormulation, C=1.0)``), implementing
        :class:`~zeronorm_opt.formulations.contract.SelectorFormulation` (the driver's
        protocol, ``task``, ``solution()``; optional ``label_encoding``, ``accepts_sparse``);
        ``fit`` checks it before any solve and raises one
        :class:`~zeronorm_opt.ContractError` naming everything missing. Classification or
        regression follows its ``task`` unless ``estimator`` is given, whose type decides;
        for classification the selector keeps the labels (any type) in ``classes_`` and hands
        the formulation ±1 (``label_encoding = "signed"``, two classes) or the codes
        ``0 … Q−1`` (``"codes"``), and ``predict`` returns the original labels. A plain
        function (e.g. a ``lambda``) hides the class: give the function the attributes
        (``make.task = "regression"``) or use ``functools.partial``, which keeps them
        visible. A ``scipy.sparse`` X is passed on when the class (or the function) has the
        attribute ``accepts_sparse = True`` (see :meth:`fit`).
    surrogate : object with ``value`` and ``derivative``, default=None
        The concave penalty φ; None: ``LogSurrogate()`` (``ln t``, the zero-norm
        approximation of AROM).
    n_features_to_select : int, float or None, default=None
        Exact number of features to keep: an integer, or a fraction in ``(0, 1]`` of the
        features (at least one). None: no budget, keep the support the run converges to.
    estimator : estimator or None, default=None
        The final model, fitted on the selected features (``predict`` and ``score``
        delegate to it). None: the formulation's own machine — the last iterate without a
        budget, and with a budget the formulation solved once more with unit weights on the
        ``r`` selected features. With a budget and ``extra_constraints``, the selection keeps
        the features the constraints require whichever final model is fitted
        (``required_features_``).
    normalise_weights : bool, default=False
        Divide the weights by their smallest positive value before each solve (valid when
        the minimiser does not depend on the scale of the penalty, e.g. hard-margin problems).
    max_iter : int, default=50
        Maximum number of convex solves; a run that reaches it before converging keeps
        the last step's iterate and warns (:class:`~zeronorm_opt.LimitReachedWarning`).
    time_limit : float or None, default=None
        Seconds the run may take, checked after each step (every backend): past them it
        keeps the last completed step's iterate and warns, as ``max_iter`` does (see
        :func:`~zeronorm_opt.successive_linearisation`). None: no limit.
    tol : float, default=1e-5
        Convergence tolerance of the driver.
    prune_tol : float, default=1e-6
        A coefficient below ``prune_tol · max`` is removed for good; 0 disables pruning.
    solver : str, list of str or None, default=None
        cvxpy solver name (or fallback list) of every solve; None: the package's default.
    solver_options : dict or None, default=None
        Options passed to the solver.
    extra_constraints : callable or None, default=None
        ``extra_constraints(formulation) -> list of cvxpy constraints``, called with the
        formulation of the current fit (its variables and its training data ``formulation.X``,
        ``formulation.y``), so a data-dependent constraint is right inside cross-validation.
    backend : str, default="cvxpy"
        What solves the steps (:mod:`zeronorm_opt.backends`): ``"cvxpy"``, the formulation as
        built; the name of a registered backend (``"highs"``, ``"libsvm"``, ``"ipm"`` or your
        own), which must solve exactly this formulation's step; ``"auto"``, the first
        registered backend that does, unless ``solver``, ``solver_options``,
        ``extra_constraints`` or ``surrogate`` ask for the cvxpy formulation.

    Attributes
    ----------
    support_ : ndarray of bool of shape (n_features,)
        Mask of the selected features (what ``get_support()`` returns).
    coef_ : ndarray
        Weights of the final linear model on all features (zero outside the support): shape
        (1, n_features) for two classes, (n_classes, n_features) for more, (n_features,) for
        regression. Absent when ``estimator`` has no ``coef_``.
    intercept_ : ndarray or float
        Bias of the final linear model, shaped as ``coef_``'s rows.
    estimator_ : estimator
        The fitted final model, when ``estimator`` is given.
    classes_ : ndarray
        Class labels (classification).
    history_ : list of IterationRecord
        Per step: objective, support size, coefficients, weights, solver status and time.
    n_iter_ : int
        Number of convex problems solved by the successive-linearisation driver.
    stop_reason_ : {"converged", "budget", "max_iter", "time_limit"}
        Why the driver stopped: ``"converged"`` (the weights stopped changing), ``"budget"``
        (the support reached ``n_features_to_select``), or ``"max_iter"`` / ``"time_limit"``
        (that limit stopped the run before it converged, with a
        :class:`~zeronorm_opt.LimitReachedWarning`; the selection is the last step's).
    backend_ : str
        What solved the steps (the name of a backend of :mod:`zeronorm_opt.backends`).
    data_scale_ : float
        The run was solved on ``X / data_scale_`` and its weights (``coef_``, the
        coefficients of ``history_``) mapped back to the units of X: the root-mean-square entry
        of X for a scale-free (hard-margin) configuration, so that its selection does not
        depend on the units of X; 1.0 otherwise (always for a user formulation).
    required_features_ : ndarray of int
        With a budget and ``extra_constraints``: features kept because the constraints
        require them although the budget's ranking left them out (a warning says so); the
        rest of the budget is the ranking's. Empty when none. A
        ``RemovedCoefficientsRequiredError`` says when they alone exceed the budget.
    n_features_in_ : int
        Number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        With a DataFrame input.

    See Also
    --------
    AROM, FSV, MulticlassAROM : the package's configurations of this estimator.
    ZeroNormCV : the budget chosen by cross-validation.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and
    support vector machines", Proceedings of the 15th International Conference on Machine
    Learning (ICML), 82–90, 1998.

    Examples
    --------
    >>> from functools import partial
    >>> from zeronorm_opt import ZeroNormSelector
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> soft_margin = partial(MarginFormulation, C=1.0)
    >>> sel = ZeroNormSelector(soft_margin, n_features_to_select=2).fit(X, y)
    >>> sel.transform(X).shape, sel.coef_.shape
    ((30, 2), (1, 202))
    """

    _parameter_constraints: dict = {
        "formulation": [callable],
        "normalise_weights": ["boolean"],
        **ZERO_NORM,
    }

    def __init__(
        self,
        formulation,
        *,
        surrogate=None,
        n_features_to_select=None,
        estimator=None,
        normalise_weights=False,
        max_iter=50,
        time_limit=None,
        tol=1e-5,
        prune_tol=1e-6,
        solver=None,
        solver_options=None,
        extra_constraints=None,
        backend="cvxpy",
    ):
        self.formulation = formulation
        self.surrogate = surrogate
        self.n_features_to_select = n_features_to_select
        self.estimator = estimator
        self.normalise_weights = normalise_weights
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.tol = tol
        self.prune_tol = prune_tol
        self.solver = solver
        self.solver_options = solver_options
        self.extra_constraints = extra_constraints
        self.backend = backend

    # -- what the configurations override ----------------------------------------------------
    def _task(self) -> str | None:
        """``"classification"`` or ``"regression"`` (None: the formulation declares no task,
        which ``fit`` refuses with a ContractError)."""
        if self.estimator is not None:
            kind = getattr(self.estimator.__sklearn_tags__(), "estimator_type", None)
            return "classification" if kind == "classifier" else "regression"
        return self._formulation_task()

    def _formulation_task(self) -> str | None:
        task = getattr(unwrap(self.formulation), "task", None)
        return task if task in TASKS else None

    def _label_encoding(self) -> str:
        """How the formulation takes class labels: ``"signed"`` (±1) or ``"codes"``."""
        return getattr(unwrap(self._formulation()), "label_encoding", "signed")

    def _check_contract(self) -> None:
        """One ContractError naming all the formulation lacks, before any data are read.

        The configurations (AROM, FSV, MulticlassAROM) have no ``formulation`` parameter:
        they build the package's own formulations, which meet the contract.
        """
        factory = getattr(self, "formulation", None)
        if factory is None:
            return
        declared = unwrap(factory)
        if isinstance(declared, type):
            check_selector_formulation(
                declared,
                extra_constraints=self.extra_constraints is not None,
                solver=self.solver,
            )
        elif self._formulation_task() is None:
            raise ContractError(
                f"formulation={factory!r} hides the formulation's class, so ZeroNormSelector "
                "cannot read its task: pass the class or functools.partial(Class, ...), which "
                "keep its attributes visible, or declare it on the function (make.task = "
                '"classification" or "regression").'
            )
        # A regression formulation may select for a classifier (it is handed the labels as
        # ±1); a classifier's formulation cannot be handed real targets.
        if self._formulation_task() == "classification" and self._task() == "regression":
            raise ContractError(
                f"the formulation fits class labels (task = 'classification') but "
                f"estimator={self.estimator!r} is a regressor: pass a classifier, or a "
                "formulation with task = 'regression'."
            )

    def _check_built(self, formulation) -> None:
        """The instance meets the contract (a plain function's class is seen only now)."""
        if getattr(self, "formulation", None) is None:
            return
        check_selector_formulation(
            formulation,
            extra_constraints=self.extra_constraints is not None,
            solver=self.solver,
            check_task=isinstance(unwrap(self.formulation), type),
        )

    def _formulation(self, scale: float = 1.0):
        """``formulation(X, y)`` builds the problem of the run on ``X / scale`` (before user
        constraints): a class, or a ``functools.partial`` of one, which the backends read."""
        return self.formulation

    def _surrogate(self):
        return LogSurrogate() if self.surrogate is None else self.surrogate

    def _driver_options(self, formulation) -> dict:
        """Keyword arguments of the driver besides the budget and solver."""
        return {"normalise_weights": self.normalise_weights}

    def _choose_backend(self, X) -> str:
        """The name of the backend that solves the steps (:func:`~zeronorm_opt.backends.
        choose_backend`, the one place where a backend is chosen)."""
        options = {
            "extra_constraints": self.extra_constraints is not None,
            "a cvxpy solver": self.solver is not None,
            "solver_options": bool(self.solver_options),
            "a surrogate": self.surrogate is not None,
        }
        return choose_backend(
            self.backend,
            self._formulation(),
            self._surrogate(),
            X,
            cvxpy_only=[name for name, given in options.items() if given],
            owner=type(self).__name__,
        ).name

    def _scale_free(self) -> bool:
        """Whether the run's problem is invariant under ``X → cX`` (a hard margin, no user
        constraint): it is then solved on ``X / data_scale(X)`` (:mod:`zeronorm_opt.scaling`).
        A user formulation is solved as given: its terms may have units."""
        return False

    def _run_scale(self, X) -> float:
        """``s`` of the run on ``X / s``: the RMS entry of X when :meth:`_scale_free`, else 1."""
        return data_scale(X) if self._scale_free() else 1.0

    def _check_params(self, X) -> None:
        """Checks that involve several parameters (after ``_parameter_constraints``)."""

    def _own_final_model(self, X, y_fit, support, budget, last, cache=None):
        """``(coef, intercept)`` of the family's own machine on ``support``.

        ``last`` is the ``(coef, intercept)`` of the run's last iterate (None when the final
        model is fitted on a given support, e.g. by :class:`ZeroNormCV`). ``cache``, a dict
        shared by the refits on the same data, keeps the compiled refit problem: only its
        active mask changes from one support to the next.
        """
        if budget is None and last is not None:
            return last
        return self._refit_keeping_required(X, y_fit, support, budget, last, cache)

    def _refit_formulation(self, X, y_fit):
        """The problem of the final model, with the user's constraints: the run's own
        formulation (solved with unit weights)."""
        return self._build_formulation(X, y_fit)

    def _refit_keeping_required(self, X, y_fit, support, budget, last, cache=None):
        """Solve :meth:`_refit_formulation` on ``support``; with a budget and user constraints,
        keep the features the constraints require (``required_features_``, a warning), the
        rest of the budget filled by the run's ranking (by the refit's weights without a run).
        Sets ``support_``; returns the ``(coef, intercept)`` of the last solve."""
        f = None if cache is None else cache.get("refit")
        if f is None:
            f = self._refit_formulation(X, y_fit)
            if cache is not None:
                cache["refit"] = f
        # Coefficients past the features (e.g. slack coordinates) stay free.
        n_coef = getattr(f, "n_coef", f.n_features)

        def refit(selected):
            active = np.ones(n_coef, dtype=bool)
            active[: f.n_features] = selected
            f.set_active(active)
            f.set_weights(np.ones(n_coef))
            f.solve(self.solver, self.solver_options)
            return formulation_solution(f)

        if budget is None or self.extra_constraints is None:
            self.support_ = np.asarray(support, dtype=bool)
            return refit(self.support_)
        ranking = None if last is None else budget_ranking(self.history_, budget, X.shape[1])
        self.support_, self.required_features_, model = refit_keeping_required(
            refit, support, budget, ranking
        )
        return model

    # -- the machinery --------------------------------------------------------------------------
    def _build_formulation(self, X, y_fit):
        return self._with_user_constraints(self._formulation()(X, y_fit))

    def _with_user_constraints(self, f):
        """The problem ``f`` checked against the contract, with the user's constraints."""
        self._check_built(f)
        if self.extra_constraints is not None:
            # The callable receives the formulation at problem-build time: the variables and
            # data of *this* fit (each cross-validation fold builds its own formulation).
            f.add_constraints(self.extra_constraints)
        return f

    def _validate_training_data(self, X, y):
        """``(X, y_fit, y)``: validated data, the target handed to the formulation, the
        target the final ``estimator`` is fitted on."""
        # Sparse X passes validation; _check_sparse_backend then rejects it, naming what to
        # pass, where the configuration needs dense data.
        if self._task() == "classification":
            X, self.classes_, y = validate_labelled_data(
                self, X, y, binary=False, accept_sparse=True
            )
            return X, self._encode_labels(y), y
        X, y = validate_xy(self, X, y, dtype=np.float64, y_numeric=True, accept_sparse="csr")
        check_not_all_constant(X)
        return X, y, y

    def _encode_labels(self, y):
        """The labels (any type, ``classes_`` sorted) as the formulation takes them: ±1
        (``label_encoding = "signed"``, ``+1`` is ``classes_[1]``) or the codes ``0 … Q−1``
        (``"codes"``); ``predict`` maps the scores back to ``classes_``."""
        if self._label_encoding() == "codes":
            return np.searchsorted(self.classes_, y)
        if self.classes_.size != 2:
            raise InputError(
                f"{type(self).__name__}'s formulation fits two classes (labels ±1, "
                f'label_encoding = "signed"); y has {self.classes_.size} classes. Pass two '
                'classes, or a formulation that declares label_encoding = "codes" (one '
                "machine per class, e.g. OneVsRestFormulation)."
            )
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def _run_path(self, X, y_fit, budget):
        """One successive-linearisation run: ``(LinearisationResult, (coef, intercept))``.

        The backend ``backend_`` builds the step of the formulation on ``(X, y_fit)``; the
        driver runs it with this estimator's surrogate, budget and options, whatever the
        backend (the contract of :mod:`zeronorm_opt.backends`).
        """

        def drive(problem):
            problem = self._with_user_constraints(problem)
            # A line per step once the fit takes seconds, with the limits that will stop it.
            progress = FitProgress(max_iter=self.max_iter, time_limit=self.time_limit)
            try:
                return successive_linearisation(
                    problem,
                    self._surrogate(),
                    max_iter=self.max_iter,
                    time_limit=self.time_limit,
                    tol=self.tol,
                    prune_tol=self.prune_tol,
                    n_features_to_select=budget,
                    solver=self.solver,
                    solver_options=self.solver_options,
                    callback=progress,
                    **self._driver_options(problem),
                )
            finally:
                progress.close()

        formulation = self._formulation(self.data_scale_)
        problem, result = get_backend(self.backend_).run(formulation, X, y_fit, drive)
        return result, formulation_solution(problem)

    @validates_params
    def fit(self, X, y):
        """Run the successive linearisation on ``(X, y)`` and fit the final model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A ``scipy.sparse`` X is passed to the formulation as a CSR matrix, never
            densified, when the configuration takes it: AROM and FSV (HiGHS or cvxpy),
            MulticlassAROM (cvxpy), and a user formulation whose class declares
            ``accepts_sparse = True``. The final ``estimator`` receives the selected columns
            sparse when its tags say it takes sparse input, else these columns densified.
        y : array-like of shape (n_samples,)
            Class labels or real targets (the formulation's ``task``).

        Returns
        -------
        self : ZeroNormSelector

        Raises
        ------
        ParameterError
            A parameter outside its declared range.
        InputError
            Bad data (NaN/inf, one class, all features constant, budget above the number of
            features).
        InfeasibleError
            A hard-margin problem on data it cannot separate (pass ``C=``).
        TypeError
            A ``scipy.sparse`` X for a path that needs dense data (libsvm's duals, a user
            formulation without ``accepts_sparse = True``); the message names what takes it.
        """
        X, y_fit, y = self._start_fit(X, y)
        budget = resolve_budget(self.n_features_to_select, X.shape[1])
        # A hard-margin selection does not depend on the units of X, but the solvers'
        # tolerances are absolute: solve at unit scale and map the weights back
        # (zeronorm_opt.scaling says why this rather than a relative version of each tolerance).
        scale = self.data_scale_
        result, last = self._run_path(X if scale == 1.0 else X / scale, y_fit, budget)
        if scale != 1.0:
            result.coef = result.coef / scale
            for record in result.history:
                record.coef = record.coef / scale
            last = (np.asarray(last[0]) / scale, last[1])
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.stop_reason_ = result.stop_reason
        self.support_ = np.asarray(result.support, dtype=bool)
        self._fit_final(X, y_fit, y, budget, last)
        return self

    def _start_fit(self, X, y):
        """What every fit does first: the contract, the data, the parameters, the backend and
        the scale of the run; returns :meth:`_validate_training_data`'s ``(X, y_fit, y)``."""
        self._check_contract()
        X, y_fit, y = self._validate_training_data(X, y)
        self._check_params(X)
        self.backend_ = self._choose_backend(X)
        self._check_sparse_backend(X)
        self.data_scale_ = self._run_scale(X)
        return X, y_fit, y

    def _fit_on_support(self, X, y, support, cache=None):
        """Fit only the final model of a budget ``support.sum()`` on a given support (no run).

        Used by :class:`ZeroNormCV`, which takes the supports of every budget from one run;
        ``cache`` (a dict) lets the refits on one fold share their compiled problem.
        """
        X, y_fit, y = self._start_fit(X, y)
        self.support_ = np.asarray(support, dtype=bool)
        self._fit_final(X, y_fit, y, int(self.support_.sum()), None, cache)
        return self

    def _takes_sparse(self, name=None) -> bool:
        """Whether the backend ``name`` (by default the one ``backend`` names, cvxpy for
        ``"auto"``, which takes sparse X there) takes a ``scipy.sparse`` X."""
        return takes_sparse(self.backend if name is None else name, self._formulation())

    def _check_sparse_backend(self, X) -> None:
        # Only a sparse X on a backend that needs dense data is refused (the alternatives are
        # looked up then, not on every fit).
        if sp.issparse(X) and not self._takes_sparse(self.backend_):
            formulation, surrogate = self._formulation(), self._surrogate()
            others = [
                name
                for name in backend_names()[1:]
                if serves(get_backend(name), formulation, surrogate, X)
            ]
            alternative = (
                " or ".join(f"backend={name!r}" for name in others)
                + " (or 'auto') solves the same problem with sparse X"
                if others
                else "a formulation that states its problem with a scipy.sparse X (e.g. X @ w "
                "as a sparse cvxpy constant) declares it with the class attribute "
                "accepts_sparse = True; AROM, FSV and MulticlassAROM take sparse X (the l1 LPs "
                "in HiGHS, or backend='cvxpy')"
            )
            require_dense(X, f"{type(self).__name__} with backend_={self.backend_!r}", alternative)

    def _final_input(self, X_selected):
        """The selected columns as the final ``estimator`` takes them: a sparse matrix stays
        sparse when the estimator's tags say it takes sparse input, else these columns only
        (never the whole X) are densified."""
        if sp.issparse(X_selected) and not self.estimator.__sklearn_tags__().input_tags.sparse:
            return X_selected.toarray()
        return X_selected

    def _fit_final(self, X, y_fit, y, budget, last, cache=None) -> None:
        self.required_features_ = np.array([], dtype=int)
        support = self.support_
        if self.estimator is not None:
            if budget is not None and self.extra_constraints is not None:
                # Another model is fitted on the selection, but the selection still answers
                # to the user's constraints: the family's own refit (discarded) finds the
                # features they require, which the budget's ranking may have left out.
                self._refit_keeping_required(X, y_fit, support, budget, last, cache)
                support = self.support_
            self.estimator_ = clone(self.estimator).fit(self._final_input(X[:, support]), y)
            coef = getattr(self.estimator_, "coef_", None)
            if coef is not None:
                coef = np.asarray(coef, dtype=float)
                full = np.zeros(coef.shape[:-1] + (X.shape[1],))
                full[..., support] = coef
                self.coef_ = full
                self.intercept_ = getattr(self.estimator_, "intercept_", 0.0)
            return
        coef, intercept = self._own_final_model(X, y_fit, support, budget, last, cache)
        support = self.support_  # the final model may keep features the constraints require
        coef = np.where(support, np.asarray(coef, dtype=float), 0.0)
        if self._task() == "classification" and coef.ndim == 1:
            coef, intercept = coef[None, :], np.atleast_1d(intercept).astype(float)
        self.coef_ = coef
        self.intercept_ = intercept

    # -- selector / predictor API ------------------------------------------------------------
    def _scores(self, X):
        sparse = "csr" if self._takes_sparse() else False
        X = validate_xy(self, X, dtype=np.float64, reset=False, accept_sparse=sparse)
        scores = X @ self.coef_.T + self.intercept_
        if scores.ndim == 1 or scores.shape[1] > 2:
            return scores
        if scores.shape[1] == 1:
            return scores[:, 0]
        # One machine per class on two classes: the difference, as scikit-learn's binary
        # classifiers return (positive: classes_[1]).
        return scores[:, 1] - scores[:, 0]

    @available_if(lambda self: self._task() == "classification")
    def decision_function(self, X):
        """Scores of the final linear model: ``X @ coef_.T + intercept_``.

        Two classes: one score per sample (positive: ``classes_[1]``); more: one column per
        class. Classifiers only.
        """
        check_is_fitted(self, "support_")
        if hasattr(self, "estimator_"):
            return self.estimator_.decision_function(self._final_input(self.transform(X)))
        return self._scores(X)

    def predict(self, X):
        """Class labels (classification) or predicted values (regression)."""
        check_is_fitted(self, "support_")
        if hasattr(self, "estimator_"):
            return self.estimator_.predict(self._final_input(self.transform(X)))
        scores = self._scores(X)
        if self._task() == "regression":
            return scores
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy (classification) or R² (regression) of :meth:`predict`."""
        metric = accuracy_score if self._task() == "classification" else r2_score
        return metric(y, self.predict(X), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._takes_sparse()
        task = self._task()
        if task == "classification":
            tags.estimator_type = "classifier"
            tags.classifier_tags = ClassifierTags()
            tags.classifier_tags.multi_class = self._multi_class()
        elif task == "regression":
            tags.estimator_type = "regressor"
            tags.regressor_tags = RegressorTags()
        # No declared task: neither (fit raises the ContractError that says what to add).
        return tags

    def _multi_class(self) -> bool:
        return self._label_encoding() == "codes"
