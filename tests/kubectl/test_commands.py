"""What a watch printed, read in one place for the waits and for ``list -w``."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.contract.naming import MANAGED_LABEL
from kubectl_adapter.kubectl.commands import in_view, wait_watches, watched_objects

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


MINE = {"metadata": {"name": "web-1", "labels": {MANAGED_LABEL: "true", "app": "x"}}}
FOREIGN = {"metadata": {"name": "web-1", "labels": {"app": "x"}}}
FALSE = {"metadata": {"name": "web-1", "labels": {MANAGED_LABEL: "false"}}}


@pytest.mark.parametrize(
    ("kind", "obj", "shown", "seen"),
    [
        ("ADDED", MINE, False, "ADDED"),  # listed
        ("MODIFIED", MINE, True, "MODIFIED"),
        ("MODIFIED", MINE, False, "ADDED"),  # the label put back: it enters the selector
        ("MODIFIED", FOREIGN, True, "DELETED"),  # the label removed: it leaves it
        ("MODIFIED", FALSE, True, "DELETED"),
        ("DELETED", MINE, True, "DELETED"),
        ("ADDED", FOREIGN, False, None),  # a foreign one listed: that watch shows nothing
        ("MODIFIED", FOREIGN, False, None),
        ("DELETED", FOREIGN, False, None),  # gone, never shown
        ("ADDED", {"metadata": {}}, False, None),
    ],
)
def test_the_wait_sees_the_deployment_as_the_managed_label_selects_it(
    kind: str, obj: dict[str, Any], shown: bool, seen: str | None
) -> None:
    """create's Deployment watch selects by name alone: each event is what the API server's
    watch selecting Manager's label would have sent (``wait_watches``)."""
    assert in_view(kind, obj, shown) == seen


def test_only_creates_deployment_watch_drops_the_label_selector() -> None:
    owned, pods = wait_watches("web-1", "a=b")
    anyone, same_pods = wait_watches("web-1", "a=b", any_labels=True)
    assert pods == same_pods
    assert owned[:4] == ["get", "deployments", "-l", f"{MANAGED_LABEL}=true"]
    assert [arg for arg in owned if arg not in ("-l", f"{MANAGED_LABEL}=true")] == anyone
