"""What kubectl's JSON must look like before the pure rules read it.

The status rules, the snapshot builders and the diagnostics read Kubernetes objects with
``.get`` chains and explicit defaults for what the API leaves out. They trust the *types*:
``status`` is an object, ``conditions`` a list of objects, ``name`` a string. kubectl always
prints such JSON, but a wrapper, a plugin or another kubectl build might not; one wrong type
(``{"items": "x"}``) used to surface as an AttributeError traceback. ``run_json`` checks every
output here, once, against the fields the adapter reads (absent fields are fine: the readers
default them), and a mismatch becomes InternalError naming the command.

Checkers return ``None`` or the problem as a path suffix (``.items[3].status is a string,
expected an object``); paths are only built on failure, so a 5,000-workload list costs one
walk over the fields that are read, nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Check = Callable[[Any], str | None]


def _what(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__  # pragma: no cover - json.loads makes nothing else


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f" is {_what(value)}, expected a string"


def _integer(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return None
    return f" is {_what(value)}, expected an integer"


_LEAF_TYPES: dict[Check, type] = {_string: str, _integer: int}
_ABSENT = object()


def _anything(value: Any) -> str | None:
    return None


def _optional(check: Check) -> Check:
    """For fields the API really prints as null (an Event's ``lastTimestamp``)."""

    def optional(value: Any) -> str | None:
        return None if value is None else check(value)

    return optional


def _object(fields: dict[str, Check], required: Sequence[str] = ()) -> Check:
    # The hot path (every object of a big list): leaves are one ``type() is`` test each,
    # without a call; json.loads makes exact types (``type(True) is not int``).
    leaves = [(key, _LEAF_TYPES[sub]) for key, sub in fields.items() if sub in _LEAF_TYPES]
    nested = [(key, sub) for key, sub in fields.items() if sub not in _LEAF_TYPES]

    def check(value: Any) -> str | None:
        if type(value) is not dict:
            return f" is {_what(value)}, expected an object"
        for key in required:
            if key not in value:
                return f".{key} is missing"
        get = value.get
        for key, leaf in leaves:
            item = get(key, _ABSENT)
            if item is not _ABSENT and type(item) is not leaf:
                return f".{key}{fields[key](item)}"
        for key, sub in nested:
            item = get(key, _ABSENT)
            if item is not _ABSENT:
                problem = sub(item)
                if problem is not None:
                    return f".{key}{problem}"
        return None

    return check


def _map(values: Check) -> Check:
    leaf = _LEAF_TYPES.get(values)

    def check(value: Any) -> str | None:
        if type(value) is not dict:
            return f" is {_what(value)}, expected an object"
        if values is _anything:
            return None
        for key, item in value.items():
            if leaf is not None and type(item) is leaf:
                continue
            problem = values(item)
            if problem is not None:
                return f"[{key!r}]{problem}"
        return None

    return check


def _list(items: Check) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, list):
            return f" is {_what(value)}, expected a list"
        for index, item in enumerate(value):
            problem = items(item)
            if problem is not None:
                return f"[{index}]{problem}"
        return None

    return check


# -- the fields the adapter reads, per kind ------------------------------------------------------

_OWNER = _object({"kind": _string, "name": _string, "uid": _string})
_METADATA = _object(
    {
        "name": _string,
        "namespace": _string,
        "uid": _string,
        "resourceVersion": _string,
        "generation": _integer,
        "creationTimestamp": _string,
        "labels": _map(_string),
        "annotations": _map(_string),
        "ownerReferences": _list(_OWNER),
        # Drift reads who set which field (rules/drift.py); fieldsV1 is walked defensively.
        "managedFields": _list(
            _object(
                {
                    "manager": _string,
                    "operation": _string,
                    "subresource": _string,
                    "fieldsV1": _map(_anything),
                }
            )
        ),
    },
    required=("name",),
)
_CONDITIONS = _list(
    _object({"type": _string, "status": _string, "reason": _string, "message": _string})
)
_COUNTS: dict[str, Check] = {
    key: _integer
    for key in (
        "replicas",
        "readyReplicas",
        "availableReplicas",
        "updatedReplicas",
        "observedGeneration",
    )
}
_CONTAINER = _object(
    {
        "name": _string,
        "image": _string,
        "resources": _object({"limits": _map(_anything), "requests": _map(_anything)}),
        "env": _list(_object({"name": _string})),
    }
)
_NAMED = _object({"name": _string, "restartPolicy": _string})
# ``state`` and ``lastState`` hold one of waiting/running/terminated, each an object.
_STATE = _map(
    _object({"reason": _string, "message": _string, "exitCode": _integer, "startedAt": _string})
)
_CONTAINER_STATUS = _object(
    {"name": _string, "state": _STATE, "lastState": _STATE, "restartCount": _integer}
)
CONTAINER_STATE = _STATE  # also checked after list's typed decode (workload_fields)

DEPLOYMENT = _object(
    {
        "metadata": _METADATA,
        "spec": _object(
            {
                "replicas": _integer,
                "selector": _object({"matchLabels": _map(_string)}),
                "template": _object(
                    {
                        "metadata": _object({"labels": _map(_string)}),
                        "spec": _object(
                            {"containers": _list(_CONTAINER), "initContainers": _list(_NAMED)}
                        ),
                    }
                ),
            }
        ),
        "status": _object({**_COUNTS, "conditions": _CONDITIONS}),
    },
    required=("metadata",),
)
REPLICASET = _object({"metadata": _METADATA, "status": _object(_COUNTS)}, required=("metadata",))
POD = _object(
    {
        "metadata": _METADATA,
        "spec": _object({"initContainers": _list(_NAMED), "nodeName": _string}),
        "status": _object(
            {
                "phase": _string,
                "podIP": _string,
                "conditions": _CONDITIONS,
                "containerStatuses": _list(_CONTAINER_STATUS),
                "initContainerStatuses": _list(_CONTAINER_STATUS),
            }
        ),
    },
    required=("metadata",),
)
_INVOLVED = _object({"kind": _string, "name": _string})
EVENT = _object(
    {
        "metadata": _object({"name": _string, "creationTimestamp": _optional(_string)}),
        "involvedObject": _INVOLVED,
        "regarding": _INVOLVED,
        "type": _string,
        "reason": _optional(_string),
        "message": _optional(_string),
        "note": _optional(_string),
        "lastTimestamp": _optional(_string),
        "eventTime": _optional(_string),
    }
)
NODE = _object(
    {
        "metadata": _METADATA,
        "status": _object(
            {
                "conditions": _CONDITIONS,
                "capacity": _map(_anything),
                "allocatable": _map(_anything),
                "nodeInfo": _object({"kubeletVersion": _string}),
            }
        ),
    },
    required=("metadata",),
)
NAMESPACE = _object({"metadata": _METADATA}, required=("metadata",))
ACCESS_REVIEW = _object({"status": _object({"reason": _string, "evaluationError": _string})})
_VERSION_INFO = _object({"gitVersion": _string})
VERSION = _object({"clientVersion": _VERSION_INFO, "serverVersion": _VERSION_INFO})

KINDS: dict[str, Check] = {
    "Deployment": DEPLOYMENT,
    "ReplicaSet": REPLICASET,
    "Pod": POD,
    "Event": EVENT,
    "Node": NODE,
    "Namespace": NAMESPACE,
    "SelfSubjectAccessReview": ACCESS_REVIEW,
}
# The kind of what `kubectl get RESOURCE ...` prints (the object, or each item of the List).
_RESOURCE_KINDS = {
    **dict.fromkeys(("deployment", "deployments", "deployment.apps", "deploy"), "Deployment"),
    **dict.fromkeys(("replicaset", "replicasets", "replicaset.apps", "rs"), "ReplicaSet"),
    **dict.fromkeys(("pod", "pods", "po"), "Pod"),
    **dict.fromkeys(("node", "nodes", "no"), "Node"),
    **dict.fromkeys(("event", "events", "ev"), "Event"),
    **dict.fromkeys(("namespace", "namespaces", "ns"), "Namespace"),
}
# List items of a `get a,b,c` must say their kind: nothing else tells a Pod from a ReplicaSet.
ANY_KIND = "*"


def object_problem(value: Any, kind: str | None = None) -> str | None:
    """One Kubernetes object: an object, of ``kind`` when given, with the fields we read typed.

    Without a ``kind`` either way nothing more can be checked (a List item of a kind the
    adapter ignores); a kind-less answer to ``get deployment NAME`` is checked as a Deployment.
    ``kind=ANY_KIND``: any kind, but it must be there.
    """
    if not isinstance(value, dict):
        return f" is {_what(value)}, expected an object"
    found = value.get("kind")
    if found is not None and not isinstance(found, str):
        return f".kind is {_what(found)}, expected a string"
    if kind == ANY_KIND:
        if found is None:
            return ".kind is missing (a List of several kinds)"
        kind = None
    if kind is not None and found is not None and found != kind:
        return f".kind is {found!r}, expected {kind!r}"
    check = KINDS.get(found or kind or "")
    return check(value) if check is not None else None


def list_problem(value: Any, item_kind: str | None = None) -> str | None:
    """A List (``kubectl get a,b -o json``): ``items`` (absent means none) of typed objects,
    each of ``item_kind`` when given (a kind-less item is checked as one)."""
    if not isinstance(value, dict):
        return f" is {_what(value)}, expected an object"
    kind = value.get("kind", "List")
    if not (isinstance(kind, str) and kind.endswith("List")):
        return f".kind is {kind!r}, expected a List"
    items = value.get("items", [])
    if not isinstance(items, list):
        return f".items is {_what(items)}, expected a list"
    for index, item in enumerate(items):
        problem = object_problem(item, item_kind)
        if problem is not None:
            return f".items[{index}]{problem}"
    return None


def _positional(args: Sequence[str]) -> list[str]:
    positional = []
    for arg in args[1:]:
        if arg.startswith("-"):
            break
        positional.append(arg)
    return positional


def expected_output(args: Sequence[str]) -> str:
    """What ``kubectl ARGS -o json`` prints: ``version``, ``List`` or a kind (``object``: any)."""
    if not args:
        return "object"
    if args[0] == "version":
        return "version"
    if args[0] == "apply":
        return "Deployment"  # the adapter applies nothing else
    if args[0] != "get":
        return "object"
    positional = _positional(args)
    if len(positional) == 2 and "," not in positional[0]:
        return _RESOURCE_KINDS.get(positional[0], "object")
    return "List"


def _item_kind(args: Sequence[str]) -> str | None:
    """The kind every item of ``kubectl get RESOURCES`` has: one resource's, or ANY_KIND."""
    positional = _positional(args) if args and args[0] == "get" else []
    if len(positional) != 1:
        return None
    if "," in positional[0]:
        return ANY_KIND
    return _RESOURCE_KINDS.get(positional[0])


def output_problem(args: Sequence[str], value: Any) -> str | None:
    """Why kubectl's parsed ``-o json`` output for ``args`` cannot be read, or None."""
    expected = expected_output(args)
    if expected == "version":
        return VERSION(value)
    if expected == "List" or (
        expected == "object" and isinstance(value, dict) and "items" in value
    ):
        return list_problem(value, _item_kind(args))
    return object_problem(value, None if expected == "object" else expected)
