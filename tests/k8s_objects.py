"""Realistic Kubernetes objects, shaped like `kubectl get -o json` prints them.

Field names and defaults follow what kubectl 1.32 received from the API (see the research
captures); absent counts are left out exactly as the API server leaves them out.
"""

from __future__ import annotations

import json
from typing import Any

NS = "testns"
MANAGED = "org.mieweb.opensource-server.managed"
NODE = "org.mieweb.opensource-server.node-id"
CONTAINER = "org.mieweb.opensource-server.container-id"
NAME = "org.mieweb.opensource-server.name"


def labels(container_id: str = "42", node_id: str = "7", name: str | None = None) -> dict[str, str]:
    """Manager's labels; ``name``: the name label, which a Deployment applied before it
    existed (a legacy one) does not carry."""
    found = {MANAGED: "true", NODE: node_id, CONTAINER: container_id}
    return found if name is None else found | {NAME: name}


def deployment(
    name: str = "web-1",
    *,
    container_id: str = "42",
    node_id: str = "7",
    uid: str | None = None,
    replicas: int | None = 1,
    generation: int = 1,
    observed: int | None = 1,
    available: int | None = 1,
    ready: int | None = None,
    updated: int | None = None,
    total: int | None = None,
    conditions: list[dict[str, Any]] | None = None,
    deleting: bool = False,
    managed: bool = True,
    image: str = "nginx:latest",
    env: dict[str, str] | None = None,
    namespace: str = NS,
    legacy: bool = False,
) -> dict[str, Any]:
    """``legacy``: applied before the name label existed (on the Deployment and its Pods)."""
    own = labels(container_id, node_id, None if legacy else name)
    meta: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": uid or f"uid-deploy-{name}",
        "resourceVersion": "1001",
        "generation": generation,
        "creationTimestamp": "2026-11-30T00:00:00Z",
        "annotations": {"deployment.kubernetes.io/revision": "1"},
        "labels": dict(own) if managed else {"app": name},
    }
    if deleting:
        meta["deletionTimestamp"] = "2026-11-30T00:05:00Z"
        meta["finalizers"] = ["foregroundDeletion"]
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {MANAGED: "true", CONTAINER: container_id}},
        "template": {
            "metadata": {"labels": dict(own)},
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": image,
                        "env": [{"name": k, "value": v} for k, v in (env or {}).items()],
                        "resources": {
                            "limits": {"cpu": "1", "memory": "1Gi"},
                            "requests": {"cpu": "1", "memory": "1Gi"},
                        },
                    }
                ]
            },
        },
        "progressDeadlineSeconds": 600,
        "revisionHistoryLimit": 10,
        "strategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    status: dict[str, Any] = {}
    for key, value in (
        ("observedGeneration", observed),
        ("replicas", total if total is not None else available),
        ("updatedReplicas", updated if updated is not None else available),
        ("readyReplicas", ready if ready is not None else available),
        ("availableReplicas", available),
    ):
        if value:
            status[key] = value
    if conditions is None and available:
        conditions = [
            condition("Available", "True", "MinimumReplicasAvailable"),
            condition("Progressing", "True", "NewReplicaSetAvailable"),
        ]
    if conditions:
        status["conditions"] = conditions
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": spec,
        "status": status,
    }


def condition(kind: str, status: str, reason: str, message: str = "") -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message or f"{kind} {reason}",
        "lastUpdateTime": "2026-11-30T00:00:01Z",
        "lastTransitionTime": "2026-11-30T00:00:01Z",
    }


def replicaset(
    deploy: dict[str, Any],
    template_hash: str = "5d8f7c9b6d",
    revision: int = 1,
    replicas: int = 1,
) -> dict[str, Any]:
    name = f"{deploy['metadata']['name']}-{template_hash}"
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": deploy["metadata"]["namespace"],
            "uid": f"uid-rs-{name}",
            "labels": {
                **deploy["spec"]["template"]["metadata"]["labels"],
                "pod-template-hash": template_hash,
            },
            "annotations": {"deployment.kubernetes.io/revision": str(revision)},
            "creationTimestamp": f"2026-11-30T00:0{revision}:00Z",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": deploy["metadata"]["name"],
                    "uid": deploy["metadata"]["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"replicas": replicas},
        "status": {"replicas": replicas, "observedGeneration": 1},
    }


def pod(
    rs: dict[str, Any],
    suffix: str = "abcde",
    *,
    ready: bool = True,
    ip: str | None = "10.244.0.5",
    phase: str = "Running",
    waiting: tuple[str, str] | None = None,
    terminated: tuple[str, int] | None = None,
    last_terminated: tuple[str, int] | None = None,
    restarts: int = 0,
    unschedulable: str | None = None,
    deleting: bool = False,
    created: str = "2026-11-30T00:01:00Z",
) -> dict[str, Any]:
    name = f"{rs['metadata']['name']}-{suffix}"
    meta: dict[str, Any] = {
        "name": name,
        "namespace": rs["metadata"]["namespace"],
        "uid": f"uid-pod-{name}",
        "labels": dict(rs["metadata"]["labels"]),
        "creationTimestamp": created,
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": rs["metadata"]["name"],
                "uid": rs["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    if deleting:
        meta["deletionTimestamp"] = "2026-11-30T00:06:00Z"
        meta["deletionGracePeriodSeconds"] = 30
    state: dict[str, Any]
    if waiting:
        state = {"waiting": {"reason": waiting[0], "message": waiting[1]}}
    elif terminated:
        state = {"terminated": {"reason": terminated[0], "exitCode": terminated[1]}}
    else:
        state = {"running": {"startedAt": created}}
    container_status: dict[str, Any] = {
        "name": "main",
        "image": "nginx:latest",
        "ready": ready,
        "restartCount": restarts,
        "started": ready,
        "state": state,
    }
    if last_terminated:
        container_status["lastState"] = {
            "terminated": {"reason": last_terminated[0], "exitCode": last_terminated[1]}
        }
    status: dict[str, Any] = {"phase": phase}
    conditions = [
        {
            "type": "PodScheduled",
            "status": "False" if unschedulable else "True",
            **({"reason": "Unschedulable", "message": unschedulable} if unschedulable else {}),
        },
    ]
    if not unschedulable:
        conditions.append({"type": "Ready", "status": "True" if ready else "False"})
        status["containerStatuses"] = [container_status]
        if ip:
            status["podIP"] = ip
            status["podIPs"] = [{"ip": ip}]
    status["conditions"] = conditions
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [{"name": "main", "image": "nginx:latest"}]},
        "status": status,
    }


def event(
    kind: str,
    name: str,
    reason: str,
    message: str,
    type_: str = "Warning",
    at: str = "2026-11-30T00:02:00Z",
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.17f0a1b2c3d4e5f6", "namespace": NS},
        "involvedObject": {"apiVersion": "v1", "kind": kind, "name": name, "namespace": NS},
        "reason": reason,
        "message": message,
        "type": type_,
        "count": 3,
        "firstTimestamp": at,
        "lastTimestamp": at,
        "source": {"component": "kubelet"},
    }


def kubectl_list(items: list[dict[str, Any]]) -> str:
    """`kubectl get ... -o json` stdout: a v1 List, 4-space indented."""
    return (
        json.dumps(
            {
                "apiVersion": "v1",
                "items": items,
                "kind": "List",
                "metadata": {"resourceVersion": ""},
            },
            indent=4,
        )
        + "\n"
    )


def kubectl_object(obj: dict[str, Any]) -> str:
    return json.dumps(obj, indent=4) + "\n"


def running_workloads(n: int) -> list[dict[str, Any]]:
    """N running workloads (Deployment + ReplicaSet + Ready Pod each), as `list` reads them."""
    items: list[dict[str, Any]] = []
    for i in range(n):
        dep = deployment(f"web-{i}", container_id=str(i), uid=f"uid-{i}")
        rs = replicaset(dep, f"h{i:09d}")
        items += [dep, rs, pod(rs, ip=f"10.244.{i // 250 % 256}.{i % 250}")]
    return items
