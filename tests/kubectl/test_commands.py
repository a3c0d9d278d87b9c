"""What a watch printed, read in one place for the waits and for ``list -w``."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.kubectl.commands import watched_objects

POD = {"kind": "Pod", "metadata": {"name": "web-1-abc"}}


@pytest.mark.parametrize("kind", ["ADDED", "MODIFIED", "DELETED"])
def test_an_event_carries_its_object(kind: str) -> None:
    assert watched_objects({"type": kind, "object": POD}) == (kind, [POD])


def test_a_paged_list_is_one_added_list_whose_items_are_the_objects() -> None:
    # kubectl prints each page (over --chunk-size, 500) as a List in one ADDED event.
    page = {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": [POD, "junk", POD]}
    assert watched_objects({"type": "ADDED", "object": page}) == ("ADDED", [POD, POD])


def test_a_named_object_with_items_is_an_object_not_a_page() -> None:
    odd = {"kind": "ConfigMap", "metadata": {"name": "x"}, "items": [POD]}
    assert watched_objects({"type": "ADDED", "object": odd}) == ("ADDED", [odd])


@pytest.mark.parametrize(
    "document",
    [
        {"type": "ERROR", "object": {"kind": "Status", "code": 410}},
        {"type": "BOOKMARK", "object": POD},
        {"type": "ADDED", "object": "not an object"},
        {"type": "ADDED"},
        ["not", "a", "dict"],
        None,
    ],
)
def test_anything_else_is_no_event(document: Any) -> None:
    assert watched_objects(document) is None
