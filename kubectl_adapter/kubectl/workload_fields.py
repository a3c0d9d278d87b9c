"""``list``'s big answer decoded straight into the fields the rules read (msgspec, typed).

``kubectl get deployments,replicasets,pods -o json`` at 5,000 workloads is ~36 MB, of which the
rules read a small part. msgspec decodes it into plain dicts holding only the fields declared
here, checking their types while it decodes (in about half the time ``json.loads`` takes to
build every field), so no separate walk (``shapes``) is needed. Types are those ``shapes``
checks; fields the rules read without a type check are ``Any`` (kept as they are, null too).

The rules read dicts with ``.get`` and defaults, so a field missing here would silently read as
absent: every field any list rule reads (``rules/snapshots.py`` and what it calls) must be
declared. tests/kubectl/test_workload_fields.py proves the documents equal those built from the
full JSON. A document msgspec refuses is looked at again by ``json.loads`` and ``shapes``, which
name the problem (or accept it: a List item of another kind, checked more strictly here).
msgspec (with its imports, ~8 ms) is loaded only for answers big enough to pay for it.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

from .shapes import CONTAINER_STATE


class _Owner(TypedDict, total=False):
    kind: str
    name: str
    uid: str
    controller: Any


class _ManagedField(TypedDict, total=False):
    manager: str
    operation: str
    subresource: str
    fieldsV1: dict[str, Any]


class _MetadataFields(TypedDict, total=False):
    """An object's metadata as the rules read it, its name aside (a List page has none)."""

    namespace: str
    uid: str
    resourceVersion: str
    generation: int
    creationTimestamp: str
    labels: dict[str, str]
    annotations: dict[str, str]
    ownerReferences: list[_Owner]
    managedFields: list[_ManagedField]
    deletionTimestamp: Any
    finalizers: Any


class _Metadata(_MetadataFields, total=False):
    name: Required[str]


class _Condition(TypedDict, total=False):
    type: str
    status: str
    reason: str
    message: str
    lastTransitionTime: Any


class _Resources(TypedDict, total=False):
    limits: dict[str, Any]
    requests: dict[str, Any]


class _Named(TypedDict, total=False):
    name: str


class _Container(TypedDict, total=False):
    name: str
    image: str
    resources: _Resources
    env: list[_Named]
    command: Any


class _InitContainer(TypedDict, total=False):
    name: str
    restartPolicy: str


class _PodSpec(TypedDict, total=False):
    containers: list[_Container]
    initContainers: list[_InitContainer]
    nodeName: str


class _TemplateMetadata(TypedDict, total=False):
    labels: dict[str, str]


class _Template(TypedDict, total=False):
    metadata: _TemplateMetadata
    spec: _PodSpec


class _Selector(TypedDict, total=False):
    matchLabels: dict[str, str]


class _Spec(TypedDict, total=False):
    """A Deployment's spec and a Pod's, in one (List items are of several kinds)."""

    replicas: int
    paused: Any
    selector: _Selector
    template: _Template
    initContainers: list[_InitContainer]
    nodeName: str


class _ContainerStatus(TypedDict, total=False):
    name: str
    # Kept whole and checked after the decode: the rules test a state by its truth
    # (``lastState.terminated``), which pruning could change; they are small.
    state: dict[str, Any]
    lastState: dict[str, Any]
    restartCount: int
    ready: Any


class _Status(TypedDict, total=False):
    """A Deployment's, ReplicaSet's and Pod's status, in one."""

    replicas: int
    readyReplicas: int
    availableReplicas: int
    updatedReplicas: int
    observedGeneration: int
    conditions: list[_Condition]
    phase: str
    podIP: str
    reason: Any
    message: Any
    containerStatuses: list[_ContainerStatus]
    initContainerStatuses: list[_ContainerStatus]


class _Object(TypedDict, total=False):
    kind: Required[str]
    metadata: Required[_Metadata]
    spec: _Spec
    status: _Status


class WorkloadList(TypedDict, total=False):
    kind: str
    items: list[_Object]


# Below this size json.loads + shapes is as quick as importing msgspec.
MSGSPEC_FROM_BYTES = 1 << 20


def decode_workloads(text: bytes | str) -> Any:
    """The List, pruned to the fields the rules read and type-checked; None when it is small
    or msgspec refuses it (the caller then decodes it whole and names any problem)."""
    if len(text) < MSGSPEC_FROM_BYTES:
        return None
    return decode_pruned(text)


def decode_pruned(text: bytes | str) -> Any:
    """msgspec's typed decode, whatever the size; None when it refuses the text."""
    import msgspec

    try:
        data = msgspec.json.decode(text, type=WorkloadList)
    except (msgspec.MsgspecError, RecursionError):
        return None
    kind = data.get("kind", "List")
    if not kind.endswith("List") or not _states_typed(data.get("items", ())):
        return None
    return data


def _states_typed(items: Any) -> bool:
    for item in items:
        status = item.get("status", {})
        for key in ("containerStatuses", "initContainerStatuses"):
            for container in status.get(key, ()):
                for state in ("state", "lastState"):
                    if state in container and CONTAINER_STATE(container[state]) is not None:
                        return False
    return True
