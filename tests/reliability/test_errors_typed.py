"""Errors typed by their cause, second pass (issue 20), end to end: the real kubectl against
the fake API server, the CLI run as Manager runs it.

* 410 Gone/Expired: ``status`` answers ``unknown``, the others Unavailable (retryable).
* A proxy's HTML page with status 200 in front of the API: ``status`` ``unknown``.
* A kubeconfig whose client certificate is not PEM: ConfigurationError (9), not an outage.
* ``HOME=/dev/null`` with ``--kubeconfig``: works (the Cloud SDK kubectl stats
  ``$HOME/.kube/config`` even then).
* Without ``-n``: the context's own namespace, never a ``namespace`` key elsewhere in the
  kubeconfig, looked up within a read's bound even when the credential plugin hangs.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import ROOT, Cluster, Result, spec
from tests.fakecluster import FakeCluster

from .helpers import alive, await_true, script

HTML = (
    b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Corporate proxy</h1>"
    b"<p>Please sign in to continue.</p></body></html>\n"
)
GONE = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "the resource is gone",
    "reason": "Gone",
    "code": 410,
}


@pytest.fixture(scope="module")
def workload(cluster: Cluster) -> Iterator[str]:
    """A running workload to read while the API misbehaves."""
    fake = cluster.require_fake()
    name, cid = cluster.workload("typed")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created
    yield name
    fake.clear_faults()


# status's read: the Deployments by the name label (then its ReplicaSets and Pods, same call)
DEPLOYMENTS = r"/apis/apps/v1/namespaces/testns/deployments$"


# -- 410 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [None, GONE], ids=["expired", "gone"])
def test_status_on_410_is_unknown(cluster: Cluster, workload: str, body: Any) -> None:
    fake = cluster.require_fake()
    fake.fail_next(1, 410, method="GET", path_regex=DEPLOYMENTS, body=body)
    try:
        result = cluster.adapter("status", f"testns/{workload}")
    finally:
        fake.clear_faults()
    assert (result.code, result.doc["status"]) == (0, "unknown"), result
    assert result.doc["message"].startswith("Unavailable: Error from server ("), result.doc


@pytest.mark.parametrize("body", [None, GONE], ids=["expired", "gone"])
def test_list_on_410_is_unavailable(cluster: Cluster, workload: str, body: Any) -> None:
    fake = cluster.require_fake()
    fake.fail_next(1, 410, method="GET", path_regex=r"/deployments$", body=body)
    try:
        result = cluster.adapter("list")
    finally:
        fake.clear_faults()
    assert (result.code, result.error_type) == (8, "Unavailable"), result
    assert "410" in result.doc["error"]["details"]["reason"], result.doc


# -- a proxy's page -----------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["the read", "every path"])
def test_status_behind_a_proxy_page_is_unknown(cluster: Cluster, workload: str, where: str) -> None:
    fake = cluster.require_fake()
    if where == "the read":
        fake.fail_next(1, 200, "GET", DEPLOYMENTS, body=HTML, content_type="text/html")
    else:
        fake.fail_next(1000, 200, body=HTML, content_type="text/html", include_discovery=True)
    try:
        status = cluster.adapter("status", f"testns/{workload}")
        listed = cluster.adapter("list")
    finally:
        fake.clear_faults()
    assert (status.code, status.doc["status"]) == (0, "unknown"), status
    assert status.doc["message"].startswith("Unavailable: "), status.doc
    if where == "every path":
        assert (listed.code, listed.error_type) == (8, "Unavailable"), listed


# -- the kubeconfig and the environment -------------------------------------------------------


def kubeconfig_copy(fake: FakeCluster, path: Path, change: Any) -> str:
    config = yaml.safe_load(fake.kubeconfig.read_text())
    change(config)
    path.write_text(json.dumps(config))
    return str(path)


def run(
    cluster: Cluster, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> Result:
    """The CLI as a process with exactly these arguments (no ``-n`` added)."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return Result(proc.returncode, json.loads(proc.stdout), proc.stderr, time.monotonic() - started)


def test_a_client_certificate_that_is_not_pem_is_configuration_error(
    cluster: Cluster, workload: str, tmp_path: Path
) -> None:
    fake = cluster.require_fake()
    garbage = base64.b64encode(b"garbage").decode()

    def spoil(config: dict[str, Any]) -> None:
        for user in config["users"]:
            user["user"] = {"client-certificate-data": garbage, "client-key-data": garbage}

    kubeconfig = kubeconfig_copy(fake, tmp_path / "kubeconfig", spoil)
    for args in (["list"], ["stop", f"testns/{workload}"]):
        result = cluster.adapter(*args, flags=["--kubeconfig", kubeconfig])
        assert (result.code, result.error_type) == (9, "ConfigurationError"), result
        assert "PEM" in result.doc["error"]["message"], result.doc


def test_home_that_is_not_a_directory_with_a_kubeconfig_works(
    cluster: Cluster, workload: str, tmp_path: Path
) -> None:
    fake = cluster.require_fake()
    common = ["--kubeconfig", str(fake.kubeconfig), "--cache-dir", str(tmp_path / "cache")]
    status = run(cluster, *common, "status", f"testns/{workload}", env={"HOME": "/dev/null"})
    assert (status.code, status.doc["status"]) == (0, "running"), status
    listed = run(cluster, *common, "-n", "testns", "list", env={"HOME": "/dev/null"})
    assert listed.code == 0 and workload in {i["name"] for i in listed.doc["items"]}, listed


# -- the namespace when -n is not given ---------------------------------------------------------


def test_without_n_the_contexts_own_namespace_is_used(
    cluster: Cluster, workload: str, tmp_path: Path
) -> None:
    """A cluster ``extensions`` entry with a ``namespace`` key used to win in 5 of 8 runs
    (``jsonpath={..namespace}`` matched it first in Go's random map order)."""
    fake = cluster.require_fake()

    def extend(config: dict[str, Any]) -> None:
        for entry in config["clusters"]:
            entry["cluster"]["extensions"] = [
                {"name": "example.com/proxy", "extension": {"namespace": "default"}}
            ]

    kubeconfig = kubeconfig_copy(fake, tmp_path / "kubeconfig", extend)
    for attempt in range(6):
        cache = str(tmp_path / f"cache-{attempt}")
        result = run(cluster, "--kubeconfig", kubeconfig, "--cache-dir", cache, "list")
        assert result.code == 0, result
        assert workload in {item["name"] for item in result.doc["items"]}, (attempt, result.doc)


PLUGIN = """\
echo $$ > "$DIR/plugin.pid"
exec sleep 120
"""


def test_namespace_lookup_with_a_hanging_credential_plugin_is_bounded_like_a_read(
    cluster: Cluster, tmp_path: Path
) -> None:
    """It used to run under --call-timeout (60 s by default; 30 s here)."""
    fake = cluster.require_fake()
    plugin = script(tmp_path / "plugin", PLUGIN)

    def hang(config: dict[str, Any]) -> None:
        for user in config["users"]:
            user["user"] = {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1",
                    "command": plugin,
                    "interactiveMode": "Never",
                }
            }

    kubeconfig = kubeconfig_copy(fake, tmp_path / "kubeconfig", hang)
    flags = ["--kubeconfig", kubeconfig, "--cache-dir", str(tmp_path / "cache")]
    try:
        result = run(
            cluster,
            *flags,
            "--request-timeout",
            "1",
            "--call-timeout",
            "30",
            "list",
            env={"DIR": str(tmp_path)},
        )
    finally:
        pidfile = tmp_path / "plugin.pid"
        if pidfile.exists() and pidfile.read_text().strip():
            pid = int(pidfile.read_text())
            if alive(pid):  # the plugin this test started, by id
                os.kill(pid, 9)
    assert result.code != 0, result
    assert result.seconds < cluster.paced(15), (result.seconds, result.doc)


# -- false success ---------------------------------------------------------------------------


def test_create_of_another_nodes_spec_is_refused(cluster: Cluster) -> None:
    """Node 8 creating a spec of node 7 used to succeed; node 8 never listed it afterwards."""
    fake = cluster.require_fake()
    name, cid = cluster.workload("other-node")
    result = cluster.adapter("--node-id", "8", "create", "--spec", "-", stdin=spec(name, cid))
    assert (result.code, result.error_type) == (2, "InvalidInput"), result
    assert fake.get("deployments", "testns", name) is None


SILENT_KUBECTL = """\
kubectl "$@" > /dev/null
"""


def test_a_kubectl_that_prints_nothing_is_never_missing(
    cluster: Cluster, workload: str, tmp_path: Path
) -> None:
    """A wrapper that exits 0 and prints nothing: `status` used to say missing and `delete`
    alreadyMissing while the Deployment ran. Now an error, and nothing is deleted."""
    fake = cluster.require_fake()
    silent = script(tmp_path / "kubectl", SILENT_KUBECTL)
    for args in (["status", f"testns/{workload}"], ["delete", f"testns/{workload}"]):
        result = cluster.adapter(*args, flags=["--kubectl", silent])
        assert (result.code, result.error_type) == (1, "InternalError"), result
        assert result.doc["error"]["details"]["problem"] == "output is empty", result.doc
    assert fake.get("deployments", "testns", workload) is not None


# -- a credential refused while a rollout waits -------------------------------------------------


def test_a_401_during_a_rollout_does_not_cost_the_wait_slice(cluster: Cluster) -> None:
    """The token expires while the rollout waits and its watch connection drops: kubectl
    re-lists, is refused (401), and would retry until the 10 s slice ends (the read between
    slices then said Unauthorized). The runner stops it at the second refusal."""
    fake = cluster.require_fake()
    token = fake.add_user("rotated", groups=("system:masters",))
    context = fake.add_user_context("rotated", token, namespace="testns")
    name, cid = cluster.workload("unauth")
    fake.clear_requests()
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(
            cluster.adapter,
            "create",
            "--spec",
            "-",
            stdin=spec(name, cid, image="nginx:never-ready"),
            context=context,
        )
        await_true(
            lambda: any(
                r.kubectl_command == "kubectl get" and r.query.get("watch") == "true"
                for r in fake.requests
            ),
            30,
            "the rollout's watch",
        )
        fake.revoke_token(token)
        revoked = time.monotonic()
        fake.down()  # the watch connection drops (as it does at the token's expiry)
        fake.up()
        result = running.result(timeout=60)
        after = time.monotonic() - revoked
    assert (result.code, result.error_type) == (4, "Unauthorized"), result
    assert after < cluster.paced(7), (after, result.doc)
