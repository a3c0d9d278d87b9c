"""Deployment JSON -> Manager's status, by kstatus-style rules in a fixed order.

Manager's statuses: running, offline, creating, failed, missing, unknown. ``unknown`` is
decided by the caller (the API could not be asked); everything else is decided here from
the objects alone. Counts the API leaves out mean 0.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from .pods import describe_failure, is_terminating, pod_failures


class Status(StrEnum):
    RUNNING = "running"
    OFFLINE = "offline"
    CREATING = "creating"
    FAILED = "failed"
    MISSING = "missing"
    UNKNOWN = "unknown"


class StatusResult(NamedTuple):
    status: Status
    message: str


def _count(status: dict[str, Any], key: str) -> int:
    value = status.get(key)
    return int(value) if isinstance(value, int) else 0


def desired_replicas(deployment: dict[str, Any]) -> int:
    # An absent spec.replicas is defaulted to 1 by the API server.
    replicas = deployment.get("spec", {}).get("replicas", 1)
    return int(replicas) if isinstance(replicas, int) else 1


def condition(deployment: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for cond in deployment.get("status", {}).get("conditions") or []:
        if cond.get("type") == kind:
            return dict(cond)
    return None


def deployment_status(
    deployment: dict[str, Any] | None, pods: list[dict[str, Any]] | None = None
) -> StatusResult:
    """The status of one Deployment given its pods (rules 2-8 of the status contract)."""
    if deployment is None:
        return StatusResult(Status.MISSING, "deployment does not exist")
    pods = pods or []
    name = deployment.get("metadata", {}).get("name", "?")
    status = deployment.get("status") or {}
    desired = desired_replicas(deployment)
    available = _count(status, "availableReplicas")
    live_pods = [pod for pod in pods if not is_terminating(pod)]
    counts = f"{available}/{desired} available"

    if is_terminating(deployment):
        return StatusResult(Status.OFFLINE, f"deployment {name} is being deleted")
    if desired == 0:
        terminating = len(pods) - len(live_pods)
        if terminating or live_pods:
            return StatusResult(
                Status.OFFLINE,
                f"stopped (replicas 0); {len(pods)} pod(s) still terminating",
            )
        return StatusResult(Status.OFFLINE, "stopped (replicas 0)")
    progressing = condition(deployment, "Progressing")
    if progressing and progressing.get("reason") == "ProgressDeadlineExceeded":
        return StatusResult(
            Status.FAILED,
            f"{counts}; progress deadline exceeded: {progressing.get('message', '')}".rstrip(": "),
        )
    if available < 1:
        failures = pod_failures(pods)
        if failures:
            return StatusResult(Status.FAILED, f"{counts}; {describe_failure(failures[0])}")
    if available >= 1:
        observed = _count(status, "observedGeneration")
        generation = int(deployment.get("metadata", {}).get("generation", 0) or 0)
        updated = _count(status, "updatedReplicas")
        total = _count(status, "replicas")
        if observed < generation or updated < desired or total > updated:
            return StatusResult(Status.RUNNING, f"{counts}; rollout in progress")
        return StatusResult(Status.RUNNING, counts)
    if live_pods:
        phases = sorted({pod.get("status", {}).get("phase", "Unknown") for pod in live_pods})
        return StatusResult(Status.CREATING, f"{counts}; pod(s) {', '.join(phases)}")
    return StatusResult(Status.CREATING, f"{counts}; waiting for a pod")
