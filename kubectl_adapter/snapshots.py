"""Kubernetes objects -> provider-neutral snapshots (pure; linear in the number of objects).

The builders return the wire document (camelCase dict) that ``models.Snapshot`` describes;
``build_*`` wrap them in the pydantic model for the Python API. ``list`` prints the
documents directly: on thousands of workloads, importing pydantic and validating each item
would cost more than parsing kubectl's output (see docs/performance.md).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from .naming import CONTAINER_ID_LABEL, CONTAINER_NAME, NODE_ID_LABEL, ProviderId
from .pods import newest_replicaset, pod_ip, ready_pod_among
from .quantities import parse_cpu_quantity, parse_memory_mb
from .status import Status, StatusResult, deployment_status, desired_replicas

if TYPE_CHECKING:
    from .models import Snapshot

Document = dict[str, Any]


def _main_container(deployment: Document) -> Document:
    template = (deployment.get("spec") or {}).get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or [{}]
    for container in containers:
        if container.get("name") == CONTAINER_NAME:
            return dict(container)
    return dict(containers[0])


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _document(
    deployment: Document,
    pods: list[Document],
    ready_pod: Document | None,
    result: StatusResult | None,
) -> Document:
    meta, status = deployment.get("metadata") or {}, deployment.get("status") or {}
    labels = meta.get("labels") or {}
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    provider_id = f"{namespace}/{name}"
    result = result or deployment_status(deployment, pods)
    ip = pod_ip(ready_pod)
    container = _main_container(deployment)
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
    }


def snapshot_document(
    deployment: Document,
    replicasets: list[Document],
    pods: list[Document],
    result: StatusResult | None = None,
) -> Document:
    """One snapshot document from the Deployment and the ReplicaSets/Pods it owns."""
    newest = newest_replicaset(deployment, replicasets)
    return _document(deployment, pods, ready_pod_among(newest, pods), result)


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


def _key(obj: Document) -> str:
    meta = obj.get("metadata") or {}
    return str(meta.get("uid") or meta.get("name"))


def _owner_key(obj: Document, kind: str) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("kind") == kind:
            return str(ref.get("uid") or ref.get("name"))
    return None


def snapshot_documents(
    deployments: list[Document], replicasets: list[Document], pods: list[Document]
) -> list[Document]:
    """Snapshots for many Deployments at once, sorted by provider ID.

    Objects are grouped by owner first (pods by ReplicaSet, ReplicaSets by Deployment), so
    the cost is linear in the number of objects, never deployments x pods.
    """
    rs_by_deployment: dict[str, list[Document]] = defaultdict(list)
    for rs in replicasets:
        owner = _owner_key(rs, "Deployment")
        if owner is not None:
            rs_by_deployment[owner].append(rs)
    pods_by_rs: dict[str, list[Document]] = defaultdict(list)
    for pod in pods:
        owner = _owner_key(pod, "ReplicaSet")
        if owner is not None:
            pods_by_rs[owner].append(pod)
    documents = []
    for deployment in deployments:
        owned = rs_by_deployment.get(_key(deployment), [])
        own_pods = [pod for rs in owned for pod in pods_by_rs.get(_key(rs), [])]
        newest = newest_replicaset(deployment, owned)
        ready = ready_pod_among(newest, pods_by_rs.get(_key(newest), []) if newest else [])
        documents.append(_document(deployment, own_pods, ready, None))
    documents.sort(key=lambda doc: str(doc["providerId"]))
    return documents


# -- the same, as pydantic models (Python API) ------------------------------------------------


def build_snapshot(
    deployment: Document,
    replicasets: list[Document],
    pods: list[Document],
    result: StatusResult | None = None,
) -> Snapshot:
    from .models import Snapshot

    return Snapshot.model_validate(snapshot_document(deployment, replicasets, pods, result))


def build_snapshots(
    deployments: list[Document], replicasets: list[Document], pods: list[Document]
) -> list[Snapshot]:
    from .models import Snapshot

    return [
        Snapshot.model_validate(doc) for doc in snapshot_documents(deployments, replicasets, pods)
    ]


def placeholder_snapshot(pid: ProviderId, status: Status, message: str) -> Snapshot:
    from .models import Snapshot

    return Snapshot.model_validate(placeholder_document(pid, status, message))
