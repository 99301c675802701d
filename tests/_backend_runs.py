"""The AROM and FSV runs of one backend, as the estimators run them (one definition).

Each builds the backend's step from the declarative formulation
(``zeronorm_opt.backends``) and runs the driver with the estimator's surrogate and options,
without the estimator's scaling and final model: the tests compare the steps of two backends.
"""

from functools import partial

import numpy as np

from zeronorm_opt.backends import choose_backend
from zeronorm_opt.driver import successive_linearisation
from zeronorm_opt.formulations import FSVFormulation, MarginFormulation
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate


def backend_run(backend, formulation, X, y, surrogate, **options):
    """``(result, step)``: the driver's run on ``backend``'s step of ``formulation(X, y)``
    (an InputError, as from the estimators, if the backend does not solve that step)."""
    return choose_backend(backend, formulation, surrogate, X).run(
        formulation, X, y, lambda step: successive_linearisation(step, surrogate, **options)
    )[::-1]


def l1_arom(X, y, C=None, *, backend="highs", budget=None, tol=1e-5, **formulation):
    """l1-AROM (AROM's weights ``1/|v|``, normalised): ``(result, step)``."""
    form = partial(MarginFormulation, penalty="l1", C=C, **formulation)
    return backend_run(
        backend,
        form,
        X,
        y,
        LogSurrogate(),
        normalise_weights=True,
        n_features_to_select=budget,
        tol=tol,
    )


def fsv(X, y, alpha=5.0, *, backend="highs", budget=None, **formulation):
    """FSV (``v⁰ = 0``: first weights ``α``): ``(result, step)``."""
    return backend_run(
        backend,
        partial(FSVFormulation, **formulation),
        X,
        y,
        ExpSurrogate(alpha),
        n_features_to_select=budget,
        initial_weights=np.full(np.shape(X)[1], alpha),
    )


def l2_arom(X, y, C=None, *, backend="libsvm", slack_scale=None, tol=1e-6, **options):
    """l2-AROM (weights ``1/v²``, normalised): ``(result, bias of the last solve)``."""
    l0 = {"slack_penalty": "l0", "slack_scale": slack_scale} if slack_scale else {}
    form = partial(MarginFormulation, penalty="l2", C=C, **l0)
    options = {"prune_tol": tol, **options}
    result, step = backend_run(
        backend, form, X, y, LogSurrogate(), normalise_weights=True, tol=tol, **options
    )
    return result, step.solution()[1]
