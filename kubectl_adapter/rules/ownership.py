"""Whose Deployment is this? The adapter never touches one that is not Manager's own."""

from __future__ import annotations

from typing import Any

from ..contract.errors import Conflict, InvalidInput
from ..contract.naming import CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL


def labels_of(deployment: dict[str, Any]) -> dict[str, str]:
    return dict(deployment.get("metadata", {}).get("labels") or {})


def is_managed(deployment: dict[str, Any]) -> bool:
    return labels_of(deployment).get(MANAGED_LABEL) == "true"


def check_ownership(
    deployment: dict[str, Any],
    *,
    container_id: str | None = None,
    node_id: str | None = None,
) -> None:
    """Raise Conflict unless the Deployment is Manager's and, where known, this container's."""
    meta = deployment.get("metadata", {})
    where = f"{meta.get('namespace')}/{meta.get('name')}"
    labels = labels_of(deployment)
    if not is_managed(deployment):
        raise Conflict(
            f"deployment {where} exists but is not managed by Manager "
            f"(label {MANAGED_LABEL}=true missing); refusing to touch it",
            {"providerId": where, "labels": labels},
        )
    found = labels.get(CONTAINER_ID_LABEL)
    if container_id is not None and found != container_id:
        raise Conflict(
            f"deployment {where} belongs to container {found!r}, not {container_id!r}; "
            "refusing to touch it",
            {"providerId": where, "expectedContainerId": container_id, "containerId": found},
        )
    found_node = labels.get(NODE_ID_LABEL)
    if node_id is not None and found_node != node_id:
        details: dict[str, Any] = {
            "providerId": where,
            "expectedNodeId": node_id,
            "nodeId": found_node,
        }
        message = (
            f"deployment {where} belongs to Manager node {found_node!r}, not {node_id!r}; "
            "refusing to touch it"
        )
        step = label_restore(deployment, NODE_ID_LABEL, node_id)
        if step is not None:
            details["nextStep"] = step
            message += (
                f" (its Pod template still says node {node_id!r}: the Deployment's label was "
                f"changed by hand; if it is this node's, restore it: {step})"
            )
        raise Conflict(message, details)


def check_identity(deployment: dict[str, Any], container_id: str, node_id: str) -> None:
    """A reconfigure spec must describe the same container: identity never changes."""
    labels = labels_of(deployment)
    for label, wanted, field in (
        (CONTAINER_ID_LABEL, container_id, "containerId"),
        (NODE_ID_LABEL, node_id, "nodeId"),
    ):
        if labels.get(label) != wanted:
            details: dict[str, Any] = {
                "field": field,
                "spec": wanted,
                "workload": labels.get(label),
            }
            message = (
                f"spec {field} {wanted!r} differs from the workload's {labels.get(label)!r}; "
                "identity cannot change on reconfigure"
            )
            step = label_restore(deployment, label, wanted)
            if step is not None:
                details["nextStep"] = step
                message += (
                    f" (the Pod template still says {wanted!r}: the Deployment's label was "
                    f"changed by hand; restore it: {step})"
                )
            raise InvalidInput(message, details)


def label_restore(deployment: dict[str, Any], label: str, wanted: str) -> str | None:
    """The ``kubectl label`` that puts an identity label back, when the Pod template still
    carries ``wanted`` (what Manager applied: a hand ``kubectl label deployment`` changes the
    Deployment's labels only); None otherwise (nothing says what it was)."""
    template = ((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}
    if (template.get("labels") or {}).get(label) != wanted:
        return None
    meta = deployment.get("metadata") or {}
    return (
        f"kubectl label deployment {meta.get('name')} {label}={wanted} "
        f"--overwrite -n {meta.get('namespace')}"
    )
