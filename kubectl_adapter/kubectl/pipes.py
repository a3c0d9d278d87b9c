"""Reading a kubectl's pipes until it exits, and killing its process group.

kubectl has ended when it exits, not when its pipes close (a child it left behind may hold
them). With a ``Pace`` the read also follows kubectl's requests as its ``-v`` log shows them,
and stops a kubectl that waits too long for an answer while stopping it loses nothing.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
from time import monotonic
from typing import IO, Any

from .pace import Pace

# How long we still read a killed kubectl's pipes: a child it started (an exec credential
# plugin) can hold them open, and must not turn our bounded call into an unbounded one.
KILL_DRAIN_SECONDS = 5.0

# Without a pidfd (not Linux), how often a read of kubectl's pipes looks whether it exited.
EXIT_POLL_SECONDS = 0.05


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL kubectl's whole process group (it leads it: ``start_new_session``).

    The group outlives kubectl while any member lives, so its ID is not reused by then; once
    the group is empty the kill finds nothing. A pid below 2 is never a group we made
    (``killpg(0)`` would be our own group): then only the process itself is killed.
    """
    if proc.pid is not None and proc.pid > 1:
        # ESRCH: the group is gone, nothing of it is left to kill.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()


def exit_fd(proc: subprocess.Popen[Any]) -> int | None:
    """A descriptor that becomes readable when kubectl exits (Linux pidfd), else None."""
    try:
        return os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return None


def collect(
    proc: subprocess.Popen[Any], data: bytes | None, timeout: float, pace: Pace | None = None
) -> tuple[int | None, bytes, bytes]:
    """kubectl's exit status, stdout and stderr; ``None`` as status: killed at ``timeout``,
    or (``pace.stalled``) for want of an answer while stopping it lost nothing.

    The pipes are read until kubectl exits, then its group is killed and what is already
    buffered is read, without waiting for anyone else to close them.
    """
    try:
        out_fd = proc.stdout.fileno()  # type: ignore[union-attr]
        err_fd = proc.stderr.fileno()  # type: ignore[union-attr]
    except (OSError, ValueError, AttributeError):
        # Not pipes (a test's stand-in for kubectl): its own communicate knows its end.
        return _communicate(proc, data, timeout, pace)
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    if proc.stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, data or b""), daemon=True).start()
    exited = exit_fd(proc)
    deadline = monotonic() + timeout
    open_fds = [out_fd, err_fd]
    returncode: int | None = None
    try:
        while True:
            returncode = proc.poll()
            if returncode is not None:
                break
            now = monotonic()
            if now >= deadline:
                break
            idle = pace.idle_deadline() if pace is not None else None
            if pace is not None and idle is not None and now >= idle:
                if _stop_if_still_stoppable(proc, pace, err_fd, chunks[err_fd]):
                    break
                continue
            wake = deadline if idle is None else min(deadline, idle)
            if not open_fds:  # both pipes closed: only the exit is left to wait for
                with contextlib.suppress(subprocess.TimeoutExpired):
                    returncode = proc.wait(timeout=wake - now)
                if returncode is not None or wake == deadline:
                    break
                continue
            watched = open_fds + ([exited] if exited is not None else [])
            # Without a pidfd, look at the exit status now and then.
            wait = wake - now if exited is not None else min(wake - now, EXIT_POLL_SECONDS)
            ready, _, _ = select.select(watched, [], [], wait)
            for fd in ready:
                if fd == exited:
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    open_fds.remove(fd)
                    continue
                chunks[fd].append(chunk)
                if fd == err_fd and pace is not None:
                    pace.feed(chunk)
    finally:
        if exited is not None:
            os.close(exited)
    # Exited or out of time: the group dies either way, then what it wrote is read.
    kill_group(proc)
    if returncode is None:
        proc.wait()
    for fd in open_fds:
        read_buffered(fd, chunks[fd])
    return returncode, b"".join(chunks[out_fd]), b"".join(chunks[err_fd])


def _stop_if_still_stoppable(
    proc: subprocess.Popen[Any], pace: Pace, err_fd: int, sink: list[bytes]
) -> bool:
    """kubectl waited ``pace.idle`` for an answer: kill it if that loses nothing (True).

    A write is frozen first (SIGSTOP to its group), then what its log says is read to the
    end: kubectl logs a write request before sending it, so a frozen kubectl whose log shows
    none has not sent one, and killing it changes nothing in the cluster. One that has is
    let go on (SIGCONT), bounded as any write.
    """
    if pace.write:
        _signal_group(proc, signal.SIGSTOP)
        before = len(sink)
        read_buffered(err_fd, sink)
        os.set_blocking(err_fd, True)
        for chunk in sink[before:]:
            pace.feed(chunk)
        if not pace.stoppable:
            _signal_group(proc, signal.SIGCONT)
            return False
    pace.stalled = True
    return True


def _signal_group(proc: subprocess.Popen[Any], signum: int) -> None:
    if proc.pid is not None and proc.pid > 1:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signum)


def _communicate(
    proc: subprocess.Popen[Any], data: bytes | None, timeout: float, pace: Pace | None
) -> tuple[int | None, bytes, bytes]:
    """A stand-in process without pipes: bounded by ``timeout``, its stderr paced after."""
    try:
        stdout, stderr = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        try:
            stdout, stderr = proc.communicate(timeout=KILL_DRAIN_SECONDS)
        except subprocess.TimeoutExpired:
            stdout, stderr = b"", b""
        return None, stdout or b"", stderr or b""
    if pace is not None and stderr:
        pace.feed(stderr)
    return proc.returncode, stdout or b"", stderr or b""


def _feed(pipe: IO[bytes], data: bytes) -> None:
    # Without the close a kubectl reading ``-f -`` would wait for stdin until killed.
    try:
        if data:
            pipe.write(data)
        pipe.close()
    except (BrokenPipeError, ValueError, OSError):
        pass  # kubectl exited (or was killed) before reading all of it


def read_buffered(fd: int, sink: list[bytes]) -> None:
    """What the pipe holds now, without waiting for a writer kubectl left behind (which
    may live outside its group); bounded in time against one that writes without end."""
    os.set_blocking(fd, False)
    until = monotonic() + KILL_DRAIN_SECONDS
    with contextlib.suppress(BlockingIOError, OSError):
        while monotonic() < until:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            sink.append(chunk)
