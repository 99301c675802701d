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

from ._validation import check_positive
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
        check_positive(self.eps, "eps", strict=False)

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
        check_positive(self.alpha, "alpha")

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
        check_positive(self.eps, "eps", strict=False)

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


#: Where :func:`check_surrogate` evaluates φ: 0 and a log grid from 1e-16 to 1e16, the range
#: the magnitudes ``h = |x_j|`` or ``x_j²`` reach for data scaled by any factor from 1e-8 to 1e8.
SHAPE_GRID = np.concatenate([[0.0], np.logspace(-16, 16, 129)])


def check_surrogate(surrogate, *, check_shape: bool = True) -> None:
    """Check that ``surrogate`` is a concave non-decreasing φ on ``t ≥ 0``, as the driver needs.

    The driver majorises ``Σ_j φ(h_j)`` by its tangent at the current iterate; that is an upper
    bound — and the objective never increases — only when φ is concave, and the weights
    ``φ'(h_j)`` are penalties only when they are ``≥ 0``. Checked numerically on
    :data:`SHAPE_GRID`: ``φ'(t) ≥ 0`` and non-increasing (``+∞`` allowed at ``t = 0``), and
    ``φ(t)`` non-decreasing, each up to a relative rounding error of 1e-9.

    Parameters
    ----------
    surrogate : object
        Must provide callable ``value(t)`` and ``derivative(t)`` (vectorised over arrays).
    check_shape : bool, default=True
        False checks only that the two methods exist: for a user who knows that the
        magnitudes of their problem stay where φ is concave and non-decreasing.

    Raises
    ------
    InputError
        Naming the missing method, or the first ``t`` where φ is not concave or decreases.

    Examples
    --------
    >>> check_surrogate(LogSurrogate())
    >>> square = CustomSurrogate(value=np.square, derivative=lambda t: 2 * t)
    >>> check_surrogate(square)
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: the surrogate CustomSurrogate is not concave on t >= 0: \
its derivative grows from 0 at t=0 to 2e-16 at t=1e-16...
    >>> check_surrogate(square, check_shape=False)  # the opt-out
    """
    name = type(surrogate).__name__
    for attr in ("value", "derivative"):
        if not callable(getattr(surrogate, attr, None)):
            raise InputError(
                f"a surrogate must provide callable value(t) and derivative(t); "
                f"{name} lacks {attr!r}. Wrap two functions in "
                "CustomSurrogate(value=..., derivative=...)."
            )
    if not check_shape:
        return
    t = SHAPE_GRID
    try:
        with np.errstate(all="ignore"):
            phi = np.broadcast_to(np.asarray(surrogate.value(t), dtype=float), t.shape)
            d = np.broadcast_to(np.asarray(surrogate.derivative(t), dtype=float), t.shape)
    except Exception as exc:  # the user's functions: whatever they raise, say where
        raise InputError(
            f"the surrogate {name} could not be evaluated on an array of t >= 0 "
            f"({type(exc).__name__}: {exc}); value(t) and derivative(t) must take arrays."
        ) from exc
    opt_out = (
        " The driver's majorisation needs a concave non-decreasing φ on t >= 0 (e.g. "
        "LogSurrogate, ExpSurrogate, PowerSurrogate); pass check_surrogate=False to "
        "successive_linearisation to run it anyway."
    )
    bad = np.isnan(d) | (d < 0) | (d == np.inf) & (t > 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(
            f"the surrogate {name} is not non-decreasing on t >= 0: its derivative is "
            f"{d[i]:.3g} at t={t[i]:.3g}." + opt_out
        )
    slack = 1e-9 * np.abs(d[:-1])
    grows = np.isfinite(d[:-1]) & (d[1:] > d[:-1] + slack)
    if grows.any():
        i = int(np.argmax(grows))
        raise InputError(
            f"the surrogate {name} is not concave on t >= 0: its derivative grows from "
            f"{d[i]:.3g} at t={t[i]:.3g} to {d[i + 1]:.3g} at t={t[i + 1]:.3g}." + opt_out
        )
    finite = np.isfinite(phi)
    drops = finite[:-1] & finite[1:] & (phi[1:] < phi[:-1] - 1e-9 * np.abs(phi[:-1]))
    if drops.any() or np.isnan(phi).any():
        i = int(np.argmax(drops | np.isnan(phi[1:])))
        raise InputError(
            f"the surrogate {name} is not non-decreasing on t >= 0: its value falls from "
            f"{phi[i]:.3g} at t={t[i]:.3g} to {phi[i + 1]:.3g} at t={t[i + 1]:.3g}." + opt_out
        )
