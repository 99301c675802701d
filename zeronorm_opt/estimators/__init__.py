"""scikit-learn estimators."""

from ._budget import support_at_budget
from .adaptive_scaling import AdaptiveScaling
from .cv import ZeroNormCV
from .multiclass import MulticlassAROM
from .polynomial import PolynomialAROM
from .selector import ZeroNormSelector
from .zero_norm import AROM, FSV

__all__ = [
    "AROM",
    "FSV",
    "AdaptiveScaling",
    "MulticlassAROM",
    "PolynomialAROM",
    "ZeroNormCV",
    "ZeroNormSelector",
    "support_at_budget",
]
