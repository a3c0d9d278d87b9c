"""The JSON contract Manager reads, as pydantic models: the source of ``docs/schema/``.

The CLI never imports this module: it builds and prints ``models`` (plain dataclasses with
the same fields and wire names; ``tests/contract/test_models.py`` keeps the two equal).
Only ``schemas`` imports it, to write the JSON Schemas and to validate documents in tests.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .statuses import Status


class Output(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, nothing unexpected accepted."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        # Schema titles as the wire names ("podIpEphemeral", not "Podipephemeral").
        field_title_generator=lambda name, info: to_camel(name),
    )

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


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
    path: str = Field(description="the field, e.g. spec.template.spec.containers[name=main].image")
    name: str | None = Field(
        default=None, description="the env var, container, label or resource it is about"
    )
    by: list[str] = Field(
        description="field managers that set it (managedFields); empty when removed, "
        "as the API server records no owner of a removed field"
    )
    value: str | int | bool | None = Field(
        default=None,
        description="the live value for image, replicas, paused and labels; never env or command",
    )


class Drift(Output):
    """Whether the workload still is what Manager last applied (read from managedFields of
    the same Deployment list/status read: no extra kubectl call)."""

    state: Literal["in-sync", "drifted", "unknown"]
    changes: list[DriftChange]
    summary: str = Field(description="one line Manager can show; empty when in sync")
    restored: list[DriftChange] = Field(
        default_factory=list,
        description="reconfigure only: the changes it took back",
    )


class Snapshot(Output):
    """One Manager container as Kubernetes sees it right now.

    ``vmid`` and ``provider_id`` are both ``namespace/name`` so Manager's ``findInSnapshot``
    matches ``Container.containerId``; ``pod_ip`` is ephemeral and never an identity.
    """

    provider_id: str
    vmid: str
    name: str
    namespace: str
    node: str | None = Field(description="Manager node ID from the node-id label")
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


class SnapshotList(Output):
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


class NodeInfo(Output):
    name: str
    ready: bool
    capacity: dict[str, str]
    allocatable: dict[str, str]
    kubelet_version: str | None = None


class NodeList(Output):
    items: list[NodeInfo]


class DryRunPlan(Output):
    dry_run: Literal[True] = True
    commands: list[str]
    manifest: str | None = None


class ErrorBody(Output):
    type: str
    message: str
    details: dict[str, Any]


class ErrorOutput(Output):
    error: ErrorBody
