"""Every Manager workload of a node, in one kubectl call, as snapshot documents.

Kept apart from the provider so ``kubectl-adapter list`` (Manager's most frequent call) runs
without importing pydantic: it prints the documents ``models.Snapshot`` describes.
"""

from __future__ import annotations

from typing import Any

from .naming import MANAGED_LABEL, NODE_ID_LABEL, selector_string
from .runner import KubectlRunner
from .snapshots import snapshot_documents, split_kinds


def list_args(node_id: str | None) -> list[str]:
    """``get deployments,replicasets,pods -l managed=true[,node-id=N] -o json``."""
    labels = {MANAGED_LABEL: "true"}
    if node_id is not None:
        labels[NODE_ID_LABEL] = node_id
    return ["get", "deployments,replicasets,pods", "-l", selector_string(labels), "-o", "json"]


def list_documents(
    runner: KubectlRunner, namespace: str, node_id: str | None
) -> list[dict[str, Any]]:
    """One call for any number of workloads; a failure raises the typed error (the whole
    node is then unknown to Manager)."""
    data = runner.run_json(list_args(node_id), namespace=namespace)
    return snapshot_documents(*split_kinds((data or {}).get("items") or []))
