"""``list -w``'s feed (``operations.live``): a snapshot per workload whose objects changed,
only when it differs from the last one given; a resumed watch gives what changed meanwhile
and nothing else. Driven with kubectl's own watch events, no process."""

from __future__ import annotations

import copy
from typing import Any

from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.operations.live import DEPLOYMENTS, PODS, REPLICASETS, _Watched
from kubectl_adapter.rules.snapshots import snapshot_documents, split_kinds
from tests.k8s_objects import deployment, pod, replicaset

LISTED = "I1202 round_trippers.go:553] GET https://h/apis/apps/v1/namespaces/testns/deployments?labelSelector=x&watch=true 200 OK in 3 milliseconds"  # noqa: E501


class Feed:
    def __init__(self) -> None:
        self.events: list[tuple[str, str | None, str | None]] = []

    def __call__(self, event: str, document: dict[str, Any] | None) -> None:
        doc = document or {}
        self.events.append((event, doc.get("providerId"), doc.get("status")))


def _workload(name: str, uid: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    d = deployment(name, container_id=name, uid=uid)
    rs = replicaset(d, f"{uid}hash0000", 1)
    return d, rs, pod(rs, "aaaaa", ip="10.244.0.9")


def _list(watched: _Watched, objects: list[dict[str, Any]]) -> None:
    for index, kind in ((DEPLOYMENTS, "Deployment"), (REPLICASETS, "ReplicaSet"), (PODS, "Pod")):
        for obj in objects:
            if obj["kind"] == kind:
                watched.document(index, {"type": "ADDED", "object": obj})
        watched.stderr_line(index, LISTED)


def test_the_first_list_is_given_once_complete_then_each_change() -> None:
    feed, given = Feed(), {}
    watched = _Watched(given, feed, None)
    one, two = _workload("web-1", "u1"), _workload("web-2", "u2")
    watched.document(DEPLOYMENTS, {"type": "ADDED", "object": one[0]})
    assert feed.events == []  # nothing before every watch has listed
    _list(watched, [*one, *two])
    assert feed.events == [
        ("ADDED", "testns/web-1", "running"),
        ("ADDED", "testns/web-2", "running"),
        ("SYNCED", None, None),
    ]
    # the same snapshot as list's one read of the same objects
    assert given["testns/web-1"] == snapshot_documents(*split_kinds(list(one)))[0]
    feed.events.clear()
    unchanged = copy.deepcopy(one[2])
    unchanged["metadata"]["resourceVersion"] = "999"
    watched.document(PODS, {"type": "MODIFIED", "object": unchanged})
    assert feed.events == []  # a change no snapshot field shows
    stopped = copy.deepcopy(one[0])
    stopped["spec"]["replicas"] = 0
    watched.document(DEPLOYMENTS, {"type": "MODIFIED", "object": stopped})
    watched.document(PODS, {"type": "DELETED", "object": one[2]})
    assert [e[0] for e in feed.events] == ["MODIFIED"] * len(feed.events)
    assert feed.events[-1][2] == "offline"
    feed.events.clear()
    watched.document(DEPLOYMENTS, {"type": "DELETED", "object": two[0]})
    assert feed.events == [("DELETED", "testns/web-2", "missing")]
    assert "testns/web-2" not in given  # bounded: a deleted workload leaves the feed's memory
    assert len(watched.objects.kinds[DEPLOYMENTS]) == 1


def test_a_resumed_watch_gives_only_what_changed_meanwhile() -> None:
    feed, given = Feed(), {}
    one, two, three = _workload("web-1", "u1"), _workload("web-2", "u2"), _workload("web-3", "u3")
    _list(_Watched(given, feed, None), [*one, *two, *three])
    feed.events.clear()
    stopped = copy.deepcopy(two[0])
    stopped["spec"]["replicas"] = 0
    _list(_Watched(given, feed, None), [*one, stopped, two[1]])  # web-3 deleted meanwhile
    assert feed.events == [
        ("MODIFIED", "testns/web-2", "offline"),
        ("DELETED", "testns/web-3", "missing"),
        ("SYNCED", None, None),
    ]


def test_status_watch_gives_a_missing_workload_as_missing() -> None:
    feed: Feed = Feed()
    _list(_Watched({}, feed, ProviderId("testns", "web-9")), [])
    assert feed.events == [("ADDED", "testns/web-9", "missing"), ("SYNCED", None, None)]


def test_a_paged_list_is_read_item_by_item() -> None:
    feed: Feed = Feed()
    watched = _Watched({}, feed, None)
    one = _workload("web-1", "u1")
    page = {"kind": "List", "metadata": {}, "items": [one[0]]}
    watched.document(DEPLOYMENTS, {"type": "ADDED", "object": page})
    watched.stderr_line(DEPLOYMENTS, LISTED)
    for index, obj in ((REPLICASETS, one[1]), (PODS, one[2])):
        watched.document(index, {"type": "ADDED", "object": obj})
        watched.stderr_line(index, LISTED)
    assert feed.events[0] == ("ADDED", "testns/web-1", "running")
