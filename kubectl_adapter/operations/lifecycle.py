"""start, stop and delete: the replica count and the Deployment's existence."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..contract.errors import AdapterError, Forbidden, NotFound, Timeout
from ..contract.models import DeleteResult, DryRunPlan, Snapshot
from ..contract.naming import deployment_selector, owner_labels, parse_provider_id
from ..kubectl import commands, progress
from ..kubectl.call import process_bound
from ..rules import clock
from ..rules.ownership import check_ownership
from ..rules.pod_words import stop_headline, wait_for_pods_command
from ..rules.races import not_deleted, rollout_event, stop_event, uid_of
from ..rules.snapshots import build_snapshot
from ..rules.status import desired_replicas
from ..rules.wait_verdicts import Seen, Verdict, holds_stop, stop_verdict
from . import plans
from .pod_owners import pod_names
from .preflight import after_write, check_wait_permissions
from .waits import wait_budget, watch_workload
from .workload import Workloads


def start(
    node: Workloads, provider_id: str, container_id: str | None = None
) -> Snapshot | DryRunPlan:
    """Scale to 1 (ownership tested in the same request) and wait until available."""
    pid = parse_provider_id(provider_id)
    if node.config.dry_run:
        owner = owner_labels(container_id, node.config.node_id)
        deployment = node.require_deployment(pid)
        check_ownership(deployment, container_id=container_id, node_id=node.config.node_id)
        # The patch changes nothing on a running workload: then it shows the rollout
        # complete and no wait runs.
        rollout = commands.rollout_status(pid.name, node.config.timeout)
        done = desired_replicas(deployment) == 1 and _quietly(
            lambda: rollout_event(pid, "ADDED", deployment, None, "start")
        )
        return plans.build(
            node.runner,
            plans.wait_permissions_step(pid.namespace),
            (commands.patch_replicas(pid.name, 1, owner), ""),
            *(
                []
                if done
                else [plans.watch_step(pid.name, deployment_selector(deployment), rollout)]
            ),
            namespace=pid.namespace,
        )
    check_wait_permissions(node.runner, pid, "start")
    patched = node.set_replicas(pid, 1, container_id)
    return node.until_running(pid, deployment_selector(patched), uid_of(patched), "start", patched)


def stop(
    node: Workloads, provider_id: str, container_id: str | None = None
) -> Snapshot | DryRunPlan:
    """Scale to 0 (ownership tested in the same request) and wait until no Pod is live."""
    pid = parse_provider_id(provider_id)
    if node.config.dry_run:
        owner = owner_labels(container_id, node.config.node_id)
        deployment = node.require_deployment(pid)
        check_ownership(deployment, container_id=container_id, node_id=node.config.node_id)
        selector = deployment_selector(deployment)
        gone = commands.pods_gone(selector, node.config.timeout)
        done = desired_replicas(deployment) == 0 and _quietly(
            lambda: stop_event(pid, "ADDED", deployment, None)
        )
        # Already stopped: one read says whether a Pod of an earlier stop is still left.
        leftover = plans.Step(
            commands.owned(selector), "already stopped: are Pods of an earlier stop left?"
        )
        return plans.build(
            node.runner,
            plans.wait_permissions_step(pid.namespace),
            (commands.patch_replicas(pid.name, 0, owner), ""),
            *([leftover] if done else []),
            plans.watch_step(pid.name, selector, gone, "if a Pod is left" if done else ""),
            namespace=pid.namespace,
        )
    check_wait_permissions(node.runner, pid, "stop")
    patched = node.set_replicas(pid, 0, container_id)
    uid = uid_of(patched)
    selector = deployment_selector(patched)
    owners = node.pod_owners(pid.namespace, selector)
    if stop_event(pid, "ADDED", patched, uid):
        # Already stopped before this patch (a stop run again after a Timeout): its Pods may
        # still run their containers through their grace period. One read says; a Pod left
        # is awaited as any stop awaits it, its ReplicaSets already known.
        replicasets, pods = node.read_owned(pid.namespace, selector)
        owners.learn(patched, replicasets)
        if not [pod for pod in owners.settle(patched, pods) if holds_stop(pod)]:
            return build_snapshot(patched, [], [])

    def verdict(seen: Seen, now: datetime) -> Verdict:
        return stop_verdict(pid, seen, uid)

    def judge(seen: Seen, now: datetime) -> Verdict:
        return owners.judge(verdict, seen, now)

    def on_timeout() -> AdapterError:
        """Says what is done (the scale to 0) and what is not: the Pods the workload owns
        that are left, terminating since when, in which grace period; the next step follows
        them. ``details.holding`` names them."""
        from ..rules.diagnostics import explain

        holding = pod_names([pod for pod in owners.holding() if holds_stop(pod)])
        try:
            deployment, replicasets, pods = node.read_workload(pid.namespace, pid.name, selector)
        except AdapterError as exc:
            return Timeout(
                f"pods of {pid} still present: (could not read the workload: {exc.message})",
                {"holding": holding} if holding else {},
            )
        if holding:  # the ones the wait judged: a Pod no ReplicaSet of it owns holds nothing
            pods = [pod for pod in pods if pod_names([pod])[0] in holding]
        now = clock.utc_now()
        message, details = explain(
            deployment,
            replicasets,
            pods,
            node.warning_events(pid.namespace),
            now=now,
            say_pods=False,
        )
        context, _, _ = message.partition(" | next step: ")
        step = wait_for_pods_command(pods, pid.namespace, now) if pods else details.get("nextStep")
        details["nextStep"] = step
        if holding:
            details["holding"] = holding
        return Timeout(
            f"pods of {pid} still present after {node.config.timeout:g}s: "
            f"{stop_headline(deployment, pods, now)} | {context} | next step: {step}",
            details,
        )

    try:
        final = watch_workload(
            node.runner,
            pid,
            commands.wait_watches(pid.name, selector),
            wait_budget(node.config.timeout, node.config.started),
            judge,
            lambda suspect: None,  # stop suspects no failure
            on_timeout,
            awaited=f"the Pods of {pid} to go",
            by_hand=commands.pods_gone(selector, node.config.timeout),
        )
    except Forbidden as exc:
        left = f"deployment {pid} has spec.replicas 0, its Pods' end not awaited"
        raise after_write(exc, pid, "stop", left) from exc
    assert final is not None  # stop_verdict raises NotFound on a deletion
    return build_snapshot(final, [], [])


def delete(
    node: Workloads, provider_id: str, container_id: str | None = None
) -> DeleteResult | DryRunPlan:
    """Foreground-delete the Deployment: Kubernetes garbage-collects ReplicaSets and Pods.

    The delete selects on Manager's labels and the name, so the API server's list decides
    ownership in the call itself; the read before it keeps the uid, which tells a
    Deployment re-created meanwhile (Conflict) from a delete answered by a false 404
    (Unavailable).
    """
    pid = parse_provider_id(provider_id)
    owner = owner_labels(container_id, node.config.node_id)
    delete = commands.delete_owned(pid.name, owner, node.config.timeout)
    deployment = node.get_deployment(pid)
    if deployment is not None:
        check_ownership(deployment, container_id=container_id, node_id=node.config.node_id)
    if node.config.dry_run:
        get = plans.Step(commands.get_deployment(pid.name), absent_ok=True)
        if deployment is None:
            return plans.build(node.runner, get, namespace=pid.namespace)
        note = "if it deletes nothing: get deployments --field-selector metadata.name=NAME"
        return plans.build(node.runner, get, (delete, note), namespace=pid.namespace)
    if deployment is None:
        return DeleteResult(provider_id=str(pid), deleted=False, already_missing=True)
    selector = deployment_selector(deployment)
    try:
        with progress.awaiting(f"deletion of {pid} and its Pods", node.config.timeout):
            result = node.runner.run(
                delete,
                namespace=pid.namespace,
                timeout=process_bound(node.config.timeout),
                request_timeout=False,
            )
    except NotFound as exc:
        # The DELETE was answered 404: deleted by another job just now, or a 404 that is
        # not the truth. Look, by list (not the path that answered 404).
        problem = not_deleted(pid, node.find_deployment(pid), uid_of(deployment))
        if problem is not None:
            raise problem from exc
        return DeleteResult(provider_id=str(pid), deleted=False, already_missing=True)
    except Timeout as exc:
        if exc.details.get("writeSent") is False:
            raise  # stopped before its DELETE left (a silent API): nothing was deleted
        # kubectl waits for the uid it deleted: maybe a Deployment re-created meanwhile.
        try:
            current = node.find_deployment(pid)
        except AdapterError:
            raise exc from None  # it says whether the DELETE was sent (``kubectl/writes``)
        if current is not None and uid_of(current) != uid_of(deployment):
            raise not_deleted(pid, current, uid_of(deployment)) or exc from exc
        message, details = node.explainer(pid.namespace, pid.name, selector)()
        sent: dict[str, Any] = {
            key: exc.details[key] for key in ("writeSent", "writeAnswer") if key in exc.details
        }
        raise Timeout(f"deletion of {pid} not finished: {message}", {**details, **sent}) from exc
    if f'"{pid.name}" deleted' in result.stdout:
        # kubectl deleted it and waited (by uid) until it was gone.
        return DeleteResult(provider_id=str(pid), deleted=True, already_missing=False)
    # Nothing deleted: the list found none (deleted, or relabelled, meanwhile).
    problem = not_deleted(pid, node.find_deployment(pid), uid_of(deployment))
    if problem is not None:
        raise problem
    return DeleteResult(provider_id=str(pid), deleted=False, already_missing=True)


def _quietly(judge: Any) -> bool:
    """A judge's verdict for a plan: an error it would raise means a wait would run."""
    try:
        return bool(judge())
    except AdapterError:
        return False
