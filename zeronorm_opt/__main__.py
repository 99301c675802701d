"""``python -m zeronorm_opt``: the ``zeronorm-opt`` command line."""

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
