"""Declarative cvxpy formulations of the problems of the source papers."""

from .base import Formulation, ReweightedFormulation
from .binary import MarginFormulation, RescaledMarginFormulation, arom_rescaled
from .fsv import FSVFormulation

__all__ = [
    "FSVFormulation",
    "Formulation",
    "MarginFormulation",
    "RescaledMarginFormulation",
    "ReweightedFormulation",
    "arom_rescaled",
]
