"""A watch event (``kubectl get --watch -o json --output-watch-events``) decoded into the
fields the rules read, as ``workload_fields`` decodes ``list``'s answer.

A feed's watch prints its first list as events too, a page of up to 500 objects per line
(a List as one ADDED event): at thousands of workloads that is tens of MB, which msgspec
decodes into only the declared fields (the objects typed as ``workload_fields`` types them)
in a fraction of ``json.loads``'s time and memory. An event msgspec refuses is read again
whole with ``json.loads`` (``commands.watched_objects``), as every watch event was before.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from ..contract.errors import InternalError
from . import commands
from .workload_fields import (
    _MetadataFields,
    _Object,
    _Spec,
    _states_typed,
    _Status,
)

__all__ = ["decode_event"]


class _EventMetadata(_MetadataFields, total=False):
    """An object's metadata, or a List page's (which has no name)."""

    name: str


class _EventObject(TypedDict, total=False):
    """One object, or a page of them (``items``)."""

    kind: str
    metadata: _EventMetadata
    spec: _Spec
    status: _Status
    items: list[_Object]


class _Event(TypedDict, total=False):
    type: str
    object: _EventObject


def decode_event(line: bytes, command: str) -> tuple[str, list[dict[str, Any]]]:
    """(ADDED | MODIFIED | DELETED, the objects), or ("", []) for any other event (an ERROR:
    the watch expired, kubectl ends it). ``command`` names the watch in an InternalError."""
    import msgspec

    try:
        event: Any = msgspec.json.decode(line, type=_Event)
        obj = event.get("object") or {}
        typed = _states_typed(obj.get("items") or [obj])
    except (msgspec.MsgspecError, RecursionError):
        typed = False
    if not typed:
        try:
            event = json.loads(line)
        except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
            raise InternalError(
                f"kubectl printed a watch event that is not JSON: {exc}", {"command": command}
            ) from None
    found = commands.watched_objects(event)
    return ("", []) if found is None else found
