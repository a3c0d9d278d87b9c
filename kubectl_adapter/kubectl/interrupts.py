"""The signals that end a command the way Ctrl-C does, and the one moment they must wait.

SIGINT, SIGTERM and SIGHUP unwind the command as ``Signalled`` (a BaseException, so
``except Exception`` does not swallow it) through the runner, which kills kubectl's process
group on the way out. A signal that lands while ``subprocess.Popen`` is still starting kubectl
would unwind before the runner holds the process, leaving kubectl (and what it started)
running: inside ``deferred()`` the signal is only recorded, and raised as soon as it ends.

As a process (``python -m kubectl_adapter``, the ``kubectl-adapter`` script) the CLI holds
these signals from the first line of the package's ``__init__`` (with the built-in signal
module only, before this module or anything else of the adapter is imported): one that lands
while the CLI is still importing or building its parser is raised as soon as
``interrupting()`` starts, inside the CLI's error handling. The first signal decides the exit
code; later ones are ignored until the process exits (``until_exit``, ``SIG_IGN`` at the end
because interpreter shutdown resets Python handlers to the default action), so a SIGINT after
a SIGTERM cannot turn 143 into -2.

A signal that lands inside the import machinery itself (a module lock's weakref callback, for
one) is not raised there: Python swallows an exception raised in such a callback ("Exception
ignored in: <function _get_module_lock.<locals>.cb>"), and the command would go on as if no
signal came, ignoring the ones after it. It is raised a moment later instead (``SIGALRM``,
``RETRY_SECONDS``), once the interpreter is back in the adapter's own code.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

INTERRUPTING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# How soon a signal that landed inside the import machinery is raised again.
RETRY_SECONDS = 0.02


class Signalled(BaseException):
    """A signal arrived: the command unwinds, killing the running kubectl's group."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _State:
    deferring = 0
    pending: int | None = None
    retry: int | None = None  # a signal to raise once out of the import machinery


def _in_import_machinery(frame: FrameType | None) -> bool:
    """The interrupted frame is importlib's own code (not a module being imported, whose
    body may unwind like any code): an exception raised there may be swallowed."""
    return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")


def _raise(signum: int) -> None:
    if _State.deferring:
        if _State.pending is None:  # the first signal decides
            _State.pending = signum
        return
    raise Signalled(signum)


def _held_at_start() -> int | None:
    """The first signal the package's ``__init__`` held for the CLI process, taken once
    (looked up, not imported: the package root names the whole API, operations included)."""
    held: list[int] = getattr(sys.modules.get(__name__.split(".")[0]), "_HELD", None) or []
    first = held[0] if held else None
    held.clear()
    return first


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
def interrupting(*, until_exit: bool = False) -> Iterator[Callable[[], None]]:
    """Install the handlers for one command; restore the previous ones afterwards (the CLI
    also runs in-process, in tests), or, ``until_exit``, leave them ignoring every further
    signal (the process is about to exit with the first one's code). Only the main thread
    may install handlers. A signal held since the process started is raised on entry.

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
        if _in_import_machinery(frame):
            _State.retry = signum
            signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)
            return
        fired.append(signum)
        _raise(signum)

    def again(alarm: int, frame: FrameType | None) -> None:
        signum, _State.retry = _State.retry, None
        if signum is not None:
            handle(signum, frame)

    previous: dict[int, Any] = {}
    try:
        _State.deferring += 1  # while the handlers change hands, a signal is only recorded
        try:
            for signum in INTERRUPTING_SIGNALS:
                previous[signum] = signal.signal(signum, handle)
            previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, again)
        finally:
            _State.deferring -= 1
        early = _State.pending if _State.pending is not None else _held_at_start()
        if early is not None and not _State.deferring:
            _State.pending = None
            fired.append(early)
            raise Signalled(early)
        yield finishing
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _State.retry = None
        if until_exit:
            # Ignored, not merely unhandled: interpreter shutdown resets Python-level
            # handlers to the default action (a late SIGINT would end us with -2), not SIG_IGN.
            fired.append(0)
            for number in previous:
                signal.signal(number, signal.SIG_IGN)
        else:
            for number, handler in previous.items():
                signal.signal(number, handler)
        _State.pending = None
