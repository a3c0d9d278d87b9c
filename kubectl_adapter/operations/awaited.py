"""The two waits the writes end on, as ``waits.Wait`` descriptions: the rollout (create,
start, reconfigure, a rollback) and the Pods gone (stop).

Each says what ends it (``rules.wait_verdicts`` over the Pods the Deployment owns:
``pod_owners``), what confirms a failure the watches suspect, what a timeout says (the
diagnostics, naming the Pods that held it), and the kubectl command that waits the same way.
``waits.await_`` runs either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..contract.errors import AdapterError, RolloutFailed, Timeout
from ..contract.naming import (
    NAME_LABEL,
    ProviderId,
    deployment_selector,
    name_selector,
)
from ..kubectl import commands
from .waits import Explainer, Wait, await_, wait_budget
from .workload import Workloads
from .write_first import Write

if TYPE_CHECKING:
    from datetime import datetime

    from ..contract.models import Snapshot
    from ..rules.wait_verdicts import Seen, Verdict

# The rules each wait judges with are imported when the wait is described, after the write:
# its watches, a command's first kubectl, start before them (tests/cli/test_startup.py).

Document = dict[str, Any]


def pods_selector(deployment: Document, watching: str) -> str:
    """The selector of a wait's Pods watch: ``watching`` (the one started before the write)
    when every Pod of the Deployment carries it, else the Deployment's own. The name label
    (``naming.name_selector``) is on every Pod of a template that has it; a Deployment
    applied before it existed gets it at its next reconfigure."""
    own = deployment_selector(deployment)
    name = str((deployment.get("metadata") or {}).get("name", ""))
    template = ((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}
    if watching == name_selector(name) and (template.get("labels") or {}).get(NAME_LABEL) == name:
        return watching
    return own


def timed_out(explain: Explainer, timeout: float, workload: str) -> AdapterError:
    """A rollout wait whose bound is spent. A Pod failing by then (crash loop, pull error,
    no Pod can be created) is RolloutFailed: retrying the same spec fails again. Otherwise a
    Timeout: the Pod was still starting, or started and never became ready."""
    message, details = explain()
    failing = details.get("failing") or []
    if failing:
        # The message leads with the failure (``diagnostics.explain``): said once.
        return RolloutFailed(f"rollout of {workload} cannot succeed: {message}", details)
    return Timeout(f"rollout not complete after {timeout:g}s: {message}", details)


def rollout(
    workloads: Workloads,
    provider_id: ProviderId,
    selector: str,
    uid: str | None,
    verb: str,
    start: Document | None = None,
    watches: list[list[str]] | None = None,
) -> Wait:
    """Until the rollout is complete: the Deployment's and its Pods' watches judge every
    change at once (deleted, replaced, stopped, paused, past its progress deadline, a Pod
    that cannot start: ``wait_verdicts.rollout_verdict``). ``watches``: those the write's
    steps started (create's), else ``commands.wait_watches``."""
    from ..rules import clock
    from ..rules.pods import is_live
    from ..rules.races import rollout_event
    from ..rules.selection import select_owned
    from ..rules.status import rollout_check
    from ..rules.wait_verdicts import rollout_verdict
    from .pod_owners import pod_names

    namespace, name = provider_id.namespace, provider_id.name
    explain = workloads.explainer(namespace, name, selector)
    owners = workloads.pod_owners(namespace, selector)

    def verdict(seen: Seen, now: datetime) -> Verdict:
        return rollout_verdict(provider_id, seen, uid, verb, now)

    def judge(seen: Seen, now: datetime) -> Verdict:
        # No read for this: a Pod of another ReplicaSet matters only when it fails, and
        # the read that confirms a failure selects by owner (and teaches ``owners``).
        return owners.judge(verdict, seen, now, read=False)

    def on_timeout() -> AdapterError:
        error = timed_out(explain, workloads.config.timeout, str(provider_id))
        holding = pod_names([pod for pod in owners.holding() if is_live(pod)])
        if holding:
            error.details["holding"] = holding
        return error

    def confirm(suspect: str) -> None:
        """The Pods' watch shows a failure: is it the newest ReplicaSet's? One read of
        the workload says (an old ReplicaSet's Pod failing does not end a rollout)."""
        deployment, replicasets, pods = workloads.read_workload(namespace, name, selector)
        if rollout_event(provider_id, "MODIFIED", deployment, uid, verb):
            return
        assert deployment is not None  # rollout_event raised NotFound otherwise
        owners.learn(deployment, replicasets)
        check = rollout_check(
            deployment, select_owned(deployment, replicasets, pods), now=clock.utc_now()
        )
        if check.failure is not None:
            from ..rules.diagnostics import explain as build

            message, details = build(
                deployment, replicasets, pods, workloads.warning_events(namespace)
            )
            lead = "" if details.get("failing") else f"{check.failure} | "
            raise RolloutFailed(
                f"rollout of {provider_id} cannot succeed: {lead}{message}", details
            )

    return Wait(
        f"rollout of {provider_id}",
        watches or commands.wait_watches(name, selector),
        commands.rollout_status(name, workloads.config.timeout),
        judge,
        on_timeout,
        confirm,
        start,
    )


def pods_gone(
    workloads: Workloads,
    provider_id: ProviderId,
    selector: str,
    uid: str | None,
    start: Document | None = None,
) -> Wait:
    """Until the controller has observed the scale to 0 and no Pod the Deployment owns is
    left (``wait_verdicts.stop_verdict``); a timeout names the Pods that held it."""
    from ..rules.wait_verdicts import holds_stop, stop_verdict
    from .pod_owners import pod_names

    owners = workloads.pod_owners(provider_id.namespace, selector)

    def judge(seen: Seen, now: datetime) -> Verdict:
        return owners.judge(lambda s, _: stop_verdict(provider_id, s, uid), seen, now)

    def on_timeout() -> AdapterError:
        holding = pod_names([pod for pod in owners.holding() if holds_stop(pod)])
        return stop_timed_out(workloads, provider_id, selector, holding)

    return Wait(
        f"the Pods of {provider_id} to go",
        commands.wait_watches(provider_id.name, selector),
        commands.pods_gone(selector, workloads.config.timeout),
        judge,
        on_timeout,
        start=start,
    )


def stop_timed_out(
    workloads: Workloads, provider_id: ProviderId, selector: str, holding: list[str]
) -> AdapterError:
    """What a stop that ran out of time says: what is done (the scale to 0) and what is not
    (the Pods left, terminating since when, in which grace period); the next step follows
    them. ``details.holding`` names them."""
    from ..rules import clock
    from ..rules.diagnostics import explain
    from ..rules.pod_words import stop_headline, wait_for_pods_command
    from .pod_owners import pod_names

    namespace = provider_id.namespace
    try:
        deployment, replicasets, pods = workloads.read_workload(
            namespace, provider_id.name, selector
        )
    except AdapterError as exc:
        return Timeout(
            f"pods of {provider_id} still present: (could not read the workload: {exc.message})",
            {"holding": holding} if holding else {},
        )
    if holding:  # the ones the wait judged: a Pod no ReplicaSet of it owns holds nothing
        pods = [pod for pod in pods if pod_names([pod])[0] in holding]
    now = clock.utc_now()
    events = workloads.warning_events(namespace)
    message, details = explain(deployment, replicasets, pods, events, now=now, say_pods=False)
    context, _, _ = message.partition(" | next step: ")
    step = wait_for_pods_command(pods, namespace, now) if pods else details.get("nextStep")
    details["nextStep"] = step
    if holding:
        details["holding"] = holding
    return Timeout(
        f"pods of {provider_id} still present after {workloads.config.timeout:g}s: "
        f"{stop_headline(deployment, pods, now)} | {context} | next step: {step}",
        details,
    )


def rolled_out(
    workloads: Workloads,
    provider_id: ProviderId,
    selector: str,
    *,
    wait: Wait | None = None,
    write: Write | None = None,
    watches: list[list[str]] | None = None,
) -> Document:
    """Run a rollout wait (``wait``), or start its watches (``watches``, else those of
    ``commands.wait_watches``, the Pods by ``selector``), make ``write`` and wait: the
    Deployment as the wait ended on it. A failure says why, from the diagnostics of the
    workload."""
    config = workloads.config
    name = provider_id.name
    try:
        final = await_(
            workloads.runner,
            provider_id.namespace,
            wait_budget(config.timeout, config.started),
            wait,
            write,
            watches=watches or commands.wait_watches(name, selector),
            by_hand=commands.rollout_status(name, config.timeout),
            awaited=f"rollout of {provider_id}",
        )
    except RolloutFailed as exc:
        if "|" in exc.message:
            raise
        message, details = workloads.explainer(provider_id.namespace, name, selector)()
        details.update(exc.details)
        raise RolloutFailed(f"{exc.message} | {message}", details) from exc
    assert final is not None  # the judge raises NotFound on a deletion
    return final


def running(provider_id: ProviderId, deployment: Document, uid: str | None, verb: str) -> Snapshot:
    """The snapshot of the Deployment a rollout wait ended on, with no read after it: its
    counts say "1/1 available", and the Pod IP is left to ``status``/``network`` (Manager
    never stores it). Another job may have stopped, deleted or replaced the Deployment
    meanwhile; the watch says so as it happens, and ``not_running`` judges that last state
    once more."""
    from ..rules.races import not_running
    from ..rules.snapshots import build_snapshot

    snapshot = build_snapshot(deployment, [], [])
    problem = not_running(provider_id, deployment, uid, snapshot.status, snapshot.message, verb)
    if problem is not None:
        raise problem
    return snapshot
