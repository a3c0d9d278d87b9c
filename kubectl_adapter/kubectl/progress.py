"""The one place a wait says what it awaits, for a progress display on a terminal.

A wait wraps its whole loop (every slice) in ``awaiting(what, timeout)``; the runner hands
kubectl's own progress lines (``rollout status``'s "Waiting for …") to ``note``. Nobody
watches unless the CLI runs on a terminal (``cli/progress.py``): then both do nothing, and
the runner echoes kubectl's lines on stderr as it always did. Library callers and Manager's
pipes never see a difference.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["Watcher", "awaiting", "listening", "note", "watching"]


class Watcher(Protocol):
    """What a progress display implements; called from the waiting thread and the runner's."""

    def begin(self, what: str, timeout: float) -> None:
        """A wait of at most ``timeout`` seconds for ``what`` starts."""

    def note(self, line: str) -> None:
        """kubectl said ``line`` (already redacted) while waiting."""

    def end(self) -> None:
        """The wait is over, however it ended."""


# One process, one command: a plain global (a ContextVar would not reach the runner's
# reader threads, which start with an empty context).
_lock = threading.Lock()
_watcher: Watcher | None = None


@contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """Report every wait in this block to ``watcher``."""
    global _watcher
    with _lock:
        previous, _watcher = _watcher, watcher
    try:
        yield
    finally:
        with _lock:
            _watcher = previous


@contextmanager
def awaiting(what: str, timeout: float) -> Iterator[None]:
    """Around a whole wait: ``what`` names the object and the condition, e.g.
    ``"rollout of ns/web-1"``."""
    watcher = _watcher
    if watcher is None:
        yield
        return
    try:  # begin inside: a signal landing while it starts the ticker still erases the line
        watcher.begin(what, timeout)
        yield
    finally:
        watcher.end()


def note(line: str) -> bool:
    """Give kubectl's progress line to the watcher; False when nobody watches (echo it)."""
    watcher = _watcher
    if watcher is None:
        return False
    watcher.note(line)
    return True


def listening() -> bool:
    """Whether a display watches: what only it reads need not be worked out otherwise."""
    return _watcher is not None
