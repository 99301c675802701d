"""Append-only JSON-lines store of experiment results: an interrupted run loses nothing.

Each finished record is one line, written by a single ``write`` on a file opened in append
mode, then flushed and ``fsync``-ed: a run killed at any moment (even by ``SIGKILL``) leaves
whole lines plus at most one torn last line. On loading, a torn last line is ignored (its
record is redone on resume); a line that is not JSON *before* the last one is skipped and its
number kept in :attr:`ResultsStore.skipped_lines`, so the caller can say which line was lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path


def _hashable(value):
    # Settings are dicts and selections lists: compare them by their canonical JSON text.
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return value


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

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "e1.jsonl")
    >>> store = ResultsStore(path, key_fields=("trial", "method"))
    >>> store.append({"trial": 0, "method": "SVM", "error": 0.3})
    >>> ResultsStore(path, key_fields=("trial", "method")).has({"trial": 0, "method": "SVM"})
    True
    """

    def __init__(self, path: str | os.PathLike | None, key_fields: Iterable[str]) -> None:
        self.path = Path(path) if path is not None else None
        self.key_fields = tuple(key_fields)
        self.records: list[dict] = []
        self.skipped_lines: list[int] = []
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
            last = number == len(lines) or (number == len(lines) - 1 and complete)
            try:
                record = json.loads(text)
                if not isinstance(record, dict):
                    raise ValueError("not a JSON object")
            except (ValueError, UnicodeDecodeError):
                # A torn last line (no newline after it) is the trace of a kill: redo quietly.
                if not (last and not complete):
                    self.skipped_lines.append(number)
                continue
            self.records.append(record)

    def key(self, record: dict) -> tuple:
        """The identity of ``record``: its values of ``key_fields``."""
        return tuple(_hashable(record.get(k)) for k in self.key_fields)

    def has(self, record: dict) -> bool:
        """True when a record with the same key is in the store."""
        return self.key(record) in self._keys

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
