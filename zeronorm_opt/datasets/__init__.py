"""Data of the papers' experiments: synthetic generators and microarray loaders."""

from .microarray import MICROARRAY_SETS, Microarray, load_microarray
from .synthetic_linear import WESTON_LINEAR_GROUPS, WESTON_LINEAR_RELEVANT, make_weston_linear

__all__ = [
    "MICROARRAY_SETS",
    "Microarray",
    "WESTON_LINEAR_GROUPS",
    "WESTON_LINEAR_RELEVANT",
    "load_microarray",
    "make_weston_linear",
]
# --- generators added by the alignment / baselines work (issue 4) go below this line ---
from .synthetic_nonlinear import (  # noqa: E402
    POLYNOMIAL_TARGETS,
    WESTON_NONLINEAR_RELEVANT,
    SparsePolynomial,
    make_sparse_polynomial,
    make_weston_nonlinear,
)

__all__ += [
    "POLYNOMIAL_TARGETS",
    "SparsePolynomial",
    "WESTON_NONLINEAR_RELEVANT",
    "make_sparse_polynomial",
    "make_weston_nonlinear",
]
from .text import load_text_corpus, make_zipf_corpus  # noqa: E402

__all__ += ["load_text_corpus", "make_zipf_corpus"]
from .synthetic_regression import (  # noqa: E402
    SPARSE_COEF_RANGE,
    make_sparse_regression,
    make_two_gaussians,
)

__all__ += ["SPARSE_COEF_RANGE", "make_sparse_regression", "make_two_gaussians"]
