"""Data of the papers' experiments: synthetic generators and microarray loaders."""

from .microarray import MICROARRAY_SETS, Microarray, load_microarray
from .synthetic_linear import WESTON_LINEAR_GROUPS, WESTON_LINEAR_RELEVANT, make_weston_linear
from .synthetic_nonlinear import (
    POLYNOMIAL_TARGETS,
    WESTON_NONLINEAR_RELEVANT,
    SparsePolynomial,
    make_sparse_polynomial,
    make_weston_nonlinear,
)
from .synthetic_regression import SPARSE_COEF_RANGE, make_sparse_regression, make_two_gaussians
from .text import load_text_corpus, make_zipf_corpus

__all__ = [
    "MICROARRAY_SETS",
    "POLYNOMIAL_TARGETS",
    "SPARSE_COEF_RANGE",
    "Microarray",
    "SparsePolynomial",
    "WESTON_LINEAR_GROUPS",
    "WESTON_LINEAR_RELEVANT",
    "WESTON_NONLINEAR_RELEVANT",
    "load_microarray",
    "load_text_corpus",
    "make_sparse_polynomial",
    "make_sparse_regression",
    "make_two_gaussians",
    "make_weston_linear",
    "make_weston_nonlinear",
    "make_zipf_corpus",
]
