"""start, stop and delete: the replica count and the Deployment's existence."""

from __future__ import annotations

import copy
from time import monotonic

from ..contract.errors import Timeout
from ..contract.models import DeleteResult, DryRunPlan, Snapshot
from ..contract.naming import ProviderId, deployment_selector, parse_provider_id
from ..kubectl import commands, progress
from ..kubectl.runner import process_bound
from ..kubectl.transcript import Wait
from ..rules.ownership import check_ownership
from ..rules.races import not_deleted, stop_interrupted, uid_of
from ..rules.snapshots import build_snapshot
from ..rules.status import desired_replicas
from . import plans
from .waits import SLICE_SECONDS
from .workload import Workloads


def start(
    node: Workloads, provider_id: str, container_id: str | None = None
) -> Snapshot | DryRunPlan:
    """Scale to 1 and wait until available; a running workload is left alone."""
    pid = parse_provider_id(provider_id)
    deployment = node.require_deployment(pid)
    check_ownership(deployment, container_id=container_id, node_id=node.config.node_id)
    selector = deployment_selector(deployment)
    scale = desired_replicas(deployment) != 1
    if node.config.dry_run:
        return plans.build(
            node.runner,
            (commands.get_deployment(pid.name), ""),
            *([(commands.scale(pid.name, 1), "")] if scale else []),
            plans.rollout_step(pid.name, node.config.timeout),
            (commands.workload(selector), ""),
            namespace=pid.namespace,
        )
    if scale:
        node.runner.run(commands.scale(pid.name, 1), namespace=pid.namespace)
    return node.until_running(pid, selector, uid_of(deployment), "start")


def stop(
    node: Workloads, provider_id: str, container_id: str | None = None
) -> Snapshot | DryRunPlan:
    """Scale to 0 and wait until the pods are gone; the Deployment stays."""
    pid = parse_provider_id(provider_id)
    deployment = node.require_deployment(pid)
    check_ownership(deployment, container_id=container_id, node_id=node.config.node_id)
    selector = deployment_selector(deployment)
    scale = desired_replicas(deployment) != 0
    if node.config.dry_run:
        wait = commands.pods_gone(selector, plans.first_slice(node.config.timeout))
        return plans.build(
            node.runner,
            (commands.get_deployment(pid.name), ""),
            *([(commands.scale(pid.name, 0), "")] if scale else []),
            (wait, ""),
            namespace=pid.namespace,
        )
    if scale:
        node.runner.run(commands.scale(pid.name, 0), namespace=pid.namespace)
    with progress.awaiting(f"the Pods of {pid} to go", node.config.timeout):
        wait_pods_gone(node, pid, selector, uid_of(deployment))
    stopped = copy.deepcopy(deployment)
    stopped.setdefault("spec", {})["replicas"] = 0
    stopped["status"] = {
        "observedGeneration": deployment.get("status", {}).get("observedGeneration", 0)
    }
    return build_snapshot(stopped, [], [])


def wait_pods_gone(node: Workloads, pid: ProviderId, selector: str, uid: str | None) -> None:
    """``kubectl wait --for=delete`` in slices; between slices one read of the Deployment
    notices a start (or a replacement) racing this stop, whose new pod would otherwise
    hold the wait until ``--timeout``."""
    deadline = monotonic() + node.config.timeout
    first = True
    while True:
        step = max(1.0, min(deadline - monotonic(), SLICE_SECONDS))
        try:
            node.runner.run(
                commands.pods_gone(selector, step),
                namespace=pid.namespace,
                timeout=process_bound(step),
                request_timeout=False,
                wait=Wait(node.config.timeout, first, SLICE_SECONDS),
            )
            return
        except Timeout as exc:
            problem = stop_interrupted(pid, node.get_deployment(pid), uid)
            if problem is not None:
                raise problem from exc
            if monotonic() >= deadline - 0.5:
                message, details = node.explainer(pid.namespace, pid.name, selector)()
                raise Timeout(f"pods of {pid} still present: {message}", details) from exc
        first = False


def delete(
    node: Workloads, provider_id: str, container_id: str | None = None
) -> DeleteResult | DryRunPlan:
    """Foreground-delete the Deployment: Kubernetes garbage-collects ReplicaSets and Pods."""
    pid = parse_provider_id(provider_id)
    delete = commands.delete_deployment(pid.name, node.config.timeout)
    deployment = node.get_deployment(pid)
    if deployment is not None:
        check_ownership(deployment, container_id=container_id, node_id=node.config.node_id)
    if node.config.dry_run:
        get: plans.Step = (commands.get_deployment(pid.name), "")
        if deployment is None:
            return plans.build(node.runner, get, namespace=pid.namespace)
        confirm: plans.Step = (commands.get_deployment(pid.name), "confirms it is gone")
        return plans.build(node.runner, get, (delete, ""), confirm, namespace=pid.namespace)
    if deployment is None:
        return DeleteResult(provider_id=str(pid), deleted=False, already_missing=True)
    selector = deployment_selector(deployment)
    try:
        with progress.awaiting(f"deletion of {pid} and its Pods", node.config.timeout):
            node.runner.run(
                delete,
                namespace=pid.namespace,
                timeout=process_bound(node.config.timeout),
                request_timeout=False,
            )
    except Timeout as exc:
        # kubectl waits for whatever now bears the name: maybe a re-created Deployment.
        current = node.get_deployment(pid)
        if current is not None and uid_of(current) != uid_of(deployment):
            raise not_deleted(pid, current, uid_of(deployment)) or exc from exc
        message, details = node.explainer(pid.namespace, pid.name, selector)()
        raise Timeout(f"deletion of {pid} not finished: {message}", details) from exc
    # kubectl exits 0 on a 404 (--ignore-not-found), whoever caused it: look.
    problem = not_deleted(pid, node.get_deployment(pid), uid_of(deployment))
    if problem is not None:
        raise problem
    return DeleteResult(provider_id=str(pid), deleted=True, already_missing=False)
