"""Ready-Pod selection: the IP Manager may show is the current Ready pod's, or none."""

from __future__ import annotations

from kubectl_adapter.pods import current_ready_pod, pod_failures, pod_ip

from .k8s_objects import deployment, pod, replicaset

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
    (failure,) = pod_failures([crashing])
    assert failure.reason == "CrashLoopBackOff"
    assert failure.restarts == 4
    assert "last exit code 1 (Error)" in failure.message


def test_oom_killed_is_a_failure() -> None:
    (failure,) = pod_failures([pod(NEW, ready=False, terminated=("OOMKilled", 137))])
    assert failure.reason == "OOMKilled"
