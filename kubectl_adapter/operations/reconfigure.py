"""reconfigure: re-apply the Pod template to exactly the Deployment read, then wait."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ..contract.errors import AdapterError, Conflict, InvalidInput
from ..contract.models import DryRunPlan, Snapshot
from ..contract.naming import (
    ROLLBACK_ANNOTATION,
    ProviderId,
    deployment_selector,
)
from ..contract.spec import ContainerSpec
from ..kubectl import commands
from ..rules import clock
from ..rules.drift import drift, rollback_fields
from ..rules.managed_fields import applied_at
from ..rules.ownership import check_identity, check_ownership
from ..rules.races import changed_under_apply, precondition, rollout_event, uid_of
from ..rules.render import render_manifest
from ..rules.restore import restore_patch, taken_back
from ..rules.rollback_mark import mark, revision_of
from ..rules.snapshots import build_snapshot
from ..rules.status import desired_replicas
from . import awaited, plans
from .waits import Wait
from .workload import Workloads
from .write_first import Write

# Reconfigure re-reads and applies again when only the resourceVersion moved on (a status
# update, a scale) between its read and its apply; a Deployment that keeps changing faster
# than that is reported as a Conflict.
APPLY_ATTEMPTS = 3


class _Steps(NamedTuple):
    """reconfigure's commands in the order they run: the read, the wait's watches (only
    when it runs: a stopped workload's reconfigure has no rollout to wait for), the apply,
    and the patch that takes back what another manager added (when the read shows some)."""

    get: plans.Step
    watch: plans.Step | None
    apply: plans.Step
    restore: plans.Step | None

    def shown(self) -> list[plans.Step]:
        return [step for step in self if step is not None]


def _steps(workloads: Workloads, provider_id: ProviderId, before: dict[str, Any]) -> _Steps:
    name = provider_id.name
    watch = None
    if desired_replicas(before) != 0:
        by_hand = commands.rollout_status(name, workloads.config.timeout)
        watch = plans.watch_step(
            name,
            deployment_selector(before),
            by_hand,
            "unless the apply shows the rollout complete",
        )
    return _Steps(
        plans.Step(commands.get_deployment(name)),
        watch,
        plans.Step(commands.apply_read_back()),
        _restore_step(name, before),
    )


def reconfigure(
    workloads: Workloads,
    provider_id: ProviderId,
    spec: ContainerSpec,
    *,
    rollback_on_failure: bool = False,
) -> Snapshot | DryRunPlan:
    """Re-apply the Pod template from ``spec``; same Deployment, replicas untouched."""
    if spec.hostname != provider_id.name:
        raise InvalidInput(
            f"spec hostname {spec.hostname!r} differs from the provider ID's name "
            f"{provider_id.name!r}; identity cannot change on reconfigure",
            {"field": "hostname", "spec": spec.hostname, "providerId": str(provider_id)},
        )
    read = workloads.require_deployment(provider_id)
    check_reconfigurable(workloads, read, spec)
    precondition(read)  # a read without uid or resourceVersion pins nothing: said before any watch
    selector = deployment_selector(read)
    steps = _steps(workloads, provider_id, read)
    if workloads.config.dry_run:
        return plans.build(
            workloads.runner,
            *steps.shown(),
            namespace=provider_id.namespace,
            manifest=render_manifest(spec, provider_id.namespace, precondition(read)),
        )
    applied: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    def apply() -> Wait | dict[str, Any]:
        before, after = apply_pinned(workloads, provider_id, spec, read, steps.apply.args)
        after = restore(workloads, provider_id, after)
        applied["made"] = (before, after)
        if desired_replicas(after) == 0:  # a stopped workload's reconfigure does not wait
            return after
        return awaited.rollout(
            workloads, provider_id, selector, uid_of(before), "reconfigure", after
        )

    wait: Wait | None = None
    write: Write | None = None
    final: dict[str, Any] = {}
    if steps.watch is None:
        made = apply()
        wait = None if isinstance(made, dict) else made
    else:
        left = f"deployment {provider_id} has the new Pod template, its rollout not awaited"
        write = Write("reconfigure", provider_id, apply, left)
    if wait is not None or write is not None:
        try:
            final = awaited.rolled_out(workloads, provider_id, selector, wait=wait, write=write)
        except AdapterError as exc:
            failed = exc.type in ("RolloutFailed", "Timeout") and "made" in applied
            if rollback_on_failure and failed:
                raise rollback(workloads, provider_id, selector, exc) from exc
            raise
    before, after = applied["made"]
    if desired_replicas(after) == 0:
        return _saying_restored(stopped_answer(provider_id, uid_of(before), after), before)
    # The Deployment the wait ended on: "1/1 available" with the new template; no read for
    # the Pod IP (``status`` and ``network`` give it).
    return _saying_restored(build_snapshot(final, [], []), before)


def stopped_answer(provider_id: ProviderId, uid: str | None, applied: dict[str, Any]) -> Snapshot:
    """A stopped Deployment's snapshot from what the apply (or restore patch) printed, with no
    wait: there is no Pod to roll out, so the new template has nothing to wait for until a
    start, whose own wait rolls it out. The apply was pinned to the uid and resourceVersion
    read, so it changed exactly that Deployment; what it printed is judged as the wait's
    first event would be (being deleted: NotFound). A delete, start or replacement after the
    apply is another job's, after this one: the answer says the Deployment as this one left
    it. Its ``observedGeneration`` is the controller's, which may not have seen the new
    generation yet."""
    rollout_event(provider_id, "ADDED", applied, uid, "reconfigure")
    return build_snapshot(applied, [], [])


def restore(
    workloads: Workloads, provider_id: ProviderId, applied: dict[str, Any]
) -> dict[str, Any]:
    """Remove what another manager added and the apply left (one ``kubectl patch``, only when
    there is something); returns the Deployment as it is then."""
    patch = restore_patch(applied, drift(applied))
    if patch is None:
        return applied
    text = json.dumps(patch, separators=(",", ":"), sort_keys=True)
    patched = workloads.runner.run_json(
        commands.restore(provider_id.name, text), namespace=provider_id.namespace
    )
    return patched if isinstance(patched, dict) else applied


def _restore_step(name: str, before: dict[str, Any]) -> plans.Step | None:
    """The patch step, when the Deployment read shows fields another manager added (the real
    run decides from the applied Deployment, which can only show fewer)."""
    patch = restore_patch(before, drift(before))
    if patch is None:
        return None
    text = json.dumps(patch, separators=(",", ":"), sort_keys=True)
    return plans.Step(commands.restore(name, text), "takes back what another manager added")


def _saying_restored(snapshot: Snapshot, before: dict[str, Any]) -> Snapshot:
    """The snapshot, with the changes reconfigure took back in ``drift.restored``: those the
    Deployment read before showed and the snapshot's own drift no longer does."""
    from ..contract.models import DriftChange

    left = [(change.what, change.path) for change in snapshot.drift.changes]
    back = taken_back(drift(before), left)
    snapshot.drift.restored = [DriftChange.model_validate(doc) for doc in back]
    return snapshot


def check_reconfigurable(
    workloads: Workloads, deployment: dict[str, Any], spec: ContainerSpec
) -> None:
    check_ownership(deployment, node_id=workloads.config.node_id)
    check_identity(deployment, spec.container_id, spec.node_id)
    # A paused Deployment (Manager never pauses) is drift like any other: the restore patch
    # after the apply takes the pause back, so the new template rolls out. Were it left
    # paused, the wait's first look would say so (RolloutFailed), not its --timeout.


def apply_pinned(
    workloads: Workloads,
    provider_id: ProviderId,
    spec: ContainerSpec,
    read: dict[str, Any],
    apply: list[str],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Apply ``spec`` to exactly the Deployment read (its uid and resourceVersion in the
    manifest): never a create, never onto a replacement. Returns (read, applied)."""
    uid = uid_of(read)
    refused: Conflict | None = None
    for _ in range(APPLY_ATTEMPTS):
        manifest = render_manifest(spec, provider_id.namespace, precondition(read))
        try:
            applied = workloads.runner.run_json(
                apply, namespace=provider_id.namespace, stdin=manifest
            )
            return read, applied or {}
        except Conflict as exc:
            refused = exc
            current = workloads.get_deployment(provider_id)
            problem = changed_under_apply(provider_id, current, uid)
            if problem is not None:
                problem.details.setdefault("kubectl", exc.details)
                raise problem from exc
            assert current is not None  # changed_under_apply said it exists
            check_reconfigurable(workloads, current, spec)
            read = current
    raise Conflict(
        f"deployment {provider_id} kept changing while reconfigure applied the new spec "
        f"({APPLY_ATTEMPTS} attempts refused by the resourceVersion precondition)",
        {"providerId": str(provider_id), "kubectl": refused.details if refused else {}},
    )


def rollback(
    workloads: Workloads, provider_id: ProviderId, selector: str, failure: AdapterError
) -> AdapterError:
    """Undo the failed rollout, wait for it, and report both outcomes."""
    outcome: dict[str, Any] = {"performed": True}
    failed: str | None = None
    try:
        # -o json prints the Deployment as it was read before the undo: its revision is
        # the one that failed.
        undone = workloads.runner.run_json(
            ["rollout", "undo", f"deployment/{provider_id.name}", "-o", "json"],
            namespace=provider_id.namespace,
        )
        failed = revision_of(undone if isinstance(undone, dict) else None)
        wait = awaited.rollout(workloads, provider_id, selector, None, "reconfigure")
        final = awaited.rolled_out(workloads, provider_id, selector, wait=wait)
        outcome["succeeded"] = True
        now = revision_of(final)
        outcome["message"] = (
            f"rolled back to the previous revision, which is available (revision {now}; "
            f"revision {failed} failed)"
        )
        outcome["marked"] = _mark(workloads, provider_id, failed, final)
    except AdapterError as exc:
        outcome["succeeded"] = False
        outcome["message"] = f"{exc.type}: {exc.message}"
    details = dict(failure.details)
    details["rollback"] = outcome
    said, _, step = failure.message.partition(" | next step: ")
    if outcome.get("succeeded") and failed is not None:
        # The undo replaced the failed revision's Pods: a `kubectl logs`/`describe pod` of
        # one would answer NotFound. What that revision ran is still in its ReplicaSet.
        step = (
            f"kubectl rollout history deployment/{provider_id.name} -n {provider_id.namespace} "
            + (f"--revision={failed}")
        )
        details["nextStep"] = step
    tail = f" | next step: {step}" if step else ""
    return type(failure)(f"{said} | rollback: {outcome['message']}{tail}", details)


def _mark(
    workloads: Workloads, provider_id: ProviderId, failed: str | None, final: dict[str, Any]
) -> bool:
    """Annotate the Deployment with the rollback and the fields it put in place
    (``rollback_mark``, from ``final``: the Deployment the rollback's wait ended on), so drift
    never reports them as a change by kubectl; best effort: False when it could not."""
    at = clock.utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
    value = mark(failed, revision_of(final), at, rollback_fields(final), applied_at(final))
    try:
        workloads.runner.run(
            [
                "annotate",
                f"deployment/{provider_id.name}",
                f"{ROLLBACK_ANNOTATION}={value}",
                "--overwrite",
            ],
            namespace=provider_id.namespace,
        )
    except AdapterError:
        return False
    return True
