"""What every benchmark shares: the adapter's command line, the spec it creates, and how a
command is run (the checkout's code, with its bytecode caches)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = [sys.executable, "-m", "kubectl_adapter"]
# Small requests, so 50 workloads fit on the fake's one 4-CPU node.
SPEC = json.loads((ROOT / "examples" / "nginx.json").read_text()) | {"cpus": 0.05, "memoryMb": 64}


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def median_time(run: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def sh(
    argv: list[str], stdin: str | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        env=ENV,
        **kwargs,
    )


# An installed package runs from its bytecode (pip compiles it); a checkout run with
# PYTHONDONTWRITEBYTECODE=1 would compile every module of the adapter on every start
# (~25 ms of each figure below), so the benchmark lets Python keep its caches.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPATH": str(ROOT),
}


def adapter_on(fc: FakeCluster, cache: Path, *flags: str) -> list[str]:
    """The CLI pointed at a fake cluster's admin context, namespace default."""
    return [
        *ADAPTER,
        "--kubeconfig",
        str(fc.kubeconfig),
        "--context",
        fc.context,
        "-n",
        "default",
        "--cache-dir",
        str(cache),
        *flags,
    ]


def counting_kubectl(work: Path) -> tuple[Path, Path]:
    """A kubectl wrapper that appends each command line to a log, then runs the real one:
    (the wrapper, its log), so a benchmark counts the processes an operation starts."""
    log = work / "calls.log"
    wrapper = work / "bin" / "kubectl"
    wrapper.parent.mkdir(exist_ok=True)
    real = shutil.which("kubectl")
    assert real is not None, "kubectl is not on PATH"
    wrapper.write_text(
        f'#!/bin/sh\necho "$*" >> {shlex.quote(str(log))}\nexec {shlex.quote(real)} "$@"\n'
    )
    wrapper.chmod(0o755)
    return wrapper, log


MANAGER = "opensource-server-manager"


class Changes:
    """One workload stopped (then started again) every ``every`` seconds; when each change
    was in the API server."""

    def __init__(self, fc: FakeCluster, names: list[str], namespace: str, every: float) -> None:
        self.fc = fc
        self.names = names
        self.namespace = namespace
        self.every = every
        self.made: list[tuple[str, int, float]] = []  # (name, replicas, when)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        i = 0
        while not self.stop.wait(self.every):
            name = self.names[(i // 2) % len(self.names)]
            replicas = 0 if i % 2 == 0 else 1
            deployment = self.fc.get("deployments", self.namespace, name)
            assert deployment is not None
            deployment["spec"]["replicas"] = replicas
            self.fc.create_object(deployment, replace=True, manager=MANAGER)
            self.made.append((name, replicas, time.monotonic()))
            i += 1
