"""Declarative cvxpy formulations of the problems of the source papers."""

from .adaptive_scaling import (
    BiasFormulation,
    L1ConstrainedMetricFormulation,
    MetricSubproblem,
    SquaredL1SVMFormulation,
    optimal_bias,
    project_simplex,
)
from .base import Formulation, ReweightedFormulation
from .binary import MarginFormulation, RescaledMarginFormulation, arom_rescaled
from .fsv import FSVFormulation
from .multiclass import (
    OneVsRestFormulation,
    OneVsRestLibsvm,
    WestonWatkinsFormulation,
    encode_labels,
)
from .regression import BasisPursuitFormulation, LassoFormulation, bridge_regression
from .svm_dual import RescaledSVMDual, l2_arom_dual, l2_arom_dual_path

__all__ = [
    "BiasFormulation",
    "L1ConstrainedMetricFormulation",
    "MetricSubproblem",
    "SquaredL1SVMFormulation",
    "optimal_bias",
    "project_simplex",
    "BasisPursuitFormulation",
    "LassoFormulation",
    "bridge_regression",
    "FSVFormulation",
    "OneVsRestFormulation",
    "OneVsRestLibsvm",
    "WestonWatkinsFormulation",
    "encode_labels",
    "Formulation",
    "MarginFormulation",
    "RescaledMarginFormulation",
    "RescaledSVMDual",
    "ReweightedFormulation",
    "arom_rescaled",
    "l2_arom_dual",
    "l2_arom_dual_path",
]
