"""One kubectl process: started in its own process group, its output read as it comes,
the whole group killed on every way out. The runner decides bounds, logging and errors;
this module only handles the process (and is, with ``pipes`` and the runner, all that
touches ``subprocess``).
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import select
import subprocess
import threading
from collections.abc import Callable
from time import monotonic
from typing import IO, Any, Protocol

from ..contract.errors import ConfigurationError, InternalError
from .interrupts import deferred
from .lifetime import dies_with_us
from .pace import Pace
from .pipes import KILL_DRAIN_SECONDS, collect, exit_fd, kill_group

# A waiting kubectl whose watch is refused (401/403) this many times is stopped: it would
# retry until its --timeout (the whole wait slice) and then time out for nothing.
REFUSALS_TO_GIVE_UP = 2

# HOME for kubectl when $HOME/.kube/config cannot even be looked up: the Cloud SDK
# dispatcher stats that path even with --kubeconfig or $KUBECONFIG and fails on any error
# but "no such file" (HOME=/dev/null for a service user, ~/.kube a regular file or a symlink
# loop: "not a directory", "too many levels of symbolic links"); under the conventional
# no-home path it finds no file and carries on, reading only the kubeconfig it was given.
NO_HOME = "/nonexistent"


def kubectl_environment() -> dict[str, str] | None:
    """kubectl's environment: ours (``None``), unless kubectl would fail on
    ``$HOME/.kube/config`` before reading the kubeconfig it was given."""
    home = os.environ.get("HOME")
    if home is None:
        return None
    try:
        os.stat(os.path.join(home, ".kube", "config"))
    except FileNotFoundError:
        return None
    except OSError:
        return {**os.environ, "HOME": NO_HOME}
    return None


def spawn(argv: list[str], has_stdin: bool, stream: bool) -> subprocess.Popen[Any]:
    """Start kubectl in its own process group; a kubectl that cannot run is configuration."""
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
            env=kubectl_environment(),
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


def execute_streaming(
    proc: subprocess.Popen[str], stdin: str | None, timeout: float, echo: Callable[[str], None]
) -> tuple[int | None, str, str]:
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
        try:
            for line in iter(source.readline, ""):
                sink.append(line)
                if is_stdout:
                    echo(line)
                elif _is_fatal_wait_line(line):
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
    return returncode, "".join(out), "".join(err)


def drain(source: IO[bytes] | None, sink: list[bytes]) -> None:
    if source is None:
        return
    with contextlib.suppress(OSError, ValueError):
        for chunk in iter(lambda: source.read1(65536), b""):  # type: ignore[attr-defined]
            sink.append(chunk)


def text(output: bytes | str | None) -> str:
    if not output:
        return ""
    return output if isinstance(output, str) else output.decode("utf-8", "replace")


def start(argv: list[str], keep: Callable[[subprocess.Popen[Any]], None]) -> None:
    """Start a read (no stdin, output kept for later) that ``execute(started=…)`` finishes,
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


def execute(
    argv: list[str],
    stdin: str | None,
    timeout: float,
    echo: Callable[[str], None] | None,
    *,
    started: subprocess.Popen[Any] | None = None,
    raw: bool = False,
    pace: Pace | None = None,
) -> tuple[int | None, str | bytes, str]:
    """Run the process; ``None`` as exit status means it was killed at ``timeout``. With
    ``echo``, its stdout lines go there as they come (a wait's progress). ``started``: the
    process ``start`` began for ``argv`` (a read with no stdin); it is finished here.
    ``raw``: stdout as kubectl wrote it, bytes (a big answer's decoder reads them without a
    copy as text). ``pace``: follow kubectl's requests in its ``-v`` log (``pipes.collect``)."""
    proc: subprocess.Popen[Any] | None = started
    try:
        if proc is None:
            # A signal while Popen starts kubectl waits until we hold the process (see
            # ``interrupts``): unwinding earlier would leave kubectl running, unknown to us.
            with deferred():
                proc = spawn(argv, stdin is not None, echo is not None)
        if echo is not None:
            return execute_streaming(proc, stdin, timeout, echo)
        data = stdin.encode("utf-8") if stdin is not None else None
        returncode, stdout, stderr = collect(proc, data, timeout, pace)
        if returncode is None:
            return None, text(stdout), text(stderr)
        return returncode, stdout if raw else text(stdout), text(stderr)
    finally:
        # On every way out (a bound, a signal, a bug of ours, and after a normal exit,
        # for a credential plugin kubectl left behind): the whole group dies.
        if proc is not None:
            kill_group(proc)
            _close(proc)


def _close(proc: subprocess.Popen[Any]) -> None:
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def discovery_stamp(cache_dir: str | None) -> tuple[int, int]:
    """How many discovery caches kubectl has written, and the newest one's time."""
    root = cache_dir or os.environ.get("KUBECACHEDIR")
    if not root:
        root = os.path.join(os.path.expanduser("~"), ".kube", "cache")
    found = glob.glob(os.path.join(glob.escape(root), "discovery", "*", "servergroups.json"))
    newest = 0
    for path in found:
        with contextlib.suppress(OSError):
            newest = max(newest, os.stat(path).st_mtime_ns)
    return len(found), newest


def _is_fatal_wait_line(line: str) -> bool:
    # The error table is loaded by the first stderr line of a wait, not at start-up.
    from .kubectl_errors import is_fatal_wait_line

    return is_fatal_wait_line(line)


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
        """The time ``wake_at`` named has come; True ends the watches (decided)."""
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


def watch_together(
    argvs: list[list[str]], watching: Watching, seconds: float
) -> tuple[bool | None, int, int | None, list[str]]:
    """Run several watching kubectl processes at once, for at most ``seconds``: each one's
    stdout lines (one JSON watch event each: ``--output-watch-events``) and stderr lines go
    to ``watching`` as they come, what a kubectl printed on stdout before a stderr line
    judged before that line.

    ``(True|False, -1, None, stderrs)``: ``watching`` decided / the time passed (all killed);
    ``(None, i, exit status, stderrs)``: kubectl ``i`` exited first (the others killed)."""
    procs: list[subprocess.Popen[Any]] = []
    err: list[list[bytes]] = [[] for _ in argvs]
    deadline = monotonic() + seconds
    # A kubectl has ended when it exits, not when its stdout closes: a child it left behind
    # (a wrapper's) may hold the pipe. Its pidfd tells (``pipes.exit_fd``; None off Linux).
    exits: dict[int, int] = {}
    try:
        with deferred():
            for argv in argvs:
                procs.append(spawn(argv, False, False))
        pipes: dict[int, tuple[int, bool, _Lines]] = {}
        try:
            for index, proc in enumerate(procs):
                assert proc.stdout is not None and proc.stderr is not None
                pipes[proc.stdout.fileno()] = (index, True, _Lines())
                pipes[proc.stderr.fileno()] = (index, False, _Lines())
        except (OSError, ValueError, AttributeError):
            ended, index, status = _stand_ins(procs, watching, err)
            return ended, index, status, _texts(err)
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


def _stand_ins(
    procs: list[subprocess.Popen[Any]], watching: Watching, err: list[list[bytes]]
) -> tuple[bool | None, int, int | None]:
    """Stand-ins for kubectl that are not pipes (a test's): what each printed is there at
    once, judged stdout then stderr, one after the other; then one that failed has exited,
    and the others watch on, silent, until the bound (``False``)."""
    for index, proc in enumerate(procs):
        for is_stdout, pipe in ((True, proc.stdout), (False, proc.stderr)):
            data = pipe.read() if pipe is not None else b""
            raw = data.encode() if isinstance(data, str) else (data or b"")
            if not is_stdout:
                err[index].append(raw)
            for line in raw.split(b"\n"):
                if _judged(watching, index, is_stdout, line):
                    return True, -1, None
    for index, proc in enumerate(procs):
        status = proc.poll()
        if status:
            return None, index, status
    return False, -1, None


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
        if _judged(watching, index, is_stdout, line):
            return True
    if not chunk:
        if is_stdout:
            return False
        del pipes[fd]
    return None


def _judged(watching: Watching, index: int, is_stdout: bool, line: bytes) -> bool:
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
