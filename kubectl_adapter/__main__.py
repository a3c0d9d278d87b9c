"""The CLI as a process: ``python -m kubectl_adapter`` and the ``kubectl-adapter`` script.

Signals are held from the package's first line (``kubectl_adapter/__init__.py``, imported
before this module), so one that lands while the process starts still ends in the Interrupted
document and exit code 128 + N.
"""

import sys
from typing import NoReturn

from .cli.app import main


def run() -> NoReturn:
    """The ``kubectl-adapter`` console script."""
    sys.exit(main(process=True))


if __name__ == "__main__":
    run()
