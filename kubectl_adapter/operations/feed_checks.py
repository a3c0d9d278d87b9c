"""Before the live feed's first line: may it watch what it will watch?

At rest the feed watches Deployments alone; a workload's ReplicaSets and Pods are watched only
once it moves, which may be hours later. A Role without ``watch`` on them (a node set up
before the feed needed it) would then end a feed that had run for hours. So the feed asks
first, in one ``kubectl create`` of a SelfSubjectAccessReview per permission (a write needs
none: its wait's watches start before it), while its Deployments' watch lists; the Deployments' own
watch is refused by the API server at once if it must be. Where it may not ask (a cluster
that refuses the reviews themselves) it goes on, and a refused watch ends the feed later.
"""

from __future__ import annotations

import json

from ..contract.errors import Forbidden, InternalError
from ..contract.permissions import NAMESPACED_NEEDS, Need
from ..kubectl import commands
from ..kubectl.runner import KubectlRunner
from .cluster_checks import access_reviews, json_documents

__all__ = ["FEED_NEEDS", "check_feed_permissions"]

# What the feed watches only while a workload moves.
FEED_NEEDS: tuple[Need, ...] = tuple(
    need
    for need in NAMESPACED_NEEDS
    if need.verb == "watch" and need.resource in ("replicasets", "pods")
)


def check_feed_permissions(runner: KubectlRunner, namespace: str | None, command: str) -> None:
    """Forbidden, naming what is missing, when the Role may not watch ``FEED_NEEDS``
    (``namespace`` None: cluster-wide, as ``-A`` watches)."""
    scope = namespace or ""
    try:
        answer = runner.run(
            commands.feed_access_reviews(),
            namespace=namespace,
            stdin=json.dumps(access_reviews(list(FEED_NEEDS), scope), indent=1),
        )
    except Forbidden:
        return  # it may not ask: a refused watch will say it
    items = json_documents(answer.stdout)
    if len(items) != len(FEED_NEEDS):
        raise InternalError(
            f"kubectl create answered {len(items)} of {len(FEED_NEEDS)} access reviews", {}
        )
    missing = [
        need
        for need, item in zip(FEED_NEEDS, items, strict=True)
        if not (item.get("status") or {}).get("allowed")
    ]
    if missing:
        where = f'in the namespace "{scope}"' if scope else "at the cluster scope"
        said = "; ".join(
            f'cannot {need.verb} resource "{need.resource}" in API group "{need.group}"'
            for need in missing
        )
        raise Forbidden(
            f"{command} {said} {where}: the feed watches a workload's ReplicaSets and Pods "
            "while it moves, and this node's Role does not grant it (a Role from before this "
            "version: apply rbac/role.yaml again)",
            {"missingPermissions": [need.label for need in missing], "namespace": scope},
        )
