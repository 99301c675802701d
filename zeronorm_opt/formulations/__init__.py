"""Declarative cvxpy formulations of the problems of the source papers."""

from .base import Formulation, ReweightedFormulation
from .binary import MarginFormulation, RescaledMarginFormulation, arom_rescaled
from .fsv import FSVFormulation
from .regression import BasisPursuitFormulation, LassoFormulation, bridge_regression
from .svm_dual import RescaledSVMDual, l2_arom_dual, l2_arom_dual_path

__all__ = [
    "BasisPursuitFormulation",
    "LassoFormulation",
    "bridge_regression",
    "FSVFormulation",
    "Formulation",
    "MarginFormulation",
    "RescaledMarginFormulation",
    "RescaledSVMDual",
    "ReweightedFormulation",
    "arom_rescaled",
    "l2_arom_dual",
    "l2_arom_dual_path",
]
