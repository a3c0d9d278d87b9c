"""The reads and waits every operation shares, on one node (runner + configuration)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..contract.errors import (
    AdapterError,
    Conflict,
    Forbidden,
    NotFound,
    RolloutFailed,
)
from ..contract.models import Snapshot
from ..contract.naming import ProviderId, owner_labels
from ..kubectl import commands
from ..kubectl.classify import owner_test_failed
from ..kubectl.config import ClusterConfig
from ..kubectl.runner import KubectlRunner
from ..rules import clock
from ..rules.ownership import check_ownership
from ..rules.pods import is_live
from ..rules.races import not_running, rollout_event
from ..rules.selection import select_owned
from ..rules.snapshots import build_snapshot, split_kinds
from ..rules.status import rollout_check
from ..rules.wait_verdicts import Seen, Verdict, rollout_verdict
from .pod_owners import PodOwners, pod_names
from .preflight import after_write
from .waits import timed_out, wait_budget, watch_workload

# What a write left when its wait is refused after it (``preflight.after_write``).
WRITTEN = {
    "create": "the Deployment {pid} is applied, its rollout not awaited",
    "start": "deployment {pid} has spec.replicas 1, its rollout not awaited",
    "reconfigure": "deployment {pid} has the new Pod template, its rollout not awaited",
}

Objects = tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]


class Workloads:
    """One node's Deployments as the operations read and await them."""

    def __init__(self, config: ClusterConfig, runner: KubectlRunner) -> None:
        self.config = config
        self.runner = runner

    def get_deployment(self, pid: ProviderId, *, absent_ok: bool = True) -> dict[str, Any] | None:
        """The Deployment, or None when the API server says 404 (kubectl's NotFound error).

        Not ``--ignore-not-found``: with it an absent object prints nothing, and so would a
        broken kubectl or wrapper that exits 0, making a running Deployment "missing".
        ``absent_ok``: the operation goes on without it (the ``-v`` log says so)."""
        try:
            found = self.runner.run_json(
                commands.get_deployment(pid.name), namespace=pid.namespace, absent_ok=absent_ok
            )
        except NotFound:
            return None
        return found if isinstance(found, dict) else None

    def require_deployment(self, pid: ProviderId) -> dict[str, Any]:
        deployment = self.get_deployment(pid, absent_ok=False)
        if deployment is None:
            raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
        return deployment

    def read_owned(self, namespace: str, selector: str) -> tuple[list[Any], list[Any]]:
        """ReplicaSets and Pods of one workload, in one kubectl call."""
        data = self.runner.run_json(commands.owned(selector), namespace=namespace)
        _, replicasets, pods = split_kinds((data or {}).get("items") or [])
        return replicasets, pods

    def read_workload(self, namespace: str, name: str, selector: str) -> Objects:
        """The Deployment with its ReplicaSets and Pods, in one kubectl call."""
        data = self.runner.run_json(commands.workload(selector), namespace=namespace)
        deployments, replicasets, pods = split_kinds((data or {}).get("items") or [])
        deployment = next((d for d in deployments if d["metadata"]["name"] == name), None)
        return deployment, replicasets, pods

    def warning_events(self, namespace: str) -> list[dict[str, Any]]:
        try:
            data = self.runner.run_json(commands.warning_events(), namespace=namespace)
        except AdapterError:
            return []  # Diagnostics are best effort: the original failure is what matters.
        return list((data or {}).get("items") or [])

    def explainer(self, namespace: str, name: str, selector: str) -> Any:
        def explain() -> tuple[str, dict[str, Any]]:
            from ..rules.diagnostics import explain as build

            try:
                deployment, replicasets, pods = self.read_workload(namespace, name, selector)
            except AdapterError as exc:
                return f"(could not read the workload: {exc.message})", {}
            return build(deployment, replicasets, pods, self.warning_events(namespace))

        return explain

    def pod_owners(self, namespace: str, selector: str) -> PodOwners:
        """What tells a wait which of the Pods it watches are the Deployment's."""

        def read() -> list[Any]:
            data = self.runner.run_json(commands.replicasets(selector), namespace=namespace)
            return list((data or {}).get("items") or [])

        return PodOwners(read)

    def find_deployment(self, pid: ProviderId) -> dict[str, Any] | None:
        """The Deployment by name, as a list: not the object's own path (which may be the
        one that answered a false 404)."""
        data = self.runner.run_json(commands.find_deployment(pid.name), namespace=pid.namespace)
        items = (data or {}).get("items") or []
        return items[0] if items else None

    def set_replicas(
        self, pid: ProviderId, replicas: int, container_id: str | None
    ) -> dict[str, Any]:
        """``kubectl patch`` with the ownership tests in the same request; the Deployment as
        it is after the patch. A refused test costs one read, to say whose it is."""
        owner = owner_labels(container_id, self.config.node_id)
        try:
            patched = self.runner.run_json(
                commands.patch_replicas(pid.name, replicas, owner),
                namespace=pid.namespace,
                guarded=str(pid),  # a 404 or a failed owner test is typed as such
            )
        except Conflict as exc:
            if owner_test_failed(exc):
                # Nothing was changed; one read says whose the Deployment now is.
                current = self.require_deployment(pid)
                check_ownership(current, container_id=container_id, node_id=self.config.node_id)
            raise
        if not isinstance(patched, dict):
            raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
        return patched

    def wait(
        self,
        pid: ProviderId,
        selector: str,
        uid: str | None,
        verb: str,
        current: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Until the rollout is complete: the watches of the Deployment and of its Pods
        judge every change at once (deleted, replaced, stopped, paused, past its progress
        deadline, a Pod that cannot start: ``wait_verdicts.rollout_verdict``).

        Returns the Deployment as it was when the rollout completed: the watch event that
        ended the wait, or ``current`` (what the write printed) when it already showed it."""
        explain = self.explainer(pid.namespace, pid.name, selector)

        if current is not None and rollout_event(pid, "ADDED", current, uid, verb):
            return current  # what the write printed is already complete: nothing to wait for

        owners = self.pod_owners(pid.namespace, selector)

        def verdict(seen: Seen, now: datetime) -> Verdict:
            return rollout_verdict(pid, seen, uid, verb, now)

        def judge(seen: Seen, now: datetime) -> Verdict:
            # No read for this: a Pod of another ReplicaSet matters only when it fails, and
            # the read that confirms a failure selects by owner (and teaches ``owners``).
            return owners.judge(verdict, seen, now, read=False)

        def on_timeout() -> AdapterError:
            error = timed_out(explain, self.config.timeout, str(pid))
            holding = pod_names([pod for pod in owners.holding() if is_live(pod)])
            if holding:
                error.details["holding"] = holding
            return error

        def confirm(suspect: str) -> None:
            """The Pods' watch shows a failure: is it the newest ReplicaSet's? One read of
            the workload says (an old ReplicaSet's Pod failing does not end a rollout)."""
            deployment, replicasets, pods = self.read_workload(pid.namespace, pid.name, selector)
            if rollout_event(pid, "MODIFIED", deployment, uid, verb):
                return
            assert deployment is not None  # rollout_event raised NotFound otherwise
            owners.learn(deployment, replicasets)
            check = rollout_check(
                deployment, select_owned(deployment, replicasets, pods), now=clock.utc_now()
            )
            if check.failure is not None:
                from ..rules.diagnostics import explain as build

                message, details = build(
                    deployment, replicasets, pods, self.warning_events(pid.namespace)
                )
                lead = "" if details.get("failing") else f"{check.failure} | "
                raise RolloutFailed(f"rollout of {pid} cannot succeed: {lead}{message}", details)

        try:
            final = watch_workload(
                self.runner,
                pid,
                commands.wait_watches(pid.name, selector),
                wait_budget(self.config.timeout, self.config.started),
                judge,
                confirm,
                on_timeout,
                awaited=f"rollout of {pid}",
                by_hand=commands.rollout_status(pid.name, self.config.timeout),
            )
        except RolloutFailed as exc:
            if "|" in exc.message:
                raise
            message, details = explain()
            details.update(exc.details)
            raise RolloutFailed(f"{exc.message} | {message}", details) from exc
        except Forbidden as exc:
            if verb not in WRITTEN or current is None:
                raise
            raise after_write(exc, pid, verb, WRITTEN[verb].format(pid=pid)) from exc
        assert final is not None  # the judge raises NotFound on a deletion
        return final

    def until_running(
        self,
        pid: ProviderId,
        selector: str,
        uid: str | None,
        verb: str,
        current: dict[str, Any] | None = None,
    ) -> Snapshot:
        """Wait for the rollout: success means the container is running.

        The snapshot is the Deployment the wait ended on, with no read after it: its counts
        say "1/1 available", and the Pod IP is left to ``status``/``network`` (Manager never
        stores it). Another job may have stopped, deleted or replaced the Deployment
        meanwhile; the watch says so as it happens, and ``not_running`` judges that last
        state once more.
        """
        deployment = self.wait(pid, selector, uid, verb, current)
        snapshot = build_snapshot(deployment, [], [])
        problem = not_running(pid, deployment, uid, snapshot.status, snapshot.message, verb)
        if problem is not None:
            raise problem
        return snapshot
