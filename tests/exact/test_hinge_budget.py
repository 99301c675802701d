"""The least hinge loss with r features (zeronorm_opt.exact.minimum_hinge_loss), checked against
brute force, and its certificate checker against forged certificates.

Brute force here is independent of the search: every support of r features gets scipy's
``linprog`` (HiGHS) on the primal ``min Σ ξ`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, not the
package's dual simplex or its anchor families.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from _hinge_lp import hinge_loss

from zeronorm_opt.exact import (
    CertificateError,
    HingeLossCertificate,
    check_hinge_certificate,
    minimum_hinge_loss,
)
from zeronorm_opt.exact import _kernels as K
from zeronorm_opt.exact.farkas import standardise
from zeronorm_opt.exceptions import InputError


def brute_force(X, y, r) -> float:
    n = X.shape[1]
    return min(hinge_loss(X, y, S) for S in combinations(range(n), min(r, n)))


def random_instance(seed: int):
    """Overlapping classes (the loss stays positive) on 4–12 features of any scale; some
    instances get a duplicated (sign-flipped) column and a constant one."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 13))
    m = int(rng.integers(8, 26))
    X = rng.normal(size=(m, n)) * rng.uniform(0.1, 100, size=n)
    rule = rng.normal(size=n) * (rng.random(n) < 0.5)
    y = np.where((X / X.std(0)) @ rule + 1.5 * rng.normal(size=m) > 0, 1, -1)
    y[:2] = [1, -1]
    if seed % 4 == 1:
        X = np.round(X / X.std(0), 1)  # ties: degenerate vertices
    if seed % 3 == 0:
        X[:, 1] = -2.0 * X[:, 0] + 5.0
        X[:, -1] = 3.0
    return X, y


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("budget", [1, 2, 3])
def test_equals_brute_force_and_certificate_checks(seed, budget):
    X, y = random_instance(seed)
    expected = brute_force(X, y, budget)
    result = minimum_hinge_loss(X, y, budget)
    assert result.status == "optimal" and result.proven_optimal
    assert result.loss == pytest.approx(expected, abs=1e-7)
    assert result.lower_bound == pytest.approx(expected, abs=1e-7)
    # the incumbent is what it claims: its support, its loss in the units of X
    assert result.support.size <= budget
    assert np.flatnonzero(result.coef).tolist() <= result.support.tolist()
    margins = y * (X @ result.coef + result.intercept)
    assert np.maximum(0, 1 - margins).sum() == pytest.approx(result.loss, abs=1e-9)
    assert hinge_loss(X, y, result.support) == pytest.approx(result.loss, abs=1e-7)
    assert check_hinge_certificate(X, y, result.certificate) == result.lower_bound


@pytest.mark.parametrize("seed", [2, 5])
def test_budget_four_by_enumeration(seed):
    X, y = random_instance(seed)
    result = minimum_hinge_loss(X, y, 4)
    assert result.lower_bound == pytest.approx(brute_force(X, y, 4), abs=1e-7)
    check_hinge_certificate(X, y, result.certificate)


def test_pairs_on_many_features_need_few_pair_lps():
    """The anchor families bound most pairs without their own LP (and the optimum is still
    brute force's)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 60))
    y = np.where(X[:, 3] + X[:, 17] + rng.normal(size=40) > 0, 1, -1)
    result = minimum_hinge_loss(X, y, 2)
    assert result.stats["pair_lps"] < comb2(60) / 4
    assert result.lower_bound == pytest.approx(brute_force(X, y, 2), abs=1e-7)
    check_hinge_certificate(X, y, result.certificate)


def comb2(n: int) -> int:
    return n * (n - 1) // 2


def test_dual_simplex_equals_linprog():
    rng = np.random.default_rng(3)
    for _ in range(60):
        m = int(rng.integers(5, 40))
        X = rng.normal(size=(m, 6))
        if rng.random() < 0.3:
            X = np.round(X, 1)
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        y[:2] = [1, -1]
        Z = standardise(X)
        YZ = np.ascontiguousarray(y[:, None] * Z)
        S = np.sort(rng.choice(6, size=int(rng.integers(1, 4)), replace=False))
        alpha = np.empty(m)
        value, pi, _ = K.dual_vertex(YZ, y, S, np.ones(m), alpha)
        assert value == pytest.approx(hinge_loss(Z, y, S), abs=1e-8)
        # the vertex is dual feasible, and the multipliers are a primal solution of that loss
        assert (alpha >= 0).all() and (alpha <= 1).all()
        assert np.abs(alpha @ YZ[:, S]).max() < 1e-9 and abs(alpha @ y) < 1e-9
        primal = np.maximum(0, 1 - YZ[:, S] @ pi[1:] - y * pi[0]).sum()
        assert primal == pytest.approx(value, abs=1e-8)


@pytest.fixture(scope="module")
def proven_pairs():
    X, y = random_instance(4)
    return X, y, minimum_hinge_loss(X, y, 2)


def test_forged_bound_is_rejected(proven_pairs):
    X, y, result = proven_pairs
    c = result.certificate
    forged = HingeLossCertificate(c.budget, c.lower_bound + 0.01, c.tol, c.supports, c.alphas)
    with pytest.raises(CertificateError, match="does not bound the support"):
        check_hinge_certificate(X, y, forged)


def test_forged_vectors_are_rejected(proven_pairs):
    X, y, result = proven_pairs
    c = result.certificate
    # scaled up past the box: bigger values, no longer a dual vector
    big = HingeLossCertificate(c.budget, c.lower_bound, c.tol, c.supports, 1.5 * c.alphas)
    with pytest.raises(CertificateError, match="not in the box"):
        check_hinge_certificate(X, y, big)
    # one class's weights moved: Σ α_i y_i ≠ 0
    shifted = c.alphas.copy()
    i = np.flatnonzero(y == 1)[0]
    shifted[0, i] = 1.0 - shifted[0, i] / 2  # changes by at least 1/2
    with pytest.raises(CertificateError, match="not in the box"):
        check_hinge_certificate(
            X, y, HingeLossCertificate(c.budget, c.lower_bound, c.tol, c.supports, shifted)
        )
    # halved: still dual vectors, but too weak for the bound
    half = HingeLossCertificate(c.budget, c.lower_bound, c.tol, c.supports, 0.5 * c.alphas)
    with pytest.raises(CertificateError, match="does not bound"):
        check_hinge_certificate(X, y, half)


def test_missing_vectors_are_rejected(proven_pairs):
    """Without the dual of the optimal pair nothing bounds it (its loss is the bound)."""
    X, y, result = proven_pairs
    c = result.certificate
    best = tuple(sorted(result.support.tolist()))
    keep = [t for t, S in enumerate(c.supports) if tuple(sorted(S)) != best]
    assert len(keep) < len(c.supports)
    partial = HingeLossCertificate(
        c.budget, c.lower_bound, c.tol, [c.supports[t] for t in keep], c.alphas[keep]
    )
    with pytest.raises(CertificateError, match=str(best[0])):
        check_hinge_certificate(X, y, partial)


def test_other_data_are_rejected(proven_pairs):
    X, y, result = proven_pairs
    noisy = X + np.random.default_rng(0).normal(size=X.shape) * X.std(0)
    with pytest.raises(CertificateError):
        check_hinge_certificate(noisy, y, result.certificate)


def test_save_and_load_round_trip(proven_pairs, tmp_path):
    X, y, result = proven_pairs
    path = tmp_path / "cert.npz"
    result.certificate.save(path)
    loaded = HingeLossCertificate.load(path)
    np.testing.assert_array_equal(loaded.alphas, result.certificate.alphas)
    assert loaded.supports == result.certificate.supports
    assert check_hinge_certificate(X, y, loaded) == result.lower_bound


def test_zero_loss_needs_no_duals():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    result = minimum_hinge_loss(X, [-1, -1, 1, 1], 2)
    assert result.loss == 0 and result.lower_bound == 0 and result.proven_optimal


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"budget": 0}, "budget must be a positive integer"),
        ({"budget": 1.5}, "budget must be a positive integer"),
        ({"budget": 2, "supports": [[0, 1, 2]]}, "at most 2 feature indices"),
        ({"budget": 2, "supports": [[0, 9]]}, "at most 2 feature indices"),
        ({"budget": 2, "time_limit": -1}, "time_limit"),
    ],
)
def test_bad_input(kwargs, match):
    X, y = random_instance(1)
    with pytest.raises(InputError, match=match):
        minimum_hinge_loss(X[:, :5], y, **kwargs)


def test_pair_scan_stopped_early_claims_nothing():
    """When the time limit ends the scan before its last anchor, the bound is the trivial 0 and
    the incumbent is still a real support with its loss."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(30, 150))  # more anchors than one compiled chunk
    y = np.where(X[:, 0] + rng.normal(size=30) > 0, 1, -1)
    seen = []
    result = minimum_hinge_loss(X, y, 2, time_limit=1e-9, progress=seen.append)
    assert result.status == "time_limit" and result.lower_bound == 0.0
    assert not result.proven_optimal
    assert result.loss == pytest.approx(hinge_loss(X, y, result.support), abs=1e-7)
    assert check_hinge_certificate(X, y, result.certificate) == 0.0
    assert len(seen) == 1 and seen[0].done < seen[0].total and "anchors" in seen[0].line()
