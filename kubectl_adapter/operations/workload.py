"""The reads and waits every operation shares, on one node (runner + configuration)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..contract.errors import AdapterError, Conflict, NotFound
from ..contract.naming import ProviderId
from ..kubectl import commands
from ..kubectl.config import ClusterConfig
from ..kubectl.runner import KubectlRunner

if TYPE_CHECKING:
    from .pod_owners import PodOwners

Objects = tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]


class Workloads:
    """One node's Deployments as the operations read and await them."""

    def __init__(self, config: ClusterConfig, runner: KubectlRunner) -> None:
        self.config = config
        self.runner = runner

    def get_deployment(
        self, provider_id: ProviderId, *, absent_ok: bool = True
    ) -> dict[str, Any] | None:
        """The Deployment, or None when the API server says 404 (kubectl's NotFound error).

        Not ``--ignore-not-found``: with it an absent object prints nothing, and so would a
        broken kubectl or wrapper that exits 0, making a running Deployment "missing".
        ``absent_ok``: the operation goes on without it (the ``-v`` log says so)."""
        try:
            found = self.runner.run_json(
                commands.get_deployment(provider_id.name),
                namespace=provider_id.namespace,
                absent_ok=absent_ok,
            )
        except NotFound:
            return None
        return found if isinstance(found, dict) else None

    def require_deployment(self, provider_id: ProviderId) -> dict[str, Any]:
        deployment = self.get_deployment(provider_id, absent_ok=False)
        if deployment is None:
            raise NotFound(f"deployment {provider_id} not found", {"providerId": str(provider_id)})
        return deployment

    def read_owned(self, namespace: str, selector: str) -> tuple[list[Any], list[Any]]:
        """ReplicaSets and Pods of one workload, in one kubectl call."""
        from ..rules.snapshots import split_kinds

        data = self.runner.run_json(commands.owned(selector), namespace=namespace)
        _, replicasets, pods = split_kinds((data or {}).get("items") or [])
        return replicasets, pods

    def read_workload(self, namespace: str, name: str, selector: str) -> Objects:
        """The Deployment with its ReplicaSets and Pods, in one kubectl call."""
        from ..rules.snapshots import split_kinds

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
        from .pod_owners import PodOwners

        def read() -> list[Any]:
            data = self.runner.run_json(commands.replicasets(selector), namespace=namespace)
            return list((data or {}).get("items") or [])

        return PodOwners(read)

    def find_deployment(self, provider_id: ProviderId) -> dict[str, Any] | None:
        """The Deployment by name, as a list: not the object's own path (which may be the
        one that answered a false 404)."""
        data = self.runner.run_json(
            commands.find_deployment(provider_id.name), namespace=provider_id.namespace
        )
        items = (data or {}).get("items") or []
        return items[0] if items else None

    def set_replicas(
        self, provider_id: ProviderId, patch: list[str], container_id: str | None
    ) -> dict[str, Any]:
        """``patch`` (``commands.patch_replicas``: the ownership tests in the same request);
        the Deployment as it is after it. A refused test costs one read, to say whose it is."""
        try:
            patched = self.runner.run_json(
                patch,
                namespace=provider_id.namespace,
                guarded=str(provider_id),  # a 404 or a failed owner test is typed as such
            )
        except Conflict as exc:
            from ..kubectl.classify import owner_test_failed
            from ..rules.ownership import check_ownership

            if owner_test_failed(exc):
                # Nothing was changed; one read says whose the Deployment now is.
                current = self.require_deployment(provider_id)
                check_ownership(current, container_id=container_id, node_id=self.config.node_id)
            raise
        if not isinstance(patched, dict):
            raise NotFound(f"deployment {provider_id} not found", {"providerId": str(provider_id)})
        return patched
