"""A progress line for successive-linearisation fits that make the user wait.

Many-sample soft-margin fits can take minutes; a fit that has run longer than a few seconds
says where it is — step, active features, objective, elapsed time, and the limits that will
stop it — on the live line of the exact solvers (:class:`~zeronorm_opt.live_line.LiveLine`,
on a terminal), and through the ``zeronorm_opt`` logger (``logging.INFO``) everywhere.
"""

from __future__ import annotations

import logging
import sys
import time

from ..driver import IterationRecord
from ..live_line import LiveLine

__all__ = ["FitProgress"]

_LOGGER = logging.getLogger("zeronorm_opt")


class FitProgress:
    """Driver callback reporting each step once the fit has run ``after`` seconds.

    Parameters
    ----------
    after : float, default=5.0
        Seconds of silence before the first line (short fits print nothing).
    stream : file-like or None, default=None
        Where the line goes; None: standard error when it is a terminal, else only the log.
    then : callable or None
        Another callback, called first with each record.
    max_iter : int or None, default=None
        The run's step limit, shown as ``step k/max_iter``.
    time_limit : float or None, default=None
        The run's time limit in seconds, shown beside the elapsed time.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> out = io.StringIO()
    >>> progress = FitProgress(after=0.0, stream=out, max_iter=50, time_limit=60)
    >>> progress(IterationRecord(3, 12.5, 7, np.zeros(2), np.ones(2), "optimal", "HIGHS", 0.1))
    >>> print(out.getvalue().strip())
    step 3/50: 7 active features, objective 12.5 (0 s of a 60 s limit)
    """

    def __init__(
        self,
        after: float = 5.0,
        stream=None,
        then=None,
        *,
        max_iter: int | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.after = float(after)
        self.then = then
        self.max_iter = max_iter
        self.time_limit = time_limit
        terminal = sys.stderr is not None and sys.stderr.isatty()
        # Each step is shown (interval 0): a step is the unit of progress a user waits for.
        self.line = (
            LiveLine(interval=0.0, log_interval=0.0, file=stream)
            if stream is not None or terminal
            else None
        )
        self._start = time.perf_counter()

    def __call__(self, record: IterationRecord) -> None:
        if self.then is not None:
            self.then(record)
        elapsed = time.perf_counter() - self._start
        if elapsed < self.after:
            return
        step = f"step {record.iteration}" + (f"/{self.max_iter}" if self.max_iter else "")
        limit = f" of a {self.time_limit:g} s limit" if self.time_limit is not None else ""
        line = (
            f"{step}: {record.support_size} active features, objective "
            f"{record.objective:.6g} ({elapsed:.0f} s{limit})"
        )
        _LOGGER.info(line)
        if self.line is not None:
            self.line.show(line)

    def close(self) -> None:
        """End the line (after the fit)."""
        if self.line is not None:
            self.line.close()
