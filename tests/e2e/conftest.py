"""End-to-end fixtures: the real CLI, the real kubectl, and a cluster.

By default each test module gets the project's fake API server (tests/fakecluster). Set
``KUBECTL_ADAPTER_E2E_CONTEXT`` (and optionally ``KUBECTL_ADAPTER_E2E_KUBECONFIG``,
``KUBECTL_ADAPTER_E2E_NAMESPACE``, ``KUBECTL_ADAPTER_E2E_TIMEOUT``) to run the same tests
against a real cluster such as kind (see examples/run-e2e-on-kind.sh); tests that need the
fake's fault injection are skipped there, saying so.
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parents[2]
REAL_CONTEXT = os.environ.get("KUBECTL_ADAPTER_E2E_CONTEXT")
REAL_KUBECONFIG = os.environ.get("KUBECTL_ADAPTER_E2E_KUBECONFIG")
REAL_NAMESPACE = os.environ.get("KUBECTL_ADAPTER_E2E_NAMESPACE", "default")
WAIT_TIMEOUT = os.environ.get("KUBECTL_ADAPTER_E2E_TIMEOUT", "30")
# How long a baseline of ``Cluster.paced`` stands for the machine's load: one status run per
# 20 s at most, not one per bound checked.
PACE_FOR_SECONDS = 20.0
_counter = itertools.count()


@dataclass
class Result:
    code: int
    doc: Any
    stderr: str
    seconds: float = 0.0

    @property
    def error_type(self) -> str | None:
        if isinstance(self.doc, dict) and "error" in self.doc:
            return str(self.doc["error"]["type"])
        return None


@dataclass
class Cluster:
    """Where the end-to-end tests run, and how they drive the CLI and kubectl there."""

    kubeconfig: str | None
    context: str | None
    namespace: str
    workdir: Path
    fake: FakeCluster | None = None
    extra_flags: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    # ``paced``'s last baseline: [when it was taken (monotonic), its seconds].
    pace: list[float] = field(default_factory=list, repr=False)

    def workload(self, prefix: str) -> tuple[str, str]:
        """A fresh (name, containerId) pair, remembered for clean-up on a real cluster."""
        name = unique(prefix)
        self.created.append(name)
        return name, f"c-{name}"

    def _cache_dir(self) -> str:
        # A fresh --cache-dir per run: kubectl caches discovery there (/version is never cached).
        return str(self.workdir / f"cache-{next(_counter)}")

    def _conn_flags(self, context: str | None = None) -> list[str]:
        flags = []
        if self.kubeconfig:
            flags += ["--kubeconfig", self.kubeconfig]
        if context or self.context:
            flags += ["--context", context or self.context or ""]
        return flags

    def adapter(
        self,
        *args: str,
        stdin: Any = None,
        context: str | None = None,
        timeout: float = 120,
        flags: list[str] | None = None,
    ) -> Result:
        """Run ``kubectl-adapter`` as Manager would: a process, JSON on stdout."""
        import time

        argv = [
            sys.executable,
            "-m",
            "kubectl_adapter",
            *self._conn_flags(context),
            "-n",
            self.namespace,
            "--cache-dir",
            self._cache_dir(),
            "--timeout",
            WAIT_TIMEOUT,
            *self.extra_flags,
            *(flags or []),
            *args,
        ]
        started = time.monotonic()
        proc = subprocess.run(
            argv,
            input=stdin if isinstance(stdin, str) or stdin is None else json.dumps(stdin),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
            check=False,
        )
        elapsed = time.monotonic() - started
        try:
            doc = json.loads(proc.stdout) if proc.stdout.strip() else None
        except json.JSONDecodeError:
            doc = proc.stdout
        return Result(proc.returncode, doc, proc.stderr, elapsed)

    def paced(self, idle_bound: float, factor: float = 2.0) -> float:
        """A bound on a command's seconds that load cannot fail: ``idle_bound`` (an idle
        machine's), or ``factor`` times what a ``status`` of a missing workload takes now
        (start-up, a read, the exit: what the bounded command pays too, and a loaded machine
        stretches alike). A baseline taken in the same run, at most ``PACE_FOR_SECONDS`` ago."""
        import time

        if not self.pace or time.monotonic() - self.pace[0] > PACE_FOR_SECONDS:
            baseline = self.adapter("status", f"{self.namespace}/no-such-workload-for-pace")
            assert baseline.code == 0, (baseline.doc, baseline.stderr[-1500:])
            self.pace[:] = [time.monotonic(), baseline.seconds]
        return max(idle_bound, factor * self.pace[1])

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        """Plain kubectl in the cluster's namespace, as an operator types it (works on the fake
        and on kind alike); its stdout, once it succeeded."""
        proc = subprocess.run(
            [
                "kubectl",
                *self._conn_flags(),
                "--cache-dir",
                self._cache_dir(),
                "-n",
                self.namespace,
                *args,
            ],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
        assert proc.returncode == 0, (args, proc.stderr)
        return proc.stdout

    def kubectl_json(self, *args: str) -> Any:
        """Read server state with plain kubectl."""
        out = self.kubectl(*args, "-o", "json")
        return json.loads(out) if out.strip() else None

    def deployment(self, name: str) -> dict[str, Any] | None:
        found = self.kubectl_json("get", "deployment", name, "--ignore-not-found")
        return found if isinstance(found, dict) else None

    def pods(self, selector: str) -> list[dict[str, Any]]:
        return list(self.kubectl_json("get", "pods", "-l", selector)["items"])

    def replicasets(self, selector: str) -> list[dict[str, Any]]:
        return list(self.kubectl_json("get", "replicasets", "-l", selector)["items"])

    def wait_deleted(self, resource: str, name: str, timeout: float = 60) -> None:
        """Wait (bounded, without sleeping) until ``resource/name`` no longer exists."""
        if self.fake is not None:
            fake = self.fake
            fake.wait_for(
                lambda: fake.get(resource, self.namespace, name) is None,
                timeout=timeout,
                message=f"{resource}/{name} still exists after {timeout}s",
            )
            return
        proc = subprocess.run(
            [
                "kubectl",
                *self._conn_flags(),
                "--cache-dir",
                self._cache_dir(),
                "-n",
                self.namespace,
                "wait",
                "--for=delete",
                f"{resource}/{name}",
                f"--timeout={round(timeout)}s",
            ],
            capture_output=True,
            text=True,
            timeout=timeout + 30,
            check=False,
        )
        assert proc.returncode == 0 or "NotFound" in proc.stderr, proc.stderr

    def require_fake(self) -> FakeCluster:
        if self.fake is None:
            pytest.skip(
                "needs the fake API server's fault injection (not available on a real cluster)"
            )
        return self.fake


def spec(name: str, container_id: str, **changes: Any) -> dict[str, Any]:
    """A Manager spec for a test workload with its own name and container ID."""
    base: dict[str, Any] = {
        "containerId": container_id,
        "nodeId": "7",
        "hostname": name,
        "image": "nginx:latest",
        "cpus": 0.1,
        "memoryMb": 64,
        "env": {"KEY": "value"},
    }
    return base | changes


def concurrently(calls: dict[str, Callable[[], Result]]) -> dict[str, Result]:
    """Run independent adapter calls at the same time (each is a process that mostly waits
    on the API); the results by key. Only for calls that cannot affect each other."""
    with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="e2e-call") as pool:
        futures = {key: pool.submit(call) for key, call in calls.items()}
        return {key: future.result() for key, future in futures.items()}


def unique(prefix: str) -> str:
    """A fresh DNS-1123 name (also a valid label value): reruns on a real cluster never
    meet a previous run's leftovers."""
    return f"{prefix}-{secrets.token_hex(3)}"


def selector(container_id: str) -> str:
    return (
        f"org.mieweb.opensource-server.managed=true,"
        f"org.mieweb.opensource-server.container-id={container_id}"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "incremental: ordered steps sharing state; after a failure the rest skip"
    )


def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """Remember the first failed step of an ``incremental`` class (pytest's recipe)."""
    if "incremental" not in item.keywords or call.when != "call" or call.excinfo is None:
        return
    if call.excinfo.errisinstance(pytest.skip.Exception):
        return
    parent = item.parent
    if parent is not None and getattr(parent, "_failed_step", None) is None:
        parent._failed_step = item.name  # type: ignore[attr-defined]


def pytest_runtest_setup(item: pytest.Item) -> None:
    if "incremental" in item.keywords and item.parent is not None:
        failed = getattr(item.parent, "_failed_step", None)
        if failed is not None:
            pytest.skip(f"an earlier step failed: {failed}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    workdir = tmp_path_factory.mktemp("e2e")
    if REAL_CONTEXT or REAL_KUBECONFIG:
        real = Cluster(REAL_KUBECONFIG, REAL_CONTEXT, REAL_NAMESPACE, workdir)
        yield real
        if real.created:  # best effort: what a failed test left behind
            subprocess.run(
                [
                    "kubectl",
                    *real._conn_flags(),
                    "-n",
                    real.namespace,
                    "delete",
                    "deployment",
                    *real.created,
                    "--ignore-not-found",
                    "--wait=false",
                ],
                capture_output=True,
                timeout=60,
                check=False,
            )
        return
    with FakeCluster(
        workdir / "fake",
        namespaces=("default", "testns"),
        default_namespace="testns",
        pod_ready_delay=0.2,
        termination_delay=0.1,
    ) as fake:
        yield Cluster(str(fake.kubeconfig), fake.context, "testns", workdir, fake)
