"""The reads and waits every operation shares, on one node (runner + configuration)."""

from __future__ import annotations

from typing import Any

from ..contract.errors import AdapterError, NotFound
from ..contract.models import Snapshot
from ..contract.naming import ProviderId
from ..contract.statuses import Status
from ..kubectl import commands, progress
from ..kubectl.config import ClusterConfig
from ..kubectl.runner import KubectlRunner
from ..rules.races import not_running
from ..rules.snapshots import build_snapshot, placeholder_snapshot, split_kinds
from .waits import wait_rollout

Objects = tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]


class Workloads:
    """One node's Deployments as the operations read and await them."""

    def __init__(self, config: ClusterConfig, runner: KubectlRunner) -> None:
        self.config = config
        self.runner = runner

    def get_deployment(self, pid: ProviderId) -> dict[str, Any] | None:
        """The Deployment, or None when the API server says 404 (kubectl's NotFound error).

        Not ``--ignore-not-found``: with it an absent object prints nothing, and so would a
        broken kubectl or wrapper that exits 0, making a running Deployment "missing"."""
        try:
            found = self.runner.run_json(commands.get_deployment(pid.name), namespace=pid.namespace)
        except NotFound:
            return None
        return found if isinstance(found, dict) else None

    def require_deployment(self, pid: ProviderId) -> dict[str, Any]:
        deployment = self.get_deployment(pid)
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
            data = self.runner.run_json(
                ["get", "events", "--field-selector", "type=Warning", "-o", "json"],
                namespace=namespace,
            )
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

    def wait(self, namespace: str, name: str, selector: str) -> None:
        def read() -> Objects:
            objects = self.read_workload(namespace, name, selector)
            if objects[0] is None:  # deleted between two slices: by another job
                raise NotFound(
                    f"deployment {namespace}/{name} was deleted during the wait",
                    {"providerId": f"{namespace}/{name}"},
                )
            return objects

        with progress.awaiting(f"rollout of {namespace}/{name}", self.config.timeout):
            wait_rollout(
                self.runner,
                namespace,
                name,
                self.config.timeout,
                read,
                self.explainer(namespace, name, selector),
            )

    def snapshot_after(self, namespace: str, name: str, selector: str) -> Snapshot:
        deployment, replicasets, pods = self.read_workload(namespace, name, selector)
        pid = ProviderId(namespace, name)
        if deployment is None:
            return placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
        return build_snapshot(deployment, replicasets, pods)

    def until_running(self, pid: ProviderId, selector: str, uid: str | None, verb: str) -> Snapshot:
        """Wait for the rollout, then read: success means the container is running.

        Another job may have stopped, deleted or replaced the Deployment meanwhile; a
        rollout of 0 replicas "completes" at once, so the final read decides (``races``).
        """
        try:
            self.wait(pid.namespace, pid.name, selector)
        except NotFound as exc:  # kubectl: "object has been deleted" / "not found"
            raise NotFound(
                f"deployment {pid} was deleted by another operation while {verb} waited for it",
                exc.details,
            ) from exc
        deployment, replicasets, pods = self.read_workload(pid.namespace, pid.name, selector)
        snapshot = (
            build_snapshot(deployment, replicasets, pods)
            if deployment is not None
            else placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
        )
        problem = not_running(pid, deployment, uid, snapshot.status, snapshot.message, verb)
        if problem is not None:
            raise problem
        return snapshot
