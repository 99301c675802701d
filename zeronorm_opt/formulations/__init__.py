"""Declarative cvxpy formulations of the problems of the source papers.

Pure cvxpy builders (tests/test_layers.py): no module here imports the driver, ``fast`` or a
solver library. The loops and fast paths that used to live here are in :mod:`zeronorm_opt.fast`:
``bridge_regression`` (:mod:`~zeronorm_opt.fast.bridge`), ``l2_arom_dual`` and
``l2_arom_dual_path`` (:mod:`~zeronorm_opt.fast.svm_dual`), ``OneVsRestLibsvm``
(:mod:`~zeronorm_opt.fast.one_vs_rest`); ``arom_rescaled`` (the paper's loop on the rescaled
form) is :func:`zeronorm_opt.rescaled.arom_rescaled`.
"""

from .adaptive_scaling import (
    BiasFormulation,
    L1ConstrainedMetricFormulation,
    MetricSubproblem,
    SquaredL1SVMFormulation,
    optimal_bias,
    project_simplex,
)
from .base import Formulation, ReweightedFormulation
from .binary import MarginFormulation, RescaledMarginFormulation
from .contract import (
    Linearisable,
    SelectorFormulation,
    check_linearisable,
    check_selector_formulation,
)
from .exact import (
    ExactMulticlassZeroNormFormulation,
    ExactSolveInfo,
    ExactZeroNormFormulation,
)
from .fsv import FSVFormulation
from .linear_oracle import LinearOracle
from .multiclass import (
    OneVsRestFormulation,
    WestonWatkinsFormulation,
    encode_labels,
)
from .penalty import ReweightedPenalty
from .regression import BasisPursuitFormulation, LassoFormulation
from .statement import Statement, build_statement
from .svm_dual import RescaledSVMDual

__all__ = [
    "BiasFormulation",
    "L1ConstrainedMetricFormulation",
    "MetricSubproblem",
    "SquaredL1SVMFormulation",
    "optimal_bias",
    "project_simplex",
    "BasisPursuitFormulation",
    "LassoFormulation",
    "FSVFormulation",
    "OneVsRestFormulation",
    "WestonWatkinsFormulation",
    "encode_labels",
    "ExactMulticlassZeroNormFormulation",
    "ExactSolveInfo",
    "ExactZeroNormFormulation",
    "Formulation",
    "Linearisable",
    "LinearOracle",
    "ReweightedPenalty",
    "check_linearisable",
    "check_selector_formulation",
    "MarginFormulation",
    "RescaledMarginFormulation",
    "RescaledSVMDual",
    "ReweightedFormulation",
    "SelectorFormulation",
    "Statement",
    "build_statement",
]
