"""A stdout that cannot take the document (issue 26): closed (``>&-``), full
(``>/dev/full``), a reader that went away (``| head -c 1``: EPIPE), ``sys.stdout`` None.

No traceback, no "Exception ignored … BrokenPipeError" from the interpreter's exit, one
line on stderr saying why, and the exit code of what happened: OutputFailed (11) when the
command succeeded, the error's own code when it failed. The work is never undone: a stop
that stopped stays stopped. stderr that cannot be written (the ``-v`` log, progress) never
stops the command either.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli.progress import TerminalProgress
from kubectl_adapter.kubectl.interrupts import Signalled
from tests.e2e.conftest import Cluster, spec
from tests.k8s_objects import deployment, kubectl_list, pod, replicaset

from .helpers import ROOT, cli_argv, cli_env, script

LOST = re.compile(
    r"kubectl-adapter: the (result of [a-z]+|[A-Za-z]+ error document|help) could not be written "
    r"to stdout \((Broken pipe|No space left on device|Bad file descriptor|the stream is "
    r"closed)\); (exit \d+|the command succeeded: exit 11 \(OutputFailed\))\n"
)


def _one_line_why(stderr: str) -> None:
    assert LOST.fullmatch(stderr), stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr


# -- in process: stdout failing at any byte of the document -----------------------------------


class FailingStdout(io.StringIO):
    """A stdout that takes ``room`` characters, then fails as ``failure`` says."""

    def __init__(self, room: int, failure: BaseException) -> None:
        super().__init__()
        self.room = room
        self.failure = failure

    def write(self, text: str) -> int:
        if self.tell() + len(text) > self.room:
            super().write(text[: self.room - self.tell()])
            raise self.failure
        return super().write(text)


FAILURES = {
    "EPIPE": BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)),
    "ENOSPC": OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
    "EBADF": OSError(errno.EBADF, os.strerror(errno.EBADF)),
    "closed": ValueError("I/O operation on closed file."),
}


@pytest.fixture(scope="module")
def stub_kubectl(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A kubectl answering every read with one running workload (status's one call)."""
    dep = deployment()
    rs = replicaset(dep)
    answer = tmp_path_factory.mktemp("stub") / "answer.json"
    answer.write_text(kubectl_list([dep, rs, pod(rs)]))
    return script(answer.parent / "kubectl", f'cat "{answer}"\n')


def _commands(kubectl: str) -> dict[str, tuple[list[str], int]]:
    """argv and the exit code of a command whose document is written whole."""
    return {
        "capabilities": (["capabilities"], 0),
        "capabilities yaml": (["-o", "yaml", "capabilities"], 0),
        "capabilities table": (["-o", "table", "capabilities"], 0),
        "render": (["-n", "manager", "render", "--spec", str(ROOT / "examples/nginx.json")], 0),
        "status": (["--kubectl", kubectl, "status", "testns/web-1"], 0),
        "status table": (["--kubectl", kubectl, "-o", "table", "status", "testns/web-1"], 0),
        "status bad": (["status", "Bad_Name"], 2),
        "status bad yaml": (["-o", "yaml", "status", "Bad_Name"], 2),
        "create missing spec": (["create", "--spec", "/nonexistent.json"], 2),
    }


def _run_in_process(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], stdout: Any
) -> tuple[int, str]:
    err = io.StringIO()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdout", stdout)
        patch.setattr(sys, "stderr", err)
        code = cli.main(argv)
    return code, err.getvalue()


# No deadline: each example runs the CLI twice (status spawns a stub kubectl), and a loaded
# machine must not turn a slow example into a failure.
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_stdout_failing_at_any_byte(
    monkeypatch: pytest.MonkeyPatch, stub_kubectl: str, data: st.DataObject
) -> None:
    commands = _commands(stub_kubectl)
    name = data.draw(st.sampled_from(sorted(commands)), label="command")
    argv, code = commands[name]
    whole = io.StringIO()
    assert _run_in_process(monkeypatch, argv, whole)[0] == code
    document = whole.getvalue()
    assert document
    room = data.draw(st.integers(0, len(document) - 1), label="room")
    failure = data.draw(st.sampled_from(sorted(FAILURES)), label="failure")
    stdout = FailingStdout(room, FAILURES[failure])
    got, stderr = _run_in_process(monkeypatch, argv, stdout)
    assert got == (11 if code == 0 else code), (got, stderr)
    _one_line_why(stderr)
    assert document.startswith(stdout.getvalue())  # what went out is the document's start


@pytest.mark.parametrize("name", ["capabilities", "status bad"])
def test_stdout_none(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The process started with fd 1 closed: Python's ``sys.stdout`` is None."""
    argv, code = _commands("kubectl")[name]
    got, stderr = _run_in_process(monkeypatch, argv, None)
    assert got == (11 if code == 0 else code)
    _one_line_why(stderr)


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_signal_whose_document_is_lost_keeps_its_code(
    monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """SIGTERM mid-command: 128 + 15 whether or not the Interrupted document gets out."""

    def terminated(args: Any) -> Any:
        raise Signalled(signal.SIGTERM)

    monkeypatch.setattr(cli, "run_command", terminated)
    argv = ["status", "testns/web-1"]
    got, stderr = _run_in_process(monkeypatch, argv, FailingStdout(5, FAILURES[failure]))
    assert got == 143
    _one_line_why(stderr)
    assert "the Interrupted error document" in stderr


def test_a_terminal_that_fails_ends_the_progress_quietly() -> None:
    """The progress line (and the ``-v`` lines written above it) on a terminal that went
    away: the wait it shows is not interrupted."""

    class DeadTerminal(FailingStdout):
        def isatty(self) -> bool:
            return True

    stream = DeadTerminal(10, OSError(errno.EIO, os.strerror(errno.EIO)))
    display = TerminalProgress(stream, interval=0.01, width=lambda: 80)
    display.begin("rollout of ns/web-1", 30)
    display.note("0 of 1 updated replicas are available")
    display.write("# a -v line\n")
    display.flush()
    display.end()
    assert len(stream.getvalue()) <= 10


# -- the real process: the interpreter's exit, fds closed at start ----------------------------


def _process(
    argv: list[str], stdout: Any, *, shell: str = "", stderr: Any = None
) -> tuple[int, str]:
    """The CLI as a process; ``shell``: redirections applied by sh before it starts."""
    command = cli_argv(*argv)
    if shell:
        command = ["sh", "-c", f'exec "$@" {shell}', "sh", *command]
    proc = subprocess.run(
        command,
        stdout=stdout,
        stderr=subprocess.PIPE if stderr is None else stderr,
        timeout=60,
        cwd=ROOT,
        env=cli_env(),
        check=False,
    )
    return proc.returncode, (proc.stderr or b"").decode()


def _broken_pipe() -> int:
    """The write end of a pipe whose reader has gone: the first write is EPIPE."""
    read, write = os.pipe()
    os.close(read)
    return write


WAYS = ["full", "closed", "epipe"]


@contextlib.contextmanager
def _stdout(way: str) -> Iterator[tuple[Any, str]]:
    """stdout for the process, and the redirection sh applies: full, closed, or EPIPE."""
    if way == "full":
        with open("/dev/full", "wb") as full:
            yield full, ""
    elif way == "closed":
        yield subprocess.DEVNULL, ">&-"
    else:
        write = _broken_pipe()
        try:
            yield write, ""
        finally:
            os.close(write)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(
    ("argv", "code"),
    [(["capabilities"], 11), (["-o", "yaml", "capabilities"], 11), (["status", "Bad_Name"], 2)],
    ids=["capabilities", "yaml", "status bad"],
)
def test_the_process_ends_cleanly(way: str, argv: list[str], code: int) -> None:
    with _stdout(way) as (stdout, shell):
        got, stderr = _process(argv, stdout, shell=shell)
    assert got == code, stderr
    _one_line_why(stderr)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(
    "argv", [[], ["--version"], ["--help"], ["capabilities", "--help"]], ids=" ".join
)
def test_help_and_version_too(way: str, argv: list[str]) -> None:
    """argparse drops a failed write (or prints on stderr when stdout is closed): the help is
    held to the same rule as any document."""
    with _stdout(way) as (stdout, shell):
        got, stderr = _process(argv, stdout, shell=shell)
    assert got == 11, stderr
    _one_line_why(stderr)


@pytest.mark.parametrize("way", WAYS)
def test_stderr_closed_too(way: str) -> None:
    """Nowhere to say why: the exit code alone tells it, and nothing crashes."""
    with _stdout(way) as (stdout, shell):
        got, stderr = _process(["capabilities"], stdout, shell=f"{shell} 2>&-")
    assert (got, stderr) == (11, "")


def test_a_verbose_log_on_a_stderr_that_is_gone(stub_kubectl: str) -> None:
    """``-v`` on a stderr whose reader has gone (or closed): the command still answers."""
    argv = ["-v", "--kubectl", stub_kubectl, "status", "testns/web-1"]
    for shell in ("", "2>&-"):
        proc = subprocess.run(
            ["sh", "-c", f'exec "$@" {shell}', "sh", *cli_argv(*argv)],
            stdout=subprocess.PIPE,
            stderr=_broken_pipe() if not shell else subprocess.DEVNULL,
            timeout=60,
            cwd=ROOT,
            env=cli_env(),
            check=False,
        )
        assert proc.returncode == 0, proc
        assert json.loads(proc.stdout)["status"] == "running"


def _reader_closing_after(k: int) -> tuple[int, threading.Thread]:
    """A one-page pipe whose reader takes exactly ``k`` bytes, then closes its end."""
    read, write = os.pipe()
    fcntl.fcntl(write, 1031, 4096)  # F_SETPIPE_SZ: the writer meets the reader's close soon

    def reader() -> None:
        left = k
        while left > 0:
            chunk = os.read(read, min(left, 4096))
            if not chunk:
                break
            left -= len(chunk)
        os.close(read)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return write, thread


BIG_SPEC = {
    "containerId": "42",
    "nodeId": "7",
    "hostname": "web-1",
    "image": "nginx:latest",
    "cpus": 1,
    "memoryMb": 64,
    "env": {"A": "b" * 60_000},
}


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(k=st.integers(0, 60_000 - 2 * 4096))
def test_a_reader_that_closes_after_any_k_bytes(tmp_path: Path, k: int) -> None:
    """A real pipe: the reader takes k bytes of render's 60 KB manifest and goes away; more
    than a pipe's worth is still to come, so the writer meets EPIPE wherever k falls."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps(BIG_SPEC))
    write, reader = _reader_closing_after(k)
    try:
        got, stderr = _process(["-n", "manager", "render", "--spec", str(path)], write)
    finally:
        os.close(write)
    reader.join(10)
    assert got == 11, stderr
    _one_line_why(stderr)


# -- end to end: the work stands --------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_a_stop_whose_answer_is_lost_stays_stopped(cluster: Cluster, way: str) -> None:
    name, cid = cluster.workload(f"out-{way}")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created
    fake = cluster.require_fake()
    flags = ["--kubeconfig", str(fake.kubeconfig), "--timeout", "30"]
    with _stdout(way) as (stdout, shell):
        got, stderr = _process([*flags, "stop", f"testns/{name}"], stdout, shell=shell)
    assert got == 11, stderr
    _one_line_why(stderr)
    assert cluster.deployment(name)["spec"]["replicas"] == 0  # type: ignore[index]
    status = cluster.adapter("status", f"testns/{name}")
    assert (status.code, status.doc["status"]) == (0, "offline"), status
    assert not cluster.pods(f"org.mieweb.opensource-server.container-id={cid}")


def test_a_create_whose_answer_is_lost_stands(cluster: Cluster) -> None:
    name, cid = cluster.workload("out-create")
    fake = cluster.require_fake()
    flags = ["--kubeconfig", str(fake.kubeconfig), "-n", "testns", "--timeout", "30"]
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            cli_argv(*flags, "create", "--spec", "-"),
            input=json.dumps(spec(name, cid)).encode(),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            cwd=ROOT,
            env=cli_env(),
            check=False,
        )
    assert proc.returncode == 11, proc.stderr
    _one_line_why(proc.stderr.decode())
    status = cluster.adapter("status", f"testns/{name}")
    assert (status.code, status.doc["status"]) == (0, "running"), status
