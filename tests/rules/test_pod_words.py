"""A Pod on its way up or down, in words (``rules/pod_words.py``)."""

from __future__ import annotations

from datetime import UTC, datetime

from kubectl_adapter.rules.pod_words import (
    init_holding,
    progress_note,
    stop_headline,
    terminating,
    wait_for_pods_command,
)
from tests.k8s_objects import deployment, pod, replicaset

# The k8s_objects Pod being deleted: deletionTimestamp 00:06:00Z, grace 30 s, so the deletion
# was requested at 00:05:30Z.
NOW = datetime(2026, 11, 30, 0, 5, 42, tzinfo=UTC)


def test_a_terminating_pod_says_since_when_and_its_grace_period() -> None:
    going = pod(replicaset(deployment()), deleting=True)
    assert terminating(going, NOW) == (
        "terminating for 12s of its 30s grace period (deletion requested 00:05:30Z)"
    )
    assert terminating(pod(replicaset(deployment())), NOW) is None


def test_the_progress_line_shows_the_terminating_pods_the_counts_cannot() -> None:
    rs = replicaset(deployment())
    assert progress_note([pod(rs, "aaaaa", deleting=True), pod(rs, "bbbbb")], NOW) == (
        "pod web-1-5d8f7c9b6d-aaaaa terminating since 00:05:30Z (grace period 30s)"
    )
    assert progress_note([pod(rs)], NOW) == ""


def test_an_init_container_holding_a_pod_is_named_with_its_state() -> None:
    held = pod(replicaset(deployment()), ready=False, ip=None, phase="Pending")
    held["spec"] = {
        "initContainers": [
            {"name": "proxy", "image": "envoy", "restartPolicy": "Always"},
            {"name": "done", "image": "busybox"},
            {"name": "setup", "image": "busybox"},
        ]
    }
    held["status"]["initContainerStatuses"] = [
        {"name": "proxy", "state": {"running": {"startedAt": "2026-11-30T00:05:00Z"}}},
        {"name": "done", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
        {"name": "setup", "state": {"waiting": {"reason": "PodInitializing"}}},
    ]
    assert init_holding(held, NOW) == "init container setup waiting: PodInitializing"
    assert progress_note([held], NOW) == (
        "pod web-1-5d8f7c9b6d-abcde Pending, init container setup waiting: PodInitializing"
    )


def test_a_stop_that_ran_out_says_the_scale_is_done_and_what_is_left() -> None:
    dep = deployment(replicas=0)
    going = pod(replicaset(dep), deleting=True)
    assert stop_headline(dep, [going], NOW) == (
        "scaled to 0 (the controller has observed it); 1 Pod left: pod "
        "web-1-5d8f7c9b6d-abcde terminating for 12s of its 30s grace period "
        "(deletion requested 00:05:30Z)"
    )
    dep["metadata"]["generation"] = 5
    assert stop_headline(dep, [], NOW).startswith("scaled to 0, not yet observed")
    # What is left of the grace (18 s), and 10 s more
    assert wait_for_pods_command([going], "testns", NOW) == (
        "kubectl wait --for=delete pod/web-1-5d8f7c9b6d-abcde -n testns --timeout=28s"
    )
