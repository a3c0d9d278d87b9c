"""``kubectl/feed_streams.py``: the live feed's watches, each a real process (a stand-in
kubectl script printing what kubectl prints), read together: a watch's stdout lines before its
"listed" stderr line, its exit typed by the runner as kubectl's, a stopped watch's output
dropped, its process group killed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from time import monotonic

import pytest

from kubectl_adapter.contract.errors import Forbidden
from kubectl_adapter.kubectl.config import LEAN_GO, ClusterConfig
from kubectl_adapter.kubectl.feed_streams import ENDED, LISTED, OBJECTS, Event, FeedStreams
from kubectl_adapter.kubectl.runner import KubectlRunner
from tests.k8s_objects import deployment

LISTED_LINE = (
    "I1202 10:00:00.000000 1 round_trippers.go:553] GET https://h/apis/apps/v1/namespaces/"
    "testns/deployments?labelSelector=x&watch=true 200 OK in 3 milliseconds"
)
FORBIDDEN = (
    'Error from server (Forbidden): deployments.apps is forbidden: User "u" cannot watch '
    'resource "deployments" in API group "apps" in the namespace "testns"'
)


def _kubectl(tmp_path: Path, body: str) -> str:
    path = tmp_path / "kubectl"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def _events(streams: FeedStreams, until: str, seconds: float = 30.0) -> list[Event]:
    found: list[Event] = []
    deadline = monotonic() + seconds
    while monotonic() < deadline and not any(e.what == until for e in found):
        found += streams.events(deadline - monotonic())
    return found


def test_a_watch_s_objects_come_before_its_listed_line_then_its_typed_end(tmp_path: Path) -> None:
    event = json.dumps({"type": "ADDED", "object": deployment("web-1", uid="u1")})
    kubectl = _kubectl(
        tmp_path,
        f"echo '{event}'\necho '{LISTED_LINE}' >&2\nsleep 0.2\necho '{FORBIDDEN}' >&2\nexit 1",
    )
    streams = FeedStreams(KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns")))
    streams.start("deployments", ["get", "deployments", "--watch"], namespace=None, seconds=60)
    try:
        found = _events(streams, ENDED)
    finally:
        streams.close()
    assert [e.what for e in found] == [OBJECTS, LISTED, ENDED]
    assert found[0].kind == "ADDED" and found[0].objects[0]["metadata"]["name"] == "web-1"
    assert isinstance(found[2].failure, Forbidden)  # typed as any kubectl's failure
    assert not streams.running("deployments")


def test_a_stopped_watch_is_killed_and_its_later_events_are_not_current(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    kubectl = _kubectl(tmp_path, f"echo $$ >> {pids}\necho '{LISTED_LINE}' >&2\nexec sleep 60")
    streams = FeedStreams(KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns")))
    streams.start("pods", ["get", "pods", "--watch"], namespace=None, seconds=60)
    try:
        first = _events(streams, LISTED)
        streams.start("pods", ["get", "pods", "--watch"], namespace=None, seconds=60)
        assert not streams.current(first[-1])  # the watch that said it was replaced
        old = int(pids.read_text().split()[0])
        assert not os.path.exists(f"/proc/{old}") or "Z" in Path(f"/proc/{old}/stat").read_text()
        again = _events(streams, LISTED)
        assert streams.current(again[-1])
    finally:
        streams.close()
    assert not streams.running("pods")


def test_a_watch_that_lives_out_its_bound_ends_without_a_failure(tmp_path: Path) -> None:
    kubectl = _kubectl(tmp_path, "exec sleep 60")
    streams = FeedStreams(KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns")))
    streams.start("replicasets", ["get", "replicasets", "--watch"], namespace=None, seconds=0.3)
    try:
        found = _events(streams, ENDED)
    finally:
        streams.close()
    assert [(e.what, e.failure) for e in found] == [(ENDED, None)]


def test_the_feed_s_watch_runs_with_a_go_memory_limit_unless_one_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch that lives as long as the feed gives back its first list's heap (issue 42:
    kubectl held 116 MiB at rest at 1,000 workloads, 48 with the limit); a person's own
    limit is theirs, and their GOGC is kept beside ours (the suite sets GOGC=400)."""
    seen = tmp_path / "env"
    kubectl = _kubectl(
        tmp_path, f"echo \"$GOMEMLIMIT/$GOGC\" >> {seen}\necho '{LISTED_LINE}' >&2\nexec sleep 60"
    )
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    monkeypatch.delenv("GOMEMLIMIT", raising=False)
    monkeypatch.delenv("GOGC", raising=False)
    for own in ({}, {"GOGC": "200"}, {"GOMEMLIMIT": "1GiB"}):
        for name, value in own.items():
            monkeypatch.setenv(name, value)
        streams = FeedStreams(runner)
        streams.start("deployments", ["get", "deployments", "--watch"], namespace=None, seconds=60)
        try:
            _events(streams, LISTED)
        finally:
            streams.close()
    lean = LEAN_GO["GOMEMLIMIT"]
    assert seen.read_text().split() == [f"{lean}/", f"{lean}/200", "1GiB/200"]
