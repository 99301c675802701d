"""Reference algorithms of Pahikkala et al. (2010) for greedy forward selection of RLS features.

Both select exactly what :func:`~zeronorm_opt.fast.greedy_rls.greedy_rls` selects; they are
slower and are kept, written as literally as the paper states them, so that tests and benchmarks
can check the fast algorithm against them.

* :func:`greedy_rls_wrapper` (Algorithm 1): the black-box wrapper. Every candidate set is
  trained from scratch by :func:`~zeronorm_opt.fast.rls.rls_fit` (primal or dual closed form)
  and scored by the LOO shortcut: ``O(min(k³m²n, k²m³n))``.
* :func:`greedy_rls_lowrank` (Algorithm 2, Ojeda et al. 2008): the low-rank updated LS-SVM.
  Keeps ``G = (K + λI)⁻¹`` (``m × m``) and forms ``G̃`` for each candidate by
  Sherman–Morrison: ``O(k·m²·n)`` time and ``O(m²)`` memory.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_finite_matrix
from .greedy_rls import LossFunction, _check_selection, evaluate_loss
from .rls import rls_fit

__all__ = ["greedy_rls_lowrank", "greedy_rls_wrapper"]


def _check(X, y, k, alpha, bias, loss):
    X = check_finite_matrix(X)
    return (X, *_check_selection(*X.shape, y, k, alpha, bias, loss))


def _forward_selection(n_features, Y, k, loss_fn, loo_predictions, on_select=None):
    """Greedy forward selection by the LOO loss of ``loo_predictions(selected, i)``.

    Candidates are tried in index order and the first of lowest loss wins (as in the paper);
    ``on_select(i)`` is told each winner.
    """
    selected: list[int] = []
    losses = []
    for _ in range(k):
        best, best_loss = -1, np.inf
        for i in range(n_features):
            if i in selected:
                continue
            e = evaluate_loss(loss_fn, Y, loo_predictions(selected, i)[None])[0]
            if e < best_loss:
                best, best_loss = i, e
        if on_select is not None:
            on_select(best)
        selected.append(best)
        losses.append(best_loss)
    return np.asarray(selected, dtype=np.intp), np.asarray(losses)


def _smw(G, v):
    """``(G⁻¹ + v vᵀ)⁻¹`` by Sherman–Morrison, parenthesised so that it costs O(m²)."""
    Gv = G @ v
    return G - np.outer(Gv, Gv) / (1.0 + v @ Gv)


def greedy_rls_wrapper(
    X,
    y,
    n_features_to_select: int,
    alpha: float = 1.0,
    *,
    loss: str | LossFunction = "squared",
    bias: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy forward selection with RLS as a black box (Pahikkala et al. (2010), Algorithm 1).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
    n_features_to_select : int
    alpha : float
        Regularisation ``λ > 0``.
    loss : {"squared", "zero_one"} or callable
        As in :func:`~zeronorm_opt.fast.greedy_rls.greedy_rls`.
    bias : float
        Value of a constant feature always in the model (0: none).

    Returns
    -------
    selected : ndarray of int, shape (k,)
        Feature indices in the order they were added.
    loo_loss : ndarray of shape (k,)
        LOO loss after each addition.

    References
    ----------
    T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection for regularized
    least-squares", Proceedings of the 9th International Conference on Machine Learning and
    Applications (ICMLA), 2010 (also arXiv:1003.3570, "Linear time feature selection for regularized
    least-squares").

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 6))
    >>> y = X[:, 4] + 0.1 * rng.normal(size=30)
    >>> selected, losses = greedy_rls_wrapper(X, y, 1, alpha=0.5)
    >>> selected.tolist()
    [4]
    """
    X, Y, k, lam, bias, loss_fn = _check(X, y, n_features_to_select, alpha, bias, loss)
    const = np.full((X.shape[0], 1 if bias > 0 else 0), bias)

    def loo(selected, i):  # RLS trained from scratch on the candidate set
        return rls_fit(np.hstack([X[:, selected + [i]], const]), Y, lam).loo_predictions

    return _forward_selection(X.shape[1], Y, k, loss_fn, loo)


def greedy_rls_lowrank(
    X,
    y,
    n_features_to_select: int,
    alpha: float = 1.0,
    *,
    loss: str | LossFunction = "squared",
    bias: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Low-rank updated LS-SVM forward selection (Pahikkala et al. (2010), Algorithm 2).

    Parameters and returns as in :func:`greedy_rls_wrapper`.

    References
    ----------
    T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection for regularized
    least-squares", Proceedings of the 9th International Conference on Machine Learning and
    Applications (ICMLA), 2010 (also arXiv:1003.3570, "Linear time feature selection for regularized
    least-squares").

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 6))
    >>> y = X[:, 4] + 0.1 * rng.normal(size=30)
    >>> greedy_rls_lowrank(X, y, 1, alpha=0.5)[0].tolist()
    [4]
    """
    X, Y, k, lam, bias, loss_fn = _check(X, y, n_features_to_select, alpha, bias, loss)
    m = X.shape[0]
    G = np.eye(m) / lam  # G = (K + λI)⁻¹ of the selected set (with the constant feature)
    if bias > 0:
        G = _smw(G, np.full(m, bias))

    def loo(selected, i):  # G̃ of the candidate set, then the LOO shortcut
        G_new = _smw(G, X[:, i])
        return Y - (G_new @ Y) / np.diag(G_new)[:, None]

    def select(i):
        nonlocal G
        G = _smw(G, X[:, i])

    return _forward_selection(X.shape[1], Y, k, loss_fn, loo, select)
