"""Figure of the relaxation ladder l0 → lq → log → l1 → l2 (docs/methods/relaxation_ladder.rst).

Run from the repository root to regenerate ``docs/methods/relaxation_ladder.png``::

    python docs/methods/plot_relaxation_ladder.py

Left: the penalties φ(t) of one coefficient. Right: the coefficients each penalty gives on one
small noisy sparse-recovery problem (n = 15 examples, p = 30 features, 3 non-zero), all with
the same data and the same λ = 0.05 in (1/n)‖y − Φβ‖² + λ·penalty (l0: the exact best subset
of size 3 by enumeration).
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from zeronorm_opt.driver import successive_linearisation  # noqa: E402
from zeronorm_opt.fast.bridge import bridge_regression  # noqa: E402
from zeronorm_opt.fast.ista import fista  # noqa: E402
from zeronorm_opt.fast.rls import rls_fit  # noqa: E402
from zeronorm_opt.formulations.regression import LassoFormulation  # noqa: E402
from zeronorm_opt.surrogates import LogSurrogate  # noqa: E402

OUT = Path(__file__).with_name("relaxation_ladder.png")


def problem(seed: int = 4):
    rng = np.random.default_rng(seed)
    n, p = 15, 30
    Phi = rng.normal(size=(n, p))
    beta = np.zeros(p)
    beta[[4, 12, 23]] = [2.0, -1.5, 1.0]
    return Phi, Phi @ beta + 0.1 * rng.normal(size=n), beta


def best_subset(Phi, y, k):
    """Exact l0-constrained least squares by enumeration (tiny p only)."""
    best, best_rss = None, np.inf
    for cols in combinations(range(Phi.shape[1]), k):
        coef, *_ = np.linalg.lstsq(Phi[:, cols], y, rcond=None)
        rss = np.sum((y - Phi[:, cols] @ coef) ** 2)
        if rss < best_rss:
            best, best_rss = (cols, coef), rss
    out = np.zeros(Phi.shape[1])
    out[list(best[0])] = best[1]
    return out


def solutions(Phi, y, lam=0.05):
    log_form = LassoFormulation(Phi, y, lam)
    log_res = successive_linearisation(log_form, LogSurrogate(eps=1e-3))
    return {
        "l0 (best subset, k = 3)": best_subset(Phi, y, 3),
        "lq, q = 0.5 (bridge)": bridge_regression(Phi, y, lam, q=0.5).coef,
        "log(ε + |t|)": log_res.coef,
        "l1 (Lasso)": fista(Phi, y, lam, tol=1e-12).coef,
        "l2 (ridge)": rls_fit(Phi, y, lam * Phi.shape[0]).coef[:, 0],
    }


def main() -> None:
    Phi, y, beta = problem()
    t = np.linspace(-2, 2, 801)
    fig = plt.figure(figsize=(10, 4.2), layout="constrained")
    grid = fig.add_gridspec(5, 2, width_ratios=[1, 1.4])
    ax = fig.add_subplot(grid[:, 0])
    ax.plot(t, (np.abs(t) > 1e-9).astype(float), label="l0: 1[t ≠ 0]")
    ax.plot(t, np.sqrt(np.abs(t)), label="lq: |t|^½")
    ax.plot(t, np.log1p(np.abs(t) / 0.05) / np.log1p(1 / 0.05), label="log: ln(1 + |t|/ε), scaled")
    ax.plot(t, np.abs(t), label="l1: |t|")
    ax.plot(t, t**2, label="l2: t²")
    ax.set(xlabel="t", ylabel="φ(t)", ylim=(-0.05, 2.05), title="penalties")
    ax.legend(fontsize=8, loc="upper center")
    idx = np.arange(Phi.shape[1])
    for row, (name, coef) in enumerate(solutions(Phi, y).items()):
        ax = fig.add_subplot(grid[row, 1])
        ax.vlines(idx, 0, coef, color="C0", lw=2.5)
        ax.plot(idx[beta != 0], beta[beta != 0], "x", color="C3", label="true β")
        ax.axhline(0, color="0.6", lw=0.5)
        nnz = int(np.sum(np.abs(coef) > 1e-6 * np.abs(coef).max()))
        label = f"{name}: {nnz} non-zero"
        ax.text(0.58, 0.9, label, transform=ax.transAxes, ha="center", va="top", fontsize=8)
        ax.set_ylim(-2.2, 2.4)
        ax.set_yticks([])
        if row < 4:
            ax.set_xticks([])
    ax.set_xlabel("coefficient j")
    fig.savefig(OUT, dpi=90)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
