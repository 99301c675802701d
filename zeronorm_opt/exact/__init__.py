"""The exact hard-margin zero-norm at the papers' scale: the sparsest separating support with a
certified lower bound (:func:`minimum_separating_support`), and the independent check of its
certificate (:func:`check_certificate`)."""

from .certificate import CertificateError, SeparabilityCertificate, check_certificate
from .search import MinimumSupportResult, SearchProgress, minimum_separating_support

__all__ = [
    "CertificateError",
    "MinimumSupportResult",
    "SearchProgress",
    "SeparabilityCertificate",
    "check_certificate",
    "minimum_separating_support",
]
