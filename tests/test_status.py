"""The status rules, in order, over realistic Deployment/Pod JSON."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.status import Status, deployment_status

from .k8s_objects import condition, deployment, pod, replicaset


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
        "unschedulable",
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
        "mid-rollout: old pod available, new one crash-looping is still running",
        deployment(generation=2, observed=2, available=1, updated=1, total=2),
        _rs_pods(deployment(), ready=False, waiting=("CrashLoopBackOff", "back-off")),
        Status.RUNNING,
        "rollout in progress",
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
    result = deployment_status(deployment_json, pods)
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
    result = deployment_status(dep, pods)
    assert result.message == (
        "0/1 available; pod web-1-5d8f7c9b6d-abcde container main: ImagePullBackOff: "
        'Back-off pulling image "nginx:nope"'
    )
