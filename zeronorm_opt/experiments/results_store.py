"""Append-only JSON-lines store of experiment results: an interrupted run loses nothing.

Each finished unit of work (one trial × training size × method) is one line, flushed as soon
as it is known; a re-run with the same file skips the keys already present.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path


class ResultsStore:
    """Results of one experiment in ``path`` (JSON lines), keyed by a tuple of fields.

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
        if self.path is not None and self.path.exists():
            with self.path.open() as fh:
                for line in fh:
                    line = line.strip()
                    if line:  # a line cut by an interruption is dropped, the rest is kept
                        try:
                            self.records.append(json.loads(line))
                        except json.JSONDecodeError:
                            continue
        self._keys = {self.key(r) for r in self.records}

    def key(self, record: dict) -> tuple:
        return tuple(record[k] for k in self.key_fields)

    def has(self, record: dict) -> bool:
        return self.key(record) in self._keys

    def append(self, record: dict) -> None:
        self.records.append(record)
        self._keys.add(self.key(record))
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a+b") as fh:
                # An interruption can leave a cut last line without its newline: start a new
                # line, or the record would be glued to the fragment and lost on the next load.
                if fh.tell() > 0:
                    fh.seek(-1, os.SEEK_END)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")
                fh.write((json.dumps(record) + "\n").encode())
                fh.flush()
                os.fsync(fh.fileno())
