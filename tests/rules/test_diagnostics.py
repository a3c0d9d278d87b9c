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
    # The kubelet's words on the pull lead, once; the event that carried them is not repeated.
    assert message.startswith(
        "pod web-1-5d8f7c9b6d-abcde container main: ImagePullBackOff: Back-off pulling image "
        '"nginx:nope"; kubelet: Failed to pull image "nginx:nope": not found | '
    )
    assert message.count("Failed to pull image") == 1
    assert message.endswith(" | next step: kubectl describe pod web-1-5d8f7c9b6d-abcde -n testns")
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
    # The headline, once (not again among the conditions)
    assert message.startswith("ReplicaFailure FailedCreate: exceeded quota: pods | ")
    assert message.count("exceeded quota") == 1
    assert message.endswith("next step: kubectl describe replicaset web-1-5d8f7c9b6d -n testns")
    assert "unschedulable, failed in 10s unless scheduled: 0/1 nodes" in message
    assert details["pods"][0]["scheduling"]["reason"] == "Unschedulable"


NOW = datetime(2026, 11, 30, 1, 0, 0, tzinfo=UTC)


def test_a_crash_is_said_once_with_the_logs_to_read_next() -> None:
    """Issue 32: the crash was in the headline, in the context and in the BackOff event."""
    dep = deployment(available=None, conditions=[])
    rs = replicaset(dep)
    crashing = pod(
        rs,
        ready=False,
        waiting=(
            "CrashLoopBackOff",
            "back-off 40s restarting failed container=main "
            "pod=web-1-5d8f7c9b6d-abcde_testns(6c1f0d6e-3f55-4bd7-9d59-4b1b0b7b6d11)",
        ),
        last_terminated=("Error", 1),
        restarts=3,
    )
    backoff = event(
        "Pod",
        crashing["metadata"]["name"],
        "BackOff",
        "Back-off restarting failed container main in pod web-1-5d8f7c9b6d-abcde_testns(6c1f)",
    )
    message, details = explain(dep, [rs], [crashing], [backoff], now=NOW)
    headline, context, step = message.split(" | ")
    assert headline == (
        "pod web-1-5d8f7c9b6d-abcde container main: CrashLoopBackOff: back-off 40s; "
        "last exit code 1 (Error) (restarts: 3)"
    )
    assert "CrashLoopBackOff" not in context and "Back-off" not in context, context
    assert step == "next step: kubectl logs deployment/web-1 -c main --previous -n testns"
    assert details["nextStep"] == "kubectl logs deployment/web-1 -c main --previous -n testns"
    assert len(message) < 300, message


def test_a_crash_beside_a_serving_pod_names_the_crashing_pod_for_its_logs() -> None:
    """``kubectl logs deployment/NAME`` picks a ready Pod first: the old one, still serving."""
    dep = deployment(available=1, conditions=[])
    old_rs = replicaset(dep, "7f9d6c5b4a", revision=1)
    new_rs = replicaset(dep, revision=2)
    serving = pod(old_rs, "serve")
    crashing = pod(new_rs, ready=False, terminated=("Error", 1))
    _, details = explain(dep, [old_rs, new_rs], [serving, crashing], [], now=NOW)
    assert details["nextStep"] == (f"kubectl logs {crashing['metadata']['name']} -c main -n testns")


def test_an_unschedulable_pod_says_the_schedulers_reason_without_preemption() -> None:
    dep = deployment(available=None, conditions=[])
    rs = replicaset(dep)
    stuck = pod(
        rs,
        ready=False,
        ip=None,
        phase="Pending",
        unschedulable="0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
        "available: 1 No preemption victims found for incoming pod.",
    )
    stuck["status"]["conditions"][0]["lastTransitionTime"] = "2026-11-30T00:59:00Z"
    message, details = explain(dep, [rs], [stuck], [], now=NOW)
    assert message.startswith(
        "pod web-1-5d8f7c9b6d-abcde: Unschedulable: 0/1 nodes are available: 1 Insufficient "
        "cpu. (unschedulable for 60s) | "
    ), message
    assert "preemption" not in message
    assert details["nextStep"] == "kubectl describe pod web-1-5d8f7c9b6d-abcde -n testns"


def test_a_timeout_leads_with_the_init_container_that_holds_the_pod() -> None:
    """Issue 32: a Timeout while an init container ran said only ``Pending``."""
    dep = deployment(available=None, conditions=[])
    rs = replicaset(dep)
    held = pod(rs, ready=False, ip=None, phase="Pending")
    held["spec"] = {"initContainers": [{"name": "setup", "image": "busybox"}]}
    held["status"]["initContainerStatuses"] = [
        {
            "name": "setup",
            "ready": False,
            "restartCount": 0,
            "state": {"running": {"startedAt": "2026-11-30T00:59:35Z"}},
        }
    ]
    message, _ = explain(dep, [rs], [held], [], now=NOW)
    assert message.startswith(
        "pod web-1-5d8f7c9b6d-abcde: Pending, init container setup running (started 25s ago) | "
    ), message
