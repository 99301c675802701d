"""Regularised least squares in closed form, with the LOO shortcut (Pahikkala et al., 2010).

Notation of Pahikkala et al. (2010), but with the scikit-learn layout: ``X`` has shape ``(m, n)``
(examples × features; the paper stores its transpose). For a feature subset ``S`` and ``λ > 0``

* primal: ``w = (X_Sᵀ X_S + λ I)⁻¹ X_Sᵀ y`` — an ``|S| × |S|`` system, cheap when ``|S| < m``;
* dual: ``a = G y`` with ``G = (K + λ I)⁻¹``, ``K = X_S X_Sᵀ``, and ``w = X_Sᵀ a`` — an ``m × m``
  system, cheap when ``m ≤ |S|``.

Both give the same ``w`` (push-through identity). The leave-one-out (LOO) prediction of example
``j`` — the prediction of the model trained without ``j`` — is available in O(1) per example from
the dual quantities: ``p_j = y_j − a_j / G_jj``. In the primal path ``G = (I − H)/λ`` with the hat
matrix ``H = X_S (X_Sᵀ X_S + λI)⁻¹ X_Sᵀ``, so only ``diag(H)`` is needed, never the ``m × m`` G.

This is the same estimator as ``sklearn.linear_model.Ridge(alpha=λ, fit_intercept=False)``;
it is implemented here because greedy RLS needs the dual variables and ``diag(G)``, which Ridge
does not expose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .._validation import check_finite_matrix, check_positive
from ..exceptions import InputError

__all__ = ["RLSFit", "check_targets", "rls_fit", "rls_loo_predictions"]


@dataclass
class RLSFit:
    """Closed-form RLS solution on all columns of ``X``.

    Attributes
    ----------
    coef : ndarray of shape (n_features, n_outputs)
        Primal weights ``w``.
    loo_predictions : ndarray of shape (n_samples, n_outputs)
        Leave-one-out predictions ``p_j = y_j − a_j / G_jj``.
    dual_coef : ndarray of shape (n_samples, n_outputs)
        Dual variables ``a = G y``.
    g_diag : ndarray of shape (n_samples,)
        Diagonal of ``G = (X Xᵀ + λI)⁻¹``.
    form : {"primal", "dual"}
        Which closed form was used.
    """

    coef: np.ndarray
    loo_predictions: np.ndarray
    dual_coef: np.ndarray
    g_diag: np.ndarray
    form: str


def check_targets(y, n_samples: int) -> np.ndarray:
    """Return ``y`` as a finite float64 matrix of shape ``(n_samples, n_outputs)``."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise InputError(f"y must be a 1-D or 2-D array; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise InputError(
            f"X has {n_samples} samples but y has {y.shape[0]} rows; pass one target per row of X."
        )
    if y.shape[1] == 0:
        raise InputError("y has no output column.")
    if not np.all(np.isfinite(y)):
        raise InputError("y contains NaN or infinite values; drop or impute those targets.")
    return y


def rls_fit(X, y, alpha: float = 1.0, *, form: str = "auto") -> RLSFit:
    """Fit RLS (ridge regression without intercept) and its leave-one-out predictions.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training data (the selected columns ``X_S``).
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    alpha : float
        Regularisation ``λ > 0``.
    form : {"auto", "primal", "dual"}
        ``"auto"`` solves the primal system when ``n_features < n_samples`` and the dual one
        otherwise (cost ``O(min(n² m, n m²))``).

    Returns
    -------
    RLSFit
        ``coef`` has shape ``(n_features, n_outputs)`` even for a 1-D ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(20, 3)), rng.normal(size=20)
    >>> primal, dual = rls_fit(X, y, 0.5, form="primal"), rls_fit(X, y, 0.5, form="dual")
    >>> bool(np.allclose(primal.coef, dual.coef)), primal.coef.shape
    (True, (3, 1))
    >>> bool(np.allclose(primal.loo_predictions, dual.loo_predictions))
    True
    """
    X = check_finite_matrix(X)
    Y = check_targets(y, X.shape[0])
    lam = check_positive(alpha, "alpha")
    m, n = X.shape
    if form == "auto":
        form = "primal" if n < m else "dual"
    if form == "primal":
        # (XᵀX + λI) w = Xᵀ y; the hat matrix diagonal comes from the same factorisation.
        factor = linalg.cho_factor(X.T @ X + lam * np.eye(n))
        coef = linalg.cho_solve(factor, X.T @ Y)
        fitted = X @ coef
        h_diag = np.einsum("ij,ji->i", X, linalg.cho_solve(factor, X.T))
        g_diag = (1.0 - h_diag) / lam
        dual = (Y - fitted) / lam  # a = G y = (y − H y)/λ
    elif form == "dual":
        G = linalg.cho_solve(linalg.cho_factor(X @ X.T + lam * np.eye(m)), np.eye(m))
        dual = G @ Y
        coef = X.T @ dual
        g_diag = np.diag(G).copy()
    else:
        raise InputError(f"form must be 'auto', 'primal' or 'dual'; got {form!r}.")
    loo = Y - dual / g_diag[:, None]
    return RLSFit(coef=coef, loo_predictions=loo, dual_coef=dual, g_diag=g_diag, form=form)


def rls_loo_predictions(X, y, alpha: float = 1.0) -> np.ndarray:
    """Leave-one-out predictions of RLS by the shortcut ``p_j = y_j − a_j / G_jj``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
    alpha : float
        Regularisation ``λ > 0``.

    Returns
    -------
    ndarray of shape (n_samples, n_outputs)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X, y = rng.normal(size=(6, 2)), rng.normal(size=6)
    >>> p = rls_loo_predictions(X, y, 1.0)
    >>> keep = np.arange(6) != 0  # refit without example 0 and predict it
    >>> w = rls_fit(X[keep], y[keep], 1.0).coef
    >>> bool(np.isclose(p[0, 0], (X[0] @ w)[0]))
    True
    """
    return rls_fit(X, y, alpha).loo_predictions
