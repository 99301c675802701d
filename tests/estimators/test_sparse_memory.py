"""No dense copy of a sparse X on the soft-margin zero-norm paths (l1-AROM, FSV, l2-AROM): the
memory a fit allocates stays within a small multiple of X's own bytes.

Measured with :mod:`tracemalloc`, to which NumPy reports its array buffers: a dense copy of X
(or any array of X's shape) would be 8·m·n bytes, 133 times the CSR arrays of a 0.5 % dense X,
far above the bounds below. (The solver libraries' own allocations — HiGHS's copy of the LP,
libsvm's cache — are not traced; ``benchmarks/bench_memory.py`` measures the resident peak.)
"""

from __future__ import annotations

import tracemalloc
import warnings

import pytest
from _sparse_data import sparse_classification

from zeronorm_opt import AROM, FSV

#: Traced peak allowed per byte of X (the fits measured 2-7 times X; a dense copy is 133).
MULTIPLE_OF_X = 20


# l1-AROM on a smaller set: its interior point factorises a dense m × m normal matrix (32 MB at
# m = 2000, 13 times that X's CSR arrays).
CASES = {
    "FSV": (lambda: FSV(C=1.0), 2000, 20_000),
    "l2-AROM": (lambda: AROM(penalty="l2", C=1.0), 2000, 20_000),
    "l1-AROM": (lambda: AROM(penalty="l1", C=1.0), 400, 4000),
}


@pytest.mark.parametrize("method", list(CASES))
def test_a_fit_on_sparse_x_allocates_a_small_multiple_of_x(method):
    make, m, n = CASES[method]
    X, y = sparse_classification(m, n)
    own = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    bound = MULTIPLE_OF_X * own
    assert bound < 8 * m * n / 2  # a dense copy of X would break the bound
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make().fit(X[:100], y[:100])  # lazy imports and first-use caches outside the measure
    estimator = make()
    tracemalloc.start()
    try:
        estimator.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert estimator.backend_ != "cvxpy"  # the fast path took the sparse X
    assert peak < bound, (
        f"{method} ({estimator.backend_}) allocated {peak / 1e6:.1f} MB at its peak on a "
        f"{m} × {n} CSR X of {own / 1e6:.2f} MB (bound {bound / 1e6:.1f} MB)"
    )
