"""``describe``'s document (``Description``) and its parts, beside ``models``' outputs.

Plain classes on ``output_base``, like every output; split from ``models`` so that neither
module passes 400 lines (issue 33). Field names are the wire names ``rules/description.py``
builds.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from .models import Snapshot
from .output_base import Output, field
from .output_base import about as _about


class Condition(Output):
    """A condition of the Deployment or of a Pod, as the API reports it."""

    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    last_transition_time: str | None = None


class ContainerExit(Output):
    """How a container ended (``state.terminated`` or ``lastState.terminated``)."""

    exit_code: int | None = None
    reason: str | None = None
    message: str | None = None
    finished_at: str | None = None


class ContainerState(Output):
    """One container of a Pod: its state with the reason, restarts and its last exit."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {
        "terminated": (ContainerExit, False),
        "last_exit": (ContainerExit, False),
    }
    name: str
    init: bool = field(
        default=False, metadata=_about("an init container (a sidecar when it keeps running)")
    )
    image: str | None = None
    state: Literal["waiting", "running", "terminated", "unknown"]
    reason: str | None = field(
        default=None, metadata=_about("the waiting or terminated state's reason")
    )
    message: str | None = field(
        default=None, metadata=_about("the waiting state's message (e.g. the image pull error)")
    )
    started_at: str | None = None
    terminated: ContainerExit | None = field(
        default=None, metadata=_about("the current state when it is terminated")
    )
    ready: bool = False
    restart_count: int = 0
    last_exit: ContainerExit | None = field(
        default=None, metadata=_about("lastState.terminated: the run before the current one")
    )


class PodDescription(Output):
    """One Pod the Deployment owns (through its ReplicaSets), as ``describe`` shows it."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {
        "containers": (ContainerState, True),
        "conditions": (Condition, True),
    }
    name: str
    replica_set: str | None = None
    current: bool = field(
        default=False, metadata=_about("of the newest ReplicaSet (the revision rolling out)")
    )
    phase: str
    ready: bool = False
    terminating: bool = False
    node: str | None = field(default=None, metadata=_about("spec.nodeName"))
    pod_ip: str | None = None
    created_at: str | None = None
    reason: str | None = field(default=None, metadata=_about("status.reason, e.g. Evicted"))
    message: str | None = None
    containers: list[ContainerState]
    conditions: list[Condition]


class EventSummary(Output):
    """A Warning event about the Deployment, one of its ReplicaSets or one of its Pods."""

    type: str
    reason: str | None = None
    message: str | None = None
    object: str = field(metadata=_about("Kind/name of the object it is about"))
    source: str | None = field(default=None, metadata=_about("the component that reported it"))
    count: int = 1
    first_seen: str | None = None
    last_seen: str | None = None


class EnvVar(Output):
    """One env var as ``kubectl describe`` shows it: its value (shown plainly, as kubectl
    does: Manager's values are not secret references) or where ``valueFrom`` reads it."""

    name: str
    value: str | None = None
    value_from: str | None = field(
        default=None,
        metadata=_about("e.g. secretKeyRef db/password: the reference, never the value"),
    )


class TemplateContainer(Output):
    """A container of the Pod template."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {"env": (EnvVar, True)}
    name: str
    init: bool = False
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[EnvVar] = field(default_factory=list)
    env_from: list[str] = field(
        default_factory=list, metadata=_about("configMapRef/secretRef names: references only")
    )
    requests: dict[str, str] = field(default_factory=dict)
    limits: dict[str, str] = field(default_factory=dict)


class PodTemplate(Output):
    """The Deployment's Pod template: its labels and containers."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {
        "containers": (TemplateContainer, True)
    }
    labels: dict[str, str] = field(default_factory=dict)
    containers: list[TemplateContainer] = field(default_factory=list)


class Revision(Output):
    """One ReplicaSet of the Deployment: a revision of its template."""

    revision: int | None = None
    replica_set: str
    current: bool = False
    image: str | None = None
    replicas: int = 0
    ready_replicas: int = 0
    created_at: str | None = None


class Rollback(Output):
    """What ``reconfigure --rollback-on-failure`` recorded on the Deployment."""

    by: str = "--rollback-on-failure"
    failed_revision: str | None = None
    revision: str = field(metadata=_about("the revision the rollback made"))
    at: str | None = None


class Description(Output):
    """``describe``: the snapshot, and what an operator reads to see why (one screen)."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {
        "snapshot": (Snapshot, False),
        "conditions": (Condition, True),
        "pods": (PodDescription, True),
        "events": (EventSummary, True),
        "template": (PodTemplate, False),
        "revisions": (Revision, True),
        "rollback": (Rollback, False),
    }
    snapshot: Snapshot
    conditions: list[Condition] = field(
        default_factory=list, metadata=_about("the Deployment's conditions")
    )
    replica_set: str | None = field(
        default=None, metadata=_about("the newest ReplicaSet (the current revision)")
    )
    failing: list[str] = field(
        default_factory=list,
        metadata=_about("failures that will not heal by waiting: pod, container, reason"),
    )
    pods: list[PodDescription] = field(default_factory=list)
    events: list[EventSummary] = field(
        default_factory=list,
        metadata=_about(
            "the most recent events (Normal and Warning) about its objects, oldest first"
        ),
    )
    events_error: str | None = field(
        default=None, metadata=_about("why the events could not be read (they are best effort)")
    )
    labels: dict[str, str] = field(default_factory=dict, metadata=_about("the Deployment's"))
    selector: str | None = field(
        default=None, metadata=_about("spec.selector.matchLabels as kubectl -l takes it")
    )
    template: PodTemplate | None = field(
        default=None, metadata=_about("the Pod template the Deployment runs now")
    )
    revisions: list[Revision] = field(
        default_factory=list,
        metadata=_about("its ReplicaSets, newest revision first: the revision history"),
    )
    rollback: Rollback | None = field(
        default=None,
        metadata=_about(
            "set while the rollback by reconfigure --rollback-on-failure holds (Manager has "
            "not applied since): the fields it put back are the adapter's own change, no "
            "drift, and a reconfigure with the same spec re-applies the spec that failed"
        ),
    )
