"""Manager's Kubernetes provider: each operation composes the runner and the pure rules."""

from __future__ import annotations

import builtins
import copy
from typing import Any

from .config import ClusterConfig
from .errors import (
    AdapterError,
    Forbidden,
    InvalidInput,
    NotFound,
    Timeout,
    Unauthorized,
    Unavailable,
)
from .models import (
    CheckResult,
    DeleteResult,
    DryRunPlan,
    NetworkInfo,
    NodeInfo,
    Snapshot,
)
from .naming import (
    FIELD_MANAGER,
    ProviderId,
    deployment_selector,
    identity_labels,
    parse_provider_id,
    selector_string,
)
from .ownership import check_identity, check_ownership, is_managed
from .pods import current_ready_pod, pod_ip
from .render import render_manifest
from .runner import KubectlRunner, process_bound, wait_timeout_args
from .snapshots import build_snapshot, placeholder_snapshot, split_kinds
from .spec import ContainerSpec
from .status import Status, desired_replicas
from .waits import wait_rollout

# The questions whose honest answer is "unknown" rather than an error (status rule 1).
UNKNOWABLE = (Unavailable, Unauthorized, Forbidden, Timeout)

Objects = tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]


class KubernetesProvider:
    """One Manager node (cluster + context + namespace) and the operations Manager calls."""

    def __init__(self, config: ClusterConfig, runner: KubectlRunner | None = None) -> None:
        self.config = config
        self.runner = runner or KubectlRunner(config)
        self._namespace: str | None = config.namespace

    # -- reading -----------------------------------------------------------------------------

    def namespace(self) -> str:
        """``-n``, else the context's namespace, else ``default`` (as kubectl decides)."""
        if self._namespace is None:
            self._namespace = self.runner.context_namespace()
        return self._namespace

    def _get_deployment(self, pid: ProviderId) -> dict[str, Any] | None:
        found = self.runner.run_json(
            ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"],
            namespace=pid.namespace,
        )
        return found if isinstance(found, dict) else None

    def _require_deployment(self, pid: ProviderId) -> dict[str, Any]:
        deployment = self._get_deployment(pid)
        if deployment is None:
            raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
        return deployment

    def _read_owned(self, namespace: str, selector: str) -> tuple[list[Any], list[Any]]:
        """ReplicaSets and Pods of one workload, in one kubectl call."""
        data = self.runner.run_json(
            ["get", "replicasets,pods", "-l", selector, "-o", "json"], namespace=namespace
        )
        _, replicasets, pods = split_kinds((data or {}).get("items") or [])
        return replicasets, pods

    def _read_workload(self, namespace: str, name: str, selector: str) -> Objects:
        """The Deployment with its ReplicaSets and Pods, in one kubectl call."""
        data = self.runner.run_json(
            ["get", "deployments,replicasets,pods", "-l", selector, "-o", "json"],
            namespace=namespace,
        )
        deployments, replicasets, pods = split_kinds((data or {}).get("items") or [])
        deployment = next((d for d in deployments if d["metadata"]["name"] == name), None)
        return deployment, replicasets, pods

    def _warning_events(self, namespace: str) -> list[dict[str, Any]]:
        try:
            data = self.runner.run_json(
                ["get", "events", "--field-selector", "type=Warning", "-o", "json"],
                namespace=namespace,
            )
        except AdapterError:
            return []  # Diagnostics are best effort: the original failure is what matters.
        return list((data or {}).get("items") or [])

    def _explainer(self, namespace: str, name: str, selector: str) -> Any:
        def explain() -> tuple[str, dict[str, Any]]:
            from .diagnostics import explain as build

            try:
                deployment, replicasets, pods = self._read_workload(namespace, name, selector)
            except AdapterError as exc:
                return f"(could not read the workload: {exc.message})", {}
            return build(deployment, replicasets, pods, self._warning_events(namespace))

        return explain

    def _wait(self, namespace: str, name: str, selector: str) -> None:
        wait_rollout(
            self.runner,
            namespace,
            name,
            self.config.timeout,
            lambda: self._read_workload(namespace, name, selector),
            self._explainer(namespace, name, selector),
        )

    def _snapshot_after(self, namespace: str, name: str, selector: str) -> Snapshot:
        deployment, replicasets, pods = self._read_workload(namespace, name, selector)
        pid = ProviderId(namespace, name)
        if deployment is None:
            return placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
        return build_snapshot(deployment, replicasets, pods)

    def _plan(
        self, *commands: list[str], namespace: str, manifest: str | None = None
    ) -> DryRunPlan:
        waits = ("rollout", "wait", "delete")
        shown = [
            self.runner.display(
                self.runner.argv(c, namespace=namespace, request_timeout=c[0] not in waits)
            )
            for c in commands
        ]
        return DryRunPlan(commands=shown, manifest=manifest)

    def read_plan(self, command: str, provider_id: str | None = None) -> DryRunPlan:
        """What a read-only command would run (``--dry-run``): reads run nothing either."""
        from .listing import list_args

        if provider_id is not None:
            pid = parse_provider_id(provider_id)
            namespace = pid.namespace
            owned = ["get", "replicasets,pods", "-l", "SELECTOR-OF-THE-DEPLOYMENT", "-o", "json"]
            get = ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"]
            return self._plan(get, owned, namespace=namespace)
        namespace = self.namespace()
        if command == "list":
            return self._plan(list_args(self.config.node_id), namespace=namespace)
        if command == "nodes":
            return self._plan(["get", "nodes", "-o", "json"], namespace=namespace)
        return self._plan(
            ["version", "-o", "json"],
            ["get", "namespace", namespace, "--ignore-not-found", "-o", "json"],
            ["create", "-f", "-", "-o", "json"],
            namespace=namespace,
        )

    # -- operations --------------------------------------------------------------------------

    def render(self, spec: ContainerSpec) -> str:
        return render_manifest(spec, self.namespace())

    def create(self, spec: ContainerSpec) -> Snapshot | DryRunPlan:
        """Apply the Deployment (server-side) and wait until its replica is available."""
        namespace = self.namespace()
        pid = ProviderId(namespace, spec.hostname)
        manifest = render_manifest(spec, namespace)
        selector = selector_string(identity_labels(spec.container_id))
        apply = self._apply_args()
        if self.config.dry_run:
            return self._plan(
                ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"],
                apply,
                ["rollout", "status", f"deployment/{pid.name}", *self._wait_args()],
                ["get", "deployments,replicasets,pods", "-l", selector, "-o", "json"],
                namespace=namespace,
                manifest=manifest,
            )
        existing = self._get_deployment(pid)
        if existing is not None:
            check_ownership(existing, container_id=spec.container_id, node_id=spec.node_id)
        self.runner.run(apply, namespace=namespace, stdin=manifest)
        self._wait(namespace, pid.name, selector)
        return self._snapshot_after(namespace, pid.name, selector)

    def status(self, provider_id: str) -> Snapshot:
        """Never raises for an unreachable or refusing API: that answer is ``unknown``."""
        pid = parse_provider_id(provider_id)
        try:
            deployment = self._get_deployment(pid)
            if deployment is None:
                return placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
            if not is_managed(deployment):
                return placeholder_snapshot(
                    pid,
                    Status.MISSING,
                    f"a deployment named {pid.name} exists but is not managed by Manager",
                )
            replicasets, pods = self._read_owned(pid.namespace, deployment_selector(deployment))
        except UNKNOWABLE as exc:
            return placeholder_snapshot(pid, Status.UNKNOWN, f"{exc.type}: {exc.message}")
        return build_snapshot(deployment, replicasets, pods)

    def list(self, node_id: str | None = None) -> builtins.list[Snapshot]:
        """Every Manager workload of this node: one kubectl call, whatever their number."""
        from .listing import list_documents

        node = node_id if node_id is not None else self.config.node_id
        documents = list_documents(self.runner, self.namespace(), node)
        return [Snapshot.model_validate(document) for document in documents]

    def start(self, provider_id: str, container_id: str | None = None) -> Snapshot | DryRunPlan:
        """Scale to 1 and wait until available; a running workload is left alone."""
        pid = parse_provider_id(provider_id)
        if self.config.dry_run:
            return self._plan(
                ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"],
                self._scale_args(pid.name, 1),
                ["rollout", "status", f"deployment/{pid.name}", *self._wait_args()],
                namespace=pid.namespace,
            )
        deployment = self._require_deployment(pid)
        check_ownership(deployment, container_id=container_id, node_id=self.config.node_id)
        if desired_replicas(deployment) != 1:
            self.runner.run(self._scale_args(pid.name, 1), namespace=pid.namespace)
        selector = deployment_selector(deployment)
        self._wait(pid.namespace, pid.name, selector)
        return self._snapshot_after(pid.namespace, pid.name, selector)

    def stop(self, provider_id: str, container_id: str | None = None) -> Snapshot | DryRunPlan:
        """Scale to 0 and wait until the pods are gone; the Deployment stays."""
        pid = parse_provider_id(provider_id)
        wait = ["wait", "--for=delete", "pod", "-l", "SELECTOR", *self._wait_args()]
        if self.config.dry_run:
            return self._plan(
                ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"],
                self._scale_args(pid.name, 0),
                wait,
                namespace=pid.namespace,
            )
        deployment = self._require_deployment(pid)
        check_ownership(deployment, container_id=container_id, node_id=self.config.node_id)
        if desired_replicas(deployment) != 0:
            self.runner.run(self._scale_args(pid.name, 0), namespace=pid.namespace)
        selector = deployment_selector(deployment)
        wait[4] = selector
        try:
            self.runner.run(
                wait,
                namespace=pid.namespace,
                timeout=process_bound(self.config.timeout),
                request_timeout=False,
            )
        except Timeout as exc:
            message, details = self._explainer(pid.namespace, pid.name, selector)()
            raise Timeout(f"pods of {pid} still present: {message}", details) from exc
        stopped = copy.deepcopy(deployment)
        stopped.setdefault("spec", {})["replicas"] = 0
        stopped["status"] = {
            "observedGeneration": deployment.get("status", {}).get("observedGeneration", 0)
        }
        return build_snapshot(stopped, [], [])

    def delete(
        self, provider_id: str, container_id: str | None = None
    ) -> DeleteResult | DryRunPlan:
        """Foreground-delete the Deployment: Kubernetes garbage-collects ReplicaSets and Pods."""
        pid = parse_provider_id(provider_id)
        delete = [
            "delete",
            "deployment",
            pid.name,
            "--cascade=foreground",
            "--ignore-not-found",
            "--wait=true",
            *self._wait_args(),
        ]
        if self.config.dry_run:
            return self._plan(
                ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"],
                delete,
                namespace=pid.namespace,
            )
        deployment = self._get_deployment(pid)
        if deployment is None:
            return DeleteResult(provider_id=str(pid), deleted=False, already_missing=True)
        check_ownership(deployment, container_id=container_id, node_id=self.config.node_id)
        selector = deployment_selector(deployment)
        try:
            self.runner.run(
                delete,
                namespace=pid.namespace,
                timeout=process_bound(self.config.timeout),
                request_timeout=False,
            )
        except Timeout as exc:
            message, details = self._explainer(pid.namespace, pid.name, selector)()
            raise Timeout(f"deletion of {pid} not finished: {message}", details) from exc
        return DeleteResult(provider_id=str(pid), deleted=True, already_missing=False)

    def reconfigure(
        self, provider_id: str, spec: ContainerSpec, *, rollback_on_failure: bool = False
    ) -> Snapshot | DryRunPlan:
        """Re-apply the Pod template from ``spec``; same Deployment, replicas untouched."""
        pid = parse_provider_id(provider_id)
        if spec.hostname != pid.name:
            raise InvalidInput(
                f"spec hostname {spec.hostname!r} differs from the provider ID's name "
                f"{pid.name!r}; identity cannot change on reconfigure",
                {"field": "hostname", "spec": spec.hostname, "providerId": str(pid)},
            )
        manifest = render_manifest(spec, pid.namespace)
        apply = [*self._apply_args(), "-o", "json"]
        if self.config.dry_run:
            return self._plan(
                ["get", "deployment", pid.name, "--ignore-not-found", "-o", "json"],
                apply,
                ["rollout", "status", f"deployment/{pid.name}", *self._wait_args()],
                namespace=pid.namespace,
                manifest=manifest,
            )
        before = self._require_deployment(pid)
        check_ownership(before, node_id=self.config.node_id)
        check_identity(before, spec.container_id, spec.node_id)
        after = self.runner.run_json(apply, namespace=pid.namespace, stdin=manifest) or {}
        selector = deployment_selector(before)
        changed = after.get("metadata", {}).get("generation") != before["metadata"].get(
            "generation"
        )
        if changed or before.get("status", {}).get("observedGeneration") != before["metadata"].get(
            "generation"
        ):
            try:
                self._wait(pid.namespace, pid.name, selector)
            except AdapterError as exc:
                if rollback_on_failure and exc.type in ("RolloutFailed", "Timeout"):
                    raise self._rollback(pid, selector, exc) from exc
                raise
        if desired_replicas(after) == 0 and after.get("metadata", {}).get("generation"):
            # Stopped: no pod to read an IP from, and the wait has just confirmed the new
            # generation was observed, so the applied object says all there is (3 calls).
            confirmed = copy.deepcopy(after)
            status = confirmed.setdefault("status", {})
            status["observedGeneration"] = confirmed["metadata"]["generation"]
            return build_snapshot(confirmed, [], [])
        return self._snapshot_after(pid.namespace, pid.name, selector)

    def _rollback(self, pid: ProviderId, selector: str, failure: AdapterError) -> AdapterError:
        """Undo the failed rollout, wait for it, and report both outcomes."""
        outcome: dict[str, Any] = {"performed": True}
        try:
            self.runner.run(["rollout", "undo", f"deployment/{pid.name}"], namespace=pid.namespace)
            self._wait(pid.namespace, pid.name, selector)
            outcome["succeeded"] = True
            outcome["message"] = "rolled back to the previous revision, which is available"
        except AdapterError as exc:
            outcome["succeeded"] = False
            outcome["message"] = f"{exc.type}: {exc.message}"
        details = dict(failure.details)
        details["rollback"] = outcome
        return type(failure)(f"{failure.message} | rollback: {outcome['message']}", details)

    def network(self, provider_id: str) -> NetworkInfo:
        pid = parse_provider_id(provider_id)
        deployment = self._require_deployment(pid)
        check_ownership(deployment, node_id=self.config.node_id)
        replicasets, pods = self._read_owned(pid.namespace, deployment_selector(deployment))
        ip = pod_ip(current_ready_pod(deployment, replicasets, pods))
        return NetworkInfo(provider_id=str(pid), pod_ip=ip, ipv4_address=ip)

    def check(self) -> CheckResult:
        """kubectl and API reachable, namespace present, and every permission, one by one."""
        from .cluster_checks import check_cluster

        return check_cluster(self.runner, self.namespace(), self.config.context)

    def nodes(self) -> builtins.list[NodeInfo]:
        from .cluster_checks import list_nodes

        return list_nodes(self.runner)

    # -- argv pieces -------------------------------------------------------------------------

    def _apply_args(self) -> builtins.list[str]:
        return [
            "apply",
            "--server-side",
            f"--field-manager={FIELD_MANAGER}",
            "--force-conflicts",
            "-f",
            "-",
        ]

    def _scale_args(self, name: str, replicas: int) -> builtins.list[str]:
        # -v=6 makes kubectl log each response: if it is stuck retrying 409 Conflict (it
        # does so for 5 minutes) the process bound ends it and the log says it was a conflict.
        return ["scale", f"deployment/{name}", f"--replicas={replicas}", "-v=6"]

    def _wait_args(self) -> builtins.list[str]:
        return wait_timeout_args(self.config.timeout)
