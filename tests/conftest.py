"""Shared fixtures: E1 data of the zero-norm paper, colon as the experiments prepare it."""

import numpy as np
import pytest

from zeronorm_opt.datasets import load_microarray, make_weston_linear


@pytest.fixture(scope="session")
def e1_data():
    """30 training points of the linear toy problem (separable: 202 features > 30 points)."""
    return make_weston_linear(30, random_state=7)


@pytest.fixture(scope="session")
def inseparable_data():
    """Two overlapping Gaussian classes in 3 dimensions: not linearly separable."""
    rng = np.random.default_rng(3)
    y = np.repeat([-1, 1], 40)
    X = rng.normal(size=(80, 3)) + 0.3 * y[:, None]
    return X, y


@pytest.fixture(scope="session")
def colon_log_standardised():
    """Colon, 62 × 2000: log10 of the expression levels, standardised (as the experiments)."""
    try:
        data = load_microarray("colon")
    except FileNotFoundError:
        pytest.skip("colon data not found (set ZERONORM_OPT_DATA)")
    X = np.log10(data.X)
    return (X - X.mean(axis=0)) / X.std(axis=0), data.y
