"""A progress line for successive-linearisation fits that make the user wait.

Many-sample soft-margin fits can take minutes; a fit that has run longer than a few seconds
says where it is — step, active features, objective, elapsed time — on one line of standard
error that each step overwrites (on a terminal), and through the ``zeronorm_opt`` logger
(``logging.INFO``) everywhere.
"""

from __future__ import annotations

import logging
import sys
import time

from ..driver import IterationRecord

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

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> out = io.StringIO()
    >>> progress = FitProgress(after=0.0, stream=out)
    >>> progress(IterationRecord(3, 12.5, 7, np.zeros(2), np.ones(2), "optimal", "HIGHS", 0.1))
    >>> "step 3" in out.getvalue() and "7 active features" in out.getvalue()
    True
    """

    def __init__(self, after: float = 5.0, stream=None, then=None) -> None:
        self.after = float(after)
        if stream is None and sys.stderr is not None and sys.stderr.isatty():
            stream = sys.stderr
        self.stream = stream
        self.then = then
        self._start = time.perf_counter()
        self._shown = False

    def __call__(self, record: IterationRecord) -> None:
        if self.then is not None:
            self.then(record)
        elapsed = time.perf_counter() - self._start
        if elapsed < self.after:
            return
        line = (
            f"step {record.iteration}: {record.support_size} active features, objective "
            f"{record.objective:.6g} ({elapsed:.0f} s)"
        )
        _LOGGER.info(line)
        if self.stream is not None:
            self.stream.write(("\r" if self._shown else "") + line)
            self.stream.flush()
            self._shown = True

    def close(self) -> None:
        """End the line (after the fit)."""
        if self._shown and self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()
