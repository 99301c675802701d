"""scikit-learn estimators."""

from .adaptive_scaling import AdaptiveScaling
from .polynomial import PolynomialAROM
from .zero_norm import AROM, FSV

__all__ = ["AROM", "FSV", "AdaptiveScaling", "PolynomialAROM"]
