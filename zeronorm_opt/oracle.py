"""The linear minimisation oracle of Frank–Wolfe (re-exported from its home).

:class:`LinearOracle` lives in :mod:`zeronorm_opt.formulations.linear_oracle`: it is a pure
cvxpy formulation, and keeping it under ``formulations`` means no formulation imports a module
above its layer. This module keeps the old import path working.
"""

from __future__ import annotations

from .formulations.linear_oracle import LinearOracle

__all__ = ["LinearOracle"]
