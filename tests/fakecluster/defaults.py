"""API defaulting (the subset of the real defaults that show up in kubectl output)."""

from __future__ import annotations

from typing import Any

from .nodes import qos_class
from .quantity import canonical_resources


def _image_pull_policy(image: str) -> str:
    last = image.rsplit("/", 1)[-1]
    if "@" in last:
        return "IfNotPresent"
    if ":" not in last or last.endswith(":latest"):
        return "Always"
    return "IfNotPresent"


def default_container(c: dict[str, Any]) -> None:
    c.setdefault("resources", {})
    canonical_resources(c)  # stored as the API server stores them: 1000m is 1, 1024Mi 1Gi
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    c.setdefault("imagePullPolicy", _image_pull_policy(str(c.get("image", ""))))
    for p in c.get("ports") or []:
        if isinstance(p, dict):
            p.setdefault("protocol", "TCP")
    for e in c.get("env") or []:
        ref = e.get("valueFrom", {}).get("fieldRef") if isinstance(e, dict) else None
        if isinstance(ref, dict):
            ref.setdefault("apiVersion", "v1")


def default_pod_spec(spec: dict[str, Any]) -> None:
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                default_container(c)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")


def default_template(tmpl: dict[str, Any]) -> None:
    md = tmpl.setdefault("metadata", {})
    md.setdefault("creationTimestamp", None)
    default_pod_spec(tmpl.setdefault("spec", {}))


def default_deployment(obj: dict[str, Any]) -> None:
    spec = obj.setdefault("spec", {})
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        ru = strategy.setdefault("rollingUpdate", {})
        ru.setdefault("maxUnavailable", "25%")
        ru.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    default_template(spec.setdefault("template", {}))
    obj.setdefault("status", {})


def default_replicaset(obj: dict[str, Any]) -> None:
    spec = obj.setdefault("spec", {})
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    default_template(spec.setdefault("template", {}))


def default_pod(obj: dict[str, Any]) -> None:
    default_pod_spec(obj.setdefault("spec", {}))
    spec = obj["spec"]
    if not obj.get("status"):
        # The API server gives a new Pod its first status (Pending, its QoS class) whatever
        # the client sent: a Pod created by hand without one is scheduled like any other.
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj)}
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    spec.setdefault("priority", 0)
    spec.setdefault(
        "tolerations",
        [
            {
                "key": f"node.kubernetes.io/{t}",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            }
            for t in ("not-ready", "unreachable")
        ],
    )


def default_namespace(obj: dict[str, Any]) -> None:
    name = obj["metadata"]["name"]
    obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
    obj.setdefault("spec", {"finalizers": ["kubernetes"]})
    obj.setdefault("status", {"phase": "Active"})


DEFAULTERS = {
    "deployments": default_deployment,
    "replicasets": default_replicaset,
    "pods": default_pod,
    "namespaces": default_namespace,
}


def apply_defaults(resource: str, obj: dict[str, Any]) -> None:
    fn = DEFAULTERS.get(resource)
    if fn:
        fn(obj)
