"""BLAS threads: what the caller allows, and a limit that does not rescan the libraries.

The fast paths run most BLAS calls on one thread (OpenBLAS's threads only spin and wait on a
busy machine) and give the large ones the caller's threads back. The counts come from the
caller (``threadpoolctl.threadpool_limits``, ``OMP_NUM_THREADS``, a joblib worker's limit) and
never from the machine's load, so a fit takes the same path on a busy and a quiet machine. A
``threadpoolctl.threadpool_limits`` or ``threadpool_info`` call scans the loaded libraries
each time (about 1 ms); one :class:`threadpoolctl.ThreadpoolController` per process, built on
first use, reads and sets the thread counts without scanning.
"""

from __future__ import annotations

from functools import cache

from threadpoolctl import ThreadpoolController

__all__ = ["blas_controller", "blas_threads"]


def blas_threads() -> int:
    """The BLAS threads the caller allows at this point (threadpoolctl's view), at least 1.

    The l2-AROM path reads it before limiting its own BLAS calls to one thread, and gives the
    interior-point step's large normal matrices these threads back (see
    :class:`~zeronorm_opt.fast.svm_primal_ipm.IpmRescaledSVM`):
    ``threadpoolctl.threadpool_limits``, ``OMP_NUM_THREADS`` or a joblib worker's limit
    around a fit are therefore obeyed.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> with threadpool_limits(limits=1, user_api="blas"):
    ...     blas_threads()
    1

    References
    ----------
    threadpoolctl, "Python helpers to limit the number of threads used in native libraries
    that handle their own internal threadpool", https://github.com/joblib/threadpoolctl.
    """
    # The largest count: some bundled BLAS libraries are built single-threaded (SCS's reports
    # 1 whatever the limits), while a limit set by the caller lowers every library's. The
    # process's controller reads the counts live (a fresh scan of the libraries: ~0.9 ms).
    blas = blas_controller().select(user_api="blas").lib_controllers
    return max((lib.num_threads for lib in blas), default=1)


@cache
def blas_controller() -> ThreadpoolController:
    """One controller for the process (building one scans the loaded libraries, ~1 ms).

    Built on first use, after NumPy and SciPy have loaded their BLAS; libraries loaded later
    (none the solver calls) would not be seen.
    """
    return ThreadpoolController()
