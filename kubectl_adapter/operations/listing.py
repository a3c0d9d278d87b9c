"""Every Manager workload of a node, in one kubectl call, as snapshot documents.

Kept apart from the provider so ``kubectl-adapter list`` (Manager's most frequent call) runs
without importing pydantic: it prints the documents ``models.Snapshot`` describes.

kubectl lists a namespace that does not exist as an empty List, which Manager would read as
"no containers". So an empty answer costs one more call, ``get namespace``, to tell an empty
namespace from a missing one; a non-empty answer proves the namespace and costs nothing more.
"""

from __future__ import annotations

from typing import Any

from ..contract.errors import Forbidden, NotFound
from ..kubectl import commands
from ..kubectl.runner import KubectlRunner
from ..kubectl.workload_fields import decode_workloads
from ..rules.snapshots import snapshot_documents, split_kinds


def namespace_args(namespace: str) -> list[str]:
    """``get namespace NS --ignore-not-found -o name``: prints nothing when it is missing."""
    return ["get", "namespace", namespace, "--ignore-not-found", "-o", "name"]


def require_namespace(runner: KubectlRunner, namespace: str) -> None:
    """Raise NotFound when ``namespace`` does not exist (one kubectl call).

    Without RBAC ``get namespaces`` the answer is unknowable; the empty list then stands, as
    docs/rbac.md says, rather than failing every list of an empty namespace.
    """
    args = namespace_args(namespace)
    try:
        found = runner.run(args, namespace=namespace).stdout.strip()
    except Forbidden:
        return
    if not found:
        raise NotFound(
            f"namespace {namespace} does not exist",
            {
                "namespace": namespace,
                "command": runner.display(runner.argv(args, namespace=namespace)),
            },
        )


# What ``list -A`` needs beyond the namespaced Role: the same reads, cluster-wide.
ALL_NAMESPACES_ROLE = "rbac/clusterrole-list-all.yaml"
ALL_NAMESPACES_NEEDS = (
    "list deployments (apps)",
    "list replicasets (apps)",
    "list pods",
)


def list_documents(
    runner: KubectlRunner,
    namespace: str,
    node_id: str | None,
    selector: str | None = None,
    *,
    all_namespaces: bool = False,
) -> list[dict[str, Any]]:
    """One call for any number of workloads (two when there are none in one namespace); a
    failure raises the typed error (the whole node is then unknown to Manager).

    ``selector``: a person's ``-l``, within Manager's workloads. ``all_namespaces``: every
    namespace the caller may list cluster-wide (an empty answer then needs no namespace)."""
    found = list_objects(runner, namespace, node_id, selector, all_namespaces=all_namespaces)
    return snapshot_documents(*found)


def list_objects(
    runner: KubectlRunner,
    namespace: str,
    node_id: str | None,
    selector: str | None = None,
    *,
    all_namespaces: bool = False,
    namespace_must_exist: bool = True,
    kinds: str = "deployments,replicasets,pods",
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """``list``'s one read, its Deployments, ReplicaSets and Pods apart, with ``list``'s
    errors (the live feed reads ``kinds`` of them so; its verdicts run it whole)."""
    args = commands.list_workloads(node_id, selector, all_namespaces=all_namespaces, kinds=kinds)
    try:
        data = runner.run_json(args, namespace=namespace, decode=decode_workloads)
    except Forbidden as exc:
        if not all_namespaces:
            raise
        raise Forbidden(
            f"list --all-namespaces needs {', '.join(ALL_NAMESPACES_NEEDS)} at the cluster "
            f"scope, which the namespaced Role does not grant (optional: {ALL_NAMESPACES_ROLE}, "
            f"docs/rbac.md): {exc.message}",
            {**exc.details, "missing": list(ALL_NAMESPACES_NEEDS), "role": ALL_NAMESPACES_ROLE},
        ) from exc
    items = (data or {}).get("items") or []
    if not items and not all_namespaces and namespace_must_exist:
        require_namespace(runner, namespace)
    return split_kinds(items)
