"""zeronorm_opt: convex relaxations of the zero-norm for linear models and SVMs.

Declarative cvxpy formulations of every problem of the source papers (AROM, FSV, multiclass,
slack variables, polynomial feature space, adaptive scaling), a successive-linearisation /
Frank–Wolfe driver, scikit-learn estimators and fast paths.
"""

from . import datasets, surrogates
from .exceptions import (
    ContractError,
    DataNotFoundError,
    InfeasibleError,
    InputError,
    NotSeparableError,
    ParameterError,
    RemovedCoefficientsRequiredError,
    ScaleError,
    SolverError,
    SolverInaccurateError,
    UserConstraintsInfeasibleError,
    ZeroNormError,
)
from .solvers import installed_solvers, solve_problem
from .surrogates import CustomSurrogate, ExpSurrogate, LogSurrogate, PowerSurrogate

__version__ = "0.1.0"

__all__ = [
    "CustomSurrogate",
    "ContractError",
    "DataNotFoundError",
    "ExpSurrogate",
    "InfeasibleError",
    "InputError",
    "NotSeparableError",
    "ParameterError",
    "RemovedCoefficientsRequiredError",
    "ScaleError",
    "SolverInaccurateError",
    "UserConstraintsInfeasibleError",
    "LogSurrogate",
    "PowerSurrogate",
    "SolverError",
    "ZeroNormError",
    "datasets",
    "installed_solvers",
    "solve_problem",
    "surrogates",
]

# --- core (issue 2): driver, formulations, AROM / FSV estimators ---
from . import formulations  # noqa: E402
from .driver import frank_wolfe, successive_linearisation  # noqa: E402
from .estimators.zero_norm import AROM, FSV  # noqa: E402

__all__ += ["AROM", "FSV", "formulations", "frank_wolfe", "successive_linearisation"]

# --- estimators v2 (issue 11): the generic zero-norm estimator and the budget by CV ---
from .estimators.cv import ZeroNormCV  # noqa: E402
from .estimators.selector import ZeroNormSelector  # noqa: E402

__all__ += ["ZeroNormCV", "ZeroNormSelector"]

# --- greedy RLS and the Lasso family (issue 3) ---
from .estimators.greedy_rls import GreedyRLS  # noqa: E402
from .estimators.lasso import BridgeRegression, LassoISTA  # noqa: E402

__all__ += ["BridgeRegression", "GreedyRLS", "LassoISTA"]

# --- alignment selection and baselines (issue 4) ---
from .estimators.baselines import (  # noqa: E402
    SVMRFE,
    FisherScore,
    InformationGainFilter,
    make_svm_rfe,
)
from .estimators.r2w2 import R2W2  # noqa: E402

__all__ += ["R2W2", "SVMRFE", "FisherScore", "InformationGainFilter", "make_svm_rfe"]
from .estimators.alignment import AlignmentSelector  # noqa: E402

__all__ += ["AlignmentSelector"]

# --- polynomial feature space (Weston et al., 2003) ---
from . import kernels  # noqa: E402
from .estimators.polynomial import PolynomialAROM  # noqa: E402
from .kernels import PolynomialFeatureMap, PolynomialSumKernel  # noqa: E402

__all__ += ["PolynomialAROM", "PolynomialFeatureMap", "PolynomialSumKernel", "kernels"]

# --- adaptive scaling (Grandvalet and Canu, 2002) ---
from .estimators.adaptive_scaling import AdaptiveScaling  # noqa: E402

__all__ += ["AdaptiveScaling"]

# --- multiclass zero-norm (Weston et al., 2003) ---
from .estimators.multiclass import MulticlassAROM  # noqa: E402

__all__ += ["MulticlassAROM"]

# --- exact zero-norm (MILP) and the relaxation ladder (issue 13) ---
from .ladder import relaxation_ladder  # noqa: E402

__all__ += ["relaxation_ladder"]
