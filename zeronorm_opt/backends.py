"""What solves the convex steps of a zero-norm fit: the backends and the one place that picks one.

A zero-norm estimator (:class:`~zeronorm_opt.ZeroNormSelector`, :class:`~zeronorm_opt.AROM`,
:class:`~zeronorm_opt.FSV`, :class:`~zeronorm_opt.MulticlassAROM`) describes its problem as a
formulation class with its parameters, e.g. ``functools.partial(MarginFormulation,
penalty="l1", C=None)``; a :class:`Backend` builds the object whose step the
successive-linearisation driver solves again and again: ``"cvxpy"`` the formulation itself,
``"highs"`` one warm-started HiGHS model of the margin LPs
(:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP`), ``"libsvm"`` the l2 step as libsvm's
SVM dual on rescaled data (:class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual`,
:class:`~zeronorm_opt.fast.one_vs_rest.OneVsRestLibsvm`), ``"ipm"`` the same l2 step in the
primal by an interior-point method (:class:`~zeronorm_opt.fast.svm_primal_ipm.IpmRescaledSVM`),
``"dcd"`` the binary l2 step by dual coordinate descent with the bias exact
(:class:`~zeronorm_opt.fast.svm_dual_cd.CoordinateDescentRescaledDual`, sparse X's default).
Each meets the formulation's contract
(:class:`~zeronorm_opt.formulations.contract.SelectorFormulation`) and is tested against the
cvxpy formulation. :func:`choose_backend` is the one place that picks a backend (its members:
:class:`Backend`); :func:`register_backend` adds yours.

References
----------
J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and support
vector machines", Proceedings of the 15th International Conference on Machine Learning
(ICML), 82–90, 1998.
"""

from __future__ import annotations

import functools
import inspect

import scipy.sparse as sp

from ._threads import blas_controller, blas_threads
from .exceptions import InputError, ParameterError
from .fast.one_vs_rest import OneVsRestLibsvm
from .fast.svm_dual import LibsvmRescaledDual
from .fast.svm_dual_cd import CoordinateDescentRescaledDual
from .fast.svm_primal_ipm import IPM_MIN_EXAMPLES_PER_FEATURE, IpmRescaledSVM
from .fast.working_set_lp import margin_lp
from .formulations import FSVFormulation, MarginFormulation, OneVsRestFormulation
from .surrogates import LogSurrogate

__all__ = [
    "Backend",
    "backend_names",
    "choose_backend",
    "get_backend",
    "register_backend",
    "unregister_backend",
    "takes_sparse",
    "unwrap",
]


def unwrap(formulation):
    """The class behind ``functools.partial(Class, ...)`` (else ``formulation`` itself)."""
    while isinstance(formulation, functools.partial):
        formulation = formulation.func
    return formulation


def formulation_params(formulation) -> dict:
    """The keyword arguments ``formulation(X, y)`` builds its class with, defaults included
    (a ``functools.partial``'s signature carries its keywords as the defaults)."""
    return {k: p.default for k, p in inspect.signature(formulation).parameters.items()}


class Backend:
    """Base class of a backend: the contract of :mod:`zeronorm_opt.backends`.

    A subclass sets ``name`` and implements :meth:`refusal` and :meth:`build`; the other
    members have defaults.

    Examples
    --------
    A backend that solves the margin formulation's step with cvxpy's SCS (a stand-in for a
    solver of your own), registered and then chosen by name (``suits`` False: ``"auto"``
    never takes it):

    >>> from zeronorm_opt import AROM
    >>> from zeronorm_opt.backends import Backend, register_backend, unwrap
    >>> from zeronorm_opt.backends import unregister_backend
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> class MarginOnSCS(Backend):
    ...     name, description = "scs-margin", "the margin formulation on SCS"
    ...     def refusal(self, formulation, surrogate):
    ...         return None if unwrap(formulation) is MarginFormulation else "serves AROM"
    ...     def suits(self, X):
    ...         return False
    ...     def build(self, formulation, X, y):
    ...         step = formulation(X, y)
    ...         solve = step.solve
    ...         step.solve = lambda solver=None, options=None: solve("SCS", options)
    ...         return step
    >>> _ = register_backend(MarginOnSCS())
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> AROM(C=1.0, n_features_to_select=2, backend="scs-margin").fit(X, y).backend_
    'scs-margin'
    >>> _ = unregister_backend("scs-margin")  # registered for the whole process otherwise
    """

    #: The value of ``backend=`` that chooses it.
    name: str = ""
    #: What the error messages call it.
    description: str = ""
    #: Whether ``build`` takes a ``scipy.sparse`` X (read by :meth:`accepts_sparse`).
    sparse_input: bool = False

    def refusal(self, formulation, surrogate) -> str | None:
        """None if the backend solves ``formulation``'s step with ``surrogate``'s weights,
        else what it serves (completing "backend='name' (description) ...")."""
        raise NotImplementedError

    def build(self, formulation, X, y):
        """The step object of ``formulation(X, y)`` (Linearisable, with ``solution()``)."""
        raise NotImplementedError

    def accepts_sparse(self, formulation) -> bool:
        """Whether :meth:`build` takes a ``scipy.sparse`` X as it comes."""
        return self.sparse_input

    def suits(self, X) -> bool:
        """For ``backend="auto"``: whether to take this backend for this X (dense X by default,
        sparse X only when :attr:`sparse_input`)."""
        return self.sparse_input or not sp.issparse(X)

    def run(self, formulation, X, y, drive):
        """``(step, drive(step))``: the step of ``formulation(X, y)`` run by ``drive``, the
        driver with the estimator's surrogate, budget and options (the one loop: a backend never
        iterates itself; override only to set up the whole run, e.g. BLAS threads)."""
        step = self.build(formulation, X, y)
        return step, drive(step)


class CvxpyBackend(Backend):
    """The declarative formulation itself (any cvxpy solver, user constraints)."""

    name = "cvxpy"
    description = "the declarative formulation"

    def refusal(self, formulation, surrogate) -> str | None:
        return None

    def accepts_sparse(self, formulation) -> bool:
        # The formulation says so (SelectorFormulation.accepts_sparse).
        return getattr(unwrap(formulation), "accepts_sparse", False) is True

    def build(self, formulation, X, y):
        return formulation(X, y)


def _is_arom_log(surrogate) -> bool:
    """AROM's own weights: ``ln t`` (ε = 0), the weights the rescaled steps were validated with
    (they need positive weights: a weight 0 is an infinite scale)."""
    return type(surrogate) is LogSurrogate and surrogate.eps == 0


class HighsBackend(Backend):
    """The margin LPs (l1-AROM, FSV) in one HiGHS model re-solved warm."""

    name = "highs"
    description = "the margin LPs in HiGHS"
    sparse_input = True

    def refusal(self, formulation, surrogate) -> str | None:
        cls = unwrap(formulation)
        if cls is FSVFormulation or (
            cls is MarginFormulation and formulation_params(formulation)["penalty"] == "l1"
        ):
            return None
        return "serves the LPs of penalty='l1' (AROM) and of FSV"

    def build(self, formulation, X, y):
        # The declarative problem holds the validated data and every constant of the LP (its
        # cvxpy problem is only compiled when solved, which never happens here).
        f = formulation(X, y)
        if isinstance(f, FSVFormulation):
            lp = margin_lp(f.X, f.y, f.slack_costs, penalty_scale=f.penalty_scale)
            lp.infeasible_hint = f.infeasible_hint or lp.infeasible_hint
            return lp
        return margin_lp(f.X, f.y, f.C, slack_scale=_l0_slack_scale(f))


def _l0_slack_scale(f) -> float | None:  # ``c`` of the l0-slack coordinates, None for hinge
    return None if f.u is None else f.slack_scale


def _one_blas_thread():
    # The l2 fast paths run BLAS on one thread, whatever the machine's load: OpenBLAS's threads
    # only spin and wait in libsvm's small products and the separability check's SVD (colon
    # under load: 0.68 s on two threads, ~5 ms on one). (The process's controller:
    # threadpool_limits would rescan the libraries, ~1 ms a fit.)
    return blas_controller().limit(limits=1, user_api="blas")


class LibsvmBackend(Backend):
    """The l2 step as libsvm's SVM on the rescaled data (binary dual, or one SVM per class)."""

    name = "libsvm"
    description = "the l2 step by libsvm"
    sparse_input = True

    def accepts_sparse(self, formulation) -> bool:
        # The binary dual reads CSR rows (zeronorm_opt.fast.svm_dual); one-vs-rest needs dense X.
        return unwrap(formulation) is not OneVsRestFormulation

    def refusal(self, formulation, surrogate) -> str | None:
        cls = unwrap(formulation)
        if (
            cls in (MarginFormulation, OneVsRestFormulation)
            and formulation_params(formulation)["penalty"] == "l2"
            and _is_arom_log(surrogate)
        ):
            return None
        return (
            "serves penalty='l2' with AROM's own weights (epsilon=0): AROM, and "
            "MulticlassAROM with scheme='ovr'"
        )

    def build(self, formulation, X, y):
        if unwrap(formulation) is OneVsRestFormulation:  # its libsvm form is a subclass
            params = formulation_params(formulation)
            return OneVsRestLibsvm(X, y, C=params["C"], scale_rule=params["scale_rule"])
        f = formulation(X, y)
        return LibsvmRescaledDual(f.X, f.y, C=f.C, slack_scale=_l0_slack_scale(f))

    def run(self, formulation, X, y, drive):
        with _one_blas_thread():
            return super().run(formulation, X, y, drive)


def _binary_hinge_l2_refusal(formulation, surrogate) -> str | None:
    """Why a binary hinge-slack l2 step (the ``ipm`` and ``dcd`` backends) does not serve
    ``formulation`` with ``surrogate``; None when it does."""
    if unwrap(formulation) is MarginFormulation and _is_arom_log(surrogate):
        params = formulation_params(formulation)
        if params["penalty"] == "l2" and params["slack_penalty"] == "hinge":
            return None
    return (
        "serves penalty='l2' with AROM's own weights (epsilon=0) and the hinge slacks, "
        "without the l0-slack coordinates (slack_scale); pass backend='libsvm' for "
        "slack_penalty='l0'"
    )


class IpmBackend(Backend):
    """The binary l2 step in the primal by an interior-point method (cost linear in m)."""

    name = "ipm"
    description = "the l2 step by an interior-point method in the primal"

    def refusal(self, formulation, surrogate) -> str | None:
        return _binary_hinge_l2_refusal(formulation, surrogate)

    def suits(self, X) -> bool:
        # libsvm's dual beat (or tied) the primal QP at every shape measured; with many more
        # examples than features its SMO grows faster than linearly in m and the primal
        # interior-point step, O(m n²) per iteration, wins (the benchmarks page).
        m, n = X.shape
        return not sp.issparse(X) and m >= IPM_MIN_EXAMPLES_PER_FEATURE * n

    def build(self, formulation, X, y, blas_threads: int | None = None):
        f = formulation(X, y)
        return IpmRescaledSVM(f.X, f.y, C=f.C, blas_threads=blas_threads)

    def run(self, formulation, X, y, drive):
        # The large normal matrices get the caller's threads back (read before the limit).
        callers = blas_threads()
        with _one_blas_thread():
            step = self.build(formulation, X, y, blas_threads=callers)
            return step, drive(step)


class DcdBackend(Backend):
    """The binary l2 step by dual coordinate descent on the rows (sparse X's default)."""

    name = "dcd"
    description = "the l2 step by dual coordinate descent"
    sparse_input = True

    def refusal(self, formulation, surrogate) -> str | None:
        # The steps of the interior point (binary, hinge slacks, AROM's weights), soft margin
        # only: with the hard margin every multiplier can be free and unbounded, where
        # coordinate descent crawls (sparse 2000 × 20 000: 20 000 passes not enough at step 16).
        why = _binary_hinge_l2_refusal(formulation, surrogate)
        if why is None and formulation_params(formulation)["C"] is None:
            return "serves the soft margin (pass C=...); pass backend='libsvm' for C=None"
        return why

    def suits(self, X) -> bool:
        # Each update reads one row of X, O(nnz(x_i)): on sparse text-like data it beats
        # libsvm's SMO by orders of magnitude (20 000 × 50 000 tf-idf, first step 0.8 s
        # against over 145 s). On dense data with fewer rows than columns libsvm's Gram matrix
        # is cheap, with more the interior point wins, and coordinate descent crawls where
        # many multipliers are free (dense 1000 × 200: 84 000 passes).
        return sp.issparse(X)

    def build(self, formulation, X, y):
        f = formulation(X, y)
        return CoordinateDescentRescaledDual(f.X, f.y, C=f.C)


#: The registered backends by name, in the order ``backend="auto"`` tries them (cvxpy, the
#: fallback, last).
_REGISTRY: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    """Make ``backend`` available as ``backend=backend.name`` to every zero-norm estimator.

    ``backend="auto"`` tries it after the backends registered before it (and before cvxpy, the
    fallback). Registering a name again replaces that backend.

    Raises
    ------
    InputError
        When ``backend`` lacks a member of the contract, or its name is ``"auto"``.

    Examples
    --------
    See :class:`Backend`; the names ``backend=`` accepts (yours among them once registered):

    >>> backend_names()[:5]
    ('auto', 'highs', 'ipm', 'dcd', 'libsvm')
    """
    members = ("refusal", "build", "accepts_sparse", "suits", "run")
    missing = [m for m in members if not callable(getattr(backend, m, None))]
    name = getattr(backend, "name", None)
    if missing or not isinstance(name, str) or not name or name == "auto":
        raise InputError(
            f"{type(backend).__name__} is not a backend: it needs a name (a string other than "
            f"'auto') and the methods refusal, build, accepts_sparse, suits and run; "
            f"{'missing ' + ', '.join(missing) if missing else f'name={name!r}'}. Subclass "
            "zeronorm_opt.backends.Backend."
        )
    cvxpy = _REGISTRY.pop("cvxpy", None)
    _REGISTRY.pop(name, None)
    _REGISTRY[name] = backend
    if cvxpy is not None and name != "cvxpy":
        _REGISTRY["cvxpy"] = cvxpy
    return backend


_BUILT_IN = (HighsBackend(), IpmBackend(), DcdBackend(), LibsvmBackend(), CvxpyBackend())
for _backend in _BUILT_IN:
    register_backend(_backend)


def unregister_backend(name: str) -> Backend:
    """Remove the backend registered as ``name`` and return it (built-in ones stay).

    Raises
    ------
    InputError
        When no backend of that name is registered, or it is one of the package's own.

    Examples
    --------
    >>> class Renamed(Backend):
    ...     name = "highs-again"
    >>> _ = register_backend(Renamed())
    >>> "highs-again" in backend_names(), type(unregister_backend("highs-again")).__name__
    (True, 'Renamed')
    >>> "highs-again" in backend_names()
    False
    """
    if name in {backend.name for backend in _BUILT_IN}:
        raise InputError(f"{name!r} is one of the package's own backends; it cannot be removed.")
    if name not in _REGISTRY:
        raise InputError(
            f"no backend named {name!r} is registered; registered: {', '.join(_REGISTRY)}."
        )
    return _REGISTRY.pop(name)


def backend_names() -> tuple[str, ...]:
    """The values ``backend=`` accepts: ``"auto"`` and every registered backend's name."""
    return ("auto", *_REGISTRY)


def get_backend(name, owner: str = "the estimator") -> Backend:
    """The registered backend called ``name`` (a ParameterError naming the choices if none)."""
    backend = _REGISTRY.get(name) if isinstance(name, str) else None
    if backend is None:
        raise ParameterError(
            f"The 'backend' parameter of {owner} must be one of "
            f"{', '.join(map(repr, backend_names()))} (register_backend adds yours); got "
            f"{name!r} instead."
        )
    return backend


def takes_sparse(name, formulation) -> bool:
    """Whether the backend ``name`` (cvxpy for ``"auto"``, where sparse X goes) takes a
    ``scipy.sparse`` X for ``formulation``; False for a name not registered."""
    backend = _REGISTRY.get("cvxpy" if name == "auto" else name) if isinstance(name, str) else None
    return backend is not None and backend.accepts_sparse(formulation)


def serves(backend: Backend, formulation, surrogate, X) -> bool:
    """Whether ``backend`` solves exactly the steps of ``formulation`` with ``surrogate`` on this
    X (a ``scipy.sparse`` X only if it takes one as it comes)."""
    return (not sp.issparse(X) or backend.accepts_sparse(formulation)) and backend.refusal(
        formulation, surrogate
    ) is None


def choose_backend(requested, formulation, surrogate, X, cvxpy_only=(), owner="the estimator"):
    """The backend that solves the steps: the one place where a backend is chosen.

    Parameters
    ----------
    requested : str
        The ``backend=`` parameter: a registered name or ``"auto"``.
    formulation : callable
        ``formulation(X, y)`` builds the declarative problem (a class or a
        ``functools.partial`` of one).
    surrogate : object with ``value`` and ``derivative``
        The concave penalty of the run.
    X : array-like or sparse matrix
        The training data (``"auto"`` reads their shape and format).
    cvxpy_only : sequence of str
        The options given that only the cvxpy formulation honours (``"solver"``,
        ``"extra_constraints"`` …): they rule every other backend out.
    owner : str
        The estimator's name, for the messages.

    Returns
    -------
    Backend

    Raises
    ------
    ParameterError
        ``requested`` is not a registered name.
    InputError
        The requested backend cannot solve this configuration (the message says what it
        serves and to pass ``backend='cvxpy'``).

    Examples
    --------
    >>> from functools import partial
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> l2 = partial(MarginFormulation, penalty="l2")
    >>> choose_backend("auto", l2, LogSurrogate(), X).name  # n > m: libsvm's dual
    'libsvm'
    >>> choose_backend("auto", l2, LogSurrogate(), X, cvxpy_only=["solver"]).name
    'cvxpy'
    >>> choose_backend("highs", l2, LogSurrogate(), X)
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: backend='highs' (the margin LPs in HiGHS) serves the LPs \
of penalty='l1' (AROM) and of FSV; pass backend='cvxpy' (or 'auto') for this configuration.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.
    """
    if requested == "auto":
        if not cvxpy_only:
            for backend in _REGISTRY.values():
                if backend.suits(X) and serves(backend, formulation, surrogate, X):
                    return backend
        return _REGISTRY["cvxpy"]
    backend = get_backend(requested, owner)
    why = (
        f"takes neither {', '.join(cvxpy_only)} (they would be ignored)"
        if cvxpy_only and backend.name != "cvxpy"
        else backend.refusal(formulation, surrogate)
    )
    if why is not None:
        raise InputError(
            f"backend={backend.name!r} ({backend.description}) {why}; pass backend='cvxpy' "
            "(or 'auto') for this configuration."
        )
    return backend
