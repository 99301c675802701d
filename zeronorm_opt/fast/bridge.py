"""Bridge regression (l_q, 0 < q < 1): the driver loop around the Lasso formulation."""

from __future__ import annotations

from .._validation import check_positive
from ..driver import LinearisationResult, successive_linearisation
from ..formulations.regression import LassoFormulation
from ..surrogates import PowerSurrogate

__all__ = ["bridge_regression"]


def bridge_regression(
    Phi,
    Y,
    alpha: float,
    q: float = 0.5,
    *,
    eps: float = 1e-8,
    max_iter: int = 50,
    tol: float = 1e-6,
    prune_tol: float = 1e-6,
    solver=None,
    solver_options: dict | None = None,
    extra_constraints=None,
    column_means=None,
) -> LinearisationResult:
    """Bridge regression ``min (1/n)‖Y − Φβ‖² + λ Σ_j (ε + |β_j|)^q`` with ``0 < q < 1``.

    The penalty is concave in ``|β_j|``: the successive-linearisation driver solves a sequence
    of weighted Lassos (:class:`~zeronorm_opt.formulations.LassoFormulation`, compiled once)
    with weights ``q (ε + |β_j^k|)^(q−1)``, starting from the Lasso (unit weights). Each step
    minimises a majoriser, so the objective never increases; the result is a stationary point.

    Parameters
    ----------
    Phi : array-like of shape (n, p)
    Y : array-like of shape (n,)
    alpha : float
        ``λ > 0``.
    q : float, default=0.5
        Exponent in (0, 1); ``q → 0`` approaches the zero-norm, ``q = 1`` is the Lasso.
    eps : float, default=1e-8
        Keeps the weights finite at ``β_j = 0``.
    max_iter, tol, prune_tol, solver, solver_options
        Passed to :func:`~zeronorm_opt.driver.successive_linearisation`.
    extra_constraints : callable, list of cvxpy constraints or None, default=None
        Added to every weighted Lasso (:meth:`~zeronorm_opt.formulations.base.Formulation.
        add_constraints`): a callable receives the formulation (``formulation.coef`` is β,
        ``formulation.Phi`` and ``formulation.Y`` the data), e.g. ``lambda f: [f.coef >= 0]``
        for a non-negative bridge.
    column_means : array-like of shape (p,) or None, default=None
        Centre the columns of ``Phi`` by these means inside the formulation
        (:class:`~zeronorm_opt.formulations.LassoFormulation`): a sparse ``Phi`` stays sparse.

    Returns
    -------
    LinearisationResult
        ``coef``, ``support`` and the per-iteration ``history`` (``objective_path``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Phi = rng.normal(size=(25, 60))
    >>> beta = np.zeros(60); beta[[5, 17, 40]] = [1.5, -2.0, 1.0]
    >>> res = bridge_regression(Phi, Phi @ beta + 0.01 * rng.normal(size=25), 0.05, q=0.5)
    >>> np.flatnonzero(res.support).tolist()
    [5, 17, 40]
    """
    check_positive(alpha, "alpha")
    formulation = LassoFormulation(Phi, Y, alpha, column_means=column_means)
    if extra_constraints is not None:
        formulation.add_constraints(extra_constraints)
    return successive_linearisation(
        formulation,
        PowerSurrogate(q=q, eps=eps),
        max_iter=max_iter,
        tol=tol,
        prune_tol=prune_tol,
        solver=solver,
        solver_options=solver_options,
    )
