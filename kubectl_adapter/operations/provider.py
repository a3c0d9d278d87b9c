"""Manager's Kubernetes provider: each operation composes the runner and the pure rules."""

from __future__ import annotations

import builtins
import copy
from time import monotonic
from typing import Any

from ..contract.errors import (
    AdapterError,
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Timeout,
    Unauthorized,
    Unavailable,
)
from ..contract.models import (
    CheckResult,
    DeleteResult,
    DryRunPlan,
    NetworkInfo,
    NodeInfo,
    Snapshot,
)
from ..contract.naming import (
    ProviderId,
    deployment_selector,
    identity_labels,
    parse_provider_id,
    selector_string,
)
from ..contract.spec import ContainerSpec
from ..kubectl import commands
from ..kubectl.config import ClusterConfig
from ..kubectl.runner import KubectlRunner, process_bound
from ..rules.ownership import check_identity, check_ownership, is_managed
from ..rules.pods import current_ready_pod, pod_ip
from ..rules.races import (
    changed_under_apply,
    not_deleted,
    not_running,
    precondition,
    stop_interrupted,
    uid_of,
)
from ..rules.render import render_manifest
from ..rules.snapshots import build_snapshot, placeholder_snapshot, split_kinds
from ..rules.status import Status, desired_replicas
from . import plans
from .waits import SLICE_SECONDS, wait_rollout

# The questions whose honest answer is "unknown" rather than an error (status rule 1).
UNKNOWABLE = (Unavailable, Unauthorized, Forbidden, Timeout)

Objects = tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]

# Reconfigure re-reads and applies again when only the resourceVersion moved on (a status
# update, a scale) between its read and its apply; a Deployment that keeps changing faster
# than that is reported as a Conflict.
APPLY_ATTEMPTS = 3


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
        found = self.runner.run_json(commands.get_deployment(pid.name), namespace=pid.namespace)
        return found if isinstance(found, dict) else None

    def _require_deployment(self, pid: ProviderId) -> dict[str, Any]:
        deployment = self._get_deployment(pid)
        if deployment is None:
            raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
        return deployment

    def _read_owned(self, namespace: str, selector: str) -> tuple[list[Any], list[Any]]:
        """ReplicaSets and Pods of one workload, in one kubectl call."""
        data = self.runner.run_json(commands.owned(selector), namespace=namespace)
        _, replicasets, pods = split_kinds((data or {}).get("items") or [])
        return replicasets, pods

    def _read_workload(self, namespace: str, name: str, selector: str) -> Objects:
        """The Deployment with its ReplicaSets and Pods, in one kubectl call."""
        data = self.runner.run_json(commands.workload(selector), namespace=namespace)
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
            from ..rules.diagnostics import explain as build

            try:
                deployment, replicasets, pods = self._read_workload(namespace, name, selector)
            except AdapterError as exc:
                return f"(could not read the workload: {exc.message})", {}
            return build(deployment, replicasets, pods, self._warning_events(namespace))

        return explain

    def _wait(self, namespace: str, name: str, selector: str) -> None:
        def read() -> Objects:
            objects = self._read_workload(namespace, name, selector)
            if objects[0] is None:  # deleted between two slices: by another job
                raise NotFound(
                    f"deployment {namespace}/{name} was deleted during the wait",
                    {"providerId": f"{namespace}/{name}"},
                )
            return objects

        wait_rollout(
            self.runner,
            namespace,
            name,
            self.config.timeout,
            read,
            self._explainer(namespace, name, selector),
        )

    def _snapshot_after(self, namespace: str, name: str, selector: str) -> Snapshot:
        deployment, replicasets, pods = self._read_workload(namespace, name, selector)
        pid = ProviderId(namespace, name)
        if deployment is None:
            return placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
        return build_snapshot(deployment, replicasets, pods)

    def _until_running(
        self, pid: ProviderId, selector: str, uid: str | None, verb: str
    ) -> Snapshot:
        """Wait for the rollout, then read: success means the container is running.

        Another job may have stopped, deleted or replaced the Deployment meanwhile; a
        rollout of 0 replicas "completes" at once, so the final read decides (``races``).
        """
        try:
            self._wait(pid.namespace, pid.name, selector)
        except NotFound as exc:  # kubectl: "object has been deleted" / "not found"
            raise NotFound(
                f"deployment {pid} was deleted by another operation while {verb} waited for it",
                exc.details,
            ) from exc
        deployment, replicasets, pods = self._read_workload(pid.namespace, pid.name, selector)
        snapshot = (
            build_snapshot(deployment, replicasets, pods)
            if deployment is not None
            else placeholder_snapshot(pid, Status.MISSING, "deployment does not exist")
        )
        problem = not_running(pid, deployment, uid, snapshot.status, snapshot.message, verb)
        if problem is not None:
            raise problem
        return snapshot

    # -- dry run -----------------------------------------------------------------------------

    def read_plan(self, command: str, provider_id: str | None = None) -> DryRunPlan:
        """What a read-only command would run (``--dry-run``). For a provider ID the plan
        needs the Deployment's selector, so the first read runs; nothing else does."""
        from .listing import list_args

        if provider_id is not None:
            pid = parse_provider_id(provider_id)
            get: plans.Step = (commands.get_deployment(pid.name), "")
            deployment = self._get_deployment(pid)
            if command == "network":
                if deployment is None:
                    raise NotFound(f"deployment {pid} not found", {"providerId": str(pid)})
                check_ownership(deployment, node_id=self.config.node_id)
            if deployment is None or not is_managed(deployment):
                return plans.build(self.runner, get, namespace=pid.namespace)
            owned = commands.owned(deployment_selector(deployment))
            return plans.build(self.runner, get, (owned, ""), namespace=pid.namespace)
        namespace = self.namespace()
        if command == "list":
            return plans.build(
                self.runner, (list_args(self.config.node_id), ""), namespace=namespace
            )
        if command == "nodes":
            return plans.build(
                self.runner, (["get", "nodes", "-o", "json"], ""), namespace=namespace
            )
        return plans.build(
            self.runner,
            (["version", "-o", "json"], ""),
            (["get", "namespace", namespace, "--ignore-not-found", "-o", "json"], ""),
            (["create", "-f", "-", "-o", "json"], ""),
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
        apply = commands.apply()
        if self.config.dry_run:
            # The selector follows from the spec's container ID: no read is needed.
            return plans.build(
                self.runner,
                (commands.get_deployment(pid.name), ""),
                (apply, ""),
                plans.rollout_step(pid.name, self.config.timeout),
                (commands.workload(selector), ""),
                namespace=namespace,
                manifest=manifest,
            )
        existing = self._get_deployment(pid)
        if existing is not None:
            check_ownership(existing, container_id=spec.container_id, node_id=spec.node_id)
        self.runner.run(apply, namespace=namespace, stdin=manifest)
        return self._until_running(pid, selector, None, "create")

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
        deployment = self._require_deployment(pid)
        check_ownership(deployment, container_id=container_id, node_id=self.config.node_id)
        selector = deployment_selector(deployment)
        scale = desired_replicas(deployment) != 1
        if self.config.dry_run:
            return plans.build(
                self.runner,
                (commands.get_deployment(pid.name), ""),
                *([(commands.scale(pid.name, 1), "")] if scale else []),
                plans.rollout_step(pid.name, self.config.timeout),
                (commands.workload(selector), ""),
                namespace=pid.namespace,
            )
        if scale:
            self.runner.run(commands.scale(pid.name, 1), namespace=pid.namespace)
        return self._until_running(pid, selector, uid_of(deployment), "start")

    def stop(self, provider_id: str, container_id: str | None = None) -> Snapshot | DryRunPlan:
        """Scale to 0 and wait until the pods are gone; the Deployment stays."""
        pid = parse_provider_id(provider_id)
        deployment = self._require_deployment(pid)
        check_ownership(deployment, container_id=container_id, node_id=self.config.node_id)
        selector = deployment_selector(deployment)
        scale = desired_replicas(deployment) != 0
        if self.config.dry_run:
            wait = commands.pods_gone(selector, plans.first_slice(self.config.timeout))
            return plans.build(
                self.runner,
                (commands.get_deployment(pid.name), ""),
                *([(commands.scale(pid.name, 0), "")] if scale else []),
                (wait, plans.slice_note(self.config.timeout, "the Deployment's replicas")),
                namespace=pid.namespace,
            )
        if scale:
            self.runner.run(commands.scale(pid.name, 0), namespace=pid.namespace)
        self._wait_pods_gone(pid, selector, uid_of(deployment))
        stopped = copy.deepcopy(deployment)
        stopped.setdefault("spec", {})["replicas"] = 0
        stopped["status"] = {
            "observedGeneration": deployment.get("status", {}).get("observedGeneration", 0)
        }
        return build_snapshot(stopped, [], [])

    def _wait_pods_gone(self, pid: ProviderId, selector: str, uid: str | None) -> None:
        """``kubectl wait --for=delete`` in slices; between slices one read of the Deployment
        notices a start (or a replacement) racing this stop, whose new pod would otherwise
        hold the wait until ``--timeout``."""
        deadline = monotonic() + self.config.timeout
        while True:
            step = max(1.0, min(deadline - monotonic(), SLICE_SECONDS))
            try:
                self.runner.run(
                    commands.pods_gone(selector, step),
                    namespace=pid.namespace,
                    timeout=process_bound(step),
                    request_timeout=False,
                )
                return
            except Timeout as exc:
                problem = stop_interrupted(pid, self._get_deployment(pid), uid)
                if problem is not None:
                    raise problem from exc
                if monotonic() >= deadline - 0.5:
                    message, details = self._explainer(pid.namespace, pid.name, selector)()
                    raise Timeout(f"pods of {pid} still present: {message}", details) from exc

    def delete(
        self, provider_id: str, container_id: str | None = None
    ) -> DeleteResult | DryRunPlan:
        """Foreground-delete the Deployment: Kubernetes garbage-collects ReplicaSets and Pods."""
        pid = parse_provider_id(provider_id)
        delete = commands.delete_deployment(pid.name, self.config.timeout)
        deployment = self._get_deployment(pid)
        if deployment is not None:
            check_ownership(deployment, container_id=container_id, node_id=self.config.node_id)
        if self.config.dry_run:
            get: plans.Step = (commands.get_deployment(pid.name), "")
            if deployment is None:
                return plans.build(self.runner, get, namespace=pid.namespace)
            confirm: plans.Step = (commands.get_deployment(pid.name), "confirms it is gone")
            return plans.build(self.runner, get, (delete, ""), confirm, namespace=pid.namespace)
        if deployment is None:
            return DeleteResult(provider_id=str(pid), deleted=False, already_missing=True)
        selector = deployment_selector(deployment)
        try:
            self.runner.run(
                delete,
                namespace=pid.namespace,
                timeout=process_bound(self.config.timeout),
                request_timeout=False,
            )
        except Timeout as exc:
            # kubectl waits for whatever now bears the name: maybe a re-created Deployment.
            current = self._get_deployment(pid)
            if current is not None and uid_of(current) != uid_of(deployment):
                raise not_deleted(pid, current, uid_of(deployment)) or exc from exc
            message, details = self._explainer(pid.namespace, pid.name, selector)()
            raise Timeout(f"deletion of {pid} not finished: {message}", details) from exc
        # kubectl exits 0 on a 404 (--ignore-not-found), whoever caused it: look.
        problem = not_deleted(pid, self._get_deployment(pid), uid_of(deployment))
        if problem is not None:
            raise problem
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
        apply = [*commands.apply(), "-o", "json"]
        before = self._require_deployment(pid)
        self._check_reconfigurable(before, spec)
        selector = deployment_selector(before)
        if self.config.dry_run:
            stopped = desired_replicas(before) == 0
            return plans.build(
                self.runner,
                (commands.get_deployment(pid.name), ""),
                (apply, "the manifest carries the uid and resourceVersion just read"),
                plans.rollout_step(
                    pid.name, self.config.timeout, "only if the apply changed the generation"
                ),
                *([] if stopped else [(commands.workload(selector), "")]),
                namespace=pid.namespace,
                manifest=render_manifest(spec, pid.namespace, precondition(before)),
            )
        before, after = self._apply_pinned(pid, spec, before, apply)
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

    def _check_reconfigurable(self, deployment: dict[str, Any], spec: ContainerSpec) -> None:
        check_ownership(deployment, node_id=self.config.node_id)
        check_identity(deployment, spec.container_id, spec.node_id)

    def _apply_pinned(
        self, pid: ProviderId, spec: ContainerSpec, read: dict[str, Any], apply: builtins.list[str]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Apply ``spec`` to exactly the Deployment read (its uid and resourceVersion in the
        manifest): never a create, never onto a replacement. Returns (read, applied)."""
        uid = uid_of(read)
        refused: Conflict | None = None
        for _ in range(APPLY_ATTEMPTS):
            manifest = render_manifest(spec, pid.namespace, precondition(read))
            try:
                applied = self.runner.run_json(apply, namespace=pid.namespace, stdin=manifest)
                return read, applied or {}
            except Conflict as exc:
                refused = exc
                current = self._get_deployment(pid)
                problem = changed_under_apply(pid, current, uid)
                if problem is not None:
                    problem.details.setdefault("kubectl", exc.details)
                    raise problem from exc
                assert current is not None  # changed_under_apply said it exists
                self._check_reconfigurable(current, spec)
                read = current
        raise Conflict(
            f"deployment {pid} kept changing while reconfigure applied the new spec "
            f"({APPLY_ATTEMPTS} attempts refused by the resourceVersion precondition)",
            {"providerId": str(pid), "kubectl": refused.details if refused else {}},
        )

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
