"""What a wait's two watches have shown, judged (kubectl_adapter/rules/wait_verdicts.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_adapter.contract import errors
from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.rules.wait_verdicts import Seen, rollout_verdict, stop_verdict
from tests.k8s_objects import condition, deployment, pod, replicaset

PID = ProviderId("testns", "web-1")
UID = "uid-deploy-web-1"
NOW = datetime(2026, 11, 30, 0, 5, 0, tzinfo=UTC)
STOPPED = deployment(replicas=0, generation=2, observed=2, available=None)
RS = replicaset(deployment())


def _pod(**kwargs: Any) -> dict[str, Any]:
    return pod(RS, **kwargs)


def _evicted() -> dict[str, Any]:
    evicted = _pod(suffix="evict", ready=False)
    evicted["status"] |= {"phase": "Failed", "reason": "Evicted"}
    return evicted


def _ended(*, deleting: bool) -> dict[str, Any]:
    ended = _pod(suffix="ended", ready=False, terminated=("Completed", 0), deleting=deleting)
    ended["status"]["phase"] = "Succeeded"
    return ended


@pytest.mark.parametrize(
    ("seen", "done"),
    [
        (Seen(STOPPED, True, [], True), True),
        # The Pod being deleted still runs its containers through its grace period.
        (Seen(STOPPED, True, [_pod(deleting=True)], True), False),
        (Seen(STOPPED, True, [_evicted()], True), True),  # nothing deletes it; all ended
        # Its containers have stopped, but it is not gone yet: a moment more.
        (Seen(STOPPED, True, [_ended(deleting=True)], True), False),
        (Seen(STOPPED, True, [_ended(deleting=False)], True), True),
        (Seen(STOPPED, True, [], False), False),  # the Pods' watch has not listed yet
        (Seen(None, False, [], True), False),  # nor the Deployment's
        # Not yet observed by the controller: it may still create a Pod.
        (Seen(deployment(replicas=0, generation=2, observed=1), True, [], True), False),
    ],
)
def test_stop_is_over_when_no_pod_is_left(seen: Seen, done: bool) -> None:
    assert stop_verdict(PID, seen, UID).done is done


@pytest.mark.parametrize(
    ("found", "expected", "words"),
    [
        (None, errors.NotFound, "deleted by another operation while stop"),
        (deployment(replicas=0, deleting=True), errors.NotFound, "being deleted"),
        (deployment(replicas=1), errors.Conflict, "scaled back up"),
        (deployment(replicas=0, uid="uid-other"), errors.Conflict, "replaced"),
    ],
)
def test_stop_cannot_end_well(found: dict[str, Any] | None, expected: type, words: str) -> None:
    with pytest.raises(expected, match=words):
        stop_verdict(PID, Seen(found, True, [_pod(deleting=True)], True), UID)


def test_a_rollout_is_over_by_kubectl_rollout_status_rule() -> None:
    assert rollout_verdict(PID, Seen(deployment(), True, [], False), UID, "create", NOW).done


def test_a_rollout_whose_deployment_listed_absent_is_not_found() -> None:
    with pytest.raises(errors.NotFound, match="deleted by another operation while start"):
        rollout_verdict(PID, Seen(None, True, [], True), UID, "start", NOW)


@pytest.mark.parametrize(
    ("waiting", "terminated"),
    [
        (("CrashLoopBackOff", "back-off 10s"), None),
        (("ImagePullBackOff", 'Back-off pulling image "x"'), None),
        (("ErrImagePull", "not found"), None),
        (("InvalidImageName", 'couldn\'t parse image name "Bad:Image"'), None),
        (("CreateContainerConfigError", 'secret "db" not found'), None),
        (None, ("Error", 1)),
    ],
)
def test_a_pod_that_cannot_start_is_a_suspect(
    waiting: tuple[str, str] | None, terminated: tuple[str, int] | None
) -> None:
    rolling = deployment(available=None, conditions=[])
    failing = _pod(ready=False, waiting=waiting, terminated=terminated)
    verdict = rollout_verdict(PID, Seen(rolling, True, [failing], True), UID, "create", NOW)
    assert not verdict.done and verdict.suspect is not None
    assert (waiting or terminated or ("",))[0] in verdict.suspect[1]


def test_a_failing_pod_being_deleted_is_no_suspect() -> None:
    rolling = deployment(available=None, conditions=[])
    going = _pod(ready=False, waiting=("CrashLoopBackOff", "back-off"), deleting=True)
    verdict = rollout_verdict(PID, Seen(rolling, True, [going], True), UID, "create", NOW)
    assert verdict == (False, None, None)


def test_replica_failure_is_a_suspect_before_the_pods_list() -> None:
    quota = condition("ReplicaFailure", "True", "FailedCreate", "exceeded quota")
    blocked = deployment(available=None, conditions=[quota])
    verdict = rollout_verdict(PID, Seen(blocked, True, [], False), UID, "create", NOW)
    assert verdict.suspect == ("ReplicaFailure", "ReplicaFailure FailedCreate: exceeded quota")


def test_a_paused_deployment_starts_once_its_replica_is_available() -> None:
    paused = deployment(generation=2, observed=2, available=1, updated=0)
    paused["spec"]["paused"] = True
    assert rollout_verdict(PID, Seen(paused, True, [], True), UID, "start", NOW).done
    with pytest.raises(errors.RolloutFailed, match="paused"):
        rollout_verdict(PID, Seen(paused, True, [], True), UID, "reconfigure", NOW)
