"""``-w --exit-with-parent`` (issue 42): a feed whose reader dies, SIGKILL included, ends with
its kubectl, through the real kubectl on the fake cluster; and the flag means nothing without
``-w``."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap

from tests.e2e.conftest import Cluster
from tests.e2e.terminal import adapter_argv
from tests.e2e.test_watch import watch_kubectls

BOUND = 60.0  # seconds: generous, the machine is shared


def _ended(pids: list[int], timeout: float) -> list[int]:
    """Wait (on pidfds: the kernel's own event) until each process has ended; the rest."""
    fds = {}
    for pid in pids:
        try:
            fds[os.pidfd_open(pid)] = pid
        except ProcessLookupError:
            continue  # already gone
    try:
        waiting = set(fds)
        while waiting:
            ready, _, _ = select.select(list(waiting), [], [], timeout)
            if not ready:
                break
            waiting -= set(ready)
        return sorted(fds[fd] for fd in waiting)
    finally:
        for fd in fds:
            os.close(fd)


def test_a_feed_ends_with_its_reader_killed_by_sigkill(cluster: Cluster) -> None:
    argv = adapter_argv(cluster, "list", "-w", "-o", "json", "--exit-with-parent")
    cache = argv[argv.index("--cache-dir") + 1]
    reader = textwrap.dedent(
        f"""
        import subprocess, sys, time
        feed = subprocess.Popen({argv!r}, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        print(feed.pid, flush=True)
        while json_line := feed.stdout.readline():
            if b'"SYNCED"' in json_line:
                break
        print("synced", flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", reader], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    adapter = int(parent.stdout.readline())
    assert parent.stdout.readline().strip() == "synced"
    kubectls = watch_kubectls(cache)
    assert kubectls, "the feed runs its watches"
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=BOUND)
    parent.stdout.close()
    assert _ended([adapter, *kubectls], BOUND) == []
    assert watch_kubectls(cache) == []


def test_exit_with_parent_applies_only_to_a_watch(cluster: Cluster) -> None:
    done = subprocess.run(
        adapter_argv(cluster, "list", "--exit-with-parent"), capture_output=True, timeout=BOUND
    )
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["type"] == "InvalidInput"
    assert "only with -w" in error["message"]
