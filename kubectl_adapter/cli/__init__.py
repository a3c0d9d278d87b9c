"""The CLI on top: arguments in, one JSON document out, an exit code from the error type.

It may import every layer below, lazily, so that start-up stays small.
"""

from .app import main

__all__ = ["main"]
