"""What ``kubectl describe deployment`` shows beyond the status: labels, selector, the Pod
template (command, args, env, requests and limits) and the revision history (its ReplicaSets).
Pure, over the same Deployment and ReplicaSets status reads; wire names of
``description_models``.

Env values are shown as ``kubectl describe`` shows them: a ``value`` plainly (Manager's spec
puts its values there, and kubectl shows them to anyone who may read the Deployment), a
``valueFrom`` as the reference it reads (``secretKeyRef db/password``), never the Secret's
value, which neither read fetches.
"""

from __future__ import annotations

from typing import Any

Document = dict[str, Any]


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _strings(value: Any) -> list[str] | None:
    return [str(item) for item in value] if isinstance(value, list) else None


def _quantities(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def value_from(source: Any) -> str | None:
    """``secretKeyRef db/password``, ``configMapKeyRef app/mode``, ``fieldRef
    metadata.name``, ``resourceFieldRef limits.memory``: what kubectl describe prints."""
    if not isinstance(source, dict):
        return None
    for kind, ref in source.items():
        if not isinstance(ref, dict):
            continue
        if "key" in ref:
            return f"{kind} {ref.get('name', '')}/{ref['key']}"
        if "fieldPath" in ref:
            return f"{kind} {ref['fieldPath']}"
        if "resource" in ref:
            return f"{kind} {ref['resource']}"
        return str(kind)
    return None


def _env(container: Document) -> list[Document]:
    out = []
    for item in container.get("env") or []:
        if isinstance(item, dict):
            out.append(
                {
                    "name": str(item.get("name", "")),
                    "value": item.get("value") if isinstance(item.get("value"), str) else None,
                    "valueFrom": value_from(item.get("valueFrom")),
                }
            )
    return out


def _env_from(container: Document) -> list[str]:
    out = []
    for item in container.get("envFrom") or []:
        if not isinstance(item, dict):
            continue
        for kind in ("configMapRef", "secretRef"):
            ref = item.get(kind)
            if isinstance(ref, dict):
                out.append(f"{item.get('prefix') or ''}{kind} {ref.get('name', '')}")
    return out


def _container(container: Document, *, init: bool) -> Document:
    resources = container.get("resources") or {}
    return {
        "name": str(container.get("name", "")),
        "init": init,
        "image": _text(container.get("image")),
        "command": _strings(container.get("command")),
        "args": _strings(container.get("args")),
        "env": _env(container),
        "envFrom": _env_from(container),
        "requests": _quantities(resources.get("requests")),
        "limits": _quantities(resources.get("limits")),
    }


def pod_template(deployment: Document) -> Document:
    template = (deployment.get("spec") or {}).get("template") or {}
    spec = template.get("spec") or {}
    containers = [
        _container(c, init=init)
        for init, key in ((True, "initContainers"), (False, "containers"))
        for c in spec.get(key) or []
        if isinstance(c, dict)
    ]
    labels = (template.get("metadata") or {}).get("labels") or {}
    return {"labels": {str(k): str(v) for k, v in labels.items()}, "containers": containers}


def selector(deployment: Document) -> str | None:
    match = (((deployment.get("spec") or {}).get("selector")) or {}).get("matchLabels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(match.items())) or None


def _revision(rs: Document) -> int | None:
    value = ((rs.get("metadata") or {}).get("annotations") or {}).get(
        "deployment.kubernetes.io/revision"
    )
    return int(value) if isinstance(value, str) and value.isdigit() else None


def revisions(replicasets: list[Document], newest: Document | None) -> list[Document]:
    """Each ReplicaSet the Deployment owns, newest revision first (kubectl's NewReplicaSet
    and OldReplicaSets, with ``kubectl rollout history``'s numbers)."""
    out = []
    for rs in replicasets:
        meta, spec = rs.get("metadata") or {}, rs.get("spec") or {}
        containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
        main = next((c for c in containers if isinstance(c, dict)), {})
        replicas = spec.get("replicas")
        ready = (rs.get("status") or {}).get("readyReplicas")
        out.append(
            {
                "revision": _revision(rs),
                "replicaSet": str(meta.get("name", "")),
                "current": rs is newest,
                "image": _text(main.get("image")),
                "replicas": replicas if isinstance(replicas, int) else 0,
                "readyReplicas": ready if isinstance(ready, int) else 0,
                "createdAt": _text(meta.get("creationTimestamp")),
            }
        )
    out.sort(key=lambda r: -(r["revision"] if isinstance(r["revision"], int) else -1))
    return out


def labels(deployment: Document) -> dict[str, str]:
    found = (deployment.get("metadata") or {}).get("labels") or {}
    return {str(k): str(v) for k, v in found.items()}
