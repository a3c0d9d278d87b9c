"""start, stop and delete: the replica count and the Deployment's existence.

Each operation's commands are written once, as ``plans.Step``s (``_scale_steps``,
``_delete_steps``): ``--dry-run`` prints them in the order the run makes them, and the run
takes its arguments from the same steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import AdapterError, NotFound, Timeout
from ..contract.naming import ProviderId, deployment_selector, owner_labels
from ..kubectl import commands, progress
from ..kubectl.call import process_bound
from . import awaited, plans
from .waits import Wait, await_, wait_budget
from .workload import Workloads
from .write_first import Write

if TYPE_CHECKING:
    from ..contract.models import DeleteResult, DryRunPlan, Snapshot

# What judges a write's answer is imported once the wait's watches run: they are start's and
# stop's first kubectl (tests/cli/test_startup.py).


class _ScaleSteps(NamedTuple):
    """start's and stop's commands: the wait's watches (started first: the API server
    answering them proves the wait's permissions), then the patch."""

    selector: str  # the Pods' watch's, before the patch shows the Deployment
    watch: plans.Step
    patch: plans.Step


def _scale_steps(
    workloads: Workloads, provider_id: ProviderId, replicas: int, container_id: str | None
) -> _ScaleSteps:
    name, timeout = provider_id.name, workloads.config.timeout
    selector = commands.watch_selector(name, container_id)
    by_hand = (
        commands.rollout_status(name, timeout)
        if replicas
        else commands.pods_gone(selector, timeout)
    )
    owner = owner_labels(container_id, workloads.config.node_id)
    patch = plans.Step(commands.patch_replicas(name, replicas, owner))
    return _ScaleSteps(selector, plans.watch_step(name, selector, by_hand), patch)


def _plan(workloads: Workloads, provider_id: ProviderId, *steps: plans.Step) -> DryRunPlan:
    return plans.build(workloads.runner, *steps, namespace=provider_id.namespace)


def start(
    workloads: Workloads, provider_id: ProviderId, container_id: str | None = None
) -> Snapshot | DryRunPlan:
    """Scale to 1 (ownership tested in the same request) and wait until available."""
    steps = _scale_steps(workloads, provider_id, 1, container_id)
    if workloads.config.dry_run:
        return _plan(workloads, provider_id, steps.watch, steps.patch)
    left = f"deployment {provider_id} has spec.replicas 1, its rollout not awaited"
    uid: list[str | None] = []

    def scale() -> Wait:
        from ..rules.races import uid_of

        patched = workloads.set_replicas(provider_id, steps.patch.args, container_id)
        uid.append(uid_of(patched))
        selector = awaited.pods_selector(patched, steps.selector)
        return awaited.rollout(workloads, provider_id, selector, uid[0], "start", patched)

    write = Write("start", provider_id, scale, left)
    final = awaited.rolled_out(workloads, provider_id, steps.selector, write=write)
    return awaited.running(provider_id, final, uid[0], "start")


def stop(
    workloads: Workloads, provider_id: ProviderId, container_id: str | None = None
) -> Snapshot | DryRunPlan:
    """Scale to 0 (ownership tested in the same request) and wait until no Pod the
    Deployment owns is live. A stop run again (after a Timeout) is no different: the Pods'
    watch shows a Pod the first one left, and it is awaited."""
    steps = _scale_steps(workloads, provider_id, 0, container_id)
    if workloads.config.dry_run:
        return _plan(workloads, provider_id, steps.watch, steps.patch)
    left = f"deployment {provider_id} has spec.replicas 0, its Pods' end not awaited"

    def scale() -> Wait:
        from ..rules.races import uid_of

        patched = workloads.set_replicas(provider_id, steps.patch.args, container_id)
        selector = awaited.pods_selector(patched, steps.selector)
        return awaited.pods_gone(workloads, provider_id, selector, uid_of(patched), patched)

    config = workloads.config
    final = await_(
        workloads.runner,
        provider_id.namespace,
        wait_budget(config.timeout, config.started),
        None,
        Write("stop", provider_id, scale, left),
        watches=[steps.watch.args, *steps.watch.beside],
        by_hand=steps.watch.by_hand,
        awaited=f"the Pods of {provider_id} to go",
    )
    assert final is not None  # stop_verdict raises NotFound on a deletion
    from ..rules.snapshots import build_snapshot

    return build_snapshot(final, [], [])


class _DeleteSteps(NamedTuple):
    get: plans.Step
    delete: plans.Step


def _delete_steps(
    workloads: Workloads, provider_id: ProviderId, container_id: str | None
) -> _DeleteSteps:
    owner = owner_labels(container_id, workloads.config.node_id)
    get = plans.Step(commands.get_deployment(provider_id.name), absent_ok=True)
    delete = commands.delete_owned(provider_id.name, owner, workloads.config.timeout)
    note = "if it deletes nothing: get deployments --field-selector metadata.name=NAME"
    return _DeleteSteps(get, plans.Step(delete, note))


def delete(
    workloads: Workloads, provider_id: ProviderId, container_id: str | None = None
) -> DeleteResult | DryRunPlan:
    """Foreground-delete the Deployment: Kubernetes garbage-collects ReplicaSets and Pods.

    The delete selects on Manager's labels and the name, so the API server's list decides
    ownership in the call itself; the read before it keeps the uid, which tells a
    Deployment re-created meanwhile (Conflict) from a delete answered by a false 404
    (Unavailable).
    """
    from ..contract.models import DeleteResult
    from ..rules.ownership import check_ownership
    from ..rules.races import not_deleted, uid_of

    steps = _delete_steps(workloads, provider_id, container_id)
    deployment = workloads.get_deployment(provider_id)
    if deployment is not None:
        check_ownership(deployment, container_id=container_id, node_id=workloads.config.node_id)
    if workloads.config.dry_run:
        shown = [steps.get] if deployment is None else [steps.get, steps.delete]
        return _plan(workloads, provider_id, *shown)
    if deployment is None:
        return DeleteResult(provider_id=str(provider_id), deleted=False, already_missing=True)
    try:
        with progress.awaiting(f"deletion of {provider_id} and its Pods", workloads.config.timeout):
            result = workloads.runner.run(
                steps.delete.args,
                namespace=provider_id.namespace,
                timeout=process_bound(workloads.config.timeout),
                request_timeout=False,
            )
    except NotFound as exc:
        # The DELETE was answered 404: deleted by another job just now, or a 404 that is
        # not the truth. Look, by list (not the path that answered 404).
        problem = not_deleted(
            provider_id, workloads.find_deployment(provider_id), uid_of(deployment)
        )
        if problem is not None:
            raise problem from exc
        return DeleteResult(provider_id=str(provider_id), deleted=False, already_missing=True)
    except Timeout as exc:
        said = _delete_timed_out(workloads, provider_id, deployment, exc)
        if said is exc:
            raise
        raise said from exc
    if f'"{provider_id.name}" deleted' in result.stdout:
        # kubectl deleted it and waited (by uid) until it was gone.
        return DeleteResult(provider_id=str(provider_id), deleted=True, already_missing=False)
    # Nothing deleted: the list found none (deleted, or relabelled, meanwhile).
    problem = not_deleted(provider_id, workloads.find_deployment(provider_id), uid_of(deployment))
    if problem is not None:
        raise problem
    return DeleteResult(provider_id=str(provider_id), deleted=False, already_missing=True)


def _delete_timed_out(
    workloads: Workloads, provider_id: ProviderId, deployment: dict[str, Any], exc: Timeout
) -> AdapterError:
    """What a delete that ran out of time says: nothing, when it stopped before its DELETE
    left (a silent API); a Deployment re-created meanwhile; else what is left of it."""
    from ..rules.races import not_deleted, uid_of

    if exc.details.get("writeSent") is False:
        return exc
    # kubectl waits for the uid it deleted: maybe a Deployment re-created meanwhile.
    try:
        current = workloads.find_deployment(provider_id)
    except AdapterError:
        return exc  # it says whether the DELETE was sent (``kubectl/writes``)
    if current is not None and uid_of(current) != uid_of(deployment):
        return not_deleted(provider_id, current, uid_of(deployment)) or exc
    selector = deployment_selector(deployment)
    explain = workloads.explainer(provider_id.namespace, provider_id.name, selector)
    message, details = explain()
    sent: dict[str, Any] = {
        key: exc.details[key] for key in ("writeSent", "writeAnswer") if key in exc.details
    }
    return Timeout(f"deletion of {provider_id} not finished: {message}", {**details, **sent})
