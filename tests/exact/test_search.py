"""The certified sparsest separating support (zeronorm_opt.exact), checked against brute force.

Brute force here is independent of the search: every support, smallest first, is tested with
cvxpy's HiGHS interface (``support_objective`` of the ladder), not with the search's scipy LPs
or its Farkas screens. Every certificate the search returns is re-checked from the data.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from zeronorm_opt import NotSeparableError
from zeronorm_opt.exact import (
    CertificateError,
    SeparabilityCertificate,
    check_certificate,
    minimum_separating_support,
)
from zeronorm_opt.exact.farkas import farkas_residuals, one_feature_certificates, standardise
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.ladder import support_objective


def brute_force_size(X, y) -> int | None:
    """The fewest features with a hard-margin separator (None: the data are not separable)."""
    n = X.shape[1]
    for k in range(1, n + 1):
        for S in combinations(range(n), k):
            mask = np.zeros(n, dtype=bool)
            mask[list(S)] = True
            if np.isfinite(support_objective(X, y, mask)):
                return k
    return None


def random_instance(seed: int):
    """Separable data whose sparsest support has 1 to ~6 features out of ≤ 12."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 13))
    m = int(rng.integers(6, 17))
    X = rng.normal(size=(m, n)) * rng.uniform(0.1, 100, size=n)  # features of any scale
    rule = rng.normal(size=n) * (rng.random(n) < 0.4)
    y = np.where((X / X.std(0)) @ rule + 0.3 * rng.normal(size=m) > 0, 1, -1)
    y[:2] = [1, -1]
    return X, y


@pytest.mark.parametrize("seed", range(14))
def test_equals_brute_force_and_certificate_checks(seed):
    X, y = random_instance(seed)
    expected = brute_force_size(X, y)
    if expected is None:
        with pytest.raises(NotSeparableError):
            minimum_separating_support(X, y)
        return
    result = minimum_separating_support(X, y)
    assert result.n_selected == expected
    assert result.lower_bound == expected and result.proven_optimal
    assert result.status == "optimal"
    # the incumbent separates, in X's units, and the bound is re-derived from the data
    margins = y * (X @ result.coef + result.intercept)
    assert margins.min() >= 1 - 1e-6
    assert set(np.flatnonzero(result.coef)) <= set(result.support.tolist())
    bound = check_certificate(X, y, result.certificate, support=result.support,
                              coef=result.coef, intercept=result.intercept)  # fmt: skip
    assert bound == expected


def test_instances_reach_every_level():
    """The brute-force comparison above covers sizes 1 to ≥ 4 (the LP enumeration level)."""
    sizes = {brute_force_size(*random_instance(seed)) for seed in range(14)}
    assert {1, 2, 3} <= sizes and max(s for s in sizes if s) >= 4


def test_explicit_certificates_are_farkas_vectors():
    X, y = random_instance(3)
    result = minimum_separating_support(X, y)
    Z = standardise(X)
    yy = np.where(y > 0, 1.0, -1.0)
    for support, samples, weights in result.certificate.explicit:
        assert (weights >= 0).all() and weights.sum() == pytest.approx(1)
        r = farkas_residuals(Z, yy, samples, weights)
        assert abs(r[0]) <= 1e-9 and np.abs(r[1:][list(support)]).max() <= 1e-9


def test_one_feature_certificates_are_valid_and_deterministic():
    X, y = random_instance(5)
    Z = standardise(X)
    first = one_feature_certificates(Z, y, 16)
    assert np.array_equal(first, one_feature_certificates(Z, y, 16))
    for a in range(Z.shape[1]):
        for q, lo, hi in first[a][first[a, :, 0] >= 0]:
            assert y[lo] == y[hi] != y[q] and Z[lo, a] < Z[q, a] < Z[hi, a]


def test_a_claimed_bound_too_high_is_rejected():
    X, y = random_instance(2)
    result = minimum_separating_support(X, y)
    forged = SeparabilityCertificate(result.lower_bound + 1, result.certificate.per_feature,
                                     result.certificate.explicit)  # fmt: skip
    with pytest.raises(CertificateError, match="does not exclude the support"):
        check_certificate(X, y, forged)


def test_corrupted_explicit_certificate_is_rejected():
    X, y = random_instance(9)  # an instance whose proof needs explicit LP certificates
    result = minimum_separating_support(X, y)
    assert result.certificate.explicit
    bad = [(S, samples, weights[::-1].copy() + 0.1) for S, samples, weights in
           result.certificate.explicit]  # fmt: skip
    forged = SeparabilityCertificate(result.lower_bound, result.certificate.per_feature, bad)
    with pytest.raises(CertificateError):
        check_certificate(X, y, forged)


def test_separator_check_rejects_a_non_separating_support():
    X, y = random_instance(2)
    result = minimum_separating_support(X, y)
    with pytest.raises(CertificateError, match="does not separate"):
        check_certificate(X, y, result.certificate, support=result.support,
                          coef=0.5 * result.coef, intercept=0.5 * result.intercept)  # fmt: skip


def test_certificate_round_trips_through_json():
    X, y = random_instance(9)
    result = minimum_separating_support(X, y)
    again = SeparabilityCertificate.from_dict(result.certificate.to_dict())
    assert check_certificate(X, y, again) == result.lower_bound


def test_ctrl_c_returns_the_incumbent_with_its_bound():
    X, y = random_instance(9)  # proven only at size ≥ 4: the search runs several levels
    full = minimum_separating_support(X, y)
    seen = []

    def interrupt(p):
        seen.append(p)
        if p.level >= 3:
            raise KeyboardInterrupt

    result = minimum_separating_support(X, y, progress=interrupt)
    assert result.status == "interrupted"
    assert result.lower_bound == 3 < full.lower_bound  # sizes 1 and 2 were excluded
    assert result.n_selected >= full.n_selected
    assert check_certificate(X, y, result.certificate, support=result.support,
                             coef=result.coef, intercept=result.intercept) == 3  # fmt: skip


def test_time_limit_returns_a_checked_bound(monkeypatch):
    X, y = random_instance(9)
    clock = iter(np.arange(0.0, 1e6, 10.0))  # every reading of the clock: 10 s later
    monkeypatch.setattr("zeronorm_opt.exact.search.time.perf_counter", lambda: next(clock))
    result = minimum_separating_support(X, y, time_limit=25)
    assert result.status == "time_limit" and not result.proven_optimal
    assert check_certificate(X, y, result.certificate) == result.lower_bound


def test_progress_line_shows_incumbent_bound_gap_elapsed(capsys):
    X, y = random_instance(9)
    minimum_separating_support(X, y, progress=True)
    err = capsys.readouterr().err
    assert "incumbent" in err and "proven bound" in err and "gap" in err and " s" in err


def test_enumeration_limit_stops_with_a_bound():
    X, y = random_instance(9)
    result = minimum_separating_support(X, y, max_supports=1)
    assert result.status == "enumeration_limit" and result.lower_bound == 4


def test_inseparable_data_and_bad_input(inseparable_data):
    with pytest.raises(NotSeparableError, match="not linearly separable"):
        minimum_separating_support(*inseparable_data)
    X, y = random_instance(0)
    with pytest.raises(InputError, match="time_limit"):
        minimum_separating_support(X, y, time_limit=-1)
    with pytest.raises(InputError, match="per_feature"):
        minimum_separating_support(X, y, per_feature=1)
    with pytest.raises(InputError, match="progress"):
        minimum_separating_support(X, y, progress="yes")
    with pytest.raises(InputError, match="initial_supports"):
        minimum_separating_support(X, y, initial_supports=[[0, X.shape[1]]])


def test_warm_start_is_pruned_to_a_minimal_separating_support():
    X, y = random_instance(13)
    everything = np.ones(X.shape[1], dtype=bool)
    result = minimum_separating_support(X, y, initial_supports=[everything])
    assert result.n_selected == brute_force_size(X, y)


@pytest.mark.parametrize("seed", [1, 4, 10])
def test_duplicated_and_negated_features(seed):
    """Columns equal up to sign (and scale) are interchangeable: the search skips supports
    holding two of them, and the checker accepts the bound only because every smaller
    support is excluded."""
    X, y = random_instance(seed)
    X = np.hstack([X, -3.0 * X[:, :2], X[:, :1]])  # three copies of features 0 and 1
    expected = brute_force_size(X, y)
    result = minimum_separating_support(X, y)
    assert result.n_selected == result.lower_bound == expected
    assert check_certificate(X, y, result.certificate) == expected
