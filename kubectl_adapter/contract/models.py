"""The JSON contract Manager reads: every CLI output is one of these classes.

Plain classes, so no command imports pydantic (its import alone cost ~70 ms on every command)
nor ``dataclasses`` (with ``inspect``, ~4 ms, and ~4 ms more to generate the classes' code):
``Output`` (``output_base``) reads each class's annotations once and gives it the dataclass
behaviour the outputs use (keyword ``__init__`` with defaults, ``__post_init__``, ``==``,
``repr``), ``field``/``fields``/``MISSING`` as in ``dataclasses``. Python names are
snake_case; ``to_json`` gives the camelCase wire document, and ``model_validate`` reads one
(camelCase or snake_case keys; an unknown key is an error). ``output_models`` derives
pydantic models from these classes, for ``docs/schema/`` only: the output contract is
written once, here."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

# The machinery, re-exported: callers (output_models, tests) read it from here.
from .output_base import MISSING as MISSING
from .output_base import Field as Field
from .output_base import Output as Output
from .output_base import about as _about
from .output_base import field as field
from .output_base import fields as fields
from .output_base import to_camel as to_camel
from .statuses import Status


class DriftChange(Output):
    """One field that differs from what Manager last applied, and who changed it."""

    what: Literal[
        "image",
        "command",
        "env",
        "resources",
        "replicas",
        "paused",
        "container",
        "labels",
        "other",
    ]
    change: Literal["changed", "added", "removed"]
    path: str = field(
        metadata=_about("the field, e.g. spec.template.spec.containers[name=main].image")
    )
    name: str | None = field(
        default=None, metadata=_about("the env var, container, label or resource it is about")
    )
    by: list[str] = field(
        metadata=_about(
            "field managers that set it (managedFields); empty when removed, "
            "as the API server records no owner of a removed field"
        )
    )
    value: str | int | bool | None = field(
        default=None,
        metadata=_about(
            "the live value for image, replicas, paused and labels; never env or command"
        ),
    )
    reconfigure: Literal["restores", "keeps", "refuses"] = field(
        default="restores",
        metadata=_about(
            "what a reconfigure with Manager's spec does about it: restores it (its apply, "
            "or the patch after it), keeps it (no patch can name that field), or refuses to "
            "run until the Deployment's identity labels are restored by hand"
        ),
    )


class Drift(Output):
    """Whether the workload still is what Manager last applied (read from managedFields of
    the same Deployment list/status read: no extra kubectl call)."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {
        "changes": (DriftChange, True),
        "restored": (DriftChange, True),
    }
    state: Literal["in-sync", "drifted", "unknown"]
    changes: list[DriftChange]
    summary: str = field(metadata=_about("one line Manager can show; empty when in sync"))
    restored: list[DriftChange] = field(
        default_factory=list, metadata=_about("reconfigure only: the changes it took back")
    )


class Snapshot(Output):
    """One Manager container as Kubernetes sees it right now.

    ``vmid`` and ``provider_id`` are both ``namespace/name`` so Manager's ``findInSnapshot``
    matches ``Container.containerId``; ``pod_ip`` is ephemeral and never an identity.
    """

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {"drift": (Drift, False)}
    provider_id: str
    vmid: str
    name: str
    namespace: str
    node: str | None = field(metadata=_about("Manager node ID from the node-id label"))
    container_id: str | None
    status: Status
    message: str
    pod_ip: str | None = None
    ipv4_address: str | None = None
    mac_address: None = None
    ephemeral: Literal[True] = True
    image: str | None = None
    cpus: float | None = None
    memory_mb: int | None = None
    replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    updated_replicas: int = 0
    generation: int = 0
    observed_generation: int = 0
    drift: Drift
    pod_node: str | None = field(
        default=None,
        metadata=_about(
            "the Kubernetes node of the current Pod (the Ready one, else the newest); null "
            "when no Pod was read, as in what create, start, stop and reconfigure return"
        ),
    )
    created_at: str | None = field(
        default=None, metadata=_about("the Deployment's creationTimestamp (RFC 3339)")
    )

    def __post_init__(self) -> None:
        self.status = Status(self.status)


class SnapshotList(Output):
    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {"items": (Snapshot, True)}
    items: list[Snapshot]


class NetworkInfo(Output):
    """Networking as Manager's shared jobs see it: no MAC, an ephemeral IP."""

    provider_id: str
    pod_ip: str | None
    ipv4_address: str | None
    mac_address: None = None
    ephemeral: Literal[True] = True
    stable: Literal[False] = False


class DeleteResult(Output):
    provider_id: str
    deleted: bool
    already_missing: bool


class Capabilities(Output):
    """What this provider offers Manager's shared jobs (read these, not the node type)."""

    stable_mac_address: bool = False
    stable_ip_address: bool = False
    vmid: bool = False
    storage: bool = False
    templates: bool = False
    register_netbox: bool = False
    register_dns: bool = False
    pod_ip_ephemeral: bool = True


class Permission(Output):
    verb: str
    group: str
    resource: str
    subresource: str = ""
    allowed: bool | None = None
    reason: str | None = None
    needed_for: list[str]


class CheckResult(Output):
    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {
        "permissions": (Permission, True),
        "capabilities": (Capabilities, False),
    }
    ok: bool
    kubectl: str
    client_version: str | None
    server_version: str | None
    context: str | None
    namespace: str
    namespace_exists: bool | None
    permissions: list[Permission]
    missing_permissions: list[str]
    capabilities: Capabilities
    supported_kubectl: str = field(
        default="", metadata=_about("the kubectl releases that can drive this API server")
    )
    kubectl_problems: list[str] = field(
        default_factory=list, metadata=_about("why this kubectl is not one of them; empty if it is")
    )


class NodeInfo(Output):
    name: str
    ready: bool
    capacity: dict[str, str]
    allocatable: dict[str, str]
    kubelet_version: str | None = None
    # The first InternalIP and ExternalIP of status.addresses; null when the node has none
    # (most cloud and kind nodes have no ExternalIP).
    internal_ip: str | None = None
    external_ip: str | None = None


class NodeList(Output):
    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {"items": (NodeInfo, True)}
    items: list[NodeInfo]


class DryRunPlan(Output):
    dry_run: Literal[True] = True
    commands: list[str]
    manifest: str | None = None


class ErrorBody(Output):
    type: str
    message: str = field(
        metadata=_about(
            "What failed and why, once; a wait's failure continues, after ' | ', with the "
            "context (counts, conditions, other Pods, events) and ' | next step: COMMAND'"
        )
    )
    details: dict[str, Any] = field(
        metadata=_about(
            "What the message says, as data (see docs/cli.md, Errors). A failed wait adds "
            "nextStep: the command an operator runs next (kubectl logs of a container that "
            "exited, kubectl describe pod of one that cannot be pulled, scheduled or "
            "configured, kubectl wait for the Pods a stop left terminating)"
        )
    )


class ErrorOutput(Output):
    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {"error": (ErrorBody, False)}
    error: ErrorBody
