"""Ready-Pod selection: the IP Manager may show is the current Ready pod's, or none."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_adapter.rules.clock import parse_time
from kubectl_adapter.rules.pod_failures import is_failing_wait_reason, pod_failures
from kubectl_adapter.rules.pods import current_ready_pod, pod_ip
from kubectl_adapter.rules.selection import OwnerIndex, select_owned
from tests.k8s_objects import deployment, pod, replicaset

NOW = datetime(2026, 11, 30, 1, 0, 0, tzinfo=UTC)

DEP = deployment()
OLD = replicaset(DEP, "oldhash111", revision=1)
NEW = replicaset(DEP, "newhash222", revision=2)


def test_no_pods() -> None:
    assert current_ready_pod(DEP, [NEW], []) is None


def test_pending_pod_without_ip() -> None:
    pending = pod(NEW, ready=False, ip=None, phase="Pending")
    assert current_ready_pod(DEP, [NEW], [pending]) is None


def test_ready_pod_without_ip_is_not_reported() -> None:
    assert current_ready_pod(DEP, [NEW], [pod(NEW, ip=None)]) is None


def test_terminating_old_pod_and_ready_new_pod() -> None:
    old = pod(OLD, "aaaaa", ip="10.244.0.1", deleting=True)
    new = pod(NEW, "bbbbb", ip="10.244.0.2")
    assert pod_ip(current_ready_pod(DEP, [OLD, NEW], [old, new])) == "10.244.0.2"


def test_two_ready_pods_mid_rollout_prefers_the_new_replicaset() -> None:
    old = pod(OLD, "aaaaa", ip="10.244.0.1", created="2026-11-30T00:09:00Z")
    new = pod(NEW, "bbbbb", ip="10.244.0.2", created="2026-11-30T00:02:00Z")
    assert pod_ip(current_ready_pod(DEP, [NEW, OLD], [old, new])) == "10.244.0.2"


def test_two_ready_pods_of_the_newest_replicaset_prefers_the_newest() -> None:
    first = pod(NEW, "aaaaa", ip="10.244.0.1", created="2026-11-30T00:02:00Z")
    second = pod(NEW, "bbbbb", ip="10.244.0.2", created="2026-11-30T00:03:00Z")
    assert pod_ip(current_ready_pod(DEP, [NEW], [first, second])) == "10.244.0.2"


def test_pod_of_an_old_replicaset_only() -> None:
    old = pod(OLD, "aaaaa", ip="10.244.0.1")
    assert current_ready_pod(DEP, [OLD, NEW], [old]) is None


def test_replicaset_of_another_deployment_is_ignored() -> None:
    other = deployment("web-2", container_id="43")
    foreign = replicaset(other, "zzzzzzzzzz", revision=9)
    mine = pod(NEW, ip="10.244.0.7")
    assert pod_ip(current_ready_pod(DEP, [NEW, foreign], [mine])) == "10.244.0.7"


def test_not_ready_pod_has_no_ip() -> None:
    assert current_ready_pod(DEP, [NEW], [pod(NEW, ready=False)]) is None


def test_pod_failures_report_crash_exit_code_and_restarts() -> None:
    crashing = pod(
        NEW,
        ready=False,
        waiting=("CrashLoopBackOff", "back-off 40s restarting failed container=main"),
        last_terminated=("Error", 1),
        restarts=4,
    )
    (failure,) = pod_failures([crashing], NOW)
    assert failure.reason == "CrashLoopBackOff"
    assert failure.restarts == 4
    assert "last exit code 1 (Error)" in failure.message


def test_oom_killed_is_a_failure() -> None:
    (failure,) = pod_failures([pod(NEW, ready=False, terminated=("OOMKilled", 137))], NOW)
    assert failure.reason == "OOMKilled"


@pytest.mark.parametrize(
    ("reason", "failing"),
    [
        ("ErrImagePull", True),
        ("ImagePullBackOff", True),
        ("InvalidImageName", True),
        ("ImageInspectError", True),
        ("ErrAnythingNew", True),
        ("CreateContainerConfigError", True),
        ("PostStartHookError", True),
        ("CrashLoopBackOff", True),
        ("ContainerCreating", False),
        ("PodInitializing", False),
        ("", False),
        (None, False),
    ],
)
def test_failing_wait_reasons_follow_argo_cds_patterns(reason: str | None, failing: bool) -> None:
    assert is_failing_wait_reason(reason) is failing


def test_terminating_terminal_and_node_lost_pods_are_not_failures() -> None:
    stale = ("CrashLoopBackOff", "back-off")
    terminating = pod(NEW, "aaaaa", ready=False, waiting=stale, deleting=True)
    evicted = pod(NEW, "bbbbb", ready=False, waiting=stale, phase="Failed")
    lost = pod(NEW, "ccccc", ready=False, waiting=stale)
    lost["status"]["conditions"][1]["status"] = "Unknown"
    assert pod_failures([terminating, evicted, lost], NOW) == []
    assert len(pod_failures([pod(NEW, "ddddd", ready=False, waiting=stale)], NOW)) == 1


def test_init_container_failures_say_init() -> None:
    stuck = pod(NEW, ready=False, ip=None, phase="Pending")
    stuck["status"]["initContainerStatuses"] = [
        {"name": "setup", "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
    ]
    (failure,) = pod_failures([stuck], NOW)
    assert (failure.container, failure.init, failure.restarts) == ("setup", True, 2)


# -- owner-checked selection, shared by list, status, waits and diagnostics ---------------------


def _orphan_world() -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """web-1 recreated after an orphaning delete: the earlier ReplicaSet and Pod remain, with
    the same names and labels, owned by the earlier Deployment's UID."""
    earlier = deployment(uid="uid-earlier")
    earlier_rs = replicaset(earlier, "oldhash111", revision=7)
    earlier_rs["metadata"]["uid"] = "uid-rs-earlier"
    orphan = pod(earlier_rs, "orphn", ip="10.244.0.66")
    current = deployment(uid="uid-current")
    current_rs = replicaset(current, "newhash222", revision=1)
    mine = pod(current_rs, "mine1", ready=False, ip=None, phase="Pending")
    return current, [earlier_rs, current_rs], [orphan, mine]


def test_selection_is_by_owner_uid_not_labels() -> None:
    current, replicasets, pods = _orphan_world()
    owned = select_owned(current, replicasets, pods)
    assert [rs["metadata"]["uid"] for rs in owned.replicasets] == ["uid-rs-web-1-newhash222"]
    assert [p["metadata"]["name"] for p in owned.pods] == ["web-1-newhash222-mine1"]
    assert owned.newest is owned.replicasets[0]
    assert current_ready_pod(current, replicasets, pods) is None  # never the orphan's IP


def test_selection_by_name_only_when_the_reference_has_no_uid() -> None:
    rs = replicaset(DEP)
    del rs["metadata"]["ownerReferences"][0]["uid"]
    ready = pod(rs, ip="10.244.0.8")
    del ready["metadata"]["ownerReferences"][0]["uid"]
    assert pod_ip(current_ready_pod(DEP, [rs], [ready])) == "10.244.0.8"


def test_selection_prefers_the_controller_reference() -> None:
    rs = replicaset(DEP)
    rs["metadata"]["ownerReferences"].insert(
        0, {"apiVersion": "apps/v1", "kind": "Deployment", "name": "other", "uid": "uid-other"}
    )
    assert select_owned(DEP, [rs], []).replicasets == [rs]


def test_one_index_serves_many_deployments() -> None:
    a, b = deployment("a", uid="ua"), deployment("b", uid="ub")
    rs_a, rs_b = replicaset(a, "aaaaaaaaaa"), replicaset(b, "bbbbbbbbbb")
    index = OwnerIndex([rs_a, rs_b], [pod(rs_a), pod(rs_b, "bbbbb")])
    assert [p["metadata"]["name"] for p in index.owned_by(b).pods] == ["b-bbbbbbbbbb-bbbbb"]
    assert index.owned_by(deployment("c", uid="uc")) == ([], [], None, [])


def test_one_replicaset_is_the_newest_and_its_pods_are_the_newest_pods() -> None:
    """The shortcut for one ReplicaSet gives what the general rule (max revision) gives."""
    rs = replicaset(DEP, revision=3)
    pods = [pod(rs), pod(rs, "bbbbb", ready=False)]
    owned = OwnerIndex([rs], pods).owned_by(DEP)
    assert owned.newest is rs
    assert owned.pods == owned.newest_pods == pods
    assert owned.newest_pods is not owned.pods  # two lists, as before
    older = replicaset(DEP, "0ldhash000", revision=2)
    both = OwnerIndex([older, rs], [*pods, pod(older, "old00")]).owned_by(DEP)
    assert both.newest is rs and both.newest_pods == pods


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-30T00:00:01Z", datetime(2026, 11, 30, 0, 0, 1, tzinfo=UTC)),
        ("2026-11-30T00:00:01.250000Z", datetime(2026, 11, 30, 0, 0, 1, 250000, tzinfo=UTC)),
        ("2026-11-30T00:00:01", datetime(2026, 11, 30, 0, 0, 1, tzinfo=UTC)),
        ("yesterday", None),
        ("", None),
        (None, None),
    ],
)
def test_kubernetes_timestamps(text: str | None, expected: datetime | None) -> None:
    assert parse_time(text) == expected
