"""SIGKILL of the adapter at a random point of every operation: no kubectl outlives it.

SIGKILL is what Manager's client sends once SIGTERM's grace has run out, and what the OOM
killer sends; the adapter sees no way out, so only the kernel can end its kubectl processes
(``kubectl/lifetime.py``). The real CLI and the real kubectl against the fake API server.

The point: the run under test holds its k-th API request in the fake, k drawn by a seeded
random (``SIGKILL_SEED`` replays one) from 1..N, N the requests the operation's kubectl
processes make (``REQUESTS``; a run that ends first has counted its own, and k is drawn again
from those), so a kubectl is certainly alive and waiting on the API there, every phase
(discovery, read, write, either watch of a wait) a possible point, and the adapter is
SIGKILLed at that moment. Every command that runs kubectl, and kubectl's plugin completion
(``kubectl_complete-adapter``, which looks provider IDs up); render, capabilities and
completion scripts run none. Every process the adapter starts
carries a mark in its environment, so it is found after the kernel has re-parented it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.contract.naming import selector_string
from tests.fakecluster import FakeCluster

from .helpers import ROOT, alive, cli_argv, cli_env

SEED = os.environ.get("SIGKILL_SEED") or str(random.SystemRandom().randrange(1 << 32))
MARK = "KUBECTL_ADAPTER_TEST_MARK"
# How soon every kubectl must be gone after the SIGKILL: the kernel's signal takes
# milliseconds (at most 36 ms measured on the loaded 2-core machine); a kubectl left running
# waits for its held request for a minute, or until its --request-timeout (completion's 2 s).
DIES_WITHIN = 1.0
HELD_AT_MOST = 60.0
# Draws of a point until one finds a kubectl alive there.
ATTEMPTS = 4


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    with FakeCluster(
        tmp_path_factory.mktemp("sigkill") / "fake", pod_ready_delay=0.2, termination_delay=0.1
    ) as cluster:
        yield cluster


def _spec(name: str, **changes: Any) -> str:
    body = {"containerId": name, "nodeId": "7", "hostname": name, "image": "nginx:latest",
            "cpus": 0.1, "memoryMb": 64} | changes  # fmt: skip
    return json.dumps(body)


# kubectl's plugin completion (``kubectl adapter status <TAB>``): its own entry point, which
# looks the provider IDs up with one kubectl.
COMPLETE = "kubectl_complete-adapter"
COMPLETE_ARGV = [sys.executable, "-c", "import sys; from kubectl_adapter.cli.completion import "
                 "kubectl_complete; sys.exit(kubectl_complete())"]  # fmt: skip


def _cli(fake: FakeCluster, cache: Path, *args: str) -> list[str]:
    flags = ["--kubeconfig", str(fake.kubeconfig), "--context", fake.context, "-n", "default",
             "--cache-dir", str(cache)]  # fmt: skip
    if args and args[0] == COMPLETE:
        return [*COMPLETE_ARGV, *flags, *args[1:]]
    return cli_argv(*flags, "--timeout", "30", *args)


def _run(fake: FakeCluster, cache: Path, args: list[str], stdin: str | None) -> None:
    done = subprocess.run(
        _cli(fake, cache, *args), input=stdin or "", capture_output=True, text=True,
        env=cli_env(), cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, (args, done.stdout, done.stderr[-2000:])
    json.loads(done.stdout)  # one document, as Manager reads it


def marked(mark: str) -> list[int]:
    """Live processes whose environment carries ``mark`` (a zombie's environ is empty)."""
    wanted = f"{MARK}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if wanted in (entry / "environ").read_bytes().split(b"\0") and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


class Hold:
    """Counts the API requests that reach the fake; holds the ``at``-th one (0: none)."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.seen = 0
        self.lock = threading.Lock()
        self.reached = threading.Event()
        self.release = threading.Event()

    def before(self) -> None:
        with self.lock:
            self.seen += 1
            mine = self.seen == self.at
        if mine:
            self.reached.set()
            self.release.wait(HELD_AT_MOST)


@contextlib.contextmanager
def holding(fake: FakeCluster, at: int) -> Iterator[Hold]:
    hold = Hold(at)
    fake.on_request(before=hold.before, count=1 << 30)
    try:
        yield hold
    finally:
        hold.release.set()
        fake.clear_faults()


# Each operation: (its arguments for a workload NAME, its stdin, the state it needs).
Setup = Callable[[FakeCluster, Path, str], None]
SHARED = "k-shared"


def _absent(fake: FakeCluster, cache: Path, name: str) -> None:
    pass


def _running(fake: FakeCluster, cache: Path, name: str) -> None:
    _run(fake, cache, ["create", "--spec", "-"], _spec(name))


def _shared(fake: FakeCluster, cache: Path, name: str) -> None:
    """The reads' one workload, created once: they change nothing."""
    if fake.get("deployments", "default", SHARED) is None:
        _running(fake, cache, SHARED)


def _stopped(fake: FakeCluster, cache: Path, name: str) -> None:
    """Created, then scaled to 0 on the API's side (quicker than a second adapter run)."""
    _running(fake, cache, name)
    deployment = fake.get("deployments", "default", name)
    assert deployment is not None
    deployment["spec"]["replicas"] = 0
    fake.create_object(deployment, replace=True)
    pods = selector_string(deployment["spec"]["selector"]["matchLabels"])
    fake.wait_for(lambda: not fake.list("pods", "default", label_selector=pods))


# About how many API requests each operation's kubectl processes make, run to its end with a
# cold discovery cache (as measured): the first draw is from 1..that. A run that ends before
# the drawn request has counted its own, and the point is drawn again from those.
REQUESTS = {"create": 14, "start": 11, "stop": 11, "reconfigure": 14, "delete": 10, "list": 6,
            "status": 6, "describe": 8, "network": 6, "check": 20, "nodes": 4,
            "completion": 4}  # fmt: skip


def _nothing(name: str) -> None:
    return None


def _reconfigured(name: str) -> str:
    return _spec(name, memoryMb=96)  # a change that rolls out


OPERATIONS: dict[str, tuple[list[str], Callable[[str], str | None], Setup]] = {
    "create": (["create", "--spec", "-"], _spec, _absent),
    "start": (["start", "default/NAME"], _nothing, _stopped),
    "stop": (["stop", "default/NAME"], _nothing, _running),
    "reconfigure": (["reconfigure", "default/NAME", "--spec", "-"], _reconfigured, _running),
    "delete": (["delete", "default/NAME"], _nothing, _running),
    "list": (["list"], _nothing, _shared),
    "status": (["status", f"default/{SHARED}"], _nothing, _shared),
    "describe": (["describe", f"default/{SHARED}"], _nothing, _shared),
    "network": (["network", f"default/{SHARED}"], _nothing, _shared),
    "check": (["check"], _nothing, _absent),
    "nodes": (["nodes"], _nothing, _absent),
    "completion": ([COMPLETE, "status", ""], _nothing, _shared),
}


def _arguments(operation: str, name: str) -> tuple[list[str], str | None]:
    args, stdin, _ = OPERATIONS[operation]
    return [arg.replace("NAME", name) for arg in args], stdin(name)


def _killed_at(fake: FakeCluster, tmp: Path, operation: str, at: int) -> dict[str, Any]:
    """Run the operation, SIGKILL the adapter while its ``at``-th request is held: what was
    alive then, and how long it took to die (``None``: reached its end first)."""
    name = f"k-{operation[:5]}-{uuid.uuid4().hex[:6]}"
    OPERATIONS[operation][2](fake, tmp / "setup", name)
    args, stdin = _arguments(operation, name)
    mark = uuid.uuid4().hex
    with holding(fake, at) as hold:
        proc = subprocess.Popen(
            _cli(fake, tmp / f"kill-{at}", *args), stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**cli_env(), MARK: mark}, cwd=ROOT,
        )  # fmt: skip
        survivors: list[int] = []
        try:
            assert proc.stdin is not None
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.write((stdin or "").encode())
                proc.stdin.close()
            while not hold.reached.wait(0.05):
                if proc.poll() is not None:
                    return {"ended": True, "seen": hold.seen}
            children = [pid for pid in marked(mark) if pid != proc.pid]
            proc.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            proc.wait()
            deadline = killed + DIES_WITHIN
            survivors = marked(mark)
            while survivors and time.monotonic() < deadline:
                time.sleep(0.01)  # no event tells a re-parented process's death: poll /proc
                survivors = marked(mark)
            return {"ended": False, "children": children, "survivors": survivors,
                    "seconds": time.monotonic() - killed}  # fmt: skip
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for pid in marked(mark):  # only what this run started, found by its mark
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_sigkill_at_a_random_request_leaves_no_kubectl(
    fake: FakeCluster, tmp_path: Path, operation: str
) -> None:
    rng = random.Random(f"{SEED}-{operation}")
    total = REQUESTS[operation]
    for _ in range(ATTEMPTS):
        at = rng.randint(1, total)
        outcome = _killed_at(fake, tmp_path, operation, at)
        if outcome["ended"]:  # it made fewer requests: the point is one of those it made
            total = outcome["seen"]
            assert total > 0, f"{operation} made no API request"
        elif outcome["children"]:
            break
        # else: a request whose kubectl the adapter had already killed (a wait decided, its
        # watches stopped), none started since: no kubectl to outlive it there; draw again
    where = f"{operation}, request {at} of {total} (SIGKILL_SEED={SEED})"
    assert not outcome["ended"], f"{where}: ended before the point"
    assert outcome["children"], f"{where}: no kubectl alive at the point: proves nothing"
    assert not outcome["survivors"], (
        f"{where}: alive {DIES_WITHIN}s after the SIGKILL: {outcome['survivors']} "
        f"of {outcome['children']}"
    )
