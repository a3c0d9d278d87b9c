"""Progress on a terminal: one line while a wait runs, nothing extra on a pipe.

The display is tested with a fake clock and a fake terminal; the hook (``kubectl/progress``)
with a recording watcher; and the whole path with the real CLI, the real kubectl and the
fake cluster, stderr on a pseudo-terminal (and on a pipe, for Manager).
"""

from __future__ import annotations

import fcntl
import io
import json
import math
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli.progress import ERASE, TerminalProgress, elapsed, enabled
from kubectl_adapter.kubectl import progress
from kubectl_adapter.kubectl.classify import KubectlResult
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.outcome import WatchEnd
from kubectl_adapter.kubectl.runner import KubectlRunner
from kubectl_adapter.operations.waits import EXPLAIN_RESERVE_SECONDS


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def begin(self, what: str, timeout: float) -> None:
        self.calls.append(("begin", what, f"{timeout:g}"))

    def note(self, line: str) -> None:
        self.calls.append(("note", line))

    def end(self) -> None:
        self.calls.append(("end",))


def display(stream: io.StringIO, clock: Clock, width: int = 200) -> TerminalProgress:
    # A ticker interval far beyond the test: every draw here is one the test caused.
    return TerminalProgress(stream, interval=3600, clock=clock, width=lambda: width)


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0s"), (0.9, "0s"), (12.4, "12s"), (60, "1m00s"), (305, "5m05s")]
)
def test_elapsed(seconds: float, text: str) -> None:
    assert elapsed(seconds) == text


def test_one_line_redrawn_in_place_then_erased() -> None:
    terminal, clock = Terminal(), Clock()
    shown = display(terminal, clock)
    shown.begin("rollout of manager/web-1", 300)
    clock.now += 12.5
    shown.note(
        'Waiting for deployment "web-1" rollout to finish: 0 of 1 updated replicas are available...'
    )
    shown.end()
    assert terminal.getvalue() == (
        ERASE
        + "kubectl-adapter: waiting for rollout of manager/web-1 (0s of 5m00s)"
        + ERASE
        + "kubectl-adapter: waiting for rollout of manager/web-1 (12s of 5m00s): "
        "0 of 1 updated replicas are available..." + ERASE
    )
    assert "\n" not in terminal.getvalue()


def test_the_line_fits_the_terminal() -> None:
    terminal, clock = Terminal(), Clock()
    shown = display(terminal, clock, width=40)
    shown.begin("the Pods of manager/a-very-long-name-indeed to go", 300)
    line = shown.line()
    assert len(line) == 39 and line.endswith("...")
    shown.end()


def test_log_lines_go_above_the_progress_line() -> None:
    terminal, clock = Terminal(), Clock()
    shown = display(terminal, clock)
    shown.write("kubectl-adapter: + kubectl get deployment web-1\n")  # no wait yet: as is
    shown.begin("deletion of ns/web-1 and its Pods", 60)
    shown.write("kubectl-adapter: + kubectl get deployment web-1\n")
    shown.end()
    line = "kubectl-adapter: waiting for deletion of ns/web-1 and its Pods (0s of 1m00s)"
    assert terminal.getvalue() == (
        "kubectl-adapter: + kubectl get deployment web-1\n"
        + ERASE
        + line
        + ERASE
        + "kubectl-adapter: + kubectl get deployment web-1\n"
        + ERASE
        + line
        + ERASE
    )


def test_the_clock_ticks_without_kubectl_saying_anything() -> None:
    terminal, clock = Terminal(), Clock()
    drawn = threading.Event()

    class Watched(Terminal):
        def write(self, text: str) -> int:
            if "(7s of" in text:
                drawn.set()
            return terminal.write(text)

    shown = TerminalProgress(Watched(), interval=0.01, clock=clock, width=lambda: 200)
    shown.begin("rollout of ns/web-1", 300)
    clock.now += 7
    assert drawn.wait(10), terminal.getvalue()
    shown.end()
    assert terminal.getvalue().endswith(ERASE)


def test_control_characters_never_reach_the_terminal() -> None:
    terminal, clock = Terminal(), Clock()
    shown = display(terminal, clock)
    shown.begin("rollout of ns/web-1", 300)
    shown.note("evil\x1b]0;title\x07 text")
    assert "\x1b]" not in shown.line() and "\x07" not in shown.line()
    shown.end()


def test_enabled_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    assert enabled(Terminal())
    assert not enabled(io.StringIO())
    monkeypatch.setenv("TERM", "dumb")
    assert not enabled(Terminal())


# -- the hook ------------------------------------------------------------------------------


def test_nobody_watching_costs_nothing() -> None:
    with progress.awaiting("rollout of ns/web-1", 300):
        assert progress.note("Waiting…") is False


def test_a_watcher_sees_each_wait_and_kubectls_lines() -> None:
    recorder = Recorder()
    with (
        progress.watching(recorder),
        pytest.raises(RuntimeError),
        progress.awaiting("rollout of ns/web-1", 300),
    ):
        assert progress.note("Waiting…") is True
        raise RuntimeError("the wait failed")
    assert progress.note("after") is False
    assert recorder.calls == [
        ("begin", "rollout of ns/web-1", "300"),
        ("note", "Waiting…"),
        ("end",),
    ]


ROLLOUT = ["kubectl", "-n", "ns", "rollout", "status", "deployment/web-1", "--timeout=10s"]
WAITING = (
    'Waiting for deployment "web-1" rollout to finish: 0 of 1 updated replicas are available...\n'
)


def test_the_runner_hands_kubectls_progress_to_the_watcher(fp: FakeProcess) -> None:
    fp.register(ROLLOUT, stdout=[WAITING.strip(), 'deployment "web-1" successfully rolled out'])
    stderr = io.StringIO()
    runner = KubectlRunner(ClusterConfig(kubectl="kubectl"), progress=stderr)
    runner._binary = "kubectl"
    recorder = Recorder()
    with progress.watching(recorder):
        runner.run(ROLLOUT[3:], namespace="ns", stream=True, request_timeout=False)
    assert stderr.getvalue() == ""  # nothing echoed: the display shows it
    assert recorder.calls == [
        ("note", WAITING.strip()),
        ("note", 'deployment "web-1" successfully rolled out'),
    ]


def test_without_a_watcher_the_runner_echoes_as_before(fp: FakeProcess) -> None:
    fp.register(ROLLOUT, stdout=[WAITING.strip()])
    stderr = io.StringIO()
    runner = KubectlRunner(ClusterConfig(kubectl="kubectl"), progress=stderr)
    runner._binary = "kubectl"
    runner.run(ROLLOUT[3:], namespace="ns", stream=True, request_timeout=False)
    assert stderr.getvalue() == f"kubectl: {WAITING}"


# kubectl -v=6's line for a watch request: its list has been printed.
LISTED = (
    "I1201 20:13:24.942901   23621 round_trippers.go:560] GET https://127.0.0.1:6443/api/v1/"
    "namespaces/testns/pods?labelSelector=x%3Dy&resourceVersion=1002&watch=true 200 OK in 0 "
    "milliseconds"
)


@pytest.mark.parametrize(
    ("method", "what"),
    [
        ("start", "rollout of testns/web-1"),
        ("stop", "the Pods of testns/web-1 to go"),
        ("delete", "deletion of testns/web-1 and its Pods"),
    ],
)
def test_each_wait_says_what_it_awaits(
    monkeypatch: pytest.MonkeyPatch, method: str, what: str
) -> None:
    """start/create/reconfigure (rollout), stop and delete each wrap their wait."""
    from kubectl_adapter.operations.provider import KubernetesProvider
    from kubectl_adapter.operations.workload import Workloads
    from tests.k8s_objects import deployment

    recorder = Recorder()
    provider = KubernetesProvider(ClusterConfig(kubectl="kubectl", timeout=42))
    state = {"deployment": deployment(replicas=0 if method == "start" else 1)}

    def get(self: Any, pid: Any, **kwargs: Any) -> Any:
        return state["deployment"]

    def set_replicas(self: Any, pid: Any, patch: list[str], container_id: Any) -> Any:
        patched = deployment(replicas=1, available=None, total=1)  # not there yet: a wait runs
        patched["spec"]["replicas"] = json.loads(patch[patch.index("-p") + 1])[-1]["value"]
        return patched

    def waiting() -> bool:
        # Inside the wait, and only there, the watcher has been told.
        begun = [call for call in recorder.calls if call[0] == "begin"]
        return bool(begun) and recorder.calls[-1][0] != "end"

    def watch_together(args: Any, watching: Any, **kwargs: Any) -> WatchEnd:
        assert not waiting(), args  # the watches start before the write: nothing shown yet
        done = deployment(replicas=0, total=0) if method == "stop" else deployment()
        watching.stderr_line(0, LISTED)  # both watches have listed: the write is made
        watching.stderr_line(1, LISTED)  # no Pod: the Pods' watch has listed none
        assert waiting(), args  # the wait is shown from the write on
        # the event that decides it
        assert watching.document(0, {"type": "MODIFIED", "object": done})
        return WatchEnd(True, None)

    def run(args: Any, **kwargs: Any) -> Any:
        assert kwargs.get("request_timeout") is False and waiting(), args  # delete's wait
        return KubectlResult(list(args), 0, 'deployment.apps "web-1" deleted\n', "")

    monkeypatch.setattr(Workloads, "get_deployment", get)
    monkeypatch.setattr(Workloads, "set_replicas", set_replicas)
    monkeypatch.setattr(provider.runner, "watch_together", watch_together)
    monkeypatch.setattr(provider.runner, "run", run)
    with progress.watching(recorder):
        getattr(provider, method)("testns/web-1")
    assert recorder.calls[0] == ("begin", what, "42")
    assert recorder.calls[-1] == ("end",)


# -- end to end: the real CLI on a pseudo-terminal -------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


class OnTerminal(NamedTuple):
    code: int
    out: str
    terminal: str  # all the terminal received
    arrivals: list[tuple[float, bytes]]  # each read from the terminal: seconds from the start

    def seconds_until(self, text: str) -> float:
        """Seconds from the command's start until ``text`` had reached the terminal."""
        received = b""
        for seconds, chunk in self.arrivals:
            received += chunk
            if text in received.decode("utf-8", "replace"):
                return seconds
        raise AssertionError(f"{text!r} never reached the terminal")


def run_on_terminal(cluster: Any, *args: str, stdin: str | None = None) -> OnTerminal:
    """The CLI with stderr on a pseudo-terminal (stdout a pipe)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))  # rows, columns
    env = {**os.environ, "TERM": "xterm"}
    argv = [
        sys.executable,
        "-m",
        "kubectl_adapter",
        "--kubeconfig",
        str(cluster.kubeconfig),
        "-n",
        "testns",
        "--timeout",
        "30",
        *args,
    ]
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=ROOT,
        env=env,
        text=True,
    )
    os.close(slave)
    arrivals: list[tuple[float, bytes]] = []

    def drain() -> None:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                return
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                return
            if not chunk:
                return
            arrivals.append((time.monotonic() - started, chunk))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out, _ = proc.communicate(stdin, timeout=120)
    reader.join(timeout=30)
    os.close(master)
    terminal = b"".join(chunk for _, chunk in arrivals).decode("utf-8", "replace")
    return OnTerminal(proc.returncode, out, terminal, arrivals)


def assert_first_line_counts_from_the_start(run: OnTerminal, waiting_for: str) -> None:
    """The wait's first line, "(0s of Ns)": N is what is left of --timeout 30, counted from
    the command's start, less the reserve for explaining a timeout; at least what was left
    when the line reached the terminal (the process started after ``run`` did), whole
    seconds. A fixed "29 or 30" held only when the wait began within 0.3 s."""
    found = re.search(rf"{re.escape(waiting_for)} \(0s of (\d+)s\)", run.terminal)
    assert found, run.terminal
    left = int(found.group(1))
    before = run.seconds_until(found.group(0))
    assert math.floor(30 - before - EXPLAIN_RESERVE_SECONDS) <= left <= 30, (left, before)


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.fakecluster import FakeCluster

    with FakeCluster(
        tmp_path_factory.mktemp("progress") / "fake",
        namespaces=("default", "testns"),
        default_namespace="testns",
        pod_ready_delay=1.0,  # long enough for kubectl to print "Waiting for…"
        termination_delay=0.3,
    ) as cluster:
        yield cluster


def spec(name: str) -> str:
    import json

    return json.dumps(
        {
            "containerId": f"c-{name}",
            "nodeId": "7",
            "hostname": name,
            "image": "nginx:latest",
            "cpus": 0.1,
            "memoryMb": 64,
        }
    )


def test_a_terminal_sees_one_progress_line_per_wait(fake: Any) -> None:
    run = run_on_terminal(fake, "create", "--spec", "-", stdin=spec("tty-1"))
    code, out, terminal = run.code, run.out, run.terminal
    assert code == 0, (out, terminal)
    assert '"status": "running"' in out
    assert_first_line_counts_from_the_start(
        run, "kubectl-adapter: waiting for rollout of testns/tty-1"
    )
    assert terminal.endswith(ERASE)  # the line is gone: only the result remains
    assert "kubectl: Waiting" not in terminal  # kubectl's lines are in the progress line
    assert "\n" not in terminal

    run = run_on_terminal(fake, "stop", "testns/tty-1")
    code, terminal = run.code, run.terminal
    assert code == 0
    assert_first_line_counts_from_the_start(run, "waiting for the Pods of testns/tty-1 to go")
    assert terminal.endswith(ERASE)

    run = run_on_terminal(fake, "-v", "delete", "testns/tty-1")
    code, terminal = run.code, run.terminal
    assert code == 0
    assert "waiting for deletion of testns/tty-1 and its Pods (0s of 30s)" in terminal
    # -v lines are whole lines above the progress line, never cut by it
    lines = [line.rsplit(ERASE, 1)[-1] for line in terminal.split("\r\n")]
    lines = [line for line in lines if line]
    assert lines[0].startswith("# kubectl-adapter ")
    assert all(line.startswith(("kubectl ", "# ")) for line in lines), lines
    commands = [line for line in lines if line.startswith("kubectl ")]
    # the read (whose 404 would mean "absent"), then the delete that selects on the labels
    assert len(commands) == 2 and "delete deployments -l " in commands[1], commands
    # the progress line was erased before the outcome was logged
    assert "waiting for" not in terminal.rsplit(ERASE, 1)[1]


def test_a_pipe_gets_nothing_extra(fake: Any) -> None:
    """Manager's pipes: no progress line, no carriage return, no escape sequence."""
    base = [sys.executable, "-m", "kubectl_adapter", "--kubeconfig", str(fake.kubeconfig)]
    base += ["-n", "testns", "--timeout", "30"]
    env = {**os.environ, "TERM": "xterm"}
    create = subprocess.run(
        [*base, "create", "--spec", "-"],
        input=spec("pipe-1"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert create.returncode == 0, create.stderr
    # The wait is a watch whose JSON the adapter reads: nothing of it reaches Manager's pipes.
    assert create.stderr == ""
    for args in (["stop", "testns/pipe-1"], ["delete", "testns/pipe-1"]):
        proc = subprocess.run(
            [*base, *args], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
    assert "\r" not in create.stderr and "\x1b" not in create.stderr
    assert "waiting for" not in create.stderr


def test_a_signal_while_the_ticker_starts_still_erases_the_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGINT sent as the line appears can land in ``Thread.start`` inside ``begin``: the
    line is erased all the same, so the error is not written onto it (seen under load)."""

    class Signalled(BaseException):
        pass

    def interrupted_start(self: threading.Thread) -> None:
        raise Signalled

    terminal, clock = Terminal(), Clock()
    shown = display(terminal, clock)
    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    with (
        progress.watching(shown),
        pytest.raises(Signalled),
        progress.awaiting("rollout of manager/web-1", 300),
    ):
        pass  # never reached: begin is cut short
    assert terminal.getvalue() == (
        ERASE + "kubectl-adapter: waiting for rollout of manager/web-1 (0s of 5m00s)" + ERASE
    )
    shown.end()  # again, as the CLI's display does on its way out: nothing more is written
    assert terminal.getvalue().endswith("(0s of 5m00s)" + ERASE)
