"""The signals that end a command the way Ctrl-C does, and the one moment they must wait.

SIGINT, SIGTERM and SIGHUP unwind the command as ``Signalled`` (a BaseException, so
``except Exception`` does not swallow it) through the runner, which kills kubectl's process
group on the way out. A signal that lands while ``subprocess.Popen`` is still starting kubectl
would unwind before the runner holds the process, leaving kubectl (and what it started)
running: inside ``deferred()`` the signal is only recorded, and raised as soon as it ends.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

INTERRUPTING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Signalled(BaseException):
    """A signal arrived: the command unwinds, killing the running kubectl's group."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _State:
    deferring = 0
    pending: int | None = None


def _raise(signum: int) -> None:
    if _State.deferring:
        _State.pending = signum
        return
    raise Signalled(signum)


@contextmanager
def deferred() -> Iterator[None]:
    """Hold a signal until the block ends (handlers run in the main thread only, as this)."""
    _State.deferring += 1
    try:
        yield
    finally:
        _State.deferring -= 1
        if not _State.deferring and _State.pending is not None:
            signum, _State.pending = _State.pending, None
            raise Signalled(signum)


@contextmanager
def interrupting() -> Iterator[Callable[[], None]]:
    """Install the handlers for one command; restore the previous ones afterwards (the CLI
    also runs in-process, in tests). Only the main thread may install handlers.

    Yields ``finishing``: once the outcome is being printed a signal no longer interrupts
    (the document must come out whole, and the command is over anyway).
    """
    fired: list[int] = []

    def finishing() -> None:
        fired.append(0)

    if threading.current_thread() is not threading.main_thread():
        yield finishing
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        if fired:
            return  # already unwinding or printing: a second signal must not cut it short
        fired.append(signum)
        _raise(signum)

    previous = {signum: signal.signal(signum, handle) for signum in INTERRUPTING_SIGNALS}
    try:
        yield finishing
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _State.pending = None
