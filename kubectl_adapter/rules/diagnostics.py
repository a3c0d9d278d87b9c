"""Why a rollout is not done: conditions, pod reasons and Warning events, as text and data.

A wait that fails must never say only "timed out waiting for the condition"; this module
turns the objects read after the failure into the message an operator can act on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import clock
from .pod_failures import describe_failure, pod_failures
from .pods import pod_notes
from .selection import select_owned
from .status import desired_replicas, replica_failure

MAX_EVENTS = 8


def _container_states(pod: dict[str, Any]) -> list[dict[str, Any]]:
    status = pod.get("status", {})
    result = []
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        state = cs.get("state") or {}
        kind = next(iter(state), "unknown")
        entry: dict[str, Any] = {
            "name": cs.get("name"),
            "state": kind,
            "ready": bool(cs.get("ready")),
            "restartCount": int(cs.get("restartCount", 0)),
        }
        detail = state.get(kind) or {}
        for key in ("reason", "message", "exitCode"):
            if key in detail:
                entry[key] = detail[key]
        last = (cs.get("lastState") or {}).get("terminated")
        if last:
            entry["lastTerminated"] = {
                k: last[k] for k in ("reason", "exitCode", "message") if k in last
            }
        result.append(entry)
    return result


def _pod_summary(pod: dict[str, Any]) -> dict[str, Any]:
    meta, status = pod.get("metadata", {}), pod.get("status", {})
    summary: dict[str, Any] = {
        "name": meta.get("name"),
        "phase": status.get("phase", "Unknown"),
        "terminating": bool(meta.get("deletionTimestamp")),
        "containers": _container_states(pod),
    }
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            summary["scheduling"] = {k: cond.get(k) for k in ("reason", "message")}
    return summary


def relevant_events(
    events: list[dict[str, Any]], names: set[str], limit: int = MAX_EVENTS
) -> list[dict[str, Any]]:
    """The most recent Warning events about the named objects, oldest first."""
    picked = []
    for event in events:
        involved = event.get("involvedObject") or event.get("regarding") or {}
        if event.get("type") != "Warning" or involved.get("name") not in names:
            continue
        picked.append(
            {
                "reason": event.get("reason"),
                "message": event.get("message") or event.get("note"),
                "object": f"{involved.get('kind')}/{involved.get('name')}",
                "count": event.get("count") or 1,
                "lastTimestamp": event.get("lastTimestamp")
                or event.get("eventTime")
                or event.get("metadata", {}).get("creationTimestamp"),
            }
        )
    picked.sort(key=lambda e: str(e["lastTimestamp"] or ""))
    return picked[-limit:]


def explain(
    deployment: dict[str, Any] | None,
    replicasets: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    events: list[dict[str, Any]],
    *,
    now: datetime | None = None,
) -> tuple[str, dict[str, Any]]:
    """A one-paragraph reason and the structured details behind it."""
    if deployment is None:
        return "the deployment no longer exists", {"deployment": None}
    meta, status = deployment.get("metadata", {}), deployment.get("status") or {}
    name = meta.get("name", "?")
    owned = select_owned(deployment, replicasets, pods)
    newest, new_pods = owned.newest, owned.newest_pods
    now = now or clock.utc_now()
    conditions = [
        {k: c.get(k) for k in ("type", "status", "reason", "message") if c.get(k) is not None}
        for c in status.get("conditions") or []
    ]
    names = {name} | {rs.get("metadata", {}).get("name", "") for rs in replicasets}
    names |= {pod.get("metadata", {}).get("name", "") for pod in pods}
    warnings = relevant_events(events, names)
    desired = desired_replicas(deployment)
    parts = [
        f"deployment {name}: {status.get('availableReplicas', 0)}/{desired} available, "
        f"{status.get('updatedReplicas', 0)}/{desired} updated, "
        f"generation {meta.get('generation', 0)} observed {status.get('observedGeneration', 0)}"
    ]
    if (deployment.get("spec") or {}).get("paused"):
        parts.append("rollout paused (spec.paused)")
    for cond in conditions:
        failing = cond.get("reason") == "ProgressDeadlineExceeded" or (
            cond.get("type") == "ReplicaFailure" and cond.get("status") == "True"
        )
        if cond.get("status") != "True" or failing:
            parts.append(
                f"{cond.get('type')}={cond.get('status')} {cond.get('reason', '')}: "
                f"{cond.get('message', '')}".rstrip(": ")
            )
    failures = pod_failures(new_pods, now)
    parts.extend(describe_failure(failure) for failure in failures)
    if not failures:
        for pod in new_pods:
            phase = pod.get("status", {}).get("phase", "Unknown")
            parts.append(f"pod {pod.get('metadata', {}).get('name')}: {phase}")
        parts.extend(pod_notes(new_pods, now))
    parts.extend(f"event {e['reason']} on {e['object']}: {e['message']}" for e in warnings[-3:])
    cannot_create = replica_failure(deployment)
    details = {
        "deployment": name,
        # What will not heal by waiting longer: a wait that ends with these is RolloutFailed.
        "failing": ([cannot_create] if cannot_create else [])
        + [describe_failure(failure) for failure in failures],
        "conditions": conditions,
        "newReplicaSet": newest.get("metadata", {}).get("name") if newest else None,
        "pods": [_pod_summary(pod) for pod in new_pods],
        "events": warnings,
    }
    return "; ".join(parts), details
