"""Pure readings of Pod JSON: which pod is current, live, serving, and what only looks failing.

Why a Pod fails is ``pod_failures``, which reads these predicates.

Every rule that depends on time takes ``now``; nothing here reads the clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .clock import parse_time
from .selection import Owned, select_owned

# kstatus gives a Pod this long to be scheduled before Unschedulable is a failure: it is often
# transient (a node being added, resources freed by a terminating Pod).
UNSCHEDULABLE_GRACE_SECONDS = 15.0
# The kubelet's waiting reasons on the way up; never a failure.
NORMAL_WAIT_REASONS = frozenset({"ContainerCreating", "PodInitializing"})
TERMINAL_PHASES = frozenset({"Failed", "Succeeded"})
NODE_LOST_REASON = "NodeLost"
# The kubelet lost the container (node reboot, runtime restart): its exit is the platform's,
# not the workload's, and the restart that follows is recovery, not a crash.
LOST_CONTAINER_REASON = "ContainerStatusUnknown"
# A Pod that was serving and lost its readiness (a failing readiness probe) is `running` this
# long, then `failed`: the kubelet already waited failureThreshold x periodSeconds (30 s by
# default) before marking it not ready, so a minute more rides out a blip without hiding an
# outage. No progress deadline covers it: the rollout has completed.
NOT_READY_GRACE_SECONDS = 60.0


def is_ready(pod: dict[str, Any]) -> bool:
    return _condition_status(pod, "Ready") == "True"


def condition_of(pod: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return None


def _condition_status(pod: dict[str, Any], kind: str) -> str | None:
    condition = condition_of(pod, kind)
    return None if condition is None else str(condition.get("status"))


def is_terminating(obj: dict[str, Any]) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def is_terminal(pod: dict[str, Any]) -> bool:
    """Failed or Succeeded (an evicted Pod, for one): its ReplicaSet creates a replacement."""
    return (pod.get("status") or {}).get("phase") in TERMINAL_PHASES


def is_node_lost(pod: dict[str, Any]) -> bool:
    """On a node that stopped reporting: the Pod's recorded state is stale."""
    status = pod.get("status") or {}
    return status.get("reason") == NODE_LOST_REASON or _condition_status(pod, "Ready") == "Unknown"


def is_live(pod: dict[str, Any]) -> bool:
    """A Pod that may still become the replica: not terminating, not terminal."""
    return not is_terminating(pod) and not is_terminal(pod)


def _created(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("creationTimestamp") or "")


def ready_pod(pods: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest Ready, non-terminating pod with an IP among ``pods``, or None."""
    best: dict[str, Any] | None = None
    for pod in pods:
        serving = is_ready(pod) and not is_terminating(pod) and pod_ip(pod) is not None
        if serving and (best is None or _created(pod) > _created(best)):
            best = pod
    return best


def current_ready_pod(
    deployment: dict[str, Any], replicasets: list[dict[str, Any]], pods: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The Ready, non-terminating pod of the newest owned ReplicaSet (newest first), or None.

    Its IP is what Manager may show; it is ephemeral and never an identity.
    """
    return current_ready_pod_of(select_owned(deployment, replicasets, pods))


def current_ready_pod_of(owned: Owned) -> dict[str, Any] | None:
    return ready_pod(owned.newest_pods)


def pod_ip(pod: dict[str, Any] | None) -> str | None:
    if pod is None:
        return None
    ip = (pod.get("status") or {}).get("podIP")
    return str(ip) if ip else None


def newest_live_pod(pods: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest Pod that may still become the replica (a failing one included)."""
    live = [pod for pod in pods if is_live(pod)]
    return max(live, key=_created) if live else None


def pod_node(pod: dict[str, Any] | None) -> str | None:
    """The node a Pod was scheduled to (``spec.nodeName``); None before it is scheduled."""
    node = ((pod or {}).get("spec") or {}).get("nodeName")
    return str(node) if node else None


def unschedulable_since(pod: dict[str, Any]) -> tuple[dict[str, Any], datetime | None] | None:
    """The PodScheduled=False/Unschedulable condition and when it began, if the pod has one.

    The start is the condition's lastTransitionTime, else the pod's creationTimestamp; None
    when neither is known (then it counts as long ago, as kstatus reads a zero time).
    """
    condition = condition_of(pod, "PodScheduled")
    if (
        condition is None
        or condition.get("status") != "False"
        or condition.get("reason") != "Unschedulable"
    ):
        return None
    since = parse_time(condition.get("lastTransitionTime"))
    if since is None:
        since = parse_time((pod.get("metadata") or {}).get("creationTimestamp"))
    return condition, since


def unschedulable_grace_left(pod: dict[str, Any], now: datetime) -> float | None:
    """Seconds until an Unschedulable pod counts as failed (> 0), else None."""
    found = unschedulable_since(pod)
    if found is None or found[1] is None:
        return None
    left = UNSCHEDULABLE_GRACE_SECONDS - (now - found[1]).total_seconds()
    return left if left > 0 else None


def readiness_lost_since(pod: dict[str, Any]) -> datetime | None:
    """When a Running pod that was serving lost its readiness, else None.

    Ready flips only on a change, so ``Ready=False`` whose lastTransitionTime is later than
    the start of every running container means it was True during this run and went False
    (a failing readiness probe). A pod still starting up was never ready: its Ready=False
    dates from before its containers started. Node-lost pods (Ready Unknown) are not this.
    """
    status = pod.get("status") or {}
    ready = condition_of(pod, "Ready")
    if status.get("phase") != "Running" or ready is None or ready.get("status") != "False":
        return None
    since = parse_time(ready.get("lastTransitionTime"))
    starts = [
        parse_time(((cs.get("state") or {}).get("running") or {}).get("startedAt"))
        for cs in status.get("containerStatuses") or []
    ]
    if since is None or not starts or any(start is None or start >= since for start in starts):
        return None
    return since


def not_ready_grace_left(pod: dict[str, Any], now: datetime) -> float | None:
    """Seconds until a pod that lost its readiness counts as failed (> 0), else None."""
    since = readiness_lost_since(pod)
    if since is None:
        return None
    left = NOT_READY_GRACE_SECONDS - (now - since).total_seconds()
    return left if left > 0 else None


def pod_notes(pods: list[dict[str, Any]], now: datetime, *, served: bool = False) -> list[str]:
    """Why pods that are not failures are not serving either: said in the status message."""
    notes = []
    for pod in pods:
        name = (pod.get("metadata") or {}).get("name", "?")
        status = pod.get("status") or {}
        if is_terminating(pod):
            continue
        if is_terminal(pod):
            why = ": ".join(str(s) for s in (status.get("reason"), status.get("message")) if s)
            notes.append(f"pod {name} {status.get('phase')}" + (f" ({why})" if why else ""))
        elif is_node_lost(pod):
            why = status.get("message") or "its node stopped reporting"
            notes.append(f"pod {name}: node lost: {why}")
        elif served and (left := not_ready_grace_left(pod, now)) is not None:
            waited = NOT_READY_GRACE_SECONDS - left
            notes.append(
                f"pod {name} lost its readiness {waited:.0f}s ago while serving, "
                f"failed in {left:.0f}s unless ready again"
            )
        elif (left := unschedulable_grace_left(pod, now)) is not None:
            condition, _ = unschedulable_since(pod) or ({}, None)
            notes.append(
                f"pod {name} unschedulable, failed in {left:.0f}s unless scheduled: "
                f"{condition.get('message', '')}".rstrip(": ")
            )
    return notes
