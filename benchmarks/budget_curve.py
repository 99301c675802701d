"""The budget curve on colon: the exact minimum hinge loss with at most r genes, r = 1…10,
beside what l1-AROM, l2-AROM, FSV and RFE reach with r genes.

Every method is measured the same way: its support at budget r, then the least hinge loss
``min Σ_i ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0`` with ``w`` zero outside the
support (an LP, :func:`hinge_loss_on_support`). The exact row is
:func:`zeronorm_opt.exact.minimum_hinge_loss` (the budget form, C = 1), started from the
relaxations' supports and the previous budget's optimum (:func:`exact_row`): r = 1 enumerates
the 2000 genes, r = 2 bounds all 2 million pairs by LP duality (anchor families of dual
vertices, one small LP for each pair they leave), and from r = 3 a support separates (loss 0:
the best pair and one more gene, found by forward selection; no triple needs bounding). Where a
budget cannot be bounded (more supports than the enumeration takes, a loss above 0) the row is
the best support known over the trivial bound 0. Each positive bound is saved with its
certificate (``colon_r{r}.npz``), which ``tests/docs/test_budget_curve.py`` re-checks from the
data. (The big-M MILP of
``ExactZeroNormFormulation(X, y, max_features=r)`` proved nothing here: its bound stayed 0
after 90 s for r = 2 and 3, the relaxation of ``|w_j| ≤ M s_j`` being nearly free.)
The relaxations are run with ``n_features_to_select=r``
(AROM, FSV: hard margin, their defaults); RFE is scikit-learn's ``RFE`` with a linear SVM
(C = 1), one gene removed per round (its ranking gives the support of every r).

Writes ``docs/_static/budget_curve/colon.json`` (and the certificates beside it), which the
gallery example ``docs/gallery/plot_budget_curve.py`` draws and ``tests/docs/test_budget_curve.py``
re-checks. Run from the repository root::

    PYTHONPATH=. python -m benchmarks.budget_curve [--time-limit 900] [--max-r 10]

(the committed files: about 2 minutes on 2 shared cores, most of it scikit-learn's RFE).

Data: colon (62 × 2000, log10 of the intensities, standardised).
"""

from __future__ import annotations

import argparse
import json
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


def budget_curve(X, y, max_r: int = 10, time_limit: float = 900.0, log=print) -> dict:
    """The rows of the curve: per r, the exact row (incumbent, bound) and each method's loss."""
    ranking = rfe_ranking(X, y)
    rows = []
    previous = None
    for r in range(1, max_r + 1):
        supports = relaxation_supports(X, y, r)
        supports["RFE"] = ranking <= r
        row = {"r": r}
        for name in METHODS:
            genes = np.flatnonzero(supports[name])
            loss = hinge_loss_on_support(X, y, supports[name])
            row[name] = {"genes": genes.tolist(), "loss": loss}
        row["exact"] = exact_row(X, y, r, row, time_limit, previous)
        previous = row["exact"]["genes"]
        log(
            f"r={r}: exact {row['exact']['loss']:.4f} (bound {row['exact']['bound']:.4f}, "
            f"proven {row['exact']['proven_optimal']}, {row['exact']['seconds']:.1f} s); "
            + ", ".join(f"{m} {row[m]['loss']:.4f}" for m in METHODS)
        )
        rows.append(row)
    return {
        "data": "colon, 62 x 2000, log10 then standardised",
        "objective": "min sum_i xi_i s.t. y_i(w.x_i + b) >= 1 - xi_i, xi >= 0, ||w||_0 <= r",
        "time_limit_per_r": time_limit,
        "rows": rows,
    }


def exact_row(X, y, r: int, row: dict, time_limit: float, previous=None) -> dict:
    """The exact minimum at budget r (:func:`zeronorm_opt.exact.minimum_hinge_loss`).

    The relaxations' supports and the previous budget's optimum are its first incumbents. A
    positive bound is saved with its certificate beside the JSON file
    (``colon_r{r}.npz``, :meth:`~zeronorm_opt.exact.HingeLossCertificate.save`).
    """
    from zeronorm_opt.exact import minimum_hinge_loss

    candidates = [row[m]["genes"] for m in METHODS]
    if previous is not None:
        candidates.append(previous)
    result = minimum_hinge_loss(X, y, r, supports=candidates, time_limit=time_limit)
    proofs = {
        "optimal": f"LP duality: {result.stats.get('vectors', 0)} dual vectors "
        f"({result.stats.get('family_vectors', 0)} of them anchor families), "
        f"{result.stats.get('lps', 0)} support LPs",
        "time_limit": f"the pair scan did not finish in {time_limit:g} s",
        "enumeration_limit": "supports of r genes too many to bound (none below: 0)",
    }
    certificate = None
    if result.lower_bound > 0:
        certificate = f"colon_r{r}.npz"
        result.certificate.save(OUT.parent / certificate)
    if result.proven_optimal and result.lower_bound == 0:
        proof = "a support that separates: no hinge loss is below 0"
    else:
        proof = proofs[result.status]
    return {
        "genes": result.support.tolist(),
        "loss": result.loss,
        "bound": result.lower_bound,
        "proof": proof,
        "proven_optimal": bool(result.proven_optimal),
        "certificate": certificate,
        "seconds": result.elapsed,
    }


def genes_mask(genes, X) -> np.ndarray:
    mask = np.zeros(X.shape[1], dtype=bool)
    mask[np.asarray(genes, dtype=int)] = True
    return mask


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=900.0, help="seconds per budget")
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
