"""Shared by the reliability tests: run the real CLI as a process, watch processes by /proc."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def cli_argv(*args: str) -> list[str]:
    """``kubectl-adapter ARGS`` as Manager runs it: a fresh interpreter."""
    return [sys.executable, "-m", "kubectl_adapter", *args]


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def script(path: Path, body: str) -> str:
    """An executable ``/bin/sh`` script standing in for kubectl."""
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def await_true(condition: Callable[[], bool], within: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail saying ``what`` after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within}s: {what}")
        time.sleep(0.02)


def alive(pid: int) -> bool:
    """Running (a zombie is dead: only its parent's wait is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def timed_cli(
    fake: Any, cache_dir: Path, *args: str, stdin: str | None = None, own_clock: bool = False
) -> dict[str, Any]:
    """The CLI as a process against ``fake`` in namespace ``default``: its seconds, exit
    code, JSON document and the end of its stderr.

    ``own_clock``: run it with ``-v`` and also give ``adapter_seconds``, from its first log
    line (written once its interpreter has started and parsed the command: its deadline is
    already running) to its exit. That is the time the adapter controls; the rest is the
    operating system starting Python, which a loaded machine can stretch by seconds.
    """
    argv = cli_argv(
        "--kubeconfig", str(fake.kubeconfig), "--context", fake.context, "-n", "default",
        "--cache-dir", str(cache_dir), *(["-v"] if own_clock else []), *args,
    )  # fmt: skip
    started = time.monotonic()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=cli_env(), cwd=ROOT,
    )  # fmt: skip
    first_line: list[float] = []
    err: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if not first_line and line.startswith("# kubectl-adapter"):
                first_line.append(time.monotonic())
            err.append(line)

    def feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(stdin or "")
            proc.stdin.close()

    threads = [threading.Thread(target=read_stderr, daemon=True),
               threading.Thread(target=feed, daemon=True)]  # fmt: skip
    for thread in threads:
        thread.start()
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.wait()
    finally:
        watchdog.cancel()
    ended = time.monotonic()
    for thread in threads:
        thread.join(timeout=10)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    result = {
        "seconds": ended - started,
        "code": proc.returncode,
        "doc": json.loads(out),
        "stderr": "".join(err)[-2000:],
    }
    if own_clock:
        assert first_line, f"no -v log line: {result}"
        result["adapter_seconds"] = ended - first_line[0]
    return result


@contextlib.contextmanager
def fake_testns(workdir: Path) -> Iterator[tuple[Any, Any]]:
    """A fake API server serving ``testns`` (quick Pods: ready after 0.2 s, gone 0.1 s after
    their grace) and the ``Cluster`` the e2e helpers drive through the real kubectl."""
    from tests.e2e.conftest import Cluster
    from tests.fakecluster import FakeCluster

    with FakeCluster(
        workdir / "fake",
        namespaces=("testns",),
        default_namespace="testns",
        pod_ready_delay=0.2,
        termination_delay=0.1,
    ) as fake:
        yield Cluster(str(fake.kubeconfig), fake.context, "testns", workdir, fake), fake
