"""The budget curve on colon: the exact minimum hinge loss with at most r genes, r = 1…10,
beside what l1-AROM, l2-AROM, FSV and RFE reach with r genes.

Every method is measured the same way: its support at budget r, then the least hinge loss
``min Σ_i ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0`` with ``w`` zero outside the
support (an LP, :func:`hinge_loss_on_support`). The exact row is
``ExactZeroNormFormulation(X, y, max_features=r)`` (the budget form, C = 1) solved by HiGHS
with a time limit per r, where needed (:func:`exact_row`): the best loss known (the MILP's
incumbent or a relaxation's support, re-solved by the same LP) and the proven lower bound
are both recorded. The relaxations are run with ``n_features_to_select=r``
(AROM, FSV: hard margin, their defaults); RFE is scikit-learn's ``RFE`` with a linear SVM
(C = 1), one gene removed per round (its ranking gives the support of every r).

Writes ``docs/_static/budget_curve/colon.json``, which the gallery example
``docs/gallery/plot_budget_curve.py`` draws and ``tests/test_budget_curve.py`` re-checks.
Run from the repository root (a few minutes: the MILP runs only where no cheaper proof exists)::

    PYTHONPATH=. python -m benchmarks.budget_curve --time-limit 90 [--max-r 10]

(the committed file: 90 s per MILP, about 4 minutes on 2 shared cores).

Data: colon (62 × 2000, log10 of the intensities, standardised).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cvxpy as cp
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "docs" / "_static" / "budget_curve" / "colon.json"
METHODS = ("l1-AROM", "l2-AROM", "FSV", "RFE")


def hinge_loss_on_support(X, y, support) -> float:
    """``min Σ ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0``, ``w`` zero off ``support``."""
    support = np.asarray(support, dtype=bool)
    b = cp.Variable()
    xi = cp.Variable(X.shape[0], nonneg=True)
    scores = b if not support.any() else X[:, support] @ cp.Variable(int(support.sum())) + b
    problem = cp.Problem(cp.Minimize(cp.sum(xi)), [cp.multiply(y, scores) >= 1 - xi])
    problem.solve(solver="HIGHS")
    return float(problem.value)


def relaxation_supports(X, y, r: int) -> dict[str, np.ndarray]:
    """The support each relaxation selects with ``n_features_to_select=r``."""
    from zeronorm_opt import AROM, FSV

    return {
        "l1-AROM": AROM(penalty="l1", n_features_to_select=r).fit(X, y).support_,
        "l2-AROM": AROM(penalty="l2", n_features_to_select=r).fit(X, y).support_,
        "FSV": FSV(n_features_to_select=r).fit(X, y).support_,
    }


def rfe_ranking(X, y) -> np.ndarray:
    """scikit-learn's RFE ranking (linear SVM, C = 1, one gene per round): top r = support."""
    from sklearn.feature_selection import RFE
    from sklearn.svm import SVC

    return RFE(SVC(kernel="linear", C=1.0), n_features_to_select=1, step=1).fit(X, y).ranking_


def budget_curve(X, y, max_r: int = 10, time_limit: float = 60.0, log=print) -> dict:
    """The rows of the curve: per r, the exact row (incumbent, bound) and each method's loss."""
    ranking = rfe_ranking(X, y)
    rows = []
    for r in range(1, max_r + 1):
        supports = relaxation_supports(X, y, r)
        supports["RFE"] = ranking <= r
        row = {"r": r}
        for name in METHODS:
            genes = np.flatnonzero(supports[name])
            loss = hinge_loss_on_support(X, y, supports[name])
            row[name] = {"genes": genes.tolist(), "loss": loss}
        row["exact"] = exact_row(X, y, r, row, time_limit)
        log(
            f"r={r}: exact {row['exact']['loss']:.4f} (bound {row['exact']['bound']:.4f}, "
            f"proven {row['exact']['proven_optimal']}); "
            + ", ".join(f"{m} {row[m]['loss']:.4f}" for m in METHODS)
        )
        rows.append(row)
    return {
        "data": "colon, 62 x 2000, log10 then standardised",
        "objective": "min sum_i xi_i s.t. y_i(w.x_i + b) >= 1 - xi_i, xi >= 0, ||w||_0 <= r",
        "time_limit_per_r": time_limit,
        "rows": rows,
    }


def exact_row(X, y, r: int, row: dict, time_limit: float) -> dict:
    """The exact minimum at budget r: the best loss known and a proven lower bound.

    The incumbent is the best of the MILP's and the relaxations' supports (each re-solved by
    :func:`hinge_loss_on_support`); the bound is the strongest of: 0 (a loss is never
    negative: a relaxation reaching 0 is optimal, no MILP needed), the enumeration of every
    single gene (r = 1) and the HiGHS MILP's bound after ``time_limit`` seconds.
    """
    from zeronorm_opt.formulations import ExactZeroNormFormulation

    start = time.perf_counter()
    candidates = {m: row[m] for m in METHODS}
    bound, proof = 0.0, "a hinge loss is never negative"
    if r == 1:  # one LP per gene: the enumeration is the proof
        losses = [hinge_loss_on_support(X, y, genes_mask([j], X)) for j in range(X.shape[1])]
        j = int(np.argmin(losses))
        candidates["enumeration"] = {"genes": [j], "loss": float(losses[j])}
        bound, proof = float(losses[j]), f"enumeration of the {X.shape[1]} single genes"
    milp = None
    if min(c["loss"] for c in candidates.values()) > bound:
        f = ExactZeroNormFormulation(X, y, max_features=r)
        info = f.solve(time_limit=time_limit)
        genes = np.flatnonzero(f.support())
        milp = {
            "genes": genes.tolist(),
            "loss": hinge_loss_on_support(X, y, genes_mask(genes, X)),
            "bound": float(info.bound),
            "proven_optimal": bool(info.proven_optimal),
        }
        candidates["MILP"] = milp
        if info.bound > bound:
            bound, proof = float(info.bound), f"HiGHS MILP bound after {time_limit:g} s"
    source = min(candidates, key=lambda c: candidates[c]["loss"])
    best = candidates[source]
    return {
        "genes": best["genes"],
        "loss": best["loss"],
        "found_by": source,
        "bound": bound,
        "proof": proof,
        "proven_optimal": bool(best["loss"] - bound <= 1e-9 * max(1.0, best["loss"])),
        "milp": milp,
        "seconds": time.perf_counter() - start,
    }


def genes_mask(genes, X) -> np.ndarray:
    mask = np.zeros(X.shape[1], dtype=bool)
    mask[np.asarray(genes, dtype=int)] = True
    return mask


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per exact solve")
    parser.add_argument("--max-r", type=int, default=10)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    from benchmarks._common import colon

    X, y = colon()
    result = budget_curve(X, y, args.max_r, args.time_limit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main()
