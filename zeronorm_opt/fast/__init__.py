"""Solver-specific fast paths, each checked against its declarative formulation."""

from .highs_lp import (
    SplitMarginLP,
    fsv_highs,
    highs_successive_linearisation,
    l1_arom_highs,
)

__all__ = ["SplitMarginLP", "fsv_highs", "highs_successive_linearisation", "l1_arom_highs"]
