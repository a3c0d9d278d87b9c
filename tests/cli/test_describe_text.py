"""describe's text: kubectl describe's layout, read from the JSON document."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubectl_adapter.cli.describe_text import change_line, describe_text
from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.contract.statuses import Status
from kubectl_adapter.rules.description import description_document, placeholder_description
from kubectl_adapter.rules.snapshots import placeholder_document
from tests.k8s_objects import condition, deployment, event, pod, replicaset

NOW = datetime(2026, 11, 30, 0, 10, tzinfo=UTC)
CRASH = "back-off 40s restarting failed container=main pod=web-1-5d8f7c9b6d-abcde_testns(u)"


def crashing() -> dict[str, Any]:
    dep = deployment(
        available=0,
        ready=0,
        conditions=[condition("Available", "False", "MinimumReplicasUnavailable")],
    )
    rs = replicaset(dep)
    failing = pod(
        rs,
        ready=False,
        waiting=("CrashLoopBackOff", CRASH),
        restarts=3,
        last_terminated=("Error", 1),
    )
    failing["status"]["containerStatuses"][0]["lastState"]["terminated"]["finishedAt"] = (
        "2026-11-30T00:09:57Z"
    )
    name = failing["metadata"]["name"]
    events = [event("Pod", name, "BackOff", "Back-off restarting failed container main")]
    events[0]["firstTimestamp"] = "2026-11-30T00:07:00Z"
    events[0]["lastTimestamp"] = "2026-11-30T00:09:58Z"
    return description_document(dep, [rs], [failing], events, now=NOW)


def test_a_failing_workload_shows_the_container_reason_last_exit_and_events() -> None:
    text = describe_text(crashing(), NOW)
    lines = text.splitlines()
    assert lines[:4] == [
        "Name:          web-1",
        "Namespace:     testns",
        "Provider ID:   testns/web-1",
        "Status:        failed",
    ]
    assert f"      State:      Waiting: CrashLoopBackOff: {CRASH}" in lines
    assert "      Restarts:   3" in lines
    assert "      Last exit:  1 (Error), 3s ago" in lines
    assert "  Available   False    MinimumReplicasUnavailable   " in text
    events = lines[lines.index("Events (newest last):") + 1 :]
    assert events[0].split() == ["Type", "Reason", "Age", "From", "Object", "Message"]
    assert events[2].split()[:6] == ["Warning", "BackOff", "2s", "(x3", "over", "3m)"]
    assert "Failing:" in lines and any("CrashLoopBackOff" in line for line in lines)
    assert all(line == line.rstrip() for line in lines)


def test_each_drift_change_says_who_and_what_reconfigure_does() -> None:
    assert (
        change_line(
            {
                "what": "image",
                "change": "changed",
                "by": ["kubectl-set"],
                "value": "nginx:1.27",
                "reconfigure": "restores",
            }
        )
        == "image changed to nginx:1.27 by kubectl-set: reconfigure takes it back"
    )
    assert change_line(
        {"what": "env", "change": "removed", "name": "KEY", "by": [], "reconfigure": "restores"}
    ) == (
        "env KEY removed (the API server records no one for a removal): reconfigure takes it back"
    )
    assert change_line(
        {"what": "other", "change": "changed", "by": ["kubectl-edit"], "reconfigure": "keeps"}
    ).endswith("reconfigure keeps it (no patch can name that field): remove it by hand")
    assert change_line(
        {"what": "labels", "change": "changed", "name": "x", "by": ["k"], "reconfigure": "refuses"}
    ).endswith("reconfigure refuses until it is restored by hand (identity label)")


def test_a_missing_workload_is_its_status_alone() -> None:
    pid = ProviderId("testns", "web-1")
    document = placeholder_description(
        placeholder_document(pid, Status.MISSING, "deployment does not exist")
    )
    text = describe_text(document, NOW)
    assert "Status:        missing\n" in text
    assert "Message:       deployment does not exist\n" in text
    assert text.endswith("Pods:          <none>\nEvents:        <none>\n")


def test_no_line_breaks_inside_a_value() -> None:
    document = crashing()
    document["snapshot"]["message"] = "line one\nline two\x1b[31m"
    assert "Message:       line one\\nline two\\x1b[31m\n" in describe_text(document, NOW)
