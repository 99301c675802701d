"""Append-only JSON-lines store of experiment results: an interrupted run loses nothing.

Each finished record is one line, written by a single ``write`` on a file opened in append
mode, then flushed and ``fsync``-ed: a run killed at any moment (even by ``SIGKILL``) leaves
whole lines plus at most one torn last line. On loading, a torn last line is set aside (its
record is redone on resume); a line that is not a JSON record *before* the last one is skipped
and its number kept in :attr:`ResultsStore.skipped_lines`, so the caller can say which line
was lost. :meth:`ResultsStore.repair` then rewrites the file with its complete records only —
into a file beside it, renamed into place — so that a resumed file reads cleanly again.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..exceptions import InputError


def _hashable(value):
    # Settings are dicts and selections lists: compare them by their canonical JSON text.
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return value


def line_numbers(numbers: list[int]) -> str:
    """``"lines 3, 5 and 1 more"`` (at most five numbers shown).

    Examples
    --------
    >>> line_numbers([3]), line_numbers([1, 2, 3, 4, 5, 6, 7])
    ('line 3', 'lines 1, 2, 3, 4, 5 and 2 more')
    """
    shown = ", ".join(str(n) for n in numbers[:5])
    more = f" and {len(numbers) - 5} more" if len(numbers) > 5 else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


class ResultsStore:
    """Results of one experiment in ``path`` (JSON lines), keyed by a tuple of fields.

    Parameters
    ----------
    path : str, path-like or None
        The JSON-lines file (created on the first record); None keeps the records in memory.
    key_fields : iterable of str
        The fields whose values identify a record (dict or list values are compared by
        their JSON text).

    Attributes
    ----------
    records : list of dict
        The records read from the file, then those appended.
    skipped_lines : list of int
        1-based numbers of the lines that were not JSON records and were skipped (a torn last
        line is not listed: it is the expected trace of an interruption).
    torn_line : int or None
        The number of the torn last line (a record cut by an interruption: no newline after
        it), if the file ends in one.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "e1.jsonl")
    >>> store = ResultsStore(path, key_fields=("trial", "method"))
    >>> store.append({"trial": 0, "method": "SVM", "error": 0.3})
    >>> ResultsStore(path, key_fields=("trial", "method")).has({"trial": 0, "method": "SVM"})
    True

    A power cut in the middle of a write leaves a torn line; :meth:`repair` drops it:

    >>> with open(path, "a") as fh:
    ...     _ = fh.write('{"trial": 1, "meth')
    >>> store = ResultsStore(path, key_fields=("trial", "method"))
    >>> store.torn_line, store.repair(), store.describe_dropped()
    (2, 1, 'line 2 (torn by an interruption)')
    >>> open(path).read().count("\\n"), len(ResultsStore(path, ("trial", "method")).records)
    (1, 1)
    """

    def __init__(self, path: str | os.PathLike | None, key_fields: Iterable[str]) -> None:
        self.path = Path(path) if path is not None else None
        self.key_fields = tuple(key_fields)
        self.records: list[dict] = []
        self.skipped_lines: list[int] = []
        self.torn_line: int | None = None
        self._good_lines: list[bytes] = []  # the complete records' lines, as read
        self._repaired = False
        if self.path is not None and self.path.exists():
            self._load()
        self._keys = {self.key(r) for r in self.records}

    def _load(self) -> None:
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        complete = data.endswith(b"\n")
        for number, raw in enumerate(lines, start=1):
            text = raw.strip()
            if not text:
                continue
            try:
                record = json.loads(text)
                if not isinstance(record, dict):
                    raise ValueError("not a JSON object")
            except (ValueError, UnicodeDecodeError):
                # A torn last line (no newline after it, begun as every record begins) is the
                # trace of a kill: redo quietly. Anything else is reported.
                if number == len(lines) and not complete and text.startswith(b"{"):
                    self.torn_line = number
                else:
                    self.skipped_lines.append(number)
                continue
            self.records.append(record)
            self._good_lines.append(text)

    def key(self, record: dict) -> tuple:
        """The identity of ``record``: its values of ``key_fields``."""
        return tuple(_hashable(record.get(k)) for k in self.key_fields)

    def has(self, record: dict) -> bool:
        """True when a record with the same key is in the store."""
        return self.key(record) in self._keys

    def describe_dropped(self) -> str:
        """The lines that are not complete records, in words (``"line 3 (not JSON) …"``)."""
        parts = []
        if self.skipped_lines:
            parts.append(f"{line_numbers(self.skipped_lines)} (not a JSON record)")
        if self.torn_line is not None:
            parts.append(f"line {self.torn_line} (torn by an interruption)")
        return " and ".join(parts)

    def repair(self) -> int:
        """Rewrite the file with its complete records only; return the number of lines dropped.

        The repaired file is written beside the original, synced, then renamed over it
        (``os.replace``, atomic): a kill at any moment leaves the old file or the new one,
        and no complete record is ever lost. A file without a single record among unreadable
        lines is not a results file: it is left alone (:class:`InputError`).
        """
        dropped = len(self.skipped_lines) + (self.torn_line is not None)
        if self.path is None or self._repaired or not dropped:
            return 0
        if not self.records and self.skipped_lines:
            raise InputError(
                f"{self.path} holds no JSON record (line {self.skipped_lines[0]} is not one): "
                "it is not a results file of zeronorm-opt, so it is left as it is; pass a new "
                "file to --results."
            )
        target = self.path.resolve()
        partial = target.with_name(f".{target.name}.repairing")
        with open(partial, "wb") as fh:
            fh.write(b"".join(line + b"\n" for line in self._good_lines))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(partial, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(partial, target)
        # The rename is durable only once the folder's entry is on disk.
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
        self._repaired = True
        return dropped

    def append(self, record: dict) -> None:
        """Keep ``record`` and append it to the file as one line (flushed and synced)."""
        self.records.append(record)
        self._keys.add(self.key(record))
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(record) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size > 0:
                # A kill can leave a torn last line without its newline: start a new line, or
                # this record would be glued to the fragment and lost on the next load.
                with open(self.path, "rb") as fh:
                    fh.seek(size - 1)
                    if fh.read(1) != b"\n":
                        line = b"\n" + line
            # One write of the whole line: a kill leaves it whole or torn, never interleaved.
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
