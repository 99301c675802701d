"""scikit-learn estimators."""

from .zero_norm import AROM, FSV

__all__ = ["AROM", "FSV"]
