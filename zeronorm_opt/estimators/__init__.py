"""scikit-learn estimators."""

from .adaptive_scaling import AdaptiveScaling
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
    "ZeroNormSelector",
]
