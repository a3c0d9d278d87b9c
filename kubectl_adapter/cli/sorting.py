"""``--sort-by``: the order of ``list``'s and ``nodes``' items, by a column of their table.

kubectl takes a JSONPath (``--sort-by=.metadata.name``); a person reading a table knows its
columns, so ``--sort-by`` takes a column's name, in any case, a space written as ``-`` or
``_`` too (``--sort-by status``, ``--sort-by "NODE ID"``, ``--sort-by node-id``). A JSONPath
into the JSON document (``.createdAt``, ``{.drift.state}``) is read as kubectl reads it
(``sort_paths``): a malformed one is refused before anything runs, one that names no field
in any item is refused as kubectl refuses it, with its words. The order is kubectl's
(``RuntimeSort.Less`` in k8s.io/kubectl ``pkg/cmd/get/sorter.go``): an item lacking the
field first, then a null, then values; numbers as numbers, two quantities as quantities
(``8Gi`` before ``16Gi``, ``1000Mi`` before ``1Gi``), other text naturally; ``READY`` by
ready then desired replicas, ``AGE`` oldest first. Ties keep the provider ID's order. The
items are sorted in the document itself, so every format (JSON too, as kubectl's) shows the
same order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..contract.errors import InvalidInput
from ..rules.quantities import quantity_value
from .sort_paths import MISSING, PathKey, path_key

__all__ = ["SORTED_COMMANDS", "check_sort_by", "sort_items"]

Key = Callable[[dict[str, Any]], Any]

SORTED_COMMANDS = frozenset({"list", "nodes"})


def _path(*keys: str) -> Key:
    def read(item: dict[str, Any]) -> Any:
        value: Any = item
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    return read


def _drift(item: dict[str, Any]) -> Any:
    from .tables import drift_cell

    return drift_cell(item.get("drift"))


_SNAPSHOT_KEYS: dict[str, Key] = {
    "name": _path("providerId"),
    "provider-id": _path("providerId"),
    "status": _path("status"),
    "ready": lambda item: (item.get("readyReplicas"), item.get("replicas")),
    "drift": _drift,
    "cpus": _path("cpus"),
    "memory": _path("memoryMb"),
    "container-id": _path("containerId"),
    "node-id": _path("node"),
    "age": _path("createdAt"),
    "pod-ip": lambda item: _ip(item.get("podIp")),
    "node": _path("podNode"),
    "image": _path("image"),
    "message": _path("message"),
}
_NODE_KEYS: dict[str, Key] = {
    "name": _path("name"),
    "status": lambda item: "Ready" if item.get("ready") else "NotReady",
    "version": _path("kubeletVersion"),
    "cpu": _path("allocatable", "cpu"),
    "memory": _path("allocatable", "memory"),
    "pods": _path("allocatable", "pods"),
}


def _keys(command: str) -> dict[str, Key]:
    return _NODE_KEYS if command == "nodes" else _SNAPSHOT_KEYS


def _ip(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    parts = value.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else value


def _normal(column: str) -> str:
    return re.sub(r"[\s_]+", "-", column.strip().lower())


def check_sort_by(command: str, given: str | None) -> Key | None:
    """The sort key ``--sort-by`` names, checked before anything runs; None when not given."""
    if given is None:
        return None
    if command not in SORTED_COMMANDS:
        raise InvalidInput(
            f"--sort-by applies to the tables of list and nodes, not to {command}",
            {"field": "sort-by", "sortBy": given},
        )
    if any(mark in given for mark in ".{}["):
        return path_key(given.strip())
    columns = _keys(command)
    key = columns.get(_normal(given))
    if key is None:
        from .mistyped import close_matches

        suggestions = close_matches(_normal(given), columns)
        hint = f" (did you mean {' or '.join(suggestions)}?)" if suggestions else ""
        raise InvalidInput(
            f"--sort-by {given!r} is not a column of {command}'s table: "
            f"{', '.join(columns)}, or a JSON path such as .createdAt{hint}",
            {"field": "sort-by", "sortBy": given, "suggestions": suggestions},
        )
    return key


def _natural(value: Any) -> tuple[Any, ...]:
    """kubectl's ``isLess``, as a key: numbers as numbers, two quantities as quantities, text
    with its digits as numbers (``web-9`` before ``web-10``)."""
    if value is MISSING:
        return (0,)
    if value is None:
        return (1,)
    if isinstance(value, bool):
        return (3, int(value))
    if isinstance(value, int | float):
        return (2, value)
    if isinstance(value, tuple):
        return (4, tuple(_natural(v) for v in value))
    text = str(value)
    amount = quantity_value(text)
    if amount is not None:
        return (5, amount)
    return (6, tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text)))


def sort_items(document: Any, key: Key) -> Any:
    """``document``'s items in ``key``'s order, in place; a path that names no field in any
    item, or a map or list to order by, is refused as kubectl refuses it."""
    items = document.get("items") if isinstance(document, dict) else None
    if not isinstance(items, list) or not items:
        return document
    values = [key(item) if isinstance(item, dict) else MISSING for item in items]
    if isinstance(key, PathKey):
        if all(value is MISSING for value in values):
            raise InvalidInput(
                f"couldn't find any field with path {json.dumps(key.expression)} in the list "
                "of objects",
                {"field": "sort-by", "sortBy": key.expression},
            )
        unsortable = next((v for v in values if isinstance(v, dict | list)), None)
        if unsortable is not None:
            kind = "map" if isinstance(unsortable, dict) else "list"
            raise InvalidInput(
                f"--sort-by {key.expression}: the field is a {kind}, an unsortable type "
                "(name a value inside it)",
                {"field": "sort-by", "sortBy": key.expression},
            )
    order = sorted(range(len(items)), key=lambda i: _natural(values[i]))
    items[:] = [items[i] for i in order]
    return document
