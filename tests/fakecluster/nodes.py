"""Nodes and what Pods ask of them: capacity, requests, QoS class."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from .timeutil import now_rfc3339


def parse_cpu(q: Any) -> int:
    """millicores"""
    s = str(q)
    if s.endswith("m"):
        return int(float(s[:-1]))
    return int(float(s) * 1000)


_MEM_SUFFIX = {
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "k": 1000,
    "K": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
}


def parse_mem(q: Any) -> int:
    s = str(q)
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", s)
    if not m:
        return 0
    return int(float(m.group(1)) * _MEM_SUFFIX.get(m.group(2), 1))


def _node_id(name: str, what: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"fakecluster:{what}:{name}")


@dataclass
class Node:
    name: str
    cpu: str = "4"
    memory: str = "8Gi"
    ip: str = "172.18.0.2"

    def to_object(self) -> dict[str, Any]:
        res = {"cpu": self.cpu, "memory": self.memory, "pods": "110", "ephemeral-storage": "100Gi"}
        now = now_rfc3339()
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                },
            },
            "spec": {"podCIDR": "10.244.0.0/24"},
            "status": {
                "capacity": dict(res),
                "allocatable": dict(res),
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "KubeletReady",
                        "message": "kubelet is posting ready status",
                        "lastHeartbeatTime": now,
                        "lastTransitionTime": now,
                    }
                ],
                "addresses": [
                    {"type": "InternalIP", "address": self.ip},
                    {"type": "Hostname", "address": self.name},
                ],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                # Every field NodeSystemInfo requires (the official clients refuse a Node
                # without them), stable per node name.
                "nodeInfo": {
                    "machineID": _node_id(self.name, "machine").hex,
                    "systemUUID": str(_node_id(self.name, "system")),
                    "bootID": str(_node_id(self.name, "boot")),
                    "kernelVersion": "6.1.0",
                    "osImage": "Fake Linux",
                    "containerRuntimeVersion": "containerd://1.7.24",
                    "kubeletVersion": "v1.32.0",
                    "kubeProxyVersion": "v1.32.0",
                    "operatingSystem": "linux",
                    "architecture": "amd64",
                },
            },
        }


def pod_requests(pod: dict[str, Any]) -> tuple[int, int]:
    cpu = mem = 0
    for c in pod.get("spec", {}).get("containers") or []:
        res = c.get("resources") or {}
        req = res.get("requests") or res.get("limits") or {}
        if "cpu" in req:
            cpu += parse_cpu(req["cpu"])
        if "memory" in req:
            mem += parse_mem(req["memory"])
    return cpu, mem


def qos_class(pod: dict[str, Any]) -> str:
    containers = pod.get("spec", {}).get("containers") or []
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        if req or lim:
            any_set = True
        for r in ("cpu", "memory"):
            if r not in lim or (r in req and str(req[r]) != str(lim[r])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
