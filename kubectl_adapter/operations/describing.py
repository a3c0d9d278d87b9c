"""``describe``: one workload with the why behind its status, in two kubectl calls.

The first read is status's (``reading.read_named``: the Deployment with its ReplicaSets and
Pods, by the name label; the same fallback reads for a Deployment without it). The second
is the namespace's events (Normal and Warning, as kubectl describe shows), kept to those
about the workload's own objects. They cannot join the first: a label selector selects no
event (events do not carry the labels of what they are about). A workload that is missing,
not Manager's or unreadable is described by its status alone (no events read).
"""

from __future__ import annotations

from ..contract.description_models import Description
from ..contract.errors import AdapterError
from ..contract.models import DryRunPlan
from ..contract.naming import ProviderId
from ..contract.statuses import Status
from ..kubectl import commands
from ..rules import clock
from ..rules.description import description_document, placeholder_description
from ..rules.ownership import is_managed
from ..rules.snapshots import placeholder_document
from . import plans
from .reading import UNKNOWABLE, read_named
from .workload import Workloads


def describe(workloads: Workloads, provider_id: ProviderId) -> Description:
    """Never raises for an unreachable or refusing API: the snapshot says ``unknown``."""
    try:
        deployment, replicasets, pods, _ = read_named(workloads, provider_id)
    except UNKNOWABLE as exc:
        snapshot = placeholder_document(provider_id, Status.UNKNOWN, f"{exc.type}: {exc.message}")
        return Description.model_validate(placeholder_description(snapshot))
    if deployment is None or not is_managed(deployment):
        message = (
            "deployment does not exist"
            if deployment is None
            else f"a deployment named {provider_id.name} exists but is not managed by Manager"
        )
        snapshot = placeholder_document(provider_id, Status.MISSING, message)
        return Description.model_validate(placeholder_description(snapshot))
    events, problem = [], None
    try:
        data = workloads.runner.run_json(commands.events(), namespace=provider_id.namespace)
        events = list((data or {}).get("items") or [])
    except AdapterError as exc:  # best effort: the workload's own state is what matters
        problem = f"{exc.type}: {exc.message}"
    document = description_document(
        deployment, replicasets, pods, events, now=clock.utc_now(), events_error=problem
    )
    return Description.model_validate(document)


def describe_plan(workloads: Workloads, provider_id: ProviderId) -> DryRunPlan:
    """``--dry-run``: status's reads (those that decide what follows run, as in status's
    plan), then the events read when the workload is a Manager Deployment that exists."""
    read = read_named(workloads, provider_id, plan_only=True)
    steps = list(read.steps)
    if read.deployment is not None and is_managed(read.deployment):
        steps.append(plans.Step(commands.events()))
    return plans.build(workloads.runner, *steps, namespace=provider_id.namespace)
