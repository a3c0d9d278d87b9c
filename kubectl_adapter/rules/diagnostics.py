"""Why a rollout is not done: conditions, pod reasons and Warning events, as text and data.

A wait that fails must never say only "timed out waiting for the condition"; this module
turns the objects read after the failure into the message an operator can act on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import clock
from .next_steps import about_failing_pods, headline, next_step
from .pod_failures import describe_failure, pod_failures
from .pod_words import pod_words
from .pods import is_live, is_ready, pod_notes
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
    say_pods: bool = True,
) -> tuple[str, dict[str, Any]]:
    """The failure's message and the structured details behind it.

    The message leads with what will not heal (a ReplicaSet that cannot create a Pod, the
    first failing Pod: ``next_steps.headline``) when there is one, else with each Pod's state
    (``pod_words``: an init container holding it, terminating since…), ``|``, the context once
    (counts, conditions, other Pods, events about no failing Pod), ``|``, the next step to
    type (also ``details.nextStep``). ``say_pods``: False when the caller's headline has
    named every Pod already (a stop's)."""
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
    failures = pod_failures(new_pods, now)
    cannot_create = replica_failure(deployment)
    first = failures[0] if failures and not cannot_create else None
    parts = [
        f"deployment {name}: {status.get('availableReplicas', 0)}/{desired} available, "
        f"{status.get('updatedReplicas', 0)}/{desired} updated, "
        f"generation {meta.get('generation', 0)} observed {status.get('observedGeneration', 0)}"
    ]
    if (deployment.get("spec") or {}).get("paused"):
        parts.append("rollout paused (spec.paused)")
    for cond in conditions:
        replica_failed = cond.get("type") == "ReplicaFailure" and cond.get("status") == "True"
        if replica_failed and cannot_create:
            continue  # the headline
        if cond.get("reason") == "MinimumReplicasUnavailable":
            continue  # Available=False: the counts say "0/1 available" already
        if cond.get("status") != "True" or replica_failed or _past_deadline(cond):
            parts.append(
                f"{cond.get('type')}={cond.get('status')} {cond.get('reason', '')}: "
                f"{cond.get('message', '')}".rstrip(": ")
            )
    parts.extend(describe_failure(failure) for failure in failures if failure is not first)
    # With nothing failing, the Pods' own state leads: Pending held by an init container,
    # Running and not ready, terminating.
    on_the_way = "; ".join(pod_words(pod, now) for pod in new_pods) if say_pods else ""
    if not failures:
        parts.extend(pod_notes(new_pods, now))
    said = [e for e in warnings if not about_failing_pods(e, failures)]
    parts.extend(f"event {e['reason']} on {e['object']}: {e['message']}" for e in said[-3:])
    lead = cannot_create or (headline(first, warnings) if first else None)
    lead = lead or (on_the_way if not failures else None)
    waiting = next((p for p in new_pods if not is_ready(p)), None)
    step = next_step(
        first,
        str(meta.get("namespace") or "default"),
        name,
        alone=len([p for p in pods if is_live(p)]) <= 1,
        pod=(waiting.get("metadata") or {}).get("name") if waiting else None,
        replicaset=(newest or {}).get("metadata", {}).get("name") if cannot_create else None,
    )
    message = "; ".join(parts)
    if lead:
        message = f"{lead} | {message}"
    message += f" | next step: {step}"
    details = {
        "deployment": name,
        # What will not heal by waiting longer: a wait that ends with these is RolloutFailed.
        "failing": ([cannot_create] if cannot_create else [])
        + [describe_failure(failure) for failure in failures],
        "conditions": conditions,
        "newReplicaSet": newest.get("metadata", {}).get("name") if newest else None,
        "pods": [_pod_summary(pod) for pod in new_pods],
        "events": warnings,
        "nextStep": step,
    }
    return message, details


def _past_deadline(condition: dict[str, Any]) -> bool:
    return condition.get("reason") == "ProgressDeadlineExceeded"
