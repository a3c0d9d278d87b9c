"""The CLI on top: arguments in, one document out (JSON unless -o asks), an exit code from the
error type; help, completion and terminal progress for people.

It may import every layer below, lazily, so that start-up stays small.
"""

from .app import main

__all__ = ["main"]
