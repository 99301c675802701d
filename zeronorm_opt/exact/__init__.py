"""The exact zero-norm at the papers' scale.

* hard margin: the sparsest separating support with a certified lower bound
  (:func:`minimum_separating_support`) and the independent check of its certificate
  (:func:`check_certificate`);
* budget form: the least hinge loss with at most ``r`` features with a certified lower bound
  (:func:`minimum_hinge_loss`) and its check (:func:`check_hinge_certificate`).
"""

from .budget import BudgetProgress, BudgetResult, minimum_hinge_loss
from .certificate import CertificateError, SeparabilityCertificate, check_certificate
from .hinge_certificate import HingeLossCertificate, check_hinge_certificate
from .search import MinimumSupportResult, SearchProgress, minimum_separating_support

__all__ = [
    "BudgetProgress",
    "BudgetResult",
    "CertificateError",
    "HingeLossCertificate",
    "MinimumSupportResult",
    "SearchProgress",
    "SeparabilityCertificate",
    "check_certificate",
    "check_hinge_certificate",
    "minimum_hinge_loss",
    "minimum_separating_support",
]
