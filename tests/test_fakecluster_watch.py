"""Watches that break: closed by the server, reset, 410 Expired, an API restart.

Each knob is checked with the real kubectl: `kubectl rollout status` (an informer: it lists
and watches again) rides every break out, `kubectl get --watch` (one watch, no retry) ends."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakecluster import FakeCluster
from tests.test_fakecluster import KUBECTL, deployment, https, needs_kubectl

NAME = "web-1"


class Kubectl:
    """Background kubectl processes against one fake, each with a fresh cache directory."""

    def __init__(self, fc: FakeCluster, tmp: Path) -> None:
        self.fc, self.tmp, self.n = fc, tmp, 0
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, *args: str) -> subprocess.Popen[str]:
        assert KUBECTL is not None
        self.n += 1
        cmd = [KUBECTL, "--kubeconfig", str(self.fc.kubeconfig)]
        cmd += ["--cache-dir", str(self.tmp / f"cache-{self.n}"), *args]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


@pytest.fixture
def bg(cluster: FakeCluster, tmp_path: Path) -> Iterator[Kubectl]:
    k = Kubectl(cluster, tmp_path)
    yield k
    k.kill_all()


def watching(fc: FakeCluster, bg: Kubectl) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    """A rollout that cannot finish yet, watched by `rollout status` and `get --watch`."""
    fc.set_image_behaviour("nginx", "never_ready")
    fc.create_object(json.loads(deployment()))
    rollout = bg.start("rollout", "status", f"deployment/{NAME}", "-n", "testns", "--timeout=30s")
    get = bg.start("get", "deployments", "-n", "testns", "--watch", "-o", "name", "-v=6")
    fc.wait_for(lambda: fc.open_watches(r"/deployments$") >= 2, 15, "two watches")
    return rollout, get


def finish_rollout(fc: FakeCluster) -> None:
    """Let the rollout complete: a new template whose Pod becomes Ready."""
    fc.set_image_behaviour("nginx", None)
    dep = fc.get("deployments", "testns", NAME)
    assert dep is not None
    dep["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    fc.create_object(dep, replace=True)


def rollout_watches(fc: FakeCluster) -> int:
    return sum(
        1
        for r in fc.requests
        if r.kubectl_command == "kubectl rollout status" and r.query.get("watch") == "true"
    )


@needs_kubectl
@pytest.mark.parametrize("knob", ["close", "reset", "expire", "restart"])
def test_rollout_status_rides_out_a_broken_watch(
    cluster: FakeCluster, bg: Kubectl, knob: str
) -> None:
    fc = cluster
    rollout, get = watching(fc, bg)
    restarting = None
    if knob == "close":
        assert fc.close_watches(r"/deployments$") == 2
    elif knob == "reset":
        assert fc.reset_watches(r"/deployments$") == 2
    elif knob == "expire":
        assert fc.expire_watches(r"/deployments$") == 2
    else:
        restarting = fc.restart(1.0)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((fc.host, fc.port), timeout=1).close()
    out, err = get.communicate(timeout=10)
    # `get --watch` does not retry: it ends, exit 0, whatever broke the stream.
    assert get.returncode == 0, err
    if knob == "reset":
        assert "connection reset by peer" in err
    if knob == "expire":
        assert out.splitlines()[-1] == "status/<unknown>"  # the ERROR event's Status, printed
    # rollout status watches again before its rollout can finish: once the rollout is done, a
    # re-list that already shows it ends kubectl without a second watch (seen under load).
    assert fc.wait_for(lambda: rollout_watches(fc) >= 2, 20)
    if restarting is not None:
        restarting.join(5)
    finish_rollout(fc)
    out, err = rollout.communicate(timeout=30)
    assert rollout.returncode == 0, err
    assert out.strip().splitlines()[-1] == f'deployment "{NAME}" successfully rolled out'
    assert rollout_watches(fc) >= 2  # it watched again after the break


@needs_kubectl
def test_down_cuts_the_watches_in_flight(cluster: FakeCluster, bg: Kubectl) -> None:
    fc = cluster
    rollout, get = watching(fc, bg)
    fc.down()
    get.communicate(timeout=10)
    assert get.returncode == 0
    fc.wait_for(lambda: fc.open_watches() == 0, 5, "the watches end with the connections")
    fc.up()
    finish_rollout(fc)
    _, err = rollout.communicate(timeout=30)
    assert rollout.returncode == 0, err
    assert rollout_watches(fc) >= 2


def test_the_next_watch_expires(cluster: FakeCluster) -> None:
    """``expire_watches(next_ones=N)``: the next N watches get a 410 Expired ERROR event, as
    the watch cache answers a resourceVersion it no longer holds, and end."""
    fc = cluster
    fc.create_object(json.loads(deployment()))
    rv = fc.store.rv
    assert fc.expire_watches(r"/pods$", open_ones=False, next_ones=1) == 0
    path = "/apis/apps/v1/namespaces/testns/deployments"
    query = f"?resourceVersion={rv}&timeoutSeconds=1&watch=true"
    # Not a Pod watch: served as usual.
    code, _, body = https(fc, "GET", path + query)
    assert code == 200 and all(
        json.loads(line)["type"] != "ERROR" for line in body.decode().splitlines()
    )
    code, _, body = https(fc, "GET", f"/api/v1/namespaces/testns/pods{query}")
    (line,) = body.decode().splitlines()
    event = json.loads(line)
    assert code == 200 and event["type"] == "ERROR"
    assert {k: event["object"][k] for k in ("kind", "status", "reason", "code")} == {
        "kind": "Status",
        "status": "Failure",
        "reason": "Expired",
        "code": 410,
    }
    assert event["object"]["message"].startswith(f"too old resource version: {rv} (")
    code, _, body = https(fc, "GET", f"/api/v1/namespaces/testns/pods{query}")
    assert code == 200 and "ERROR" not in body.decode()  # used up
