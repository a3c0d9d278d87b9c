"""``list -w`` and ``status -w`` (issues 32, 42): a row per change on a real pseudo-terminal,
a JSON line per change on a pipe, one kubectl while every workload is at rest (three while
one moves), a broken watch resumed, and SIGINT/SIGTERM ending it with 130/143 and no kubectl
left."""

from __future__ import annotations

import json
import os
import pty
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from kubectl_adapter.contract.output_models import WatchEvent
from tests.e2e.conftest import Cluster, spec
from tests.e2e.terminal import adapter_argv

BOUND = 60.0  # seconds for one change to show: generous, the machine is shared


class Watch:
    """``kubectl-adapter ARGS`` running, its stdout (a terminal or a pipe) read line by line."""

    def __init__(self, cluster: Cluster, *args: str, terminal: bool) -> None:
        self.argv = adapter_argv(cluster, *args)
        self.cache = self.argv[self.argv.index("--cache-dir") + 1]  # this run's own
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        env = {**os.environ, "TERM": "xterm"}
        if terminal:
            master, slave = pty.openpty()
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env
            )
            os.close(slave)
            reader = os.fdopen(master, "rb", buffering=0)
        else:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env
            )
            assert self.proc.stdout is not None
            reader = self.proc.stdout
        threading.Thread(target=self._read, args=(reader,), daemon=True).start()

    def _read(self, reader: Any) -> None:
        with reader:
            self._lines_of(reader)

    def _lines_of(self, reader: Any) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(reader.fileno(), 65536)
            except OSError:  # EIO: the terminal's writers are gone
                chunk = b""
            if not chunk:
                if pending:
                    self.lines.put(pending.decode())
                self.lines.put("\0")  # the end
                return
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                self.lines.put(line.decode().rstrip("\r"))

    def until(self, wanted: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line == "\0":
                break
            self.seen.append(line)
            if wanted(line):
                return line
        raise AssertionError(f"no line {what} within {BOUND}s; seen:\n" + "\n".join(self.seen))

    def kubectls(self) -> list[int]:
        """The kubectl processes of this run (its own --cache-dir names them)."""
        return watch_kubectls(self.cache)

    def await_kubectls(self, count: int, what: str) -> None:
        """Its watching kubectls come to ``count`` (each change is awaited, not slept on)."""
        deadline = time.monotonic() + BOUND
        while len(self.kubectls()) != count:
            assert time.monotonic() < deadline, f"{self.kubectls()} kubectls {what}"
            time.sleep(0.05)

    def stop(self, signum: int) -> int:
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout=BOUND)
        while self.lines.qsize():
            line = self.lines.get()
            if line != "\0":
                self.seen.append(line)
        return code


def _row(line: str, pid: str) -> list[str] | None:
    words = re.split(r" {3,}", line.strip())
    return words if words and words[0] == pid else None


def test_list_watch_on_a_terminal_prints_a_row_when_a_workload_changes(cluster: Cluster) -> None:
    name, cid = cluster.workload("watch-tty")
    pid = f"{cluster.namespace}/{name}"
    watch = Watch(cluster, "list", "-w", "-l", f"org.mieweb.opensource-server.name={name}",
                  terminal=True)  # fmt: skip
    try:
        watch.until(lambda line: "No Manager workloads found" in line, "saying none yet")
        created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
        assert created.code == 0, created
        watch.until(lambda line: line.startswith("NAME "), "the header, with a row")
        watch.until(lambda line: (_row(line, pid) or [""])[1:2] == ["running"], "running")
        assert cluster.adapter("stop", pid).code == 0
        watch.until(lambda line: (_row(line, pid) or [""])[1:2] == ["offline"], "offline")
        cluster.kubectl("set", "image", f"deployment/{name}", "main=nginx:1.27")
        watch.until(lambda line: "image" in (_row(line, pid) or [])[4:5], "drifted: image")
        watch.await_kubectls(1, "at rest: offline, its new image with no Pod to roll")
    finally:
        code = watch.stop(signal.SIGINT)
    assert code == 130, watch.seen
    rows = [r for r in map(lambda line: _row(line, pid), watch.seen) if r]
    assert len(rows) == len({tuple(r) for r in rows}), rows  # a row only when it changed
    assert watch.kubectls() == []  # no kubectl outlives it


def test_list_watch_on_a_pipe_is_one_json_line_per_change_and_resumes(cluster: Cluster) -> None:
    fake = cluster.require_fake()
    names = [cluster.workload(f"watch-pipe{i}") for i in range(4)]
    for name, cid in names:
        assert cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)).code == 0
    label = "org.mieweb.opensource-server.container-id"
    selector = f"{label} in ({','.join(cid for _, cid in names)})"
    watch = Watch(cluster, "list", "-w", "-l", selector, terminal=False)
    try:
        first: list[dict[str, Any]] = []
        while True:
            event = json.loads(watch.until(lambda line: True, "of the first list"))
            if event["type"] == "SYNCED":
                break
            first.append(event)
        assert [e["snapshot"]["name"] for e in first] == sorted(n for n, _ in names)
        assert {e["type"] for e in first} == {"ADDED"}
        # at rest: the Deployments' watch alone, for any number of workloads (issue 42)
        watch.await_kubectls(1, "at rest after the first list")

        def changed(name: str, status: str) -> Callable[[str], bool]:
            def wanted(line: str) -> bool:
                event = json.loads(line)
                snap = event["snapshot"] or {}
                return snap.get("name") == name and snap.get("status") == status

            return wanted

        stopped, _ = names[0]
        fake.close_watches()  # the server ends them, as its timeoutSeconds does
        assert cluster.adapter("stop", f"{cluster.namespace}/{stopped}").code == 0
        watch.until(changed(stopped, "offline"), "offline after the watches were closed")
        fake.restart(1.0).join()  # every connection dropped, refused for a second
        again, _ = names[1]
        assert cluster.adapter("stop", f"{cluster.namespace}/{again}").code == 0
        watch.until(changed(again, "offline"), "offline after an API server restart")
        gone, _ = names[2]
        cluster.kubectl("delete", "deployment", gone, "--wait=false")
        line = watch.until(changed(gone, "missing"), "missing once deleted")
        assert json.loads(line)["type"] == "DELETED"
        watch.await_kubectls(1, "at rest again once every change is over")
    finally:
        code = watch.stop(signal.SIGTERM)
    assert code == 143, watch.seen
    last = json.loads(watch.seen[-1])
    assert last["error"]["type"] == "Interrupted", last
    events = [json.loads(line) for line in watch.seen[:-1]]
    assert all(set(e) == {"type", "snapshot"} for e in events), events
    for event in events:  # each line is the documented WatchEvent (docs/schema/watch-event.json)
        assert WatchEvent.model_validate(event).model_dump(by_alias=True) == event
    # resumed, not replayed: a workload unchanged since the first list is not given again
    untouched = names[3][0]
    assert [e["type"] for e in events if (e["snapshot"] or {}).get("name") == untouched] == [
        "ADDED"
    ]
    assert watch.kubectls() == []


def test_status_watch_gives_a_missing_workload_then_its_creation(cluster: Cluster) -> None:
    name, cid = cluster.workload("watch-status")
    watch = Watch(cluster, "status", f"{cluster.namespace}/{name}", "-w", terminal=False)
    try:
        first = json.loads(watch.until(lambda line: True, "first"))
        assert (first["type"], first["snapshot"]["status"]) == ("ADDED", "missing")
        assert json.loads(watch.until(lambda line: True, "synced"))["type"] == "SYNCED"
        assert cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)).code == 0
        watch.until(lambda line: json.loads(line)["snapshot"]["status"] == "running", "running")
    finally:
        code = watch.stop(signal.SIGINT)
    assert code == 130
    assert watch.kubectls() == []


def test_list_selects_sorts_and_lists_across_namespaces(cluster: Cluster) -> None:
    """``-l`` within Manager's workloads, ``--sort-by`` a column, ``-A`` every namespace."""
    (one, cid1), (two, cid2) = cluster.workload("query-a"), cluster.workload("query-b")
    assert cluster.adapter("create", "--spec", "-", stdin=spec(one, cid1)).code == 0
    created = cluster.adapter("create", "--spec", "-", "-n", "default", stdin=spec(two, cid2))
    assert created.code == 0, created
    cluster.kubectl("label", "deployment", one, "team=ops")
    selected = cluster.adapter("list", "-l", "team=ops")
    assert [i["name"] for i in selected.doc["items"]] == [one], selected
    both = f"org.mieweb.opensource-server.container-id in ({cid1},{cid2})"
    unknown = cluster.adapter("list", "-A", "-l", both, "--sort-by", "namespace-is-no-column")
    assert unknown.code == 2 and "not a column" in unknown.doc["error"]["message"], unknown
    everywhere = cluster.adapter("list", "-A", "-l", both, "--sort-by", ".namespace")
    assert [i["providerId"] for i in everywhere.doc["items"]] == [
        f"default/{two}",
        f"{cluster.namespace}/{one}",
    ], everywhere
    by_status = cluster.adapter("list", "--sort-by", "STATUS", "-o", "name")
    assert by_status.code == 0, by_status
    bad = cluster.adapter("list", "-l", "team in (ops")
    assert bad.code == 2 and bad.doc["error"]["type"] == "InvalidInput", bad


def watch_kubectls(cache: str) -> list[int]:
    """The kubectl watches of one run (its own --cache-dir names them)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                words = cmdline.read().split(b"\0")
        except OSError:
            continue
        if cache.encode() in words and b"--watch" in words and b"kubectl_adapter" not in words:
            found.append(int(entry))
    return found
