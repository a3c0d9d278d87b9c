"""A kubectl's bound follows its requests (issue 26), with the real kubectl against the fake
API server (which pages lists as kubectl asks, 500 objects a page):

- a read whose answer grows (a big namespace, thousands of Failed Pods) answers as long as
  each request is answered within a read's bound (``--request-timeout`` + grace): `list` of
  5,000 workloads used to fail Timeout at 15 s while kubectl alone took 15.1 s;
- a write stuck in discovery against an API that accepts connections and never answers is
  stopped as fast as a read would be, and says nothing was sent (``start`` took 55 s);
- a write whose change has left is never stopped for want of an answer.

To keep the suite quick the grace is cut to 0.2 s (so a read's old bound is 3.2 s at
``--request-timeout 3``) and the fake answers every request 0.8 s late: the answers take
longer than the old bound in total while each request is quick. The CLI runs in-process for
the patched grace; kubectl is the real one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.cli import app as cli
from tests.fakecluster import FakeCluster
from tests.k8s_objects import deployment, pod, replicaset, running_workloads

from .helpers import script

GRACE = 0.2
REQUEST_TIMEOUT = 3.0
# Each request answered this late: six or seven requests (the dispatcher's /version,
# discovery, then a page per kind) take longer than the old bound, --request-timeout +
# grace, even once more with a warm cache; each stays well inside it on a loaded machine
# (a page of 500 Pods takes the fake up to 1.4 s there).
LATENCY = 0.8
WORKLOADS = 150
FAILED_PODS = 550  # two pages of Pods


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.call.READ_GRACE_SECONDS", GRACE)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    """A namespace of WORKLOADS running workloads and one (big-1) with FAILED_PODS evicted
    Pods beside its Ready one; no controller, so the objects stay as written."""
    with FakeCluster(tmp_path_factory.mktemp("big") / "fake") as fake:
        fake.controller.stop()
        for obj in running_workloads(WORKLOADS):
            fake.create_object(_in_default(obj))
        dep = deployment("big-1", container_id="big1", uid="uid-big-1")
        rs = replicaset(dep, "b000000001")
        fake.create_object(_in_default(dep))
        fake.create_object(_in_default(rs))
        fake.create_object(_in_default(pod(rs, ip="10.245.0.1")))
        for i in range(FAILED_PODS):
            evicted = pod(rs, ip="")
            evicted["metadata"]["name"] = f"big-1-b000000001-f{i:05d}"
            evicted["status"] = {"phase": "Failed", "reason": "Evicted",
                                 "message": "The node was low on resource: memory."}  # fmt: skip
            fake.create_object(_in_default(evicted))
        yield fake


def _in_default(obj: dict[str, Any]) -> dict[str, Any]:
    obj = json.loads(json.dumps(obj))
    obj["metadata"]["namespace"] = "default"
    obj["metadata"].pop("resourceVersion", None)
    return obj


def cli_run(
    capsys: pytest.CaptureFixture[str], fake: FakeCluster, cache: Path, *args: str
) -> tuple[int, Any, float]:
    argv = [
        "--kubeconfig", str(fake.kubeconfig), "--context", fake.context, "-n", "default",
        "--cache-dir", str(cache), "--request-timeout", f"{REQUEST_TIMEOUT:g}", *args,
    ]  # fmt: skip
    started = time.monotonic()
    code = cli.main(argv)
    seconds = time.monotonic() - started
    out, _ = capsys.readouterr()
    return code, json.loads(out), seconds


def test_a_list_longer_than_a_reads_bound_answers(
    big: FakeCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big.latency(LATENCY)
    try:
        code, doc, seconds = cli_run(capsys, big, tmp_path / "cache", "list")
    finally:
        big.latency(0)
    assert code == 0, doc
    assert len(doc["items"]) == WORKLOADS + 1, len(doc["items"])
    # It did take longer than the old bound (--request-timeout + grace): not a vacuous pass.
    assert seconds > REQUEST_TIMEOUT + GRACE, seconds


def test_status_among_thousands_of_failed_pods_answers(
    big: FakeCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big.latency(LATENCY)
    try:
        code, doc, seconds = cli_run(capsys, big, tmp_path / "cache", "status", "default/big-1")
    finally:
        big.latency(0)
    assert code == 0, doc
    assert doc["status"] == "running", doc
    assert seconds > REQUEST_TIMEOUT + GRACE, seconds


def test_a_write_stuck_in_discovery_learns_as_fast_as_a_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """start's first calls are its wait's watches, started before its patch (issue 38):
    against a silent API they are bounded as a read is and typed as a read's silence, where
    the patch used to spend kubectl's whole discovery retries (55 s with default flags)."""
    with FakeCluster(tmp_path / "fake") as fake:
        dep = _in_default(deployment("quiet-1", container_id="q1", replicas=0))
        fake.create_object(dep)
        fake.black_hole(True)
        try:
            code, doc, seconds = cli_run(
                capsys, fake, tmp_path / "cache", "--call-timeout", "60", "start",
                "default/quiet-1",
            )  # fmt: skip
        finally:
            fake.black_hole(False)
        stored = fake.get("deployments", "default", "quiet-1")
    error = doc["error"]
    assert (code, error["type"]) == (7, "Timeout"), doc
    assert error["details"]["writeSent"] is False, error
    assert error["details"]["reason"] == "no answer from the API server", error
    # The dispatcher's own /version (its 5 s) may come first; then one request's bound.
    assert seconds < REQUEST_TIMEOUT + GRACE + 5 + 2, seconds
    assert stored is not None and stored["spec"]["replicas"] == 0


def test_a_delete_whose_list_goes_unanswered_stops_before_deleting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """delete reads the Deployment, then kubectl lists it by labels and name and deletes what
    it found: with the API silent from that LIST on, the delete used to wait out its whole
    --timeout (a wait carries no --request-timeout)."""
    with FakeCluster(tmp_path / "fake") as fake:
        fake.create_object(_in_default(deployment("gone-1", container_id="g1", replicas=0)))
        fake.black_hole(True, path_regex=r"/deployments$")  # the LIST; the read by name works
        try:
            code, doc, seconds = cli_run(
                capsys, fake, tmp_path / "cache", "--timeout", "30", "delete", "default/gone-1"
            )
        finally:
            fake.black_hole(False)
        stored = fake.get("deployments", "default", "gone-1")
    error = doc["error"]
    assert (code, error["type"]) == (7, "Timeout"), doc
    assert error["details"]["writeSent"] is False, error
    assert seconds < 2 * (REQUEST_TIMEOUT + GRACE) + 5, seconds
    assert stored is not None and not stored["metadata"].get("deletionTimestamp")


# -- a write whose change has left ------------------------------------------------------------

SENT_THEN_SLOW = """\
echo 'I1201 20:24:59.004 1 round_trippers.go:470] GET https://127.0.0.1:1/api?timeout=2s' >&2
echo 'I1201 20:24:59.004 1 round_trippers.go:581] Response Status: 200 OK in 0 milliseconds' >&2
echo 'I1201 20:24:59.008 1 round_trippers.go:470] PATCH https://127.0.0.1:1/apis/apps/v1/'\
'namespaces/default/deployments/web-1?fieldManager=kubectl-patch&timeout=2s' >&2
sleep {sleep}
echo 'I1201 20:25:02.010 1 round_trippers.go:581] Response Status: 200 OK in 3002 milliseconds' >&2
echo '{{"kind": "Deployment"}}'
"""


def test_a_write_whose_change_has_left_is_never_stopped(tmp_path: Path) -> None:
    from kubectl_adapter.kubectl.config import ClusterConfig
    from kubectl_adapter.kubectl.runner import KubectlRunner

    # Its answer comes half as long again after the write left as a request may take.
    request_timeout = 0.5
    sleep = 1.5 * (request_timeout + GRACE)
    kubectl = script(tmp_path / "kubectl", SENT_THEN_SLOW.format(sleep=sleep))
    config = ClusterConfig(kubectl=kubectl, request_timeout=request_timeout, call_timeout=30)
    result = KubectlRunner(config).run(["patch", "deployment", "web-1", "-v=7"])
    assert result.returncode == 0 and "Deployment" in result.stdout
