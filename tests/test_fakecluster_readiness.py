"""A Pod that was Ready and lost its readiness, and how the fake's controllers react."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.fakecluster import FakeCluster
from tests.test_fakecluster import SEL, Runner, deployment, needs_kubectl

ROOT = Path(__file__).resolve().parents[1]


def served(fc: FakeCluster) -> str:
    """Create web-1 and wait for its rollout to complete; the name of its Pod."""
    fc.create_object(json.loads(deployment()))
    fc.wait_for(lambda: "web-1" in fc.mark_available_times, 10)
    (pod,) = fc.list("pods", "testns", label_selector=SEL)
    return str(pod["metadata"]["name"])


def conds(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in obj["status"].get("conditions") or []}


def unavailable(fc: FakeCluster) -> dict[str, Any] | None:
    dep = fc.get("deployments", "testns", "web-1")
    if dep and conds(dep).get("Available", {}).get("status") == "False":
        return dep
    return None


@needs_kubectl
def test_a_ready_pod_loses_its_readiness_and_the_controllers_react(
    cluster: FakeCluster, kubectl: Runner
) -> None:
    fc = cluster
    name = served(fc)
    progressing = conds(fc.get("deployments", "testns", "web-1") or {})["Progressing"]
    assert progressing["reason"] == "NewReplicaSetAvailable"
    fc.set_pod_ready("testns", name, False)
    fc.wait_for(lambda: unavailable(fc), 5)
    # Something else happens (another rollout completes): the kubelet and the controllers
    # run again, and nothing undoes the lost readiness.
    fc.create_object(json.loads(deployment(name="other", cid="other")))
    fc.wait_for(lambda: "other" in fc.mark_available_times, 10)

    r = kubectl("get", f"pod/{name}", "-n", "testns", "-o", "json")
    pod = json.loads(r.stdout)
    assert pod["status"]["phase"] == "Running"
    (cs,) = pod["status"]["containerStatuses"]
    assert ("running" in cs["state"], cs["ready"], cs["started"]) == (True, False, True)
    for kind in ("Ready", "ContainersReady"):
        c = conds(pod)[kind]
        assert (c["status"], c["reason"], c["message"]) == (
            "False",
            "ContainersNotReady",
            "containers with unready status: [main]",
        )
    r = kubectl("get", "deployment/web-1", "-n", "testns", "-o", "json")
    dep = json.loads(r.stdout)
    assert dep["status"]["replicas"] == 1 and dep["status"]["updatedReplicas"] == 1
    assert "readyReplicas" not in dep["status"] and "availableReplicas" not in dep["status"]
    assert dep["status"]["unavailableReplicas"] == 1
    available = conds(dep)["Available"]
    assert (available["status"], available["reason"], available["message"]) == (
        "False",
        "MinimumReplicasUnavailable",
        "Deployment does not have minimum availability.",
    )
    assert conds(dep)["Progressing"] == progressing  # not a new rollout: untouched
    (rs,) = [
        r for r in fc.list("replicasets", "testns") if r["metadata"]["name"].startswith("web-1")
    ]
    assert rs["status"]["replicas"] == 1 and "readyReplicas" not in rs["status"]
    unhealthy = [e for e in fc.events("testns", name) if e["reason"] == "Unhealthy"]
    assert unhealthy and unhealthy[0]["message"] == (
        "Readiness probe failed: HTTP probe failed with statuscode: 503"
    )

    fc.set_pod_ready("testns", name, True)
    fc.wait_for(lambda: not unavailable(fc), 5)
    assert conds(fc.get("pods", "testns", name) or {})["Ready"]["status"] == "True"


def test_the_transition_can_be_dated_in_the_past(cluster: FakeCluster) -> None:
    fc = cluster
    name = served(fc)
    pod = fc.set_pod_ready("testns", name, False, seconds_ago=90)
    ready = conds(pod)["Ready"]["lastTransitionTime"]
    started = pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    assert started < ready
    lost = datetime.strptime(ready, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert 88 <= (datetime.now(UTC) - lost).total_seconds() <= 93
    with pytest.raises(KeyError):
        fc.set_pod_ready("testns", "nope", False)


def adapter_status(fc: FakeCluster, tmp: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubectl_adapter",
            "--kubeconfig",
            str(fc.kubeconfig),
            "--context",
            fc.context,
            "--cache-dir",
            str(tmp / "adapter-cache"),
            "status",
            "testns/web-1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


@needs_kubectl
def test_issue_19s_rule_end_to_end(cluster: FakeCluster, tmp_path: Path) -> None:
    """Issue 19's rule, "running for 60 s with 'lost its readiness', then failed", through
    the CLI and the real kubectl, without waiting a minute: the fake dates the loss back."""
    fc = cluster
    name = served(fc)
    fc.set_pod_ready("testns", name, False, seconds_ago=5)
    fc.wait_for(lambda: unavailable(fc), 5)
    doc = adapter_status(fc, tmp_path)
    assert doc["status"] == "running", doc
    assert f"pod {name} lost its readiness" in doc["message"]
    fc.set_pod_ready("testns", name, False, seconds_ago=61)
    doc = adapter_status(fc, tmp_path)
    assert doc["status"] == "failed", doc
    lost = re.search(rf"pod {name}: NotReady: lost its readiness (\d+)s ago", doc["message"])
    assert lost and int(lost.group(1)) >= 61, doc["message"]
    assert "containers with unready status: [main]" in doc["message"]


def test_a_scale_is_not_a_new_rollout(cluster: FakeCluster) -> None:
    """The deployment controller leaves Progressing at NewReplicaSetAvailable after the rollout
    completed: scaled to 0 and back, it stays (no progress deadline runs either), while
    ``mark_available_times`` still records each time it becomes fully available."""
    fc = cluster
    served(fc)
    first = fc.mark_available_times["web-1"]
    progressing = conds(fc.get("deployments", "testns", "web-1") or {})["Progressing"]
    for replicas in (0, 1):
        dep = fc.get("deployments", "testns", "web-1")
        assert dep is not None
        dep["spec"]["replicas"] = replicas
        fc.create_object(dep, replace=True)
        fc.wait_for(
            lambda n=replicas: (
                (fc.get("deployments", "testns", "web-1") or {})["status"].get(
                    "availableReplicas", 0
                )
                == n
                and len(fc.list("pods", "testns")) == n
            ),
            10,
        )
        assert conds(fc.get("deployments", "testns", "web-1") or {})["Progressing"] == progressing
    assert fc.mark_available_times["web-1"] > first
