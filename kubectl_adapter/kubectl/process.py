"""One kubectl process, run as its ``Call`` says: started in its own process group (the one
``Popen`` of the package), its pipes read until it exits, the whole group killed on every
way out.

kubectl has ended when it exits, not when its pipes close (a child it left behind may hold
them). A paced call's stderr goes to its ``Pace`` as it comes, which says when kubectl may be
stopped for want of an answer; nothing here decides a bound or reads an error (a waiting
kubectl's refused watch is recognised by ``requests_log``, the reader of kubectl's log). With
``watches`` (several at once) this is all that touches ``subprocess``.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
from collections.abc import Callable
from time import monotonic
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import ConfigurationError
from .call import Call
from .config import kubectl_environment
from .interrupts import deferred
from .lifetime import dies_with_us

if TYPE_CHECKING:  # imported where a paced call needs it: most reads are not paced
    from .pace import Pace

# How long we still read a killed kubectl's pipes: a child it started (an exec credential
# plugin) can hold them open, and must not turn our bounded call into an unbounded one.
KILL_DRAIN_SECONDS = 5.0

# Without a pidfd (not Linux), how often a read of kubectl's pipes looks whether it exited.
EXIT_POLL_SECONDS = 0.05

# A waiting kubectl whose watch is refused (401/403) this many times is stopped: it would
# retry until its --timeout (the whole wait slice) and then time out for nothing.
REFUSALS_TO_GIVE_UP = 2


class Ended(NamedTuple):
    """What a kubectl left: exit status (``None``: killed at its bound, or ``unanswered``:
    for want of an answer while that lost nothing), stdout (bytes for a ``raw`` call),
    stderr."""

    returncode: int | None
    stdout: str | bytes
    stderr: str
    unanswered: bool = False


def spawn(
    argv: list[str], has_stdin: bool, stream: bool, *, lean: bool = False
) -> subprocess.Popen[Any]:
    """Start kubectl in its own process group; a kubectl that cannot run is configuration.
    ``lean``: one that lives as long as the live feed (``config.kubectl_environment``)."""
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if has_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Bytes unless streaming: text mode would translate newlines over the whole
            # of a big `get -o json` (tens of MB) for nothing; we decode once instead.
            text=stream,
            encoding="utf-8" if stream else None,
            errors="replace" if stream else None,
            # Its own process group: kubectl and whatever it starts (exec credential
            # plugins) are killed together, and a terminal's Ctrl-C reaches only us.
            start_new_session=True,
            # And it dies with us even when we are SIGKILLed (Linux: ``lifetime``).
            preexec_fn=dies_with_us(),
            env=kubectl_environment(lean),
        )
    except FileNotFoundError:
        raise ConfigurationError(
            f"kubectl not found at {argv[0]!r}", {"kubectl": argv[0]}
        ) from None
    except PermissionError:
        raise ConfigurationError(
            f"kubectl at {argv[0]!r} is not executable", {"kubectl": argv[0]}
        ) from None
    except OSError as exc:  # e.g. ENOEXEC: not a program for this machine
        raise ConfigurationError(
            f"kubectl at {argv[0]!r} cannot be run: {exc.strerror or exc}",
            {"kubectl": argv[0]},
        ) from None


def run(
    call: Call,
    began: float,
    *,
    started: subprocess.Popen[Any] | None = None,
    echo: Callable[[str], None] | None = None,
) -> Ended:
    """Run ``call`` to its end. ``began``: when its bound started counting (``started``: the
    process ``start`` began for it then, a read with no stdin, finished here). ``echo``:
    where its stdout lines go as they come (a ``stream`` call: a wait's progress)."""
    argv = list(call.argv)
    proc: subprocess.Popen[Any] | None = started
    try:
        if proc is None:
            # A signal while Popen starts kubectl waits until we hold the process (see
            # ``interrupts``): unwinding earlier would leave kubectl running, unknown to us.
            with deferred():
                proc = spawn(argv, call.stdin is not None, echo is not None)
            timeout = call.bound
        else:
            # Its bound counts from its start, as every kubectl's does.
            timeout = max(0.0, call.bound - (monotonic() - began))
        if echo is not None:
            return _streaming(proc, call.stdin, timeout, echo)
        paced = call.pacing
        pace = None
        if paced is not None:  # imported here: an unpaced call (most reads) never needs it
            from .pace import Pace

            pace = Pace(paced.idle, write=paced.write, started=began)
        data = call.stdin.encode("utf-8") if call.stdin is not None else None
        returncode, stdout, stderr, unanswered = _collect(proc, data, timeout, pace)
        out = stdout if call.raw and returncode is not None else text(stdout)
        return Ended(returncode, out, text(stderr), unanswered)
    finally:
        # On every way out (a bound, a signal, a bug of ours, and after a normal exit,
        # for a credential plugin kubectl left behind): the whole group dies.
        if proc is not None:
            kill_group(proc)
            _close(proc)


def start(argv: list[str], keep: Callable[[subprocess.Popen[Any]], None]) -> None:
    """Start a read (no stdin, output kept for later) that ``run(started=…)`` finishes,
    handing it to ``keep`` before a signal can unwind (the caller must ``stop`` it if
    nothing finishes it)."""
    with deferred():
        keep(spawn(argv, False, False))


def stop(proc: subprocess.Popen[Any]) -> None:
    """Kill a started process nobody finished, with its group, and reap it."""
    kill_group(proc)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=KILL_DRAIN_SECONDS)
    _close(proc)


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


def text(output: bytes | str | None) -> str:
    if not output:
        return ""
    return output if isinstance(output, str) else output.decode("utf-8", "replace")


def _collect(
    proc: subprocess.Popen[Any], data: bytes | None, timeout: float, pace: Pace | None
) -> tuple[int | None, bytes, bytes, bool]:
    """kubectl's exit status, stdout and stderr, and whether it was stopped unanswered;
    ``None`` as status: killed at ``timeout``, or for want of an answer (``pace``).

    The pipes are read until kubectl exits, then its group is killed and what is already
    buffered is read, without waiting for anyone else to close them.
    """
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    if proc.stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, data or b""), daemon=True).start()
    exited = exit_fd(proc)
    deadline = monotonic() + timeout
    open_fds = [out_fd, err_fd]
    returncode: int | None = None
    unanswered = False
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
                    unanswered = True
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
    return returncode, b"".join(chunks[out_fd]), b"".join(chunks[err_fd]), unanswered


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
    return True


def _signal_group(proc: subprocess.Popen[Any], signum: int) -> None:
    if proc.pid is not None and proc.pid > 1:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signum)


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


def _streaming(
    proc: subprocess.Popen[str], stdin: str | None, timeout: float, echo: Callable[[str], None]
) -> Ended:
    """Hand kubectl's stdout (rollout progress) to ``echo`` line by line as it comes."""
    out: list[str] = []
    err: list[str] = []
    refusals: list[str] = []

    def feed() -> None:
        # Without this a kubectl reading ``-f -`` would wait for stdin until killed.
        if proc.stdin is None:
            return
        try:
            if stdin:
                proc.stdin.write(stdin)
            proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass  # kubectl exited (or was killed) before reading all of it

    def pump(source: IO[str] | None, sink: list[str], is_stdout: bool) -> None:
        if source is None:
            return
        from .requests_log import watch_refused

        try:
            for line in iter(source.readline, ""):
                sink.append(line)
                if is_stdout:
                    echo(line)
                elif watch_refused(line) is not None:
                    refusals.append(line)
                    # A refused watch (401/403) is retried until --timeout for nothing.
                    # Not at the first refusal: client-go refreshes an exec plugin's
                    # credential after a 401, so only a second one is final.
                    if len(refusals) >= REFUSALS_TO_GIVE_UP:
                        kill_group(proc)
        except (OSError, ValueError):
            pass  # the pipe was closed under us after the drain period

    threads = [
        threading.Thread(target=pump, args=(proc.stdout, out, True), daemon=True),
        threading.Thread(target=pump, args=(proc.stderr, err, False), daemon=True),
        threading.Thread(target=feed, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        returncode: int | None = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        returncode = None
    # kubectl ended: so does what it left behind, whose copies of the pipes would otherwise
    # keep the readers waiting for the whole drain period.
    kill_group(proc)
    proc.wait()
    for thread in threads:
        thread.join(timeout=KILL_DRAIN_SECONDS)
    return Ended(returncode, "".join(out), "".join(err))


def _close(proc: subprocess.Popen[Any]) -> None:
    """Close our ends of kubectl's pipes. Closing stdin flushes what a feeder left buffered:
    a kubectl that closed its stdin early (it exited, or never read ``-f -`` to the end)
    makes that flush fail with EPIPE, which loses nothing: kubectl has ended."""
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(BrokenPipeError):
                pipe.close()
