"""Concave non-decreasing penalties φ on t ≥ 0 that approximate the zero-norm.

The successive-linearisation driver minimises ``Σ_j φ(h_j(x))`` by solving, at each step, the
convex problem weighted by ``φ'(h_j(x^k))``. A surrogate therefore only has to provide
``value(t)`` and ``derivative(t)``; any object with those two methods works (duck typing), and
:class:`CustomSurrogate` wraps two plain functions.

================  ===========================  ===============================
surrogate          φ(t)                          φ'(t)
================  ===========================  ===============================
LogSurrogate       ln(ε + t)                     1 / (ε + t)
ExpSurrogate       1 − exp(−α t)                 α exp(−α t)
PowerSurrogate     (ε + t)^q,  0 < q < 1         q (ε + t)^(q − 1)
================  ===========================  ===============================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .exceptions import InputError


@dataclass(frozen=True)
class LogSurrogate:
    """``φ(t) = ln(ε + t)``: the log approximation of the zero-norm (AROM).

    With ``eps=0`` the weights are ``1/t``, exactly the AROM updates (features at ``t = 0``
    must then be removed, which the driver does).

    References
    ----------
    .. [1] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
       models and kernel methods", *Journal of Machine Learning Research* 3:1439–1461, 2003.

    Examples
    --------
    >>> s = LogSurrogate(eps=1e-3)
    >>> float(s.derivative(1.0))
    0.9990009990009991
    """

    eps: float = 0.0

    def __post_init__(self):
        if not np.isfinite(self.eps) or self.eps < 0:
            raise InputError(f"eps must be >= 0; got {self.eps!r}.")

    def value(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(divide="ignore"):
            return np.log(self.eps + t)

    def derivative(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(divide="ignore"):
            return 1.0 / (self.eps + t)


@dataclass(frozen=True)
class ExpSurrogate:
    """``φ(t) = 1 − exp(−α t)``: the FSV concave penalty of Bradley & Mangasarian.

    References
    ----------
    .. [1] P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and
       support vector machines", *Proceedings of the 15th International Conference on Machine
       Learning (ICML)*, 82–90, 1998.

    Examples
    --------
    >>> s = ExpSurrogate(alpha=5.0)
    >>> float(s.value(0.0)), float(s.derivative(0.0))
    (0.0, 5.0)
    """

    alpha: float = 5.0

    def __post_init__(self):
        if not np.isfinite(self.alpha) or self.alpha <= 0:
            raise InputError(f"alpha must be > 0; got {self.alpha!r}.")

    def value(self, t):
        return 1.0 - np.exp(-self.alpha * np.asarray(t, dtype=float))

    def derivative(self, t):
        return self.alpha * np.exp(-self.alpha * np.asarray(t, dtype=float))


@dataclass(frozen=True)
class PowerSurrogate:
    """``φ(t) = (ε + t)^q`` with ``0 < q < 1``: the bridge penalty ``Σ|β_j|^q``.

    ``eps > 0`` keeps the derivative finite at ``t = 0``.

    References
    ----------
    .. [1] I. E. Frank and J. H. Friedman, "A statistical view of some chemometrics regression
       tools", *Technometrics* 35(2):109–135, 1993.

    Examples
    --------
    >>> s = PowerSurrogate(q=0.5, eps=0.0)
    >>> float(s.value(4.0)), float(s.derivative(4.0))
    (2.0, 0.25)
    """

    q: float = 0.5
    eps: float = 1e-8

    def __post_init__(self):
        if not (0 < self.q < 1):
            raise InputError(f"q must lie in (0, 1); got {self.q!r}.")
        if not np.isfinite(self.eps) or self.eps < 0:
            raise InputError(f"eps must be >= 0; got {self.eps!r}.")

    def value(self, t):
        return (self.eps + np.asarray(t, dtype=float)) ** self.q

    def derivative(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(divide="ignore"):
            return self.q * (self.eps + t) ** (self.q - 1.0)


@dataclass(frozen=True)
class CustomSurrogate:
    """A user-defined surrogate from two callables (value and derivative).

    Examples
    --------
    >>> s = CustomSurrogate(value=np.sqrt, derivative=lambda t: 0.5 / np.sqrt(t))
    >>> float(s.value(9.0))
    3.0
    """

    value: Callable[[np.ndarray], np.ndarray]
    derivative: Callable[[np.ndarray], np.ndarray]


def check_surrogate(surrogate) -> None:
    """Check that ``surrogate`` provides callable ``value`` and ``derivative``."""
    for attr in ("value", "derivative"):
        if not callable(getattr(surrogate, attr, None)):
            raise InputError(
                f"a surrogate must provide callable value(t) and derivative(t); "
                f"{type(surrogate).__name__} lacks {attr!r}. Wrap two functions in "
                "CustomSurrogate(value=..., derivative=...)."
            )
