"""create: apply the Deployment (server-side) and wait until its replica is available.

The read that checks ownership (a server-side apply cannot be told "only if these labels"),
the check that the wait's permissions are granted (``preflight``: before anything is written),
the apply, and the wait, whose last event is the answer's snapshot.
"""

from __future__ import annotations

from ..contract.errors import AdapterError
from ..contract.models import DryRunPlan, Snapshot
from ..contract.naming import ProviderId, identity_labels, selector_string
from ..contract.spec import ContainerSpec
from ..kubectl import commands
from ..rules.ownership import check_ownership
from ..rules.races import uid_of
from ..rules.render import render_manifest
from . import plans
from .preflight import check_wait_permissions
from .workload import Workloads


def create(node: Workloads, namespace: str, spec: ContainerSpec) -> Snapshot | DryRunPlan:
    pid = ProviderId(namespace, spec.hostname)
    manifest = render_manifest(spec, namespace)
    selector = selector_string(identity_labels(spec.container_id))
    apply = commands.apply_read_back()
    if node.config.dry_run:
        return plans.build(
            node.runner,
            plans.Step(commands.get_deployment(pid.name), absent_ok=True),
            plans.wait_permissions_step(namespace),
            (apply, ""),
            plans.watch_step(
                pid.name, selector, commands.rollout_status(pid.name, node.config.timeout)
            ),
            namespace=namespace,
            manifest=manifest,
        )
    try:
        existing = node.get_deployment(pid)
        if existing is not None:
            check_ownership(existing, container_id=spec.container_id, node_id=spec.node_id)
        check_wait_permissions(node.runner, pid, "create")
    except AdapterError as exc:
        # Nothing was sent yet: the caller has nothing on the cluster to clean up or keep.
        exc.details["applied"] = False
        raise
    applied = node.runner.run_json(apply, namespace=namespace, stdin=manifest)
    applied = applied if isinstance(applied, dict) else None
    uid = uid_of(applied) or uid_of(existing)
    return node.until_running(pid, selector, uid, "create", applied)
