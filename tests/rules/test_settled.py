"""``rules.settled``: when the live feed may judge a workload by its Deployment alone (issue
42). Each row is a state the Deployment controller really writes; the Deployment says it
moves whenever its Pods could change its snapshot, and only its Pods say it rests again."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.rules.settled import deployment_at_rest, pods_at_rest, settled
from tests.k8s_objects import condition, deployment, pod, replicaset


def _running(**changes: Any) -> dict[str, Any]:
    return deployment(ready=1, updated=1, total=1, **changes)


@pytest.mark.parametrize(
    ("case", "obj", "at_rest"),
    [
        ("running, every count at 1", _running(), True),
        ("stopped, no replica left", deployment(replicas=0, available=None), True),
        ("an edit the controller has not seen", _running(generation=2), False),
        ("rolling: a second ReplicaSet's Pod", deployment(ready=1, updated=1, total=2), False),
        ("a new template not yet rolled", deployment(ready=1, updated=0, total=1), False),
        ("its Pod crashed", deployment(ready=0, updated=1, total=1, available=0), False),
        ("scaled to 0, a replica still counted", deployment(replicas=0, available=None, total=1),
         False),
        ("being deleted", _running(deleting=True), False),
        ("no Pod can be made", _running(conditions=[
            condition("ReplicaFailure", "True", "FailedCreate", "quota")]), False),
        ("progress deadline exceeded", _running(conditions=[
            condition("Progressing", "False", "ProgressDeadlineExceeded")]), False),
    ],
)  # fmt: skip
def test_the_deployment_says_whether_it_moves(
    case: str, obj: dict[str, Any], at_rest: bool
) -> None:
    assert deployment_at_rest(obj) is at_rest, case


def test_a_paused_deployment_is_never_at_rest() -> None:
    paused = _running()
    paused["spec"]["paused"] = True
    assert not deployment_at_rest(paused)


def test_its_pods_agree_only_when_ready_counted_and_none_terminating() -> None:
    d = _running()
    rs = replicaset(d)
    ready, starting = pod(rs, "aaaaa"), pod(rs, "bbbbb", ready=False, phase="Pending")
    evicted = pod(rs, "ccccc", phase="Failed", ready=False)
    assert pods_at_rest(d, [ready])
    assert pods_at_rest(d, [ready, evicted])  # left for the garbage collector
    assert not pods_at_rest(d, [starting])
    assert not pods_at_rest(d, [ready, pod(rs, "ddddd", deleting=True)])
    assert not pods_at_rest(d, [])
    stopped = deployment(replicas=0, available=None)
    assert pods_at_rest(stopped, [])
    assert not pods_at_rest(stopped, [pod(rs, "eeeee", deleting=True)])  # 0 says replicas
    assert settled(d, [ready], "running")
    assert not settled(d, [ready], "failed")
