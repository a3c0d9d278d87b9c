"""The read-only operations: status, network, and the plans of read-only commands.

status and network read the Deployment, its ReplicaSets and its Pods in one call, as an
operator types it: ``get deployments,replicasets,pods -l managed=true,name=NAME``
(``naming.name_selector``). A Deployment that answer does not hold is missing, not Manager's,
or applied before the name label existed (it gets the label at its next reconfigure): only
then the Deployment is read by name, and a Manager Deployment's ReplicaSets and Pods by its
selector, as before. Ownership is the ownerReferences chain by uid (``selection``), never the
label: a same-named foreign object, or Pods with the label owned by another uid, never count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..contract.errors import Forbidden, NotFound, Timeout, Unauthorized, Unavailable
from ..contract.models import DryRunPlan, NetworkInfo, Snapshot
from ..contract.naming import ProviderId, deployment_selector, parse_provider_id
from ..contract.statuses import Status
from ..kubectl import commands
from ..rules.ownership import check_ownership, is_managed
from ..rules.pods import current_ready_pod, pod_ip
from ..rules.selection import holds_every_pod, select_owned
from ..rules.snapshots import build_snapshot, placeholder_snapshot, split_kinds
from . import plans
from .workload import Workloads

# The questions whose honest answer is "unknown" rather than an error (status rule 1).
UNKNOWABLE = (Unavailable, Unauthorized, Forbidden, Timeout)

Document = dict[str, Any]
# The notes --dry-run shows on the reads that follow the first one, only when they run.
_NOT_HELD = "the read above holds no deployment {}: absent, not Manager's or without the name label"
_BY_SELECTOR = "its ReplicaSets and Pods by its selector: not all of them carry the name label"


class Read(NamedTuple):
    """What status and network read, and the commands that read it (``--dry-run`` shows
    them; a step not run is planned only)."""

    deployment: Document | None
    replicasets: list[Document]
    pods: list[Document]
    steps: list[plans.Step]


def read_named(
    node: Workloads,
    pid: ProviderId,
    *,
    absent_ok: bool = True,
    check: Callable[[Document], None] | None = None,
    plan_only: bool = False,
) -> Read:
    """The Deployment NAME with its ReplicaSets and Pods: one call when it carries the name
    label; else its read by name (a 404 is None) and, when it is Manager's, its ReplicaSets and
    Pods by its selector. ``check`` judges the Deployment before anything more is read;
    ``plan_only`` stops before a last read that decides nothing (``--dry-run``)."""
    named = commands.named_workload(pid.name)
    steps = [plans.Step(named)]
    data = node.runner.run_json(named, namespace=pid.namespace)
    deployments, replicasets, pods = split_kinds((data or {}).get("items") or [])
    deployment = next((d for d in deployments if d["metadata"].get("name") == pid.name), None)
    if deployment is not None:
        if check is not None:
            check(deployment)
        if holds_every_pod(deployment, select_owned(deployment, replicasets, pods)):
            return Read(deployment, replicasets, pods, steps)
    else:
        get = commands.get_deployment(pid.name)
        steps.append(plans.Step(get, _NOT_HELD.format(pid.name), absent_ok=absent_ok))
        deployment = node.get_deployment(pid, absent_ok=absent_ok)
        if deployment is None or not is_managed(deployment):
            return Read(deployment, [], [], steps)
        if check is not None:
            check(deployment)
    owned = commands.owned(deployment_selector(deployment))
    steps.append(plans.Step(owned, _BY_SELECTOR))
    if plan_only:
        return Read(deployment, [], [], steps)
    replicasets, pods = node.read_owned(pid.namespace, deployment_selector(deployment))
    return Read(deployment, replicasets, pods, steps)


def status(node: Workloads, provider_id: str) -> Snapshot:
    """Never raises for an unreachable or refusing API: that answer is ``unknown``."""
    pid = parse_provider_id(provider_id)
    try:
        deployment, replicasets, pods, _ = read_named(node, pid)
    except UNKNOWABLE as exc:
        return placeholder_snapshot(pid, Status.UNKNOWN, f"{exc.type}: {exc.message}")
    if deployment is None:
        return placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
    if not is_managed(deployment):
        return placeholder_snapshot(
            pid,
            Status.MISSING,
            f"a deployment named {pid.name} exists but is not managed by Manager",
        )
    return build_snapshot(deployment, replicasets, pods)


def _network_read(node: Workloads, pid: ProviderId, *, plan_only: bool = False) -> Read:
    """network's read: a Deployment absent is NotFound, one not this node's Manager's is
    Conflict (``check_ownership``), before its Pods are read."""

    def owned(deployment: Document) -> None:
        check_ownership(deployment, node_id=node.config.node_id)

    read = read_named(node, pid, absent_ok=False, check=owned, plan_only=plan_only)
    if read.deployment is None:
        raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
    owned(read.deployment)  # a Deployment read by name that is not Manager's
    return read


def network(node: Workloads, provider_id: str) -> NetworkInfo:
    pid = parse_provider_id(provider_id)
    deployment, replicasets, pods, _ = _network_read(node, pid)
    assert deployment is not None  # _network_read raised NotFound otherwise
    ip = pod_ip(current_ready_pod(deployment, replicasets, pods))
    return NetworkInfo(provider_id=str(pid), pod_ip=ip, ipv4_address=ip)


def read_plan(
    node: Workloads, namespace: str | None, command: str, provider_id: str | None = None
) -> DryRunPlan:
    """What a read-only command would run (``--dry-run``). For a provider ID the reads that
    decide which commands follow run (``read_named``); the last read by selector does not."""
    runner = node.runner
    if provider_id is not None:
        pid = parse_provider_id(provider_id)
        if command == "network":
            read = _network_read(node, pid, plan_only=True)
        else:
            read = read_named(node, pid, plan_only=True)
        return plans.build(runner, *read.steps, namespace=pid.namespace)
    assert namespace is not None  # node-wide commands are planned in the node's namespace
    if command == "list":
        return plans.build(
            runner, (commands.list_workloads(node.config.node_id), ""), namespace=namespace
        )
    if command == "nodes":
        return plans.build(runner, (["get", "nodes", "-o", "json"], ""), namespace=namespace)
    from .cluster_checks import access_review_document

    return plans.build(
        runner,
        (["version", "-o", "json"], ""),
        (["get", "namespace", namespace, "--ignore-not-found", "-o", "json"], ""),
        (["create", "-f", "-", "-o", "json"], ""),
        namespace=namespace,
        manifest=access_review_document(namespace),
    )
