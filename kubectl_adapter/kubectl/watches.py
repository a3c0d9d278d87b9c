"""A wait's watches: several watching kubectl processes run at once, their output judged
as it comes by what the caller hands in (``Watching``), all killed once it decides.

Each one's stdout lines (one JSON watch event each: ``--output-watch-events``) and stderr
lines go to ``Watching`` in the order kubectl wrote them: what a kubectl printed on stdout
before a stderr line is judged before that line. The processes are ``process``'s (its
``spawn``, its group kill); nothing here decides a bound or reads an error.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
from collections.abc import Sequence
from time import monotonic
from typing import Any, Protocol

from ..contract.errors import InternalError
from .call import Call
from .interrupts import deferred
from .process import KILL_DRAIN_SECONDS, exit_fd, kill_group, spawn, stop, text


class Unanswered(Exception):
    """What a ``Watching`` raises when the watches it judges went ``idle`` seconds with no
    answer while stopping them loses nothing (a wait's watches before its write): the runner
    types it at the classification point as a read stopped for want of an answer, so that the
    fault reads the same whichever call met it. ``index``: the watch still unanswered;
    ``stderrs``: what each watch logged (``watches.watch_together`` fills them in)."""

    def __init__(self, index: int, idle: float, stderrs: Sequence[str] = ()) -> None:
        super().__init__(index, idle)
        self.index, self.idle, self.stderrs = index, idle, list(stderrs)


class Watching(Protocol):
    """What a run of several watching kubectl processes reports to (``watch_together``)."""

    def document(self, index: int, document: Any) -> bool:
        """A JSON document printed by watch ``index``; True ends the watches (decided)."""
        ...

    def stderr_line(self, index: int, line: str) -> bool:
        """A line watch ``index`` wrote on stderr; True ends the watches (decided)."""
        ...

    def wake_at(self) -> float | None:
        """When (``monotonic()``) to call ``woken`` with no new output: a grace ends."""
        ...

    def woken(self) -> bool:
        """The time ``wake_at`` named has come; True ends the watches (decided). Raises
        ``Unanswered`` when the watches went unanswered too long."""
        ...


class _Lines:
    """One pipe's bytes cut into lines as they come."""

    def __init__(self) -> None:
        self.pending = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:  # end of the pipe: what is left is the last line
            rest, self.pending = self.pending, b""
            return [rest] if rest else []
        self.pending += chunk
        *complete, self.pending = self.pending.split(b"\n")
        return complete


# How a run of watches ended: decided / time passed / a kubectl exited first (see below).
WatchRun = tuple[bool | None, int, int | None, list[str]]


def watch_together(
    calls: Sequence[Call], watching: Watching, *, started: Sequence[subprocess.Popen[Any]] = ()
) -> WatchRun:
    """Run a wait's watches at once, for at most their bound (``started``: their processes,
    begun ahead by ``process.start``, one per call; else they start here): each one's
    stdout lines (one JSON watch event each: ``--output-watch-events``) and stderr lines go
    to ``watching`` as they come, what a kubectl printed on stdout before a stderr line
    judged before that line.

    ``(True|False, -1, None, stderrs)``: ``watching`` decided / the time passed (all killed);
    ``(None, i, exit status, stderrs)``: kubectl ``i`` exited first (the others killed)."""
    argvs = [list(call.argv) for call in calls]
    procs: list[subprocess.Popen[Any]] = list(started)
    err: list[list[bytes]] = [[] for _ in argvs]
    deadline = monotonic() + min(call.bound for call in calls)
    # A kubectl has ended when it exits, not when its stdout closes: a child it left behind
    # (a wrapper's) may hold the pipe. Its pidfd tells (``process.exit_fd``; None off Linux).
    exits: dict[int, int] = {}
    try:
        with deferred():
            for argv in argvs[len(procs) :]:
                procs.append(spawn(argv, False, False))
        pipes: dict[int, tuple[int, bool, _Lines]] = {}
        for index, proc in enumerate(procs):
            assert proc.stdout is not None and proc.stderr is not None
            pipes[proc.stdout.fileno()] = (index, True, _Lines())
            pipes[proc.stderr.fileno()] = (index, False, _Lines())
        for index, proc in enumerate(procs):
            exited = exit_fd(proc)
            if exited is not None:
                exits[exited] = index
        while True:
            now = monotonic()
            if now >= deadline:
                return False, -1, None, _texts(err)
            wake = watching.wake_at()
            if wake is not None and wake <= now:
                if watching.woken():
                    return True, -1, None, _texts(err)
                continue
            left = deadline - now if wake is None else min(deadline, wake) - now
            ready, _, _ = select.select([*pipes, *exits], [], [], max(0.0, left))
            for fd in sorted(ready, key=lambda fd: fd in exits or not pipes[fd][1]):
                if fd in exits:  # kubectl exited: what it printed is in the pipes by now
                    index = exits[fd]
                    if _read_buffered(_stdout_of(pipes, index), pipes, watching, err):
                        return True, -1, None, _texts(err)
                    kill_group(procs[index])  # what it left behind lets go of the pipes
                    status = _exit_status(procs[index], pipes, index, err)
                    return None, index, status, _texts(err)
                if fd not in pipes:
                    continue
                index, is_stdout, _ = pipes[fd]
                if is_stdout:
                    ended = _read(fd, pipes, watching, err)
                else:
                    # What kubectl printed before a stderr line is judged before that line
                    # (its watch line says the list is complete). Its stdout is drained
                    # after the stderr read, not before: kubectl may print its list and log
                    # the watch line between a look at stdout and that read, and then "no
                    # Deployment" would be judged as "deleted".
                    chunk = os.read(fd, 1 << 16)
                    err[index].append(chunk)
                    ended = _drain(_stdout_of(pipes, index), pipes, watching, err)
                    if ended is None:
                        ended = _fed(fd, chunk, pipes, watching)
                if ended is False:  # stdout closed: kubectl is exiting
                    status = _exit_status(procs[index], pipes, index, err)
                    return None, index, status, _texts(err)
                if ended:
                    return True, -1, None, _texts(err)
    except Unanswered as silent:  # what the watches logged is the classification's evidence
        raise Unanswered(silent.index, silent.idle, _texts(err)) from None
    finally:
        for exited in exits:
            os.close(exited)
        for proc in procs:
            stop(proc)


def _read_buffered(
    fds: list[int],
    pipes: dict[int, tuple[int, bool, _Lines]],
    watching: Watching,
    err: list[list[bytes]],
) -> bool:
    """What an exited kubectl left in its stdout, judged without waiting for the pipe to
    close: True when it decided the wait."""
    return _drain(fds, pipes, watching, err) is True


def _drain(
    fds: list[int],
    pipes: dict[int, tuple[int, bool, _Lines]],
    watching: Watching,
    err: list[list[bytes]],
) -> bool | None:
    """Every stdout ``fds`` holds now, judged (a big list's events take several reads):
    True decided, False a stdout closed, None go on."""
    for fd in fds:
        while fd in pipes and select.select([fd], [], [], 0)[0]:
            ended = _read(fd, pipes, watching, err)
            if ended is not None:
                return ended
    return None


def _stdout_of(pipes: dict[int, tuple[int, bool, _Lines]], index: int) -> list[int]:
    return [fd for fd, (owner, is_stdout, _) in pipes.items() if owner == index and is_stdout]


def _read(
    fd: int, pipes: dict[int, tuple[int, bool, _Lines]], watching: Watching, err: list[list[bytes]]
) -> bool | None:
    """One read of a ready pipe, its complete lines judged: True decided, False the stdout
    closed, None go on."""
    index, is_stdout, _ = pipes[fd]
    chunk = os.read(fd, 1 << 16)
    if not is_stdout:
        err[index].append(chunk)
    return _fed(fd, chunk, pipes, watching)


def _fed(
    fd: int, chunk: bytes, pipes: dict[int, tuple[int, bool, _Lines]], watching: Watching
) -> bool | None:
    """A chunk read from ``fd``, its complete lines judged (as ``_read``)."""
    index, is_stdout, lines = pipes[fd]
    for line in lines.feed(chunk):
        if judged(watching, index, is_stdout, line):
            return True
    if not chunk:
        if is_stdout:
            return False
        del pipes[fd]
    return None


def judged(watching: Watching, index: int, is_stdout: bool, line: bytes) -> bool:
    if not is_stdout:
        return bool(line) and watching.stderr_line(index, text(line))
    if not line.strip():
        return False
    try:
        document = json.loads(line)
    except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
        raise InternalError(f"kubectl printed a watch event that is not JSON: {exc}", {}) from None
    return watching.document(index, document)


def _exit_status(
    proc: subprocess.Popen[Any],
    pipes: dict[int, tuple[int, bool, _Lines]],
    index: int,
    err: list[list[bytes]],
) -> int | None:
    """kubectl ``index`` closed its stdout: its exit status, with the rest of its stderr."""
    for fd, (owner, is_stdout, _) in list(pipes.items()):
        if owner == index and not is_stdout:
            with contextlib.suppress(OSError):
                drain_until = monotonic() + KILL_DRAIN_SECONDS
                while monotonic() < drain_until:
                    ready, _, _ = select.select([fd], [], [], drain_until - monotonic())
                    chunk = os.read(fd, 1 << 16) if ready else b""
                    if not chunk:
                        break
                    err[index].append(chunk)
    try:
        return proc.wait(timeout=KILL_DRAIN_SECONDS)
    except subprocess.TimeoutExpired:
        return None


def _texts(err: list[list[bytes]]) -> list[str]:
    return [text(b"".join(chunks)) for chunks in err]
