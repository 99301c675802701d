"""numba compilation as the package's kernels use it: cached on disk, no GIL, no bounds checks.

numba compiles a kernel at its first call and, with ``cache=True``, keeps the machine code next
to the module, so a kernel compiles once per installation (about 1–2 s; numba's own start-up,
0.3–0.4 s, is paid once per process). Without a writable cache location (a read-only install
and no writable user cache directory) numba refuses ``cache=True``: the kernels are then
compiled in each process.
"""

from __future__ import annotations

import numba

__all__ = ["compiled"]


def compiled(func=None, **options):
    """``numba.njit(cache=True, nogil=True, boundscheck=False, **options)``, or without the
    cache where numba has no writable location for it.

    Parameters
    ----------
    func : callable, optional
        The kernel; without it, a decorator taking the kernel.
    **options
        More ``numba.njit`` options (e.g. ``error_model="numpy"``).

    Returns
    -------
    callable
        The compiled kernel (or the decorator).

    Examples
    --------
    >>> @compiled
    ... def total(values):
    ...     s = 0.0
    ...     for v in values:
    ...         s += v
    ...     return s
    >>> import numpy as np
    >>> float(total(np.arange(4.0)))
    6.0
    """
    if func is None:
        return lambda kernel: compiled(kernel, **options)
    options = {"nogil": True, "boundscheck": False, **options}
    try:
        return numba.njit(cache=True, **options)(func)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(**options)(func)
