"""create: apply the Deployment (server-side) and wait until its replica is available.

The wait's watches start before the apply: the API server answering them proves the wait's
permissions before anything is written, and the Deployment's, by its name alone (whatever
its labels), lists what the ownership check reads (a server-side apply cannot be told "only
if these labels"), at no process of its own. Then the apply, and the wait, whose last event
is the answer's snapshot. ``_steps`` writes the commands once, for the run and ``--dry-run``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..contract.errors import AdapterError
from ..contract.models import DryRunPlan, Snapshot
from ..contract.naming import ProviderId, identity_labels, selector_string
from ..contract.spec import ContainerSpec
from ..kubectl import commands
from ..rules.ownership import check_ownership
from ..rules.races import uid_of
from ..rules.render import render_manifest
from . import awaited, plans
from .waits import Wait
from .workload import Workloads
from .write_first import Write


class _Steps(NamedTuple):
    watch: plans.Step
    apply: plans.Step


def _steps(workloads: Workloads, provider_id: ProviderId, selector: str) -> _Steps:
    name = provider_id.name
    by_hand = commands.rollout_status(name, workloads.config.timeout)
    return _Steps(
        plans.watch_step(name, selector, by_hand, any_labels=True),
        plans.Step(commands.apply_read_back()),
    )


def create(workloads: Workloads, namespace: str, spec: ContainerSpec) -> Snapshot | DryRunPlan:
    provider_id = ProviderId(namespace, spec.hostname)
    manifest = render_manifest(spec, namespace)
    selector = selector_string(identity_labels(spec.container_id))
    steps = _steps(workloads, provider_id, selector)
    if workloads.config.dry_run:
        return plans.build(workloads.runner, *steps, namespace=namespace, manifest=manifest)
    watches = [steps.watch.args, *steps.watch.beside]
    existing: list[dict[str, Any] | None] = []
    uid: list[str | None] = []
    applying: list[bool] = []

    def check(listed: dict[str, Any] | None) -> None:
        """What the Deployment's watch listed under the name, before the apply."""
        existing.append(listed)
        if listed is not None:
            check_ownership(listed, container_id=spec.container_id, node_id=spec.node_id)

    def apply() -> Wait:
        applying.append(True)
        applied = workloads.runner.run_json(steps.apply.args, namespace=namespace, stdin=manifest)
        applied = applied if isinstance(applied, dict) else None
        uid.append(uid_of(applied) or uid_of(existing[0]))
        return awaited.rollout(workloads, provider_id, selector, uid[0], "create", applied, watches)

    left = f"the Deployment {provider_id} is applied, its rollout not awaited"
    write = Write("create", provider_id, apply, left, check)
    try:
        final = awaited.rolled_out(workloads, provider_id, selector, write=write, watches=watches)
    except AdapterError as exc:
        if not applying:
            # Refused before the apply (the ownership check, a fault of the watches): nothing
            # was sent, the caller has nothing on the cluster to clean up or keep.
            exc.details["applied"] = False
        raise
    return awaited.running(provider_id, final, uid[0], "create")
