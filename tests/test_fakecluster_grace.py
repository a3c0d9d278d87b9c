"""The fake's graceful Pod deletion: grace periods per Pod and per DELETE, slow containers."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.fakecluster import FakeCluster
from tests.test_fakecluster import SEL, SSA, Runner, deployment, needs_kubectl


def graced(image: str = "nginx:1.27", grace: int = 30, **env: str) -> dict[str, Any]:
    doc = json.loads(deployment(image=image, env=env or {}))
    doc["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = grace
    return doc


def running_pod(fc: FakeCluster) -> dict[str, Any]:
    def ready() -> dict[str, Any] | None:
        for p in fc.list("pods", "testns", label_selector=SEL):
            if any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in p["status"].get("conditions") or []
            ):
                return p
        return None

    return fc.wait_for(ready, 10)


def pod_history(fc: FakeCluster, name: str, since_rv: int) -> list[tuple[str, dict[str, Any]]]:
    """Every watch event of one Pod after ``since_rv``: what a watching client saw."""
    return [(t, o) for t, o in fc.history("pods", since=since_rv) if o["metadata"]["name"] == name]


@needs_kubectl
def test_scaled_to_zero_a_pod_runs_through_its_grace_period(
    cluster: FakeCluster, kubectl: Runner
) -> None:
    """What issue 24 saw on a cluster: the ReplicaSet stops counting the Pod the moment it is
    marked, while the Pod, still Running and Ready, is listed until its containers stop."""
    fc = cluster
    fc.set_stop_delay("nginx", "grace")
    fc.create_object(graced(grace=3))
    pod = running_pod(fc)["metadata"]["name"]
    rv = fc.store.rv
    r = kubectl("scale", "deployment/web-1", "-n", "testns", "--replicas=0")
    assert r.returncode == 0, r.stderr
    scaled = time.monotonic()
    fc.wait_for(
        lambda: not (fc.get("deployments", "testns", "web-1") or {})["status"].get("replicas"), 5
    )
    (rs,) = fc.list("replicasets", "testns")
    assert "replicas" in rs["status"] and rs["status"]["replicas"] == 0
    r = kubectl("get", "pods", "-n", "testns", "-l", SEL, "-o", "json")
    (listed,) = json.loads(r.stdout)["items"]
    assert listed["metadata"]["name"] == pod
    assert listed["metadata"]["deletionGracePeriodSeconds"] == 3
    assert listed["metadata"]["deletionTimestamp"]
    assert listed["status"]["phase"] == "Running"
    assert {c["type"]: c["status"] for c in listed["status"]["conditions"]}["Ready"] == "True"
    assert listed["status"]["containerStatuses"][0]["state"].keys() == {"running"}

    r = kubectl("wait", "--for=delete", f"pod/{pod}", "-n", "testns", "--timeout=30s")
    gone = time.monotonic() - scaled
    assert r.returncode == 0, r.stderr
    # The whole grace period, not the 30 s default (upper bound loose: a loaded machine).
    assert 2.0 <= gone < 15.0, gone
    # Killed when the grace ran out: exit 137, phase Failed, then deleted (kubelet >= 1.27).
    history = pod_history(fc, pod, rv)
    assert history[-1][0] == "DELETED"
    last = history[-2][1]
    assert last["status"]["phase"] == "Failed"
    term = last["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (137, "Error")
    assert {c["type"]: c.get("reason") for c in last["status"]["conditions"]}["Ready"] == (
        "PodFailed"
    )


def test_a_stop_delay_shorter_than_the_grace_ends_with_exit_0(cluster: FakeCluster) -> None:
    fc = cluster
    fc.set_stop_delay("nginx", 1.0)
    fc.create_object(graced(grace=30))
    pod = running_pod(fc)["metadata"]["name"]
    rv = fc.store.rv
    started = time.monotonic()
    fc.delete_object("pods", "testns", pod)
    marked = fc.get("pods", "testns", pod)
    assert marked is not None and marked["metadata"]["deletionGracePeriodSeconds"] == 30
    fc.wait_for(lambda: fc.get("pods", "testns", pod) is None, 5)
    assert 0.8 <= time.monotonic() - started < 15.0  # its stop delay, not the 30 s grace
    history = pod_history(fc, pod, rv)
    last = history[-2][1]
    assert last["status"]["phase"] == "Succeeded"
    term = last["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (0, "Completed")
    # The ReplicaSet replaced the Pod the moment it was marked.
    assert any(p["metadata"]["name"] != pod for p in fc.list("pods", "testns"))


def test_the_stop_delay_of_one_pod_and_of_an_env_convention(cluster: FakeCluster) -> None:
    fc = cluster
    fc.create_object(graced(grace=30, FAKE_STOP_SECONDS="1"))
    live = running_pod(fc)
    pod = live["metadata"]["name"]
    assert fc.controller.kubelet.stop_delay(live) == 1.0
    fc.set_pod_stop_delay("testns", pod, 0)
    assert fc.controller.kubelet.stop_delay(live) == 0.0  # the Pod's own wins
    fc.delete_object("pods", "testns", pod)
    fc.wait_for(lambda: fc.get("pods", "testns", pod) is None, 5)
    with pytest.raises(ValueError):
        fc.set_stop_delay("x", -1)
    fc.set_pod_stop_delay("testns", pod, None)
    odd = live
    odd["spec"]["containers"][0]["env"] = [{"name": "FAKE_STOP_SECONDS", "value": "soon"}]
    assert fc.controller.kubelet.stop_delay(odd) == fc.controller.kubelet.termination_delay


@needs_kubectl
def test_a_delete_with_a_shorter_grace_period_wins(cluster: FakeCluster, kubectl: Runner) -> None:
    """``gracePeriodSeconds`` of a DELETE: 0 removes at once, a shorter one than the running
    deletion's shortens it (the API server never lengthens one)."""
    fc = cluster
    fc.set_stop_delay("nginx", "grace")
    fc.create_object(graced(grace=30))
    pod = running_pod(fc)["metadata"]["name"]
    r = kubectl("delete", "pod", pod, "-n", "testns", "--wait=false")
    assert r.returncode == 0, r.stderr
    r = kubectl("delete", "pod", pod, "-n", "testns", "--wait=false", "--grace-period=60")
    assert r.returncode == 0, r.stderr
    marked = fc.get("pods", "testns", pod)
    assert marked is not None and marked["metadata"]["deletionGracePeriodSeconds"] == 30
    started = time.monotonic()
    r = kubectl("delete", "pod", pod, "-n", "testns", "--grace-period=1", "--timeout=20s")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 15.0  # 1 s, not the 30 s first asked for
    assert fc.get("pods", "testns", pod) is None

    other = running_pod(fc)["metadata"]["name"]
    r = kubectl(
        "delete", "pod", other, "-n", "testns", "--grace-period=0", "--force", "--wait=false"
    )
    assert r.returncode == 0, r.stderr
    assert fc.get("pods", "testns", other) is None


@needs_kubectl
def test_the_default_is_still_the_termination_delay(cluster: FakeCluster, kubectl: Runner) -> None:
    assert kubectl(*SSA, "-n", "testns", "-f", "-", stdin=deployment()).returncode == 0
    pod = running_pod(cluster)["metadata"]["name"]
    started = time.monotonic()
    r = kubectl("delete", "pod", pod, "-n", "testns", "--timeout=20s")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 15.0  # termination_delay, not the 30 s grace
