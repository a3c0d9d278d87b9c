"""Manager's Kubernetes provider: the list of Manager's operations on one node.

Each operation's steps live in the module named for it (``create``, ``lifecycle``,
``reconfigure``, ``reading``, ``listing``, ``cluster_checks``); the reads they share live in
``workload``, the wait in ``waits``. This class only binds them to one node's configuration
and runner, and parses each provider ID once (``ProviderId``, never a process ID).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from ..contract.naming import parse_provider_id
from ..kubectl.config import ClusterConfig
from ..kubectl.runner import KubectlRunner
from .workload import Workloads

if TYPE_CHECKING:
    from ..contract.description_models import Description
    from ..contract.models import (
        CheckResult,
        DeleteResult,
        DryRunPlan,
        NetworkInfo,
        NodeInfo,
        Snapshot,
    )
    from ..contract.spec import ContainerSpec

# Each operation's module is imported when it runs: a command loads only its own steps.


class KubernetesProvider:
    """One Manager node (cluster + context + namespace) and the operations Manager calls."""

    def __init__(self, config: ClusterConfig, runner: KubectlRunner | None = None) -> None:
        self.config = config
        self.runner = runner or KubectlRunner(config)
        self.workloads = Workloads(config, self.runner)
        self._namespace: str | None = config.namespace

    def namespace(self) -> str:
        """``-n``, else the context's namespace, else ``default`` (as kubectl decides)."""
        if self._namespace is None:
            self._namespace = self.runner.context_namespace()
        return self._namespace

    def render(self, spec: ContainerSpec) -> str:
        from ..rules.render import render_manifest

        return render_manifest(spec, self.namespace())

    def create(self, spec: ContainerSpec) -> Snapshot | DryRunPlan:
        """Apply the Deployment (server-side) and wait until its replica is available."""
        from . import create

        return create.create(self.workloads, self.namespace(), spec)

    def status(self, provider_id: str) -> Snapshot:
        """Never raises for an unreachable or refusing API: that answer is ``unknown``."""
        from . import reading

        return reading.status(self.workloads, parse_provider_id(provider_id))

    def describe(self, provider_id: str) -> Description:
        """The status with the why behind it: Pods, container states, conditions, events."""
        from . import describing

        return describing.describe(self.workloads, parse_provider_id(provider_id))

    def list(self, node_id: str | None = None) -> builtins.list[Snapshot]:
        """Every Manager workload of this node: one kubectl call, whatever their number."""
        from ..contract.models import Snapshot
        from .listing import list_documents

        node = node_id if node_id is not None else self.config.node_id
        documents = list_documents(self.runner, self.namespace(), node)
        return [Snapshot.model_validate(document) for document in documents]

    def start(self, provider_id: str, container_id: str | None = None) -> Snapshot | DryRunPlan:
        """Scale to 1 and wait until available; a running workload is left alone."""
        from . import lifecycle

        return lifecycle.start(self.workloads, parse_provider_id(provider_id), container_id)

    def stop(self, provider_id: str, container_id: str | None = None) -> Snapshot | DryRunPlan:
        """Scale to 0 and wait until the pods are gone; the Deployment stays."""
        from . import lifecycle

        return lifecycle.stop(self.workloads, parse_provider_id(provider_id), container_id)

    def reconfigure(
        self, provider_id: str, spec: ContainerSpec, *, rollback_on_failure: bool = False
    ) -> Snapshot | DryRunPlan:
        """Re-apply the Pod template from ``spec``; same Deployment, replicas untouched."""
        from . import reconfigure

        return reconfigure.reconfigure(
            self.workloads,
            parse_provider_id(provider_id),
            spec,
            rollback_on_failure=rollback_on_failure,
        )

    def delete(
        self, provider_id: str, container_id: str | None = None
    ) -> DeleteResult | DryRunPlan:
        """Foreground-delete the Deployment: Kubernetes garbage-collects ReplicaSets and Pods."""
        from . import lifecycle

        return lifecycle.delete(self.workloads, parse_provider_id(provider_id), container_id)

    def network(self, provider_id: str) -> NetworkInfo:
        """The current Ready Pod's IP: ephemeral, never an identity."""
        from . import reading

        return reading.network(self.workloads, parse_provider_id(provider_id))

    def check(self) -> CheckResult:
        """kubectl and API reachable, namespace present, and every permission, one by one."""
        from ..kubectl.config import context_in_use
        from .cluster_checks import check_cluster

        # The context kubectl uses, from the kubeconfig when --context is not given (null
        # only when no kubeconfig names one: kubectl then fails, and check with it).
        return check_cluster(self.runner, self.namespace(), context_in_use(self.config))

    def nodes(self) -> builtins.list[NodeInfo]:
        from .cluster_checks import list_nodes

        return list_nodes(self.runner)

    def read_plan(self, command: str, provider_id: str | None = None) -> DryRunPlan:
        """What a read-only command would run (``--dry-run``)."""
        if command == "describe":
            from . import describing

            assert provider_id is not None
            return describing.describe_plan(self.workloads, parse_provider_id(provider_id))
        from . import reading

        if provider_id is None:
            return reading.read_plan(self.workloads, self.namespace(), command)
        return reading.read_plan(self.workloads, None, command, parse_provider_id(provider_id))
