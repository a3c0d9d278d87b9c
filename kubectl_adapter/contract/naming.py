"""Names, labels and provider IDs: the pure rules that tie a Manager container to a Deployment."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .errors import InvalidProviderId

LABEL_PREFIX = "org.mieweb.opensource-server"
MANAGED_LABEL = f"{LABEL_PREFIX}.managed"
NODE_ID_LABEL = f"{LABEL_PREFIX}.node-id"
CONTAINER_ID_LABEL = f"{LABEL_PREFIX}.container-id"
# The Deployment's own name, on it and on its Pod template (so on its ReplicaSets and Pods):
# one selector reads the whole workload. A name is a DNS-1123 label, so always a label value.
NAME_LABEL = f"{LABEL_PREFIX}.name"
FIELD_MANAGER = "opensource-server-manager"
# Deployment annotation: the env names Manager applied and whether it set a command (drift.py)
APPLIED_ANNOTATION = f"{LABEL_PREFIX}.applied"
# Written by ``reconfigure --rollback-on-failure`` after its ``kubectl rollout undo``: which
# revision failed and which revision the rollback made (rules/rollback_mark.py).
ROLLBACK_ANNOTATION = f"{LABEL_PREFIX}.rolled-back"
CONTAINER_NAME = "main"

# ECMA-262 patterns, as docs/schema/spec.json states them (``spec_rules``); here used with
# ``fullmatch`` of the part between ``^`` and ``$``, since Python's ``$`` would also accept
# a trailing newline.
DNS1123_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
LABEL_VALUE_PATTERN = r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
_DNS1123_LABEL = re.compile(DNS1123_PATTERN[1:-1])
_LABEL_VALUE = re.compile(LABEL_VALUE_PATTERN[1:-1])

DNS1123_RULE = (
    "must be a DNS-1123 label: at most 63 characters, lowercase letters, digits and '-', "
    "starting and ending with a letter or digit"
)
LABEL_VALUE_RULE = (
    "must be a Kubernetes label value: 1 to 63 characters, letters, digits, '-', '_' or '.', "
    "starting and ending with a letter or digit"
)


def is_dns1123_label(value: str) -> bool:
    return isinstance(value, str) and len(value) <= 63 and bool(_DNS1123_LABEL.fullmatch(value))


def is_label_value(value: str) -> bool:
    """A non-empty label value (Kubernetes also allows empty ones; an identity never is)."""
    return isinstance(value, str) and 0 < len(value) <= 63 and bool(_LABEL_VALUE.fullmatch(value))


class ProviderId(NamedTuple):
    """``namespace/name``: the only identity Manager stores for a Kubernetes container."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def parse_provider_id(value: str) -> ProviderId:
    """Split and validate a provider ID; raise before any kubectl call if it is malformed."""
    parts = value.split("/") if isinstance(value, str) else []
    if len(parts) != 2:
        raise InvalidProviderId(
            f"provider ID {value!r} must be exactly 'namespace/name'",
            {"providerId": value},
        )
    namespace, name = parts
    for part, what in ((namespace, "namespace"), (name, "name")):
        if not is_dns1123_label(part):
            raise InvalidProviderId(
                f"provider ID {value!r}: {what} {part!r} {DNS1123_RULE}",
                {"providerId": value, "field": what},
            )
    return ProviderId(namespace, name)


def identity_labels(container_id: str) -> dict[str, str]:
    """The selector labels: they can never change, because a selector is immutable."""
    return {MANAGED_LABEL: "true", CONTAINER_ID_LABEL: container_id}


def workload_labels(container_id: str, node_id: str, name: str) -> dict[str, str]:
    """The Deployment's labels and its Pod template's (never its selector's: a Deployment
    applied before the name label existed keeps its immutable selector)."""
    return {
        MANAGED_LABEL: "true",
        NODE_ID_LABEL: node_id,
        CONTAINER_ID_LABEL: container_id,
        NAME_LABEL: name,
    }


def name_selector(name: str) -> str:
    """``managed=true,name=NAME``: the Deployment NAME with its ReplicaSets and Pods."""
    return selector_string({MANAGED_LABEL: "true", NAME_LABEL: name})


def selector_string(labels: dict[str, str]) -> str:
    """``k=v,k=v`` in a stable order, as ``kubectl -l`` takes it."""
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def deployment_selector(deployment: dict[str, Any]) -> str:
    """The Deployment's own ``matchLabels`` as a ``-l`` selector (how its pods are found)."""
    spec = deployment.get("spec") or {}
    match_labels = (spec.get("selector") or {}).get("matchLabels") or {}
    if not match_labels:
        labels = (deployment.get("metadata") or {}).get("labels") or {}
        match_labels = identity_labels(str(labels.get(CONTAINER_ID_LABEL, "")))
    return selector_string({str(k): str(v) for k, v in match_labels.items()})


def owner_labels(container_id: str | None, node_id: str | None) -> dict[str, str]:
    """The labels a Deployment must carry for this call to touch it: Manager's, and where
    known this container's and this Manager node's. Mutating calls select on them, so the
    API server checks ownership in the same request."""
    labels = {MANAGED_LABEL: "true"}
    if container_id is not None:
        labels[CONTAINER_ID_LABEL] = container_id
    if node_id is not None:
        labels[NODE_ID_LABEL] = node_id
    return labels


class SpecNames(NamedTuple):
    """The names a spec gives its workload, taken before the spec is validated."""

    container_id: str
    hostname: str


def spec_names(document: Any) -> SpecNames | None:
    """A spec document's container ID and hostname when both are valid names, else None:
    what create's reads need to start ahead while the rest is validated (if the spec is then
    refused, they are killed, having only read). Names as ``spec.parse_spec`` takes them."""
    if not isinstance(document, dict):
        return None
    container_id, hostname = document.get("containerId"), document.get("hostname")
    if type(container_id) is int and 0 <= container_id < 10**63:
        container_id = str(container_id)
    if not (isinstance(container_id, str) and isinstance(hostname, str)):
        return None
    if is_label_value(container_id) and is_dns1123_label(hostname):
        return SpecNames(container_id, hostname)
    return None
