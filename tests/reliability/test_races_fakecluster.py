"""The fake API server's part in the race suite: apply preconditions as the API server
honours them, and request hooks that hold a request while competing code runs.

Driven with the real kubectl 1.32. The API server's behaviour reproduced here: its patch
handler refuses an apply carrying a ``metadata.uid`` when no object exists (409 "uid
mismatch … no existing object was found"), its registry refuses a stale
``metadata.resourceVersion`` (409 "the object has been modified") and an update to another
uid (422 "field is immutable"); an apply carrying only a resourceVersion still creates.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakecluster import FakeCluster
from tests.test_fakecluster import SSA, Runner, deployment, make_runner, needs_kubectl

pytestmark = needs_kubectl


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeCluster]:
    with FakeCluster(
        tmp_path, namespaces=("testns",), default_namespace="testns", pod_ready_delay=0.2
    ) as fc:
        yield fc


@pytest.fixture
def kubectl(fake: FakeCluster, tmp_path: Path) -> Runner:
    return make_runner(fake, tmp_path)


def pinned(**metadata: str) -> str:
    doc: dict[str, Any] = json.loads(deployment())
    doc["metadata"].update(metadata)
    return json.dumps(doc)


def apply(kubectl: Runner, manifest: str) -> tuple[int, str]:
    done = kubectl("-n", "testns", *SSA, "-f", "-", "-o", "json", stdin=manifest)
    return done.returncode, done.stderr


def test_apply_with_a_uid_never_creates(fake: FakeCluster, kubectl: Runner) -> None:
    code, stderr = apply(kubectl, pinned(uid="uid-gone", resourceVersion="7"))
    assert code == 1
    assert stderr.startswith(
        'error: Operation cannot be fulfilled on deployments.apps "web-1": uid mismatch: the '
        "provided object specified uid uid-gone, and no existing object was found\n"
    )
    assert fake.get("deployments", "testns", "web-1") is None


def test_apply_with_only_a_resource_version_still_creates(
    fake: FakeCluster, kubectl: Runner
) -> None:
    assert apply(kubectl, pinned(resourceVersion="7")) == (0, "")
    assert fake.get("deployments", "testns", "web-1") is not None


def settled(fake: FakeCluster) -> dict[str, Any]:
    """The Deployment once available: the controllers stop writing its status."""
    found = fake.wait_for(
        lambda: [
            d
            for d in [fake.get("deployments", "testns", "web-1")]
            if d and (d.get("status") or {}).get("availableReplicas")
        ],
        message="web-1 never became available",
    )
    return found[0]


def test_apply_with_a_stale_resource_version_is_a_conflict(
    fake: FakeCluster, kubectl: Runner
) -> None:
    assert apply(kubectl, deployment())[0] == 0
    live = settled(fake)
    changed = json.loads(pinned(uid=live["metadata"]["uid"], resourceVersion="1"))
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    code, stderr = apply(kubectl, json.dumps(changed))
    assert code == 1
    assert "the object has been modified; please apply your changes" in stderr
    current = fake.get("deployments", "testns", "web-1")
    assert current is not None
    assert current["metadata"]["generation"] == live["metadata"]["generation"]


def test_apply_pinned_to_the_live_object_applies(fake: FakeCluster, kubectl: Runner) -> None:
    assert apply(kubectl, deployment())[0] == 0
    meta = settled(fake)["metadata"]
    assert apply(kubectl, pinned(uid=meta["uid"], resourceVersion=meta["resourceVersion"]))[0] == 0


def test_apply_with_another_objects_uid_is_invalid(fake: FakeCluster, kubectl: Runner) -> None:
    assert apply(kubectl, deployment())[0] == 0
    code, stderr = apply(kubectl, pinned(uid="uid-other"))
    assert (code, stderr) == (
        1,
        'The Deployment "web-1" is invalid: metadata.uid: Invalid value: "uid-other": '
        "field is immutable\n",
    )


def test_hook_runs_before_and_after_the_request_and_only_once(
    fake: FakeCluster, kubectl: Runner
) -> None:
    seen: list[str] = []

    def before() -> None:
        seen.append("before:" + ("present" if fake.get("deployments", "testns", "web-1") else "-"))
        # A request made by the hook itself does not trigger it again.
        assert kubectl("-n", "testns", "get", "deployments", "-o", "json").returncode == 0

    def after() -> None:
        seen.append("after:" + ("present" if fake.get("deployments", "testns", "web-1") else "-"))

    hook = fake.on_request(
        before=before,
        after=after,
        method="PATCH",
        path_regex=r"/deployments/web-1$",
        kubectl_command="kubectl apply",
    )
    assert apply(kubectl, deployment())[0] == 0
    assert hook.fired.is_set() and not hook.errors
    assert seen == ["before:-", "after:present"]
    assert apply(kubectl, deployment())[0] == 0
    assert len(seen) == 2


def test_hook_holds_only_its_request(fake: FakeCluster, kubectl: Runner) -> None:
    """While a hook holds one request, the server keeps answering others."""
    arrived, release = threading.Event(), threading.Event()

    def hold() -> None:
        arrived.set()
        release.wait(30)

    fake.on_request(before=hold, method="PATCH")
    applying = threading.Thread(target=apply, args=(kubectl, deployment()))
    applying.start()
    assert arrived.wait(30)
    assert kubectl("-n", "testns", "get", "deployments", "-o", "json").returncode == 0
    assert fake.get("deployments", "testns", "web-1") is None  # still held
    release.set()
    applying.join(30)
    assert fake.get("deployments", "testns", "web-1") is not None


def test_hook_errors_are_reported_not_swallowed(fake: FakeCluster, kubectl: Runner) -> None:
    def broken() -> None:
        raise RuntimeError("competing job failed")

    hook = fake.on_request(before=broken, method="PATCH")
    assert apply(kubectl, deployment())[0] == 0
    assert [str(e) for e in hook.errors] == ["competing job failed"]
