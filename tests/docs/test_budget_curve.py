"""The committed budget curve (docs/_static/budget_curve/colon.json) re-checked on the data.

``benchmarks/budget_curve.py`` wrote it; here every recorded loss is re-solved on its recorded
genes by an LP independent of the script's (scipy's linprog), every relaxation's loss must lie
above the exact row's proven bound, the r = 1 proof (enumeration) is redone, and every positive
bound's certificate (the dual vectors saved beside the JSON) is re-checked from the data by
:func:`zeronorm_opt.exact.check_hinge_certificate`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _hinge_lp import hinge_loss

from zeronorm_opt.exact import HingeLossCertificate, check_hinge_certificate

CURVE = Path(__file__).resolve().parents[2] / "docs" / "_static" / "budget_curve" / "colon.json"
METHODS = ("l1-AROM", "l2-AROM", "FSV", "RFE")




@pytest.fixture(scope="module")
def curve():
    return json.loads(CURVE.read_text(encoding="utf-8"))


def test_every_recorded_loss_is_its_supports_loss(curve, colon_log_standardised):
    X, y = colon_log_standardised
    assert [row["r"] for row in curve["rows"]] == list(range(1, len(curve["rows"]) + 1))
    for row in curve["rows"]:
        for name in (*METHODS, "exact"):
            entry = row[name]
            assert len(entry["genes"]) <= row["r"], (row["r"], name)
            assert hinge_loss(X, y, entry["genes"]) == pytest.approx(entry["loss"], abs=1e-6)


def test_exact_row_brackets_every_method(curve):
    for row in curve["rows"]:
        exact = row["exact"]
        assert exact["bound"] <= exact["loss"] + 1e-9
        # the exact row's incumbent is the best support known, its bound below every method
        for name in METHODS:
            assert exact["loss"] <= row[name]["loss"] + 1e-9, (row["r"], name)
            assert row[name]["loss"] >= exact["bound"] - 1e-6, (row["r"], name)
        gap = exact["loss"] - exact["bound"]
        assert exact["proven_optimal"] == (gap <= 1e-9 * max(1.0, exact["loss"]))
        # a positive bound is never claimed without its certificate
        assert (exact["bound"] > 0) == (exact["certificate"] is not None)


def test_single_gene_proof_by_enumeration(curve, colon_log_standardised):
    X, y = colon_log_standardised
    first = curve["rows"][0]
    assert first["r"] == 1 and first["exact"]["proven_optimal"]
    best = min(hinge_loss(X, y, [j]) for j in range(X.shape[1]))
    assert first["exact"]["bound"] == pytest.approx(best, abs=1e-6)


def test_every_certificate_proves_its_bound(curve, colon_log_standardised):
    """Each saved certificate is for its budget, claims the recorded bound, and holds: every
    support of r genes is bounded by one of its dual vectors or a combination of two."""
    X, y = colon_log_standardised
    certified = [row for row in curve["rows"] if row["exact"]["certificate"]]
    assert {row["r"] for row in certified} >= {1, 2}  # the rows the MILP could not bound
    for row in certified:
        certificate = HingeLossCertificate.load(CURVE.parent / row["exact"]["certificate"])
        assert certificate.budget == row["r"]
        assert certificate.lower_bound == pytest.approx(row["exact"]["bound"], rel=1e-12)
        assert check_hinge_certificate(X, y, certificate) == certificate.lower_bound


def test_sampled_supports_lie_above_the_bounds(curve, colon_log_standardised):
    """Independent of the certificates: random supports of r genes, solved by scipy, never
    beat a recorded bound (and the recorded optimum is reached by its own genes)."""
    X, y = colon_log_standardised
    rng = np.random.default_rng(0)
    for row in curve["rows"]:
        if row["exact"]["bound"] <= 0:
            continue
        for _ in range(40):
            genes = rng.choice(X.shape[1], size=row["r"], replace=False)
            assert hinge_loss(X, y, genes) >= row["exact"]["bound"] - 1e-6
