"""Sparse test data (the generator of benchmarks/bench_many_samples.py, small) and a guard
that makes densifying a sparse matrix fail."""

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


#: The sparse classes whose ``toarray``/``todense`` :func:`refuse_densifying` patches.
SPARSE_CLASSES = (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array,
                  sp.coo_array)  # fmt: skip


def refuse_densifying(monkeypatch, too_large):
    """Make ``toarray``/``todense`` of a sparse matrix raise an AssertionError ("densified")
    when ``too_large(shape)``; smaller ones (a row of column extrema, a Gram matrix) pass."""

    def guarded(original):
        def densify(self, *args, **kwargs):
            if too_large(self.shape):
                raise AssertionError(f"a sparse {self.shape} matrix was densified")
            return original(self, *args, **kwargs)

        return densify

    for cls in SPARSE_CLASSES:
        for name in ("toarray", "todense"):
            monkeypatch.setattr(cls, name, guarded(getattr(cls, name)))
