"""``list -w``'s feed (``operations.live``): the three watches' first lists make the first
list (and prove, before the first line, that the feed may watch Pods and ReplicaSets); a
workload's Pods and ReplicaSets are watched only while it moves; a snapshot per
workload whose objects changed, only when it differs from the last one given; a resumed watch
gives what changed meanwhile and nothing else. Driven with the events ``FeedStreams`` gives,
through a stand-in for it (the seam the feed runs its watches through), no process."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any, cast

from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.kubectl.feed_streams import ENDED, LISTED, OBJECTS, Event, FeedStreams
from kubectl_adapter.kubectl.runner import KubectlRunner
from kubectl_adapter.operations.feed_objects import PODS, REPLICASETS, uid_of
from kubectl_adapter.operations.live import _Feed
from kubectl_adapter.rules.snapshots import snapshot_documents, split_kinds
from tests.k8s_objects import deployment, pod, replicaset

Document = dict[str, Any]
NAME = "org.mieweb.opensource-server.name"


class Feed:
    def __init__(self) -> None:
        self.events: list[tuple[str, str | None, str | None]] = []

    def __call__(self, event: str, document: Document | None) -> None:
        doc = document or {}
        self.events.append((event, doc.get("providerId"), doc.get("status")))


class Streams:
    """Stands in for ``FeedStreams``: which watches run, by which selector."""

    def __init__(self) -> None:
        self.selectors: dict[str, str] = {}
        self.starts: list[str] = []

    def running(self, key: str) -> bool:
        return key in self.selectors

    def start(self, key: str, args: list[str], **_: Any) -> None:
        self.selectors[key] = args[args.index("-l") + 1]
        self.starts.append(key)

    def stop(self, key: str) -> None:
        self.selectors.pop(key, None)


def _workload(name: str, uid: str) -> tuple[Document, Document, Document]:
    d = deployment(name, container_id=name, uid=uid)
    d["metadata"]["resourceVersion"] = "1"
    d["status"].update(replicas=1, readyReplicas=1, updatedReplicas=1)
    rs = replicaset(d, f"{uid}hash0000", 1)
    return d, rs, pod(rs, "aaaaa", ip="10.244.0.9")


def _feed(only: ProviderId | None = None) -> tuple[_Feed, Feed, Streams]:
    feed, streams = Feed(), Streams()
    runner = cast(KubectlRunner, SimpleNamespace(config=SimpleNamespace(request_timeout=10.0)))
    state = _Feed(
        runner, cast(FeedStreams, streams), feed, "testns", "sel", False, only,
        lambda: None, lambda: None,
    )  # fmt: skip
    for kind in ("deployments", "replicasets", "pods"):
        state.start(kind)
    return state, feed, streams


def _first(state: _Feed, objects: list[Document]) -> None:
    """The three watches list ``objects`` (the Pods' first, as a loaded kubectl may)."""
    deployments, replicasets, pods = split_kinds(objects)
    for key, listed in (("pods", pods), ("replicasets", replicasets), ("deployments", deployments)):
        if listed:
            state.handle(Event(key, 1, OBJECTS, "ADDED", tuple(listed)))
        state.handle(Event(key, 1, LISTED))
        state.retarget()


def _say(state: _Feed, key: str, kind: str, *objects: Document) -> None:
    state.handle(Event(key, 1, OBJECTS, kind, objects))
    state.retarget()


def test_at_rest_the_first_list_is_list_s_and_only_deployments_are_watched() -> None:
    state, feed, streams = _feed()
    one, two = _workload("web-1", "u1"), _workload("web-2", "u2")
    assert streams.selectors == {"deployments": "sel", "replicasets": "sel", "pods": "sel"}
    _first(state, [*one, *two])
    assert feed.events == [
        ("ADDED", "testns/web-1", "running"),
        ("ADDED", "testns/web-2", "running"),
        ("SYNCED", None, None),
    ]
    assert state.given["testns/web-1"] == snapshot_documents(*split_kinds(list(one)))[0]
    assert streams.selectors == {"deployments": "sel"}  # one kubectl at rest


def test_a_workload_that_moves_has_its_pods_watched_until_it_rests_again() -> None:
    state, feed, streams = _feed()
    one, two = _workload("web-1", "u1"), _workload("web-2", "u2")
    _first(state, [*one, *two])
    feed.events.clear()
    stopped = copy.deepcopy(one[0])
    stopped["spec"]["replicas"], stopped["metadata"]["generation"] = 0, 2
    _say(state, "deployments", "MODIFIED", stopped)
    # given at once, from what the feed knows (its Pod), as the three watches gave it
    assert feed.events == [("MODIFIED", "testns/web-1", "offline")]
    assert streams.selectors["pods"] == f"sel,{NAME} in (web-1)"
    assert streams.selectors["replicasets"] == f"sel,{NAME} in (web-1)"
    terminating = copy.deepcopy(one[2])
    terminating["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    for key, obj in (("replicasets", one[1]), ("pods", terminating)):
        _say(state, key, "ADDED", obj)
        state.handle(Event(key, 1, LISTED))
        state.retarget()
    rested = copy.deepcopy(stopped)
    rested["status"] = {"observedGeneration": 2}
    _say(state, "deployments", "MODIFIED", rested)
    assert "pods" in streams.selectors  # its Pod still terminates
    _say(state, "pods", "DELETED", terminating)
    assert feed.events[-1] == ("MODIFIED", "testns/web-1", "offline")
    assert state.given["testns/web-1"]["message"] == "stopped (replicas 0)"
    assert streams.selectors == {"deployments": "sel"}  # at rest again: one kubectl


def test_a_workload_the_first_lists_find_in_motion_keeps_its_pods_watched() -> None:
    state, feed, streams = _feed()
    one, two = _workload("web-1", "u1"), _workload("web-2", "u2")
    starting = pod(one[1], "aaaaa", ready=False, phase="Pending", ip=None)
    _first(state, [one[0], one[1], starting, *two])
    assert feed.events[-1] == ("SYNCED", None, None)
    assert state.given["testns/web-1"]["podIp"] is None  # its Pod, still Pending
    assert streams.selectors["pods"] == "sel"  # the first lists' watches run on
    assert streams.starts.count("pods") == 1  # not listed again for it
    _say(state, "pods", "MODIFIED", one[2])
    assert feed.events[-1] == ("MODIFIED", "testns/web-1", "running")
    assert state.given["testns/web-1"]["podIp"] == "10.244.0.9"  # the Pod the watch gave
    assert streams.selectors == {"deployments": "sel"}


def test_a_pods_watch_listed_again_forgets_the_pods_gone_meanwhile() -> None:
    state, _, _ = _feed()
    one = _workload("web-1", "u1")
    _first(state, list(one))
    crashed = copy.deepcopy(one[0])
    crashed["status"].update(readyReplicas=0, availableReplicas=0, unavailableReplicas=1)
    _say(state, "deployments", "MODIFIED", crashed)
    replacement = pod(one[1], "bbbbb", ready=False, phase="Pending", ip=None)
    _say(state, "replicasets", "ADDED", one[1])
    state.handle(Event("replicasets", 1, LISTED))
    _say(state, "pods", "ADDED", replacement)  # the first Pod was deleted while unwatched
    state.handle(Event("pods", 1, LISTED))
    assert set(state.objects.kinds[PODS]) == {uid_of(replacement)}
    assert state.given["testns/web-1"]["podIp"] is None


def test_a_resumed_deployments_watch_gives_only_what_changed_meanwhile() -> None:
    state, feed, streams = _feed()
    one, two, three = _workload("web-1", "u1"), _workload("web-2", "u2"), _workload("web-3", "u3")
    _first(state, [*one, *two, *three])
    feed.events.clear()
    state.handle(Event("deployments", 1, ENDED))  # the server closed it
    state.restart_due()
    assert streams.starts.count("deployments") == 2
    relabeled = copy.deepcopy(two[0])
    relabeled["metadata"]["labels"]["team"] = "ops"  # no snapshot field: not given
    _say(state, "deployments", "ADDED", one[0], relabeled)  # web-3 deleted meanwhile
    state.handle(Event("deployments", 1, LISTED))
    assert feed.events == [("DELETED", "testns/web-3", "missing"), ("SYNCED", None, None)]
    assert set(state.objects.kinds[REPLICASETS]) == {uid_of(one[1]), uid_of(two[1])}


def test_status_watch_gives_a_missing_workload_as_missing() -> None:
    state, feed, _ = _feed(ProviderId("testns", "web-9"))
    _first(state, [])
    assert feed.events == [("ADDED", "testns/web-9", "missing"), ("SYNCED", None, None)]


def test_a_workload_whose_pods_carry_no_name_label_has_them_watched_by_the_whole_selector() -> None:
    state, _, streams = _feed()
    legacy = deployment("web-0", container_id="web-0", uid="u0", legacy=True)
    legacy["metadata"]["resourceVersion"] = "1"
    _first(state, [legacy])  # no Pod yet: it moves
    assert streams.selectors["pods"] == "sel"  # its Pods would not match a name
