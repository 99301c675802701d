"""Declarative cvxpy formulations of the problems of the source papers."""

from .base import Formulation, ReweightedFormulation
from .binary import MarginFormulation, RescaledMarginFormulation, arom_rescaled
from .fsv import FSVFormulation
from .svm_dual import RescaledSVMDual, l2_arom_dual

__all__ = [
    "FSVFormulation",
    "Formulation",
    "MarginFormulation",
    "RescaledMarginFormulation",
    "RescaledSVMDual",
    "ReweightedFormulation",
    "arom_rescaled",
    "l2_arom_dual",
]
