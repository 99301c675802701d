"""Declarative cvxpy formulations of the problems of the source papers.

Pure cvxpy builders, the layer under the driver (tests/test_layers.py): no module here imports
the driver, a fast path, an estimator, an experiment or a solver library, not even inside a
function; the diagnosis of a failed solve (:mod:`.diagnosis`) and the printed statements
(:mod:`.statement`) belong to this layer. The loops that run formulations live above it:
:mod:`zeronorm_opt.driver`, :mod:`zeronorm_opt.rescaled` and :mod:`zeronorm_opt.fast`.
"""

from . import _statement_builders  # noqa: F401  (registers each class's statement builder)
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
from .exact_l0l2 import ExactL0L2Formulation
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
    "ExactL0L2Formulation",
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
