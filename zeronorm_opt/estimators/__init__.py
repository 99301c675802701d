"""scikit-learn estimators."""

from .polynomial import PolynomialAROM
from .zero_norm import AROM, FSV

__all__ = ["AROM", "FSV", "PolynomialAROM"]
