"""Kubernetes objects -> provider-neutral snapshots (pure; linear in the number of objects)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .models import Snapshot
from .naming import CONTAINER_ID_LABEL, CONTAINER_NAME, NODE_ID_LABEL, ProviderId
from .pods import current_ready_pod, pod_ip
from .quantities import parse_cpu_quantity, parse_memory_mb
from .status import Status, StatusResult, deployment_status, desired_replicas


def _main_container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment.get("spec", {}).get("template", {}).get("spec", {}).get("containers")
    containers = containers or [{}]
    return next((c for c in containers if c.get("name") == CONTAINER_NAME), containers[0])


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def build_snapshot(
    deployment: dict[str, Any],
    replicasets: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    result: StatusResult | None = None,
) -> Snapshot:
    """One snapshot from the Deployment and the ReplicaSets/Pods it owns."""
    meta, status = deployment.get("metadata", {}), deployment.get("status") or {}
    labels = meta.get("labels") or {}
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    provider_id = str(ProviderId(namespace, name))
    result = result or deployment_status(deployment, pods)
    ip = pod_ip(current_ready_pod(deployment, replicasets, pods))
    container = _main_container(deployment)
    limits = (container.get("resources") or {}).get("limits") or {}
    cpu = parse_cpu_quantity(str(limits["cpu"])) if "cpu" in limits else None
    memory = parse_memory_mb(str(limits["memory"])) if "memory" in limits else None
    return Snapshot(
        provider_id=provider_id,
        vmid=provider_id,
        name=name,
        namespace=namespace,
        node=labels.get(NODE_ID_LABEL),
        container_id=labels.get(CONTAINER_ID_LABEL),
        status=result.status,
        message=result.message,
        pod_ip=ip,
        ipv4_address=ip,
        image=container.get("image"),
        cpus=float(cpu) if cpu is not None else None,
        memory_mb=memory,
        replicas=desired_replicas(deployment),
        ready_replicas=_int(status.get("readyReplicas")),
        available_replicas=_int(status.get("availableReplicas")),
        updated_replicas=_int(status.get("updatedReplicas")),
        generation=_int(meta.get("generation")),
        observed_generation=_int(status.get("observedGeneration")),
    )


def placeholder_snapshot(pid: ProviderId, status: Status, message: str) -> Snapshot:
    """A snapshot for a container we could not read (missing, or status unknown)."""
    return Snapshot(
        provider_id=str(pid),
        vmid=str(pid),
        name=pid.name,
        namespace=pid.namespace,
        node=None,
        container_id=None,
        status=status,
        message=message,
    )


def split_kinds(
    items: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
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


def _controller_uid(obj: dict[str, Any], kind: str) -> str | None:
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("kind") == kind:
            return str(ref.get("uid") or ref.get("name"))
    return None


def build_snapshots(
    deployments: list[dict[str, Any]],
    replicasets: list[dict[str, Any]],
    pods: list[dict[str, Any]],
) -> list[Snapshot]:
    """Snapshots for many Deployments at once: objects are grouped by owner first, so the
    cost is linear in the number of objects, never deployments x pods."""
    rs_by_owner: dict[str, list[dict[str, Any]]] = defaultdict(list)
    owner_of_rs: dict[str, str] = {}
    for rs in replicasets:
        owner = _controller_uid(rs, "Deployment")
        if owner is not None:
            rs_by_owner[owner].append(rs)
            rs_meta = rs.get("metadata", {})
            owner_of_rs[str(rs_meta.get("uid") or rs_meta.get("name"))] = owner
    pods_by_owner: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for pod in pods:
        rs_key = _controller_uid(pod, "ReplicaSet")
        if rs_key is not None and rs_key in owner_of_rs:
            pods_by_owner[owner_of_rs[rs_key]].append(pod)
    snapshots = []
    for deployment in deployments:
        meta = deployment.get("metadata", {})
        key = str(meta.get("uid") or meta.get("name"))
        snapshots.append(build_snapshot(deployment, rs_by_owner[key], pods_by_owner[key]))
    snapshots.sort(key=lambda s: s.provider_id)
    return snapshots
