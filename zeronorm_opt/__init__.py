"""zeronorm_opt: convex relaxations of the zero-norm for linear models and SVMs.

Declarative cvxpy formulations of every problem of the source papers (AROM, FSV, multiclass,
slack variables, polynomial feature space, adaptive scaling), a successive-linearisation /
Frank–Wolfe driver, scikit-learn estimators and fast paths.

The public names below are loaded on first use (PEP 562): ``import zeronorm_opt`` alone imports
no solver library, so the command line starts fast; ``from zeronorm_opt import AROM`` imports
what AROM needs.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Each public name and the module that defines it (a subpackage is its own module).
_HOMES = {
    "AROM": ".estimators.zero_norm",
    "AdaptiveScaling": ".estimators.adaptive_scaling",
    "AlignmentSelector": ".estimators.alignment",
    "BridgeRegression": ".estimators.lasso",
    "ContractError": ".exceptions",
    "CustomSurrogate": ".surrogates",
    "DataNotFoundError": ".exceptions",
    "ExpSurrogate": ".surrogates",
    "FSV": ".estimators.zero_norm",
    "FisherScore": ".estimators.baselines",
    "GreedyRLS": ".estimators.greedy_rls",
    "InfeasibleError": ".exceptions",
    "InformationGainFilter": ".estimators.baselines",
    "InputError": ".exceptions",
    "InputTypeError": ".exceptions",
    "LassoISTA": ".estimators.lasso",
    "LimitReachedWarning": ".exceptions",
    "LogSurrogate": ".surrogates",
    "MulticlassAROM": ".estimators.multiclass",
    "NotSeparableError": ".exceptions",
    "ParameterError": ".exceptions",
    "PolynomialAROM": ".estimators.polynomial",
    "PolynomialFeatureMap": ".kernels",
    "PolynomialSumKernel": ".kernels",
    "PowerSurrogate": ".surrogates",
    "R2W2": ".estimators.r2w2",
    "RemovedCoefficientsRequiredError": ".exceptions",
    "ScaleError": ".exceptions",
    "SVMRFE": ".estimators.baselines",
    "SolverError": ".exceptions",
    "SolverInaccurateError": ".exceptions",
    "UserConstraintsInfeasibleError": ".exceptions",
    "ZeroNormCV": ".estimators.cv",
    "ZeroNormError": ".exceptions",
    "ZeroNormSelector": ".estimators.selector",
    "datasets": ".datasets",
    "formulations": ".formulations",
    "frank_wolfe": ".driver",
    "installed_solvers": ".solvers",
    "kernels": ".kernels",
    "make_svm_rfe": ".estimators.baselines",
    "relaxation_ladder": ".ladder",
    "solve_problem": ".solvers",
    "successive_linearisation": ".driver",
    "surrogates": ".surrogates",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(home, __name__)
    value = module if home == f".{name}" else getattr(module, name)
    globals()[name] = value  # the next lookup does not come back here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
