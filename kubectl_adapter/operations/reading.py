"""The read-only operations: status, network, and the plans of read-only commands."""

from __future__ import annotations

from ..contract.errors import Forbidden, NotFound, Timeout, Unauthorized, Unavailable
from ..contract.models import DryRunPlan, NetworkInfo, Snapshot
from ..contract.naming import deployment_selector, parse_provider_id
from ..contract.statuses import Status
from ..kubectl import commands
from ..rules.ownership import check_ownership, is_managed
from ..rules.pods import current_ready_pod, pod_ip
from ..rules.snapshots import build_snapshot, placeholder_snapshot
from . import plans
from .workload import Workloads

# The questions whose honest answer is "unknown" rather than an error (status rule 1).
UNKNOWABLE = (Unavailable, Unauthorized, Forbidden, Timeout)


def status(node: Workloads, provider_id: str) -> Snapshot:
    """Never raises for an unreachable or refusing API: that answer is ``unknown``."""
    pid = parse_provider_id(provider_id)
    try:
        deployment = node.get_deployment(pid)
        if deployment is None:
            return placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
        if not is_managed(deployment):
            return placeholder_snapshot(
                pid,
                Status.MISSING,
                f"a deployment named {pid.name} exists but is not managed by Manager",
            )
        replicasets, pods = node.read_owned(pid.namespace, deployment_selector(deployment))
    except UNKNOWABLE as exc:
        return placeholder_snapshot(pid, Status.UNKNOWN, f"{exc.type}: {exc.message}")
    return build_snapshot(deployment, replicasets, pods)


def network(node: Workloads, provider_id: str) -> NetworkInfo:
    pid = parse_provider_id(provider_id)
    deployment = node.require_deployment(pid)
    check_ownership(deployment, node_id=node.config.node_id)
    replicasets, pods = node.read_owned(pid.namespace, deployment_selector(deployment))
    ip = pod_ip(current_ready_pod(deployment, replicasets, pods))
    return NetworkInfo(provider_id=str(pid), pod_ip=ip, ipv4_address=ip)


def read_plan(
    node: Workloads, namespace: str | None, command: str, provider_id: str | None = None
) -> DryRunPlan:
    """What a read-only command would run (``--dry-run``). For a provider ID the plan
    needs the Deployment's selector, so the first read runs; nothing else does."""
    from .listing import list_args

    runner = node.runner
    if provider_id is not None:
        pid = parse_provider_id(provider_id)
        get = plans.Step(commands.get_deployment(pid.name), absent_ok=command != "network")
        deployment = node.get_deployment(pid)
        if command == "network":
            if deployment is None:
                raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
            check_ownership(deployment, node_id=node.config.node_id)
        if deployment is None or not is_managed(deployment):
            return plans.build(runner, get, namespace=pid.namespace)
        owned = commands.owned(deployment_selector(deployment))
        return plans.build(runner, get, (owned, ""), namespace=pid.namespace)
    assert namespace is not None  # node-wide commands are planned in the node's namespace
    if command == "list":
        return plans.build(runner, (list_args(node.config.node_id), ""), namespace=namespace)
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
