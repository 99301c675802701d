"""One live line on standard error for a long solve: where it is, rewritten in place.

Shared by the combinatorial search (:func:`zeronorm_opt.exact.minimum_separating_support`),
the mixed-integer solves of the exact formulations and the successive-linearisation fits
(:class:`~zeronorm_opt.fast.progress.FitProgress`): a terminal sees the line rewritten in
place (rich), a log file one line per update.
"""

from __future__ import annotations

import time

__all__ = ["LiveLine"]


class LiveLine:
    """A line on stderr (rich), rewritten at most every ``interval`` seconds.

    Parameters
    ----------
    interval : float, default=0.5
        Seconds between two updates on a terminal; an update passed with ``now=True`` (a new
        incumbent, the end of a stage) is shown at once.
    log_interval : float, default=10.0
        Seconds between two updates when the output is not a terminal (a log file gets one line
        per update, not a rewrite: a 15-minute solve leaves about a hundred lines, not 1800).
    file : file-like or None, default=None
        Where the line goes; None: standard error.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> line = LiveLine(file=out)
    >>> line.show("incumbent 4, proven bound 1, gap 75 % | 3 s")
    >>> line.show("incumbent 3, proven bound 1, gap 67 % | 3 s")  # within 10 s: not shown
    >>> line.close()
    >>> out.getvalue()
    'incumbent 4, proven bound 1, gap 75 % | 3 s\\n'

    References
    ----------
    .. [1] W. McGugan, *Rich* (terminal rendering for Python), ``rich.console.Console``:
       https://rich.readthedocs.io/.
    """

    def __init__(self, interval: float = 0.5, log_interval: float = 10.0, file=None) -> None:
        from rich.console import Console

        self.console = Console(stderr=file is None, file=file)
        self.interval = float(interval if self.console.is_terminal else log_interval)
        self.last = -float("inf")
        self.shown = False

    def show(self, text: str, *, now: bool = False) -> None:
        """Show ``text`` if ``interval`` has passed since the last update (or ``now``)."""
        clock = time.perf_counter()
        if clock - self.last < self.interval and not now:
            return
        self.last = clock
        self.shown = True
        end = "\r" if self.console.is_terminal else "\n"
        self.console.print(text, end=end, markup=False, highlight=False, soft_wrap=True)

    def close(self) -> None:
        """End the line (on a terminal the last update stays visible)."""
        if self.shown and self.console.is_terminal:
            self.console.print()
