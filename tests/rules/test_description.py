"""describe's document: Pods with their container states, conditions and the workload's events."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubectl_adapter.contract.description_models import Description
from kubectl_adapter.rules.description import description_document, event_summary
from tests.k8s_objects import condition, deployment, event, pod, replicaset

NOW = datetime(2026, 11, 30, 0, 10, tzinfo=UTC)
CRASH = "back-off 40s restarting failed container=main pod=web-1-5d8f7c9b6d-abcde_testns(u)"
PULL = 'Back-off pulling image "nginx:does-not-exist"'


def failing(waiting: tuple[str, str], **kwargs: Any) -> tuple[Any, Any, Any]:
    dep = deployment(
        available=0,
        ready=0,
        conditions=[condition("Available", "False", "MinimumReplicasUnavailable")],
    )
    rs = replicaset(dep)
    crashing = pod(rs, ready=False, waiting=waiting, **kwargs)
    return dep, rs, crashing


def test_a_crash_loop_shows_the_reason_the_restarts_and_the_last_exit() -> None:
    dep, rs, crashing = failing(
        ("CrashLoopBackOff", CRASH), restarts=3, last_terminated=("Error", 1)
    )
    name = crashing["metadata"]["name"]
    events = [
        event("Pod", name, "BackOff", "Back-off restarting failed container main"),
        event("Pod", "someone-else-abcde", "BackOff", "not ours"),
        event("Pod", name, "Pulled", "Successfully pulled", type_="Normal"),
    ]
    doc = description_document(dep, [rs], [crashing], events, now=NOW)
    assert doc["snapshot"]["status"] == "failed"
    (described,) = doc["pods"]
    assert (described["name"], described["current"], described["ready"]) == (name, True, False)
    (main,) = described["containers"]
    assert main == {
        "name": "main",
        "init": False,
        "image": "nginx:latest",
        "state": "waiting",
        "reason": "CrashLoopBackOff",
        "message": CRASH,
        "startedAt": None,
        "terminated": None,
        "ready": False,
        "restartCount": 3,
        "lastExit": {"exitCode": 1, "reason": "Error", "message": None, "finishedAt": None},
    }
    assert any("CrashLoopBackOff" in line and "restarts: 3" in line for line in doc["failing"])
    # Normal events too, as kubectl describe lists them (issue 32); only the workload's
    assert sorted((e["type"], e["reason"], e["object"]) for e in doc["events"]) == [
        ("Normal", "Pulled", f"Pod/{name}"),
        ("Warning", "BackOff", f"Pod/{name}"),
    ]
    assert doc["conditions"][0]["reason"] == "MinimumReplicasUnavailable"
    assert Description.model_validate(doc).to_json() == doc


def test_an_image_pull_failure_shows_the_pull_message() -> None:
    dep, rs, pulling = failing(("ImagePullBackOff", PULL), phase="Pending", ip=None)
    doc = description_document(dep, [rs], [pulling], [], now=NOW)
    main = doc["pods"][0]["containers"][0]
    assert (main["state"], main["reason"], main["message"]) == ("waiting", "ImagePullBackOff", PULL)
    assert doc["pods"][0]["phase"] == "Pending"


def test_events_are_matched_by_uid_when_they_carry_one() -> None:
    dep = deployment()
    rs = replicaset(dep)
    running = pod(rs)
    name, uid = running["metadata"]["name"], running["metadata"]["uid"]
    ours = event("Pod", name, "Unhealthy", "probe failed")
    ours["involvedObject"]["uid"] = uid
    earlier = event("Pod", name, "Unhealthy", "a Pod of the same name before, long gone")
    earlier["involvedObject"]["uid"] = "uid-of-another-pod"
    doc = description_document(dep, [rs], [running], [earlier, ours], now=NOW)
    assert [e["message"] for e in doc["events"]] == ["probe failed"]


def test_the_newest_events_only_oldest_first() -> None:
    dep = deployment()
    rs = replicaset(dep)
    events = [
        event("Deployment", "web-1", "Reason", f"n{i}", at=f"2026-11-30T00:0{i // 10}:{i % 10}0Z")
        for i in range(15)
    ]
    doc = description_document(dep, [rs], [pod(rs)], list(reversed(events)), now=NOW)
    assert [e["message"] for e in doc["events"]] == [f"n{i}" for i in range(5, 15)]


def test_pods_of_an_older_revision_are_shown_and_not_current() -> None:
    dep = deployment()
    old, new = replicaset(dep, "1111111111", 1), replicaset(dep, "2222222222", 2)
    leaving = pod(old, "aaaaa", deleting=True)
    coming = pod(new, "bbbbb", ready=False, waiting=("ContainerCreating", ""))
    doc = description_document(dep, [old, new], [leaving, coming], [], now=NOW)
    shown = {p["name"]: (p["current"], p["terminating"], p["replicaSet"]) for p in doc["pods"]}
    assert shown == {
        leaving["metadata"]["name"]: (False, True, old["metadata"]["name"]),
        coming["metadata"]["name"]: (True, False, new["metadata"]["name"]),
    }
    assert doc["replicaSet"] == new["metadata"]["name"]


def test_an_unscheduled_pod_lists_its_containers_from_the_spec() -> None:
    dep = deployment(available=0)
    rs = replicaset(dep)
    pending = pod(rs, ready=False, phase="Pending", unschedulable="0/1 nodes: Insufficient cpu")
    doc = description_document(dep, [rs], [pending], [], now=NOW)
    described = doc["pods"][0]
    assert [(c["name"], c["state"]) for c in described["containers"]] == [("main", "unknown")]
    scheduled = [c for c in described["conditions"] if c["type"] == "PodScheduled"]
    assert scheduled[0]["message"] == "0/1 nodes: Insufficient cpu"


def test_an_events_k8s_io_event_reads_its_series() -> None:
    written = {
        "type": "Warning",
        "reason": "FailedMount",
        "note": "MountVolume.SetUp failed",
        "regarding": {"kind": "Pod", "name": "web-1-x"},
        "eventTime": "2026-11-30T00:01:00.000000Z",
        "series": {"count": 4, "lastObservedTime": "2026-11-30T00:05:00.000000Z"},
        "reportingComponent": "kubelet",
        "metadata": {"creationTimestamp": "2026-11-30T00:01:00Z"},
    }
    assert event_summary(written) == {
        "type": "Warning",
        "reason": "FailedMount",
        "message": "MountVolume.SetUp failed",
        "object": "Pod/web-1-x",
        "source": "kubelet",
        "count": 4,
        "firstSeen": "2026-11-30T00:01:00.000000Z",
        "lastSeen": "2026-11-30T00:05:00.000000Z",
    }
