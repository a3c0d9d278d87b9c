"""``python -m kubectl_adapter``: the same CLI."""

import sys

from .cli import main

sys.exit(main())
