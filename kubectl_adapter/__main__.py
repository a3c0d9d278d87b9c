"""The CLI as a process: ``python -m kubectl_adapter`` and the ``kubectl-adapter`` script.

Signals are held from this first line (before the CLI is imported), so one that lands while
the process starts still ends in the Interrupted document and exit code 128 + N.
"""

import sys
from typing import NoReturn

from .kubectl.interrupts import hold_from_start

hold_from_start()

from .cli.app import main  # noqa: E402  (after the signals are held)


def run() -> NoReturn:
    """The ``kubectl-adapter`` console script."""
    sys.exit(main(process=True))


if __name__ == "__main__":
    run()
