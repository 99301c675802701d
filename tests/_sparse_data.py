"""Sparse text-like test data: the generator of benchmarks/bench_many_samples.py, small."""

import numpy as np
import scipy.sparse as sp


def sparse_classification(m, n, density=0.005, seed=0):
    """``scipy.sparse.random`` CSR (uniform values); labels from a noisy rule on 20 columns."""
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=density, format="csr", random_state=seed)
    w = np.zeros(n)
    w[:20] = rng.standard_normal(20)
    s = X @ w
    return X, np.where(s - np.median(s) + 0.2 * s.std() * rng.standard_normal(m) >= 0, 1, -1)
