"""Whether a workload is settled: the live feed then needs only its Deployment to judge it.

A settled workload is running or offline with nothing in motion: no rollout, no scale, no
Pod starting or terminating. Every way it can leave that state moves the Deployment's own
status (the controller counts its ReplicaSets' Pods: a Pod deleted, crashed or not ready
changes ``readyReplicas``/``availableReplicas``; an edit bumps ``generation``), so while a
workload is settled the feed watches its Deployment alone, and reads its Pods and
ReplicaSets again only once the Deployment says it is in motion (``deployment_at_rest``
false). The way back needs the Pods too: a Deployment scaled to 0 says ``replicas: 0`` while
its Pod is still terminating (``status.replicas`` leaves terminating Pods out), so a workload
is settled again only when its Pods agree (``pods_at_rest``). The rules read explicit
defaults for what the API leaves out (``readyReplicas`` absent means 0), as ``status`` does.
"""

from __future__ import annotations

from typing import Any

from .pods import is_ready, is_terminal, is_terminating
from .status import condition, desired_replicas

__all__ = ["deployment_at_rest", "pods_at_rest", "settled"]

Document = dict[str, Any]
AT_REST = frozenset({"running", "offline"})


def _count(status: Document, key: str) -> int:
    value = status.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def deployment_at_rest(deployment: Document) -> bool:
    """The Deployment's own status says nothing is in motion: the controller has seen its
    generation, every replica it wants is updated, ready and available, and no other exists."""
    meta = deployment.get("metadata") or {}
    if is_terminating(deployment) or (deployment.get("spec") or {}).get("paused"):
        return False
    status = deployment.get("status") or {}
    generation = meta.get("generation")
    if isinstance(generation, int) and _count(status, "observedGeneration") < generation:
        return False
    failure = condition(deployment, "ReplicaFailure")
    if failure is not None and failure.get("status") == "True":
        return False
    progressing = condition(deployment, "Progressing")
    if progressing is not None and progressing.get("reason") == "ProgressDeadlineExceeded":
        return False
    desired = desired_replicas(deployment)
    counts = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")
    return _count(status, "unavailableReplicas") == 0 and all(
        _count(status, key) == desired for key in counts
    )


def pods_at_rest(deployment: Document, pods: list[Document]) -> bool:
    """The Pods it owns agree: exactly the replicas it wants, each ready, none terminating
    (a Failed or Succeeded Pod, an evicted one, is left for the garbage collector: it counts
    for nothing)."""
    if any(is_terminating(pod) for pod in pods):
        return False
    live = [pod for pod in pods if not is_terminal(pod)]
    return len(live) == desired_replicas(deployment) and all(is_ready(pod) for pod in live)


def settled(deployment: Document, pods: list[Document], status: str) -> bool:
    """Settled: its snapshot is running or offline, and the Deployment and its Pods at rest."""
    return status in AT_REST and deployment_at_rest(deployment) and pods_at_rest(deployment, pods)
