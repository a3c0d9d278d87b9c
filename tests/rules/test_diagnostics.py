"""Failure explanations name the condition, the pod, the container, the reason and events."""

from __future__ import annotations

from datetime import UTC, datetime

from kubectl_adapter.rules.diagnostics import explain, relevant_events
from tests.k8s_objects import condition, deployment, event, pod, replicaset


def test_explain_names_everything_an_operator_needs() -> None:
    dep = deployment(
        available=None,
        conditions=[
            condition(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            ),
            condition(
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                'ReplicaSet "web-1-5d8f7c9b6d" has timed out progressing.',
            ),
        ],
    )
    rs = replicaset(dep)
    failing = pod(
        rs,
        ready=False,
        ip=None,
        phase="Pending",
        waiting=("ImagePullBackOff", 'Back-off pulling image "nginx:nope"'),
    )
    events = [
        event(
            "Pod",
            failing["metadata"]["name"],
            "Failed",
            'Failed to pull image "nginx:nope": not found',
        ),
        event("Pod", "someone-else", "Failed", "not ours"),
        event("Deployment", "web-1", "ScalingReplicaSet", "Scaled up", type_="Normal"),
    ]
    message, details = explain(dep, [rs], [failing], events)
    assert "Progressing=False ProgressDeadlineExceeded" in message
    assert "pod web-1-5d8f7c9b6d-abcde container main: ImagePullBackOff" in message
    assert (
        'event Failed on Pod/web-1-5d8f7c9b6d-abcde: Failed to pull image "nginx:nope"' in message
    )
    assert "not ours" not in message
    assert details["newReplicaSet"] == "web-1-5d8f7c9b6d"
    (pod_summary,) = details["pods"]
    assert pod_summary["containers"][0]["reason"] == "ImagePullBackOff"
    assert [e["reason"] for e in details["events"]] == ["Failed"]
    assert {c["type"] for c in details["conditions"]} == {"Available", "Progressing"}


def test_explain_deleted_deployment() -> None:
    message, details = explain(None, [], [], [])
    assert "no longer exists" in message
    assert details == {"deployment": None}


def test_relevant_events_keeps_the_most_recent() -> None:
    events = [
        event("Pod", "p", "BackOff", f"n{i}", at=f"2026-11-30T00:{i:02d}:00Z") for i in range(20)
    ]
    picked = relevant_events(events, {"p"}, limit=3)
    assert [e["message"] for e in picked] == ["n17", "n18", "n19"]


def test_explain_says_paused_replica_failure_and_the_unschedulable_grace() -> None:
    dep = deployment(
        available=None,
        conditions=[condition("ReplicaFailure", "True", "FailedCreate", "exceeded quota: pods")],
    )
    dep["spec"]["paused"] = True
    rs = replicaset(dep)
    stuck = pod(rs, ready=False, ip=None, phase="Pending", unschedulable="0/1 nodes")
    stuck["status"]["conditions"][0]["lastTransitionTime"] = "2026-11-30T00:59:55Z"
    message, details = explain(
        dep, [rs], [stuck], [], now=datetime(2026, 11, 30, 1, 0, 0, tzinfo=UTC)
    )
    assert "rollout paused (spec.paused)" in message
    assert "ReplicaFailure=True FailedCreate: exceeded quota: pods" in message
    assert "unschedulable, failed in 10s unless scheduled: 0/1 nodes" in message
    assert details["pods"][0]["scheduling"]["reason"] == "Unschedulable"
