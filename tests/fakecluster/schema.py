"""Unknown-field detection for `fieldValidation=Strict` (Deployment/ReplicaSet/Pod shapes)."""

from __future__ import annotations

from typing import Any

_META = {
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
}
_CONTAINER = {
    "name",
    "image",
    "command",
    "args",
    "workingDir",
    "ports",
    "envFrom",
    "env",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "volumeMounts",
    "volumeDevices",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
}
_POD_SPEC = {
    "volumes",
    "initContainers",
    "containers",
    "ephemeralContainers",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "dnsPolicy",
    "nodeSelector",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "nodeName",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "affinity",
    "schedulerName",
    "tolerations",
    "hostAliases",
    "priorityClassName",
    "priority",
    "dnsConfig",
    "readinessGates",
    "runtimeClassName",
    "enableServiceLinks",
    "preemptionPolicy",
    "overhead",
    "topologySpreadConstraints",
    "setHostnameAsFQDN",
    "os",
    "hostUsers",
    "schedulingGates",
    "resourceClaims",
    "resources",
}
_DEPLOY_SPEC = {
    "replicas",
    "selector",
    "template",
    "strategy",
    "minReadySeconds",
    "revisionHistoryLimit",
    "paused",
    "progressDeadlineSeconds",
}
_RS_SPEC = {"replicas", "minReadySeconds", "selector", "template"}
_TOP = {"apiVersion", "kind", "metadata", "spec", "status"}


def _check(obj: Any, allowed: set[str], path: str, out: list[str]) -> None:
    if not isinstance(obj, dict):
        return
    out.extend(f"{path}.{k}" for k in obj if k not in allowed)


def _pod_spec(spec: Any, path: str, out: list[str]) -> None:
    _check(spec, _POD_SPEC, path, out)
    if not isinstance(spec, dict):
        return
    for key in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(key) or []):
            _check(c, _CONTAINER, f"{path}.{key}[{i}]", out)


def unknown_fields(kind: str, obj: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if kind not in ("Deployment", "ReplicaSet", "Pod"):
        return out
    _check(obj, _TOP, "", out)
    _check(obj.get("metadata"), _META, ".metadata", out)
    spec = obj.get("spec")
    if kind == "Pod":
        _pod_spec(spec, ".spec", out)
        return out
    _check(spec, _DEPLOY_SPEC if kind == "Deployment" else _RS_SPEC, ".spec", out)
    if isinstance(spec, dict) and isinstance(spec.get("template"), dict):
        tmpl = spec["template"]
        _check(tmpl, {"metadata", "spec"}, ".spec.template", out)
        _check(tmpl.get("metadata"), _META, ".spec.template.metadata", out)
        _pod_spec(tmpl.get("spec"), ".spec.template.spec", out)
    return out
