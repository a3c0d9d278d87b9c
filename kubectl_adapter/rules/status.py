"""Deployment JSON -> Manager's status, by kstatus-style rules in a fixed order.

Manager's statuses: running, offline, creating, failed, missing, unknown. ``unknown`` is
decided by the caller (the API could not be asked); everything else is decided here from
the objects alone and ``now`` (passed in, so the rules stay pure). Counts the API leaves out
mean 0. The rules are listed, with the reason for each, in docs/lifecycle.md.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from ..contract.statuses import Status
from .pod_failures import describe_failure, pod_failures
from .pods import (
    is_live,
    is_terminating,
    not_ready_grace_left,
    pod_notes,
    unschedulable_grace_left,
)
from .selection import Owned


class StatusResult(NamedTuple):
    status: Status
    message: str


class RolloutCheck(NamedTuple):
    """What a wait learns between two slices: a failure that ends it, or when to look again."""

    failure: str | None
    recheck_in: float | None


def _count(status: dict[str, Any], key: str) -> int:
    value = status.get(key)
    return int(value) if isinstance(value, int) else 0


def desired_replicas(deployment: dict[str, Any]) -> int:
    # An absent spec.replicas is defaulted to 1 by the API server.
    replicas = (deployment.get("spec") or {}).get("replicas", 1)
    return int(replicas) if isinstance(replicas, int) else 1


def condition(deployment: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for cond in (deployment.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind:
            return dict(cond)
    return None


def replica_failure(deployment: dict[str, Any]) -> str | None:
    """``ReplicaFailure=True`` (FailedCreate: quota, admission, PodSecurity): no Pod can be
    created, so none will ever become available. The condition's own words, else None."""
    cond = condition(deployment, "ReplicaFailure")
    if cond is None or cond.get("status") != "True":
        return None
    return f"ReplicaFailure {cond.get('reason', '')}: {cond.get('message', '')}".rstrip(": ")


def rollout_completed(deployment: dict[str, Any]) -> bool:
    """The current generation's rollout finished (``Progressing`` NewReplicaSetAvailable, the
    reason the controller keeps until the next rollout): the workload has served."""
    progressing = condition(deployment, "Progressing")
    status = deployment.get("status") or {}
    generation = int((deployment.get("metadata") or {}).get("generation", 0) or 0)
    return (
        progressing is not None
        and progressing.get("status") == "True"
        and progressing.get("reason") == "NewReplicaSetAvailable"
        and _count(status, "observedGeneration") >= generation
    )


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)


def deployment_status(
    deployment: dict[str, Any] | None, pods: list[dict[str, Any]], *, now: datetime
) -> StatusResult:
    """The status of one Deployment given the Pods it owns (rules 2-11 of the status table)."""
    if deployment is None:
        return StatusResult(Status.MISSING, "deployment does not exist")
    name = (deployment.get("metadata") or {}).get("name", "?")
    status = deployment.get("status") or {}
    desired = desired_replicas(deployment)
    available = _count(status, "availableReplicas")
    counts = f"{available}/{desired} available"

    if is_terminating(deployment):
        return StatusResult(Status.OFFLINE, f"deployment {name} is being deleted")
    if desired == 0:
        terminating = [pod for pod in pods if is_terminating(pod) or is_live(pod)]
        if terminating:
            return StatusResult(
                Status.OFFLINE,
                f"stopped (replicas 0); {len(terminating)} pod(s) still terminating",
            )
        return StatusResult(Status.OFFLINE, "stopped (replicas 0)")
    progressing = condition(deployment, "Progressing")
    if progressing and progressing.get("reason") == "ProgressDeadlineExceeded":
        return StatusResult(
            Status.FAILED,
            f"{counts}; progress deadline exceeded: {progressing.get('message', '')}".rstrip(": "),
        )
    cannot_create = replica_failure(deployment)
    if available >= 1:
        observed = _count(status, "observedGeneration")
        generation = int((deployment.get("metadata") or {}).get("generation", 0) or 0)
        updated = _count(status, "updatedReplicas")
        total = _count(status, "replicas")
        rolling = observed < generation or updated < desired or total > updated
        progress = "rollout in progress" if rolling else ""
        if rolling and (deployment.get("spec") or {}).get("paused"):
            # Its new template gets no ReplicaSet until resumed: the Pod runs the old one.
            progress = f"rollout paused (kubectl rollout resume deployment/{name})"
        failures = pod_failures(pods, now) if rolling else []
        if failures:
            # A failed reconfigure: the previous Pod keeps serving, the new one cannot start.
            progress = f"rollout stuck: {describe_failure(failures[0])}; the previous pod serves"
        return StatusResult(Status.RUNNING, _join(counts, progress, cannot_create or ""))
    if cannot_create:
        return StatusResult(Status.FAILED, _join(counts, cannot_create))
    served = rollout_completed(deployment)
    failures = pod_failures(pods, now, served=served)
    if failures:
        return StatusResult(Status.FAILED, _join(counts, describe_failure(failures[0])))
    live = [pod for pod in pods if is_live(pod)]
    notes = "; ".join(pod_notes(pods, now, served=served))
    if served and any(not_ready_grace_left(pod, now) is not None for pod in live):
        # It was serving and lost its readiness moments ago: still up, not a new creation.
        return StatusResult(Status.RUNNING, _join(counts, notes))
    if (deployment.get("spec") or {}).get("paused") and not live:
        return StatusResult(
            Status.OFFLINE,
            _join(counts, f"rollout paused (kubectl rollout resume deployment/{name})", notes),
        )
    paused = "rollout paused" if (deployment.get("spec") or {}).get("paused") else ""
    if live:
        phases = sorted({(pod.get("status") or {}).get("phase") or "Unknown" for pod in live})
        return StatusResult(
            Status.CREATING, _join(counts, f"pod(s) {', '.join(phases)}", paused, notes)
        )
    return StatusResult(Status.CREATING, _join(counts, "waiting for a pod", notes))


def rollout_check(deployment: dict[str, Any], owned: Owned, *, now: datetime) -> RolloutCheck:
    """Whether a rollout still in progress can succeed: ReplicaFailure or a failing Pod of the
    newest ReplicaSet ends the wait; an Unschedulable pod in its grace asks for a look when
    the grace ends."""
    cannot_create = replica_failure(deployment)
    if cannot_create:
        return RolloutCheck(cannot_create, None)
    failures = pod_failures(owned.newest_pods, now)
    if failures:
        return RolloutCheck(describe_failure(failures[0]), None)
    graces = [
        left
        for pod in owned.newest_pods
        if is_live(pod) and (left := unschedulable_grace_left(pod, now)) is not None
    ]
    return RolloutCheck(None, min(graces) if graces else None)
