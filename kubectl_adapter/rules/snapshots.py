"""Kubernetes objects -> provider-neutral snapshots (pure; linear in the number of objects).

``list`` and ``status`` pick a Deployment's ReplicaSets and Pods with the same owner-checked
selection (``selection.py``) and judge them with the same rules; the builders read the clock
only when the caller passes no ``now``. They return the wire document (camelCase dict) that
``models.Snapshot`` describes; ``build_*`` wrap them in that class for the Python API.
``list`` prints the documents directly: on thousands of workloads, building an object per
item would cost more than parsing kubectl's output (see docs/performance.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..contract.naming import CONTAINER_ID_LABEL, CONTAINER_NAME, NODE_ID_LABEL, ProviderId
from ..contract.statuses import Status
from . import clock
from .drift import UNKNOWN_DRIFT, drift
from .pods import current_ready_pod_of, newest_live_pod, pod_ip, pod_node
from .quantities import parse_cpu_quantity, parse_memory_mb
from .selection import Owned, OwnerIndex, select_owned
from .status import StatusResult, deployment_status, desired_replicas

if TYPE_CHECKING:
    from ..contract.models import Snapshot

Document = dict[str, Any]


def _main_container(deployment: Document) -> Document:
    template = (deployment.get("spec") or {}).get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or [{}]
    for container in containers:
        if container.get("name") == CONTAINER_NAME:
            return dict(container)
    return dict(containers[0])


def _running_template(deployment: Document, owned: Owned) -> Document:
    """Whose Pod template the snapshot reports: the Deployment's, unless it is paused. A
    paused Deployment's changed template gets no ReplicaSet until it is resumed, so its
    Pods run its newest ReplicaSet's (the image, CPU and memory they really have)."""
    newest = owned.newest
    paused = (deployment.get("spec") or {}).get("paused")
    if paused and newest is not None and (newest.get("spec") or {}).get("template"):
        return newest
    return deployment


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _document(
    deployment: Document, owned: Owned, result: StatusResult | None, now: datetime
) -> Document:
    meta, status = deployment.get("metadata") or {}, deployment.get("status") or {}
    labels = meta.get("labels") or {}
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    provider_id = f"{namespace}/{name}"
    result = result or deployment_status(deployment, owned.pods, now=now)
    current = current_ready_pod_of(owned)
    ip = pod_ip(current)
    shown = current or newest_live_pod(owned.newest_pods)
    container = _main_container(_running_template(deployment, owned))
    limits = (container.get("resources") or {}).get("limits") or {}
    cpu = parse_cpu_quantity(str(limits["cpu"])) if "cpu" in limits else None
    return {
        "providerId": provider_id,
        "vmid": provider_id,
        "name": name,
        "namespace": namespace,
        "node": labels.get(NODE_ID_LABEL),
        "containerId": labels.get(CONTAINER_ID_LABEL),
        "status": result.status.value,
        "message": result.message,
        "podIp": ip,
        "ipv4Address": ip,
        "macAddress": None,
        "ephemeral": True,
        "image": container.get("image"),
        "cpus": float(cpu) if cpu is not None else None,
        "memoryMb": parse_memory_mb(str(limits["memory"])) if "memory" in limits else None,
        "replicas": desired_replicas(deployment),
        "readyReplicas": _int(status.get("readyReplicas")),
        "availableReplicas": _int(status.get("availableReplicas")),
        "updatedReplicas": _int(status.get("updatedReplicas")),
        "generation": _int(meta.get("generation")),
        "observedGeneration": _int(status.get("observedGeneration")),
        "drift": drift(deployment).document(),
        "podNode": pod_node(shown),
        "createdAt": meta.get("creationTimestamp"),
    }


def snapshot_document(
    deployment: Document,
    replicasets: list[Document],
    pods: list[Document],
    result: StatusResult | None = None,
    *,
    now: datetime | None = None,
) -> Document:
    """One snapshot document from the Deployment and the ReplicaSets/Pods read by its labels
    (only those it owns count)."""
    owned = select_owned(deployment, replicasets, pods)
    return _document(deployment, owned, result, now or clock.utc_now())


def placeholder_document(pid: ProviderId, status: Status, message: str) -> Document:
    """A snapshot for a container we could not read (missing, or status unknown)."""
    return {
        "providerId": str(pid),
        "vmid": str(pid),
        "name": pid.name,
        "namespace": pid.namespace,
        "node": None,
        "containerId": None,
        "status": status.value,
        "message": message,
        "podIp": None,
        "ipv4Address": None,
        "macAddress": None,
        "ephemeral": True,
        "image": None,
        "cpus": None,
        "memoryMb": None,
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "updatedReplicas": 0,
        "generation": 0,
        "observedGeneration": 0,
        "drift": UNKNOWN_DRIFT.document(),
        "podNode": None,
        "createdAt": None,
    }


def split_kinds(
    items: list[Document],
) -> tuple[list[Document], list[Document], list[Document]]:
    """Deployments, ReplicaSets and Pods out of one mixed ``kubectl get a,b,c`` List."""
    deployments, replicasets, pods = [], [], []
    for item in items:
        kind = item.get("kind")
        if kind == "Deployment":
            deployments.append(item)
        elif kind == "ReplicaSet":
            replicasets.append(item)
        elif kind == "Pod":
            pods.append(item)
    return deployments, replicasets, pods


def snapshot_documents(
    deployments: list[Document],
    replicasets: list[Document],
    pods: list[Document],
    *,
    now: datetime | None = None,
) -> list[Document]:
    """Snapshots for many Deployments at once, sorted by provider ID.

    Objects are grouped by owner first (pods by ReplicaSet, ReplicaSets by Deployment), so
    the cost is linear in the number of objects, never deployments x pods.
    """
    index = OwnerIndex(replicasets, pods)
    moment = now or clock.utc_now()
    documents = [_document(d, index.owned_by(d), None, moment) for d in deployments]
    documents.sort(key=lambda doc: str(doc["providerId"]))
    return documents


# -- the same, as output objects (Python API) -------------------------------------------------


def build_snapshot(
    deployment: Document,
    replicasets: list[Document],
    pods: list[Document],
    result: StatusResult | None = None,
    *,
    now: datetime | None = None,
) -> Snapshot:
    from ..contract.models import Snapshot

    document = snapshot_document(deployment, replicasets, pods, result, now=now)
    return Snapshot.model_validate(document)


def build_snapshots(
    deployments: list[Document],
    replicasets: list[Document],
    pods: list[Document],
    *,
    now: datetime | None = None,
) -> list[Snapshot]:
    from ..contract.models import Snapshot

    documents = snapshot_documents(deployments, replicasets, pods, now=now)
    return [Snapshot.model_validate(doc) for doc in documents]


def placeholder_snapshot(pid: ProviderId, status: Status, message: str) -> Snapshot:
    from ..contract.models import Snapshot

    return Snapshot.model_validate(placeholder_document(pid, status, message))
