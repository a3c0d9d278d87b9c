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
from ..contract.naming import ProviderId, deployment_selector
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
    workloads: Workloads,
    provider_id: ProviderId,
    *,
    absent_ok: bool = True,
    check: Callable[[Document], None] | None = None,
    plan_only: bool = False,
) -> Read:
    """The Deployment NAME with its ReplicaSets and Pods: one call when it carries the name
    label; else its read by name (a 404 is None) and, when it is Manager's, its ReplicaSets and
    Pods by its selector. ``check`` judges the Deployment before anything more is read;
    ``plan_only`` stops before a last read that decides nothing (``--dry-run``)."""
    named = commands.named_workload(provider_id.name)
    steps = [plans.Step(named)]
    data = workloads.runner.run_json(named, namespace=provider_id.namespace)
    deployments, replicasets, pods = split_kinds((data or {}).get("items") or [])
    deployment = next(
        (d for d in deployments if d["metadata"].get("name") == provider_id.name), None
    )
    if deployment is not None:
        if check is not None:
            check(deployment)
        if holds_every_pod(deployment, select_owned(deployment, replicasets, pods)):
            return Read(deployment, replicasets, pods, steps)
    else:
        get = commands.get_deployment(provider_id.name)
        steps.append(plans.Step(get, _NOT_HELD.format(provider_id.name), absent_ok=absent_ok))
        deployment = workloads.get_deployment(provider_id, absent_ok=absent_ok)
        if deployment is None or not is_managed(deployment):
            return Read(deployment, [], [], steps)
        if check is not None:
            check(deployment)
    owned = commands.owned(deployment_selector(deployment))
    steps.append(plans.Step(owned, _BY_SELECTOR))
    if plan_only:
        return Read(deployment, [], [], steps)
    replicasets, pods = workloads.read_owned(provider_id.namespace, deployment_selector(deployment))
    return Read(deployment, replicasets, pods, steps)


def status(workloads: Workloads, provider_id: ProviderId) -> Snapshot:
    """Never raises for an unreachable or refusing API: that answer is ``unknown``."""
    try:
        deployment, replicasets, pods, _ = read_named(workloads, provider_id)
    except UNKNOWABLE as exc:
        return placeholder_snapshot(provider_id, Status.UNKNOWN, f"{exc.type}: {exc.message}")
    if deployment is None:
        return placeholder_snapshot(provider_id, Status.MISSING, "deployment does not exist")
    if not is_managed(deployment):
        return placeholder_snapshot(
            provider_id,
            Status.MISSING,
            f"a deployment named {provider_id.name} exists but is not managed by Manager",
        )
    return build_snapshot(deployment, replicasets, pods)


def _network_read(
    workloads: Workloads, provider_id: ProviderId, *, plan_only: bool = False
) -> Read:
    """network's read: a Deployment absent is NotFound, one not this node's Manager's is
    Conflict (``check_ownership``), before its Pods are read."""

    def owned(deployment: Document) -> None:
        check_ownership(deployment, node_id=workloads.config.node_id)

    read = read_named(workloads, provider_id, absent_ok=False, check=owned, plan_only=plan_only)
    if read.deployment is None:
        raise NotFound(f"deployment {provider_id} not found", {"providerId": str(provider_id)})
    owned(read.deployment)  # a Deployment read by name that is not Manager's
    return read


def network(workloads: Workloads, provider_id: ProviderId) -> NetworkInfo:
    deployment, replicasets, pods, _ = _network_read(workloads, provider_id)
    assert deployment is not None  # _network_read raised NotFound otherwise
    ip = pod_ip(current_ready_pod(deployment, replicasets, pods))
    return NetworkInfo(provider_id=str(provider_id), pod_ip=ip, ipv4_address=ip)


def read_plan(
    workloads: Workloads, namespace: str | None, command: str, provider_id: ProviderId | None = None
) -> DryRunPlan:
    """What a read-only command would run (``--dry-run``). For a provider ID the reads that
    decide which commands follow run (``read_named``); the last read by selector does not."""
    runner = workloads.runner
    if provider_id is not None:
        if command == "network":
            read = _network_read(workloads, provider_id, plan_only=True)
        else:
            read = read_named(workloads, provider_id, plan_only=True)
        return plans.build(runner, *read.steps, namespace=provider_id.namespace)
    assert namespace is not None  # node-wide commands are planned in the node's namespace
    if command == "list":
        return plans.build(
            runner, (commands.list_workloads(workloads.config.node_id), ""), namespace=namespace
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
