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

#: The public names by the module that defines them (a subpackage is its own module).
# fmt: off
_PUBLIC = {
    ".datasets": ("datasets",),
    ".driver": ("frank_wolfe", "successive_linearisation"),
    ".estimators.adaptive_scaling": ("AdaptiveScaling",),
    ".estimators.alignment": ("AlignmentSelector",),
    ".estimators.baselines": ("FisherScore", "InformationGainFilter", "SVMRFE", "make_svm_rfe"),
    ".estimators.cv": ("ZeroNormCV",),
    ".estimators.greedy_rls": ("GreedyRLS",),
    ".estimators.lasso": ("BridgeRegression", "LassoISTA"),
    ".estimators.multiclass": ("MulticlassAROM",),
    ".estimators.polynomial": ("PolynomialAROM",),
    ".estimators.r2w2": ("R2W2",),
    ".estimators.selector": ("ZeroNormSelector",),
    ".estimators.zero_norm": ("AROM", "FSV"),
    ".exceptions": (
        "ContractError", "DataNotFoundError", "InfeasibleError", "InputError", "InputTypeError",
        "LimitReachedWarning", "NotSeparableError", "ParameterError",
        "RemovedCoefficientsRequiredError", "ScaleError", "SolverError", "SolverInaccurateError",
        "UserConstraintsInfeasibleError", "ZeroNormError",
    ),
    ".formulations": ("formulations",),
    ".kernels": ("PolynomialFeatureMap", "PolynomialSumKernel", "kernels"),
    ".ladder": ("relaxation_ladder",),
    ".solvers": ("installed_solvers", "solve_problem"),
    ".surrogates": (
        "CustomSurrogate", "ExpSurrogate", "LogSurrogate", "PowerSurrogate", "surrogates",
    ),
}
# fmt: on
_HOMES = {name: home for home, names in _PUBLIC.items() for name in names}

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
