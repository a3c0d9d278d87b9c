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
from typing import IO, Any

from ..contract.errors import ConfigurationError, InternalError
from .interrupts import deferred
from .pace import Pace
from .pipes import KILL_DRAIN_SECONDS, collect, exit_fd, kill_group, read_buffered

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


def feed_documents(
    proc: subprocess.Popen[Any],
    on_object: Callable[[Any], bool],
    deadline: float,
    exited: int | None = None,
) -> bool | None:
    """Read kubectl's stdout until ``deadline``: each document kubectl prints goes to
    ``on_object``. True/False: the watch is over
    (``on_object`` said so / the time passed); None: kubectl exited first. ``exited``:
    ``exit_fd(proc)``, so that kubectl's exit ends the read even while a child it left
    behind holds stdout open."""
    assert proc.stdout is not None
    try:
        fd: int | None = proc.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        fd = None  # not a pipe (a test's stand-in for kubectl): read it as it comes
    pending = b""
    lines: list[bytes] = []
    gone = False  # kubectl exited and what it left in the pipe was read: the end
    while True:
        left = deadline - monotonic()
        if left <= 0:
            return False
        if gone:
            chunk = b""
        elif fd is not None:
            watched = [fd] if exited is None else [fd, exited]
            ready, _, _ = select.select(watched, [], [], left)
            if not ready:
                return False
            if fd in ready:
                chunk = os.read(fd, 1 << 16)
            else:  # kubectl exited: all it wrote is in the pipe now
                rest: list[bytes] = []
                read_buffered(fd, rest)
                chunk, gone = b"".join(rest), True
        else:
            chunk = proc.stdout.readline()
            if isinstance(chunk, str):
                chunk = chunk.encode()
        if not chunk:
            if pending:
                chunk, pending = pending + b"\n", b""
            else:
                return None
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            lines.append(line)
            end = line.rstrip()
            # A document ends on a bare "}" (indented output) or is one line (watch events).
            if end != b"}" and not (len(lines) == 1 and end.endswith(b"}")):
                continue
            try:
                document = json.loads(b"\n".join(lines))
            except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
                if end != b"}":
                    continue  # one line of a longer document
                raise InternalError(
                    f"kubectl printed a watch event that is not JSON: {exc}", {}
                ) from None
            lines = []
            if on_object(document):
                return True


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


def watch_documents(
    argv: list[str], on_object: Callable[[Any], bool], seconds: float
) -> tuple[bool | None, int | None, str]:
    """Run a watching kubectl for at most ``seconds``, its documents fed to ``on_object``.

    ``(True|False, None, stderr)``: ``on_object`` ended the watch / the time passed (kubectl
    killed); ``(None, exit status, stderr)``: kubectl exited first."""
    proc: subprocess.Popen[Any] | None = None
    err: list[bytes] = []
    try:
        with deferred():
            proc = spawn(argv, False, False)
        drainer = threading.Thread(target=drain, args=(proc.stderr, err), daemon=True)
        drainer.start()
        exited = exit_fd(proc)
        try:
            ended = feed_documents(proc, on_object, monotonic() + seconds, exited)
        finally:
            if exited is not None:
                os.close(exited)
        if ended is not None:
            return ended, None, text(b"".join(err))
        returncode = proc.wait()
        kill_group(proc)  # what it left behind, whose copy of stderr keeps the drainer on
        drainer.join(timeout=KILL_DRAIN_SECONDS)
        return None, returncode, text(b"".join(err))
    finally:
        if proc is not None:
            kill_group(proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=KILL_DRAIN_SECONDS)  # reaped: no zombie left behind
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
