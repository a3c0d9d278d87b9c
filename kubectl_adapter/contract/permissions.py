"""Every Kubernetes permission the adapter's kubectl calls need, and which operation needs it.

This table is the source for ``check`` and for ``rbac/role.yaml``; a test keeps them equal.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Need(NamedTuple):
    verb: str
    group: str
    resource: str
    subresource: str
    needed_for: tuple[str, ...]

    @property
    def label(self) -> str:
        resource = f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        group = self.group or "core"
        return f"{self.verb} {resource} ({group})"


NAMESPACED_NEEDS: tuple[Need, ...] = (
    # status and network get a Deployment by name only when the read by the name label does
    # not hold it (missing, not Manager's, or applied before the name label existed). create
    # reads none: its ownership check reads its wait's Deployment watch (list, watch).
    Need(
        "get",
        "apps",
        "deployments",
        "",
        ("status", "describe", "delete", "reconfigure", "network"),
    ),
    # The waits watch the Deployment (a list, then a watch); delete lists by label and name;
    # status and network list it with its ReplicaSets and Pods by the name label.
    Need(
        "list",
        "apps",
        "deployments",
        "",
        ("list", "wait", "delete", "status", "describe", "network"),
    ),
    Need("watch", "apps", "deployments", "", ("wait", "stop (wait)", "delete (wait)")),
    # Server-side apply of an absent object is authorised as create as well as patch.
    Need("create", "apps", "deployments", "", ("create",)),
    # start/stop patch spec.replicas, with their ownership tests, in one JSON patch.
    Need(
        "patch",
        "apps",
        "deployments",
        "",
        ("start", "stop", "create", "reconfigure", "rollout undo"),
    ),
    Need("delete", "apps", "deployments", "", ("delete",)),
    # The waits read them to learn which Pods the Deployment owns (issue 30).
    Need(
        "list",
        "apps",
        "replicasets",
        "",
        ("status", "describe", "list", "network", "rollout undo", "wait"),
    ),
    # list --watch and status --watch watch the ReplicaSets beside the Deployments and Pods
    # (a snapshot's current Pod is its newest ReplicaSet's; issue 32).
    Need("watch", "apps", "replicasets", "", ("list --watch", "status --watch")),
    Need("list", "", "pods", "", ("status", "describe", "list", "network", "wait")),
    # Every wait watches the workload's Pods beside the Deployment (issue 24).
    Need("watch", "", "pods", "", ("wait", "stop (wait)")),
    # Best effort: without it failures still fail, but their messages lose the events (and
    # describe says it could not read them).
    Need("list", "", "events", "", ("failure diagnostics", "describe")),
    # check reads it, and an empty list (a missing namespace or none of ours?); kubectl also
    # GETs it after a 404 (a read of an absent Deployment by name) and goes on when refused.
    Need("get", "", "namespaces", "", ("check", "list")),
)
# What a wait needs after its write (create, start, stop, reconfigure): asked before the write,
# so that a Role without one of them refuses the operation before anything is changed.
WAIT_NEEDS: tuple[Need, ...] = tuple(need for need in NAMESPACED_NEEDS if "wait" in need.needed_for)
CLUSTER_NEEDS: tuple[Need, ...] = (Need("list", "", "nodes", "", ("nodes",)),)


_REFUSAL = re.compile(r'cannot (\w+) resource "([^"/]+)(?:/([^"]+))?" in API group "([^"]*)"')


def refused_label(message: str) -> str | None:
    """The permission an API server's RBAC refusal names (``cannot watch resource "pods" in
    API group ""``), as ``Need.label`` writes it; None when the message names none."""
    found = _REFUSAL.search(message)
    if found is None:
        return None
    verb, resource, subresource, group = found.groups()
    return Need(verb, group, resource, subresource or "", ()).label
