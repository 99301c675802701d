"""Hand-written references the package is measured against (not part of zeronorm_opt).

Each is the loop a practitioner would write without the toolkit, with the same stopping rules
as the package: l1-AROM and FSV as split-variable LPs solved by ``scipy.optimize.linprog``
(HiGHS), l2-AROM and its one-vs-rest version as ``SVC`` loops on the rescaled active features,
and greedy RLS as a plain NumPy transcription of Algorithm 3 of Pahikkala et al. (2010).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog
from sklearn.svm import SVC

TOL = 1e-5  # AROM's tolerance on the normalised scale factors
PRUNE = 1e-6  # relative threshold below which a scale factor is zero


def _margin_lp(X, y, cost):
    """``min costᵀ(v⁺ + v⁻)`` s.t. ``y_i ((v⁺ − v⁻)·x_i + b) ≥ 1``, ``v± ≥ 0``: returns ``v``.

    ``m`` rows and ``2n + 1`` columns (the bias free), the compact form of a weighted-l1 hard
    margin problem.
    """
    m, n = X.shape
    yX = y[:, None] * X
    A = np.hstack([-yX, yX, -y[:, None].astype(float)])
    c = np.concatenate([cost, cost, [0.0]])
    bounds = [(0, None)] * (2 * n) + [(None, None)]
    res = linprog(c, A_ub=A, b_ub=-np.ones(m), bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"reference LP failed: {res.message}")
    return res.x[:n] - res.x[n : 2 * n]


def _converged(z_new, z_old):
    if not np.array_equal(z_new > 0, z_old > 0):
        return False
    return np.max(np.abs(z_new / z_new.max() - z_old / z_old.max())) <= TOL


def _prune(v):
    z = np.abs(v)
    z[z <= PRUNE * z.max()] = 0.0
    return z


def l1_arom_highs(X, y, max_iter: int = 50):
    """l1-AROM by linprog/HiGHS on the active features only: returns ``(v, n_iter)``."""
    n = X.shape[1]
    z = np.ones(n)
    v = np.zeros(n)
    for it in range(1, max_iter + 1):
        active = np.flatnonzero(z)
        v = np.zeros(n)
        v[active] = _margin_lp(X[:, active], y, 1.0 / (z[active] / z.max()))
        new = _prune(v)
        if _converged(new, z):
            return v, it
        z = new
    return v, max_iter


def fsv_objective(v, alpha: float = 5.0) -> float:
    """FSV's concave objective ``Σ_j (1 − e^{−α|v_j|})``."""
    return float(np.sum(1.0 - np.exp(-alpha * np.abs(v))))


def fsv_highs(X, y, alpha: float = 5.0, max_iter: int = 50, rtol: float = 1e-5):
    """FSV's successive linearisation by linprog/HiGHS, ``v⁰ = 0``, costs ``α e^{−α v}``.

    The first LP (from ``v⁰ = 0``, costs ``α``) gives the first feasible iterate; the loop
    stops when the objective no longer decreases (relative change ≤ ``rtol``). Returns
    ``(v, n_lps)``.
    """
    v = _margin_lp(X, y, np.full(X.shape[1], alpha))
    f = fsv_objective(v, alpha)
    for it in range(2, max_iter + 1):
        new = _margin_lp(X, y, alpha * np.exp(-alpha * np.abs(v)))
        f_new = fsv_objective(new, alpha)
        if f - f_new <= rtol * abs(f):
            return (new if f_new < f else v), it
        v, f = new, f_new
    return v, max_iter


def l2_arom_svc(X, y, C: float = 1e6, max_iter: int = 50):
    """l2-AROM as an ``SVC(kernel="linear")`` loop on the rescaled active features."""
    n = X.shape[1]
    z = np.ones(n)
    v = np.zeros(n)
    for it in range(1, max_iter + 1):
        active = np.flatnonzero(z)
        svc = SVC(kernel="linear", C=C).fit(X[:, active] * z[active], y)
        v = np.zeros(n)
        v[active] = z[active] * svc.coef_[0]
        new = _prune(v)
        if _converged(new, z):
            return v, it
        z = new / new.max()
    return v, max_iter


def ovr_svc_loop(X, y, C: float = 1.0, max_iter: int = 50):
    """One-vs-rest l2-AROM: one ``SVC`` per class on the shared rescaled features per step.

    The scale of feature ``j`` is the norm of its weights over the classes, ``‖W_{·j}‖₂``.
    """
    classes = np.unique(y)
    n = X.shape[1]
    z = np.ones(n)
    W = np.zeros((len(classes), n))
    for it in range(1, max_iter + 1):
        active = np.flatnonzero(z)
        Xz = X[:, active] * z[active]
        W = np.zeros((len(classes), n))
        for k, cls in enumerate(classes):
            svc = SVC(kernel="linear", C=C).fit(Xz, np.where(y == cls, 1, -1))
            W[k, active] = z[active] * svc.coef_[0]
        new = _prune(np.sqrt((W**2).sum(axis=0)))
        if _converged(new, z):
            return W, it
        z = new / new.max()
    return W, max_iter


def greedy_rls_plain(X, y, k: int, lam: float = 1.0):
    """Algorithm 3 of Pahikkala et al. (2010) written plainly in NumPy (squared LOO loss).

    The cache ``C = G Xᵀ`` is kept as ``n × m``; every round scores all candidates with
    whole-matrix temporaries and applies the winner's rank-one update.
    """
    XT = np.ascontiguousarray(X.T)
    CT = XT / lam
    a = y / lam
    d = np.full(X.shape[0], 1.0 / lam)
    selected = []
    for _ in range(k):
        denom = 1.0 + np.einsum("ij,ij->i", XT, CT)
        U = CT / denom[:, None]
        a_new = a[None, :] - U * (XT @ a)[:, None]
        d_new = d[None, :] - U * CT
        loss = np.mean((a_new / d_new) ** 2, axis=1)
        loss[selected] = np.inf
        b = int(np.argmin(loss))
        u = U[b].copy()
        v = XT[b].copy()
        a -= u * (v @ a)
        d -= u * CT[b]
        CT -= np.outer(CT @ v, u)
        selected.append(b)
    return np.asarray(selected)
