"""The status rules, in order, over realistic Deployment/Pod JSON."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kubectl_adapter.contract.statuses import Status
from kubectl_adapter.rules.selection import select_owned
from kubectl_adapter.rules.status import deployment_status, rollout_check
from tests.k8s_objects import condition, deployment, pod, replicaset

# Later than every timestamp the fixtures carry.
NOW = datetime(2026, 11, 30, 1, 0, 0, tzinfo=UTC)


def ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _rs_pods(dep: dict[str, Any], **pod_kwargs: Any) -> list[dict[str, Any]]:
    return [pod(replicaset(dep), **pod_kwargs)]


CREATING_DEP = deployment(
    available=None,
    conditions=[
        condition("Available", "False", "MinimumReplicasUnavailable"),
        condition("Progressing", "True", "ReplicaSetUpdated"),
    ],
)

CASES: list[tuple[str, dict[str, Any] | None, list[dict[str, Any]], Status, str]] = [
    ("absent", None, [], Status.MISSING, "does not exist"),
    ("deleting beats everything", deployment(deleting=True), [], Status.OFFLINE, "being deleted"),
    ("stopped", deployment(replicas=0, available=None), [], Status.OFFLINE, "replicas 0"),
    (
        "stopped with terminating pod",
        deployment(replicas=0, available=1),
        _rs_pods(deployment(), deleting=True),
        Status.OFFLINE,
        "still terminating",
    ),
    (
        "progress deadline exceeded",
        deployment(
            available=None,
            conditions=[
                condition(
                    "Progressing",
                    "False",
                    "ProgressDeadlineExceeded",
                    'ReplicaSet "web-1-5d8f7c9b6d" has timed out progressing.',
                ),
            ],
        ),
        [],
        Status.FAILED,
        "progress deadline exceeded",
    ),
    *[
        (
            f"pod waiting {reason}",
            CREATING_DEP,
            _rs_pods(
                deployment(),
                ready=False,
                ip=None,
                phase="Pending",
                waiting=(reason, f"{reason} detail"),
            ),
            Status.FAILED,
            reason,
        )
        for reason in (
            "ErrImagePull",
            "ImagePullBackOff",
            "InvalidImageName",
            "CrashLoopBackOff",
            "CreateContainerConfigError",
            "CreateContainerError",
        )
    ],
    (
        "unschedulable past the grace",
        CREATING_DEP,
        _rs_pods(
            deployment(),
            ready=False,
            ip=None,
            phase="Pending",
            unschedulable="0/1 nodes are available: 1 Insufficient cpu.",
        ),
        Status.FAILED,
        "Insufficient cpu",
    ),
    (
        "running",
        deployment(),
        _rs_pods(deployment()),
        Status.RUNNING,
        "1/1 available",
    ),
    (
        "mid-rollout: old pod available, new one crash-looping: running, the rollout is stuck",
        deployment(generation=2, observed=2, available=1, updated=1, total=2),
        _rs_pods(deployment(), ready=False, waiting=("CrashLoopBackOff", "back-off")),
        Status.RUNNING,
        "rollout stuck: pod web-1-5d8f7c9b6d-abcde container main: CrashLoopBackOff: back-off;"
        " the previous pod serves",
    ),
    (
        "mid-rollout: old pod available, new one still starting",
        deployment(generation=2, observed=2, available=1, updated=1, total=2),
        _rs_pods(deployment(), ready=False, waiting=("ContainerCreating", "")),
        Status.RUNNING,
        "1/1 available; rollout in progress",
    ),
    (
        "spec change not yet observed, old replica available",
        deployment(generation=3, observed=2),
        _rs_pods(deployment()),
        Status.RUNNING,
        "rollout in progress",
    ),
    (
        "counts absent mean 0: creating",
        deployment(available=None, observed=None, conditions=[]),
        [],
        Status.CREATING,
        "0/1 available",
    ),
    (
        "pending pod, no failure",
        CREATING_DEP,
        _rs_pods(deployment(), ready=False, ip=None, phase="Pending"),
        Status.CREATING,
        "Pending",
    ),
    (
        "replicas absent defaults to 1",
        deployment(replicas=None, available=None, conditions=[]),
        [],
        Status.CREATING,
        "0/1 available",
    ),
    (
        "terminating failing pod is ignored",
        CREATING_DEP,
        _rs_pods(deployment(), ready=False, waiting=("ImagePullBackOff", "x"), deleting=True),
        Status.CREATING,
        "waiting for a pod",
    ),
]


@pytest.mark.parametrize(
    ("deployment_json", "pods", "expected", "fragment"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_status_rules(
    deployment_json: dict[str, Any] | None,
    pods: list[dict[str, Any]],
    expected: Status,
    fragment: str,
) -> None:
    result = deployment_status(deployment_json, pods, now=NOW)
    assert result.status is expected
    assert fragment in result.message


def test_failure_message_names_pod_and_reason() -> None:
    dep = CREATING_DEP
    pods = _rs_pods(
        deployment(),
        ready=False,
        ip=None,
        phase="Pending",
        waiting=("ImagePullBackOff", 'Back-off pulling image "nginx:nope"'),
    )
    result = deployment_status(dep, pods, now=NOW)
    assert result.message == (
        "0/1 available; pod web-1-5d8f7c9b6d-abcde container main: ImagePullBackOff: "
        'Back-off pulling image "nginx:nope"'
    )


# -- rules no other tool's tests cover, and the three fixed disagreements ----------------------

RS = replicaset(deployment())
QUOTA = (
    'pods "web-1-5d8f7c9b6d-x7k2p" is forbidden: exceeded quota: pods, requested: pods=1, '
    "used: pods=1, limited: pods=1"
)
INSUFFICIENT = "0/1 nodes are available: 1 Insufficient cpu."


def unschedulable(since: str | None, created: str | None = None) -> dict[str, Any]:
    """A Pending pod the scheduler has refused; ``since`` is the condition's transition time."""
    stuck = pod(RS, ready=False, ip=None, phase="Pending", unschedulable=INSUFFICIENT)
    if since is not None:
        stuck["status"]["conditions"][0]["lastTransitionTime"] = since
    if created is None:
        del stuck["metadata"]["creationTimestamp"]
    else:
        stuck["metadata"]["creationTimestamp"] = created
    return stuck


def init_waiting(reason: str, message: str) -> dict[str, Any]:
    """Pending at an init container (kubectl shows ``Init:<reason>``)."""
    waiting = pod(RS, ready=False, ip=None, phase="Pending", waiting=("PodInitializing", ""))
    waiting["status"]["initContainerStatuses"] = [
        {
            "name": "setup",
            "image": "busybox:1.36",
            "ready": False,
            "restartCount": 3,
            "state": {"waiting": {"reason": reason, "message": message}},
            "lastState": {"terminated": {"reason": "Error", "exitCode": 1}},
        }
    ]
    return waiting


def evicted() -> dict[str, Any]:
    gone = pod(RS, "evict", ready=False, ip=None, phase="Failed")
    gone["status"]["reason"] = "Evicted"
    gone["status"]["message"] = "The node was low on resource: memory. "
    gone["status"]["containerStatuses"][0]["state"] = {
        "terminated": {"reason": "ContainerStatusUnknown", "exitCode": 137}
    }
    return gone


def node_lost(ready: str = "False", terminating: bool = True) -> dict[str, Any]:
    """A pod whose node stopped reporting: Ready turned by the node controller, NodeLost set by
    the taint eviction that deletes it (its recorded container state is stale)."""
    lost = pod(RS, "lost1", ready=False, deleting=terminating, waiting=("CrashLoopBackOff", "x"))
    lost["status"]["conditions"][1]["status"] = ready
    if terminating:
        lost["status"]["reason"] = "NodeLost"
        lost["status"]["message"] = "Node node-2 which was running pod web-1-lost1 is unresponsive"
    return lost


def paused_deployment(**kwargs: Any) -> dict[str, Any]:
    dep = deployment(available=None, conditions=[], **kwargs)
    dep["spec"]["paused"] = True
    return dep


PENDING = pod(RS, "pend1", ready=False, ip=None, phase="Pending", waiting=("ContainerCreating", ""))
CRASHING = pod(
    RS, "crash", ready=False, waiting=("CrashLoopBackOff", "back-off"), last_terminated=("Error", 1)
)

MORE_CASES: list[tuple[str, dict[str, Any] | None, list[dict[str, Any]], Status, str]] = [
    (
        "unschedulable 5 s ago: inside the 15 s grace",
        CREATING_DEP,
        [unschedulable(ago(5), ago(6))],
        Status.CREATING,
        "unschedulable, failed in 10s unless scheduled: 0/1 nodes",
    ),
    (
        "unschedulable 16 s ago: failed",
        CREATING_DEP,
        [unschedulable(ago(16), ago(17))],
        Status.FAILED,
        f"Unschedulable: {INSUFFICIENT} (unschedulable for 16s)",
    ),
    (
        "unschedulable exactly 15 s: failed",
        CREATING_DEP,
        [unschedulable(ago(15), ago(15))],
        Status.FAILED,
        "Unschedulable",
    ),
    (
        "unschedulable, grace measured from the transition, not the creation",
        CREATING_DEP,
        [unschedulable(ago(3), ago(600))],
        Status.CREATING,
        "unschedulable",
    ),
    (
        "unschedulable without a transition time: from the pod's creation",
        CREATING_DEP,
        [unschedulable(None, ago(3))],
        Status.CREATING,
        "unschedulable",
    ),
    (
        "unschedulable, no time known: long ago, as kstatus reads a zero time",
        CREATING_DEP,
        [unschedulable(None, None)],
        Status.FAILED,
        "Unschedulable",
    ),
    (
        "running, not ready, exited and restarted (between two CrashLoopBackOff waits)",
        CREATING_DEP,
        [pod(RS, ready=False, terminated=("Error", 1), last_terminated=("Error", 1), restarts=2)],
        Status.FAILED,
        "container main: Error: exited with code 1 (restarts: 2)",
    ),
    (
        "running, not ready, running again after a restart",
        CREATING_DEP,
        [pod(RS, ready=False, last_terminated=("OOMKilled", 137), restarts=1)],
        Status.FAILED,
        "OOMKilled: exited with code 137",
    ),
    (
        "running, not ready, never restarted: still starting",
        CREATING_DEP,
        [pod(RS, ready=False)],
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "ReplicaFailure with nothing available: failed with the condition's message",
        deployment(
            available=None,
            conditions=[
                condition("Available", "False", "MinimumReplicasUnavailable"),
                condition("Progressing", "True", "ReplicaSetUpdated"),
                condition("ReplicaFailure", "True", "FailedCreate", QUOTA),
            ],
        ),
        [],
        Status.FAILED,
        f"0/1 available; ReplicaFailure FailedCreate: {QUOTA}",
    ),
    (
        "ReplicaFailure while the previous replica serves: running, saying so",
        deployment(
            generation=2,
            observed=2,
            available=1,
            updated=0,
            conditions=[
                condition("Available", "True", "MinimumReplicasAvailable"),
                condition("ReplicaFailure", "True", "FailedCreate", QUOTA),
            ],
        ),
        _rs_pods(deployment()),
        Status.RUNNING,
        "rollout in progress; ReplicaFailure FailedCreate: pods",
    ),
    (
        "init container crash-looping (Init:CrashLoopBackOff)",
        CREATING_DEP,
        [init_waiting("CrashLoopBackOff", "back-off 40s restarting failed container=setup")],
        Status.FAILED,
        "init container setup: CrashLoopBackOff: back-off 40s",
    ),
    (
        "init container missing its Secret",
        CREATING_DEP,
        [init_waiting("CreateContainerConfigError", 'secret "db-credentials" not found')],
        Status.FAILED,
        'init container setup: CreateContainerConfigError: secret "db-credentials" not found',
    ),
    (
        "container missing its ConfigMap",
        CREATING_DEP,
        _rs_pods(
            deployment(),
            ready=False,
            ip=None,
            phase="Pending",
            waiting=("CreateContainerConfigError", 'configmap "settings" not found'),
        ),
        Status.FAILED,
        'container main: CreateContainerConfigError: configmap "settings" not found',
    ),
    (
        "evicted pod, replacement not yet created",
        CREATING_DEP,
        [evicted()],
        Status.CREATING,
        "waiting for a pod; pod web-1-5d8f7c9b6d-evict Failed (Evicted: The node was low",
    ),
    (
        "evicted pod beside its pending replacement",
        CREATING_DEP,
        [evicted(), PENDING],
        Status.CREATING,
        "pod(s) Pending; pod web-1-5d8f7c9b6d-evict Failed (Evicted",
    ),
    (
        "evicted pod beside a crash-looping replacement",
        CREATING_DEP,
        [evicted(), CRASHING],
        Status.FAILED,
        "pod web-1-5d8f7c9b6d-crash container main: CrashLoopBackOff",
    ),
    (
        "node lost: stale crash-loop state is no failure, the replacement is coming",
        CREATING_DEP,
        [node_lost(), PENDING],
        Status.CREATING,
        "pod(s) Pending",
    ),
    (
        "node not reporting (Ready Unknown), not yet evicted",
        CREATING_DEP,
        [node_lost(ready="Unknown", terminating=False)],
        Status.CREATING,
        "pod web-1-5d8f7c9b6d-lost1: node lost",
    ),
    (
        "paused with nothing available and no pod: offline until resumed",
        paused_deployment(),
        [],
        Status.OFFLINE,
        "0/1 available; rollout paused (kubectl rollout resume deployment/web-1)",
    ),
    (
        "paused with a pod coming up: creating",
        paused_deployment(),
        [PENDING],
        Status.CREATING,
        "pod(s) Pending; rollout paused",
    ),
    (
        "paused with a failing pod: failed",
        paused_deployment(),
        [CRASHING],
        Status.FAILED,
        "CrashLoopBackOff",
    ),
    (
        "paused with the replica available: running",
        {**deployment(), "spec": {**deployment()["spec"], "paused": True}},
        _rs_pods(deployment()),
        Status.RUNNING,
        "1/1 available",
    ),
    (
        "paused with a changed template, the old pod serving: running, the rollout paused",
        {
            **deployment(generation=3, observed=3, updated=0),
            "spec": {**deployment()["spec"], "paused": True},
        },
        _rs_pods(deployment()),
        Status.RUNNING,
        "1/1 available; rollout paused (kubectl rollout resume deployment/web-1)",
    ),
    (
        "being deleted while its pod crash-loops: offline",
        deployment(deleting=True, available=None),
        [CRASHING],
        Status.OFFLINE,
        "deployment web-1 is being deleted",
    ),
]


@pytest.mark.parametrize(
    ("deployment_json", "pods", "expected", "fragment"),
    [case[1:] for case in MORE_CASES],
    ids=[case[0] for case in MORE_CASES],
)
def test_more_status_rules(
    deployment_json: dict[str, Any] | None,
    pods: list[dict[str, Any]],
    expected: Status,
    fragment: str,
) -> None:
    result = deployment_status(deployment_json, pods, now=NOW)
    assert (result.status, fragment in result.message) == (expected, True), result.message


@pytest.mark.parametrize(
    "reason",
    [
        "ImageInspectError",
        "ErrImageNeverPull",
        "ErrSomethingNew",
        "PreStartHookError",
        "PostStartHookError",
        "KillContainerError",
        "SomethingBackOff",
        "InvalidImageName",
    ],
)
def test_waiting_reasons_beyond_the_list_fail(reason: str) -> None:
    stuck = pod(RS, ready=False, ip=None, phase="Pending", waiting=(reason, "detail"))
    result = deployment_status(CREATING_DEP, [stuck], now=NOW)
    assert result.status is Status.FAILED
    assert f"container main: {reason}: detail" in result.message


@pytest.mark.parametrize("reason", ["ContainerCreating", "PodInitializing"])
def test_normal_waiting_reasons_are_creating(reason: str) -> None:
    starting = pod(RS, ready=False, ip=None, phase="Pending", waiting=(reason, ""))
    assert deployment_status(CREATING_DEP, [starting], now=NOW).status is Status.CREATING


def test_the_grace_ends_with_time() -> None:
    stuck = unschedulable("2026-11-30T00:59:50Z", "2026-11-30T00:59:49Z")
    at = datetime(2026, 11, 30, 0, 59, 50, tzinfo=UTC)
    statuses = [
        deployment_status(CREATING_DEP, [stuck], now=at + timedelta(seconds=s)).status
        for s in (0, 14, 15, 60)
    ]
    assert statuses == [Status.CREATING, Status.CREATING, Status.FAILED, Status.FAILED]


# -- what a rollout wait learns between slices -------------------------------------------------


def _check(dep: dict[str, Any], rss: list[dict[str, Any]], pods: list[dict[str, Any]]) -> Any:
    return rollout_check(dep, select_owned(dep, rss, pods), now=NOW)


def test_rollout_check_stops_on_replica_failure() -> None:
    dep = deployment(
        available=None, conditions=[condition("ReplicaFailure", "True", "FailedCreate", QUOTA)]
    )
    check = _check(dep, [], [])
    assert check.failure == f"ReplicaFailure FailedCreate: {QUOTA}"


def test_rollout_check_waits_out_the_unschedulable_grace() -> None:
    check = _check(CREATING_DEP, [RS], [unschedulable(ago(4), ago(5))])
    assert (check.failure, check.recheck_in) == (None, 11.0)
    late = _check(CREATING_DEP, [RS], [unschedulable(ago(15), ago(16))])
    assert late.failure is not None and late.failure.startswith("pod web-1-5d8f7c9b6d-abcde:")
    assert "Unschedulable" in late.failure


def test_rollout_check_judges_the_new_replicaset_only() -> None:
    dep = deployment(generation=2, observed=2, available=1, updated=0, total=1)
    old, new = replicaset(dep, "old1111111", 1), replicaset(dep, "new2222222", 2)
    crashing_old = pod(old, ready=False, waiting=("CrashLoopBackOff", "back-off"))
    pending_new = pod(new, ready=False, ip=None, phase="Pending")
    assert _check(dep, [old, new], [crashing_old, pending_new]) == (None, None)
    crashing_new = pod(new, "zzzzz", ready=False, waiting=("ImagePullBackOff", "pull"))
    assert "ImagePullBackOff" in str(_check(dep, [old, new], [crashing_new]).failure)


def test_rollout_check_ignores_pods_it_does_not_own() -> None:
    earlier = deployment(uid="uid-of-an-earlier-web-1")
    earlier_rs = replicaset(earlier)  # same names, same labels: only the UIDs differ
    earlier_rs["metadata"]["uid"] = "uid-rs-of-an-earlier-web-1"
    orphan = pod(earlier_rs, "orphn", ready=False, waiting=("ErrImagePull", "x"))
    dep = deployment(available=None, conditions=[])
    assert _check(dep, [earlier_rs, replicaset(dep)], [orphan]) == (None, None)
    assert _check(earlier, [earlier_rs, replicaset(dep)], [orphan]).failure is not None


def test_a_paused_deployment_reports_the_image_its_pod_runs() -> None:
    """Its changed template gets no ReplicaSet until resumed: the snapshot reports the
    newest ReplicaSet's image (and limits), what the Pod really runs; drift names both."""
    from kubectl_adapter.rules.snapshots import snapshot_document

    old = deployment(image="nginx:1.26")
    rs = replicaset(old)
    rs["spec"]["template"] = old["spec"]["template"]
    changed = deployment(image="nginx:1.27", generation=2, observed=2, updated=0)
    changed["spec"]["paused"] = True
    document = snapshot_document(changed, [rs], [pod(rs)], now=NOW)
    assert (document["image"], document["status"]) == ("nginx:1.26", "running")
    assert "rollout paused" in document["message"]
    changed["spec"]["paused"] = False  # rolling out: the template is what is coming
    assert snapshot_document(changed, [rs], [pod(rs)], now=NOW)["image"] == "nginx:1.27"
