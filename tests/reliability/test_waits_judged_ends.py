"""Waits that judge what Kubernetes really does (issue 24), continued: what ends a wait
other than its end state. A broken watch resumes, an API that stays down ends it within its
bound, a paused Deployment still stops and starts, and a wait that runs out says what it
waited for (issue 32).

Split from ``test_waits_judged.py`` (one file of ~70 s idle, the last to end on its worker):
the two halves run on two workers, each with its own fake API server.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cluster, Result, spec, unique
from tests.fakecluster import FakeCluster
from tests.reliability.test_waits_judged import NS, TIMEOUT, _kubectl, _running, _why
from tests.reliability.test_waits_judged import env as env  # this file's own fake API server

# -- 4. a broken watch resumes ---------------------------------------------------------------


@pytest.fixture
def slow(tmp_path: Path) -> Iterator[tuple[Cluster, FakeCluster]]:
    """Pods take 4 s to become ready: a create waits long enough to break its watches."""
    with FakeCluster(
        tmp_path / "fake",
        namespaces=(NS,),
        default_namespace=NS,
        pod_ready_delay=4.0,
        termination_delay=0.1,
    ) as fake:
        yield Cluster(str(fake.kubeconfig), fake.context, NS, tmp_path, fake), fake


BREAKS: dict[str, Callable[[FakeCluster], Any]] = {
    "restart": lambda fake: fake.restart(1.0),
    "reset": lambda fake: fake.reset_watches(),
    "closed": lambda fake: fake.close_watches(),
    "expired": lambda fake: fake.expire_watches(next_ones=1),
}


@pytest.mark.parametrize("how", sorted(BREAKS))
def test_create_rides_out_a_broken_watch(slow: tuple[Cluster, FakeCluster], how: str) -> None:
    """A 1 s API restart in the middle of the wait ended create with Unavailable, where
    ``kubectl rollout status`` rode it out."""
    cluster, fake = slow
    name, cid = cluster.workload(f"brk-{how}")
    watching = threading.Event()
    fake.on_request(  # the watches started before the apply (issue 38): break them after it
        after=watching.set, method="PATCH", path_regex=rf"/namespaces/{NS}/deployments/{name}$"
    )
    outcome: list[Result] = []
    call = threading.Thread(
        target=lambda: outcome.append(
            cluster.adapter("create", "--spec", "-", stdin=spec(name, cid), flags=TIMEOUT)
        )
    )
    call.start()
    assert watching.wait(30), "the wait never watched"
    fake.wait_for(lambda: fake.open_watches() >= 2, timeout=10)
    broke = BREAKS[how](fake)
    call.join(60)
    if isinstance(broke, threading.Thread):
        broke.join(10)
    (result,) = outcome
    assert (result.code, result.doc.get("status")) == (0, "running"), _why(result)
    assert result.seconds < cluster.paced(20), _why(result)


def test_an_api_that_stays_down_is_unavailable_within_the_timeout(
    slow: tuple[Cluster, FakeCluster],
) -> None:
    """Only a failure that lasts is Unavailable: 10 s of an unreachable API server."""
    cluster, fake = slow
    name, cid = cluster.workload("down")
    watching = threading.Event()
    fake.on_request(  # the watches started before the apply (issue 38): down after it
        after=watching.set, method="PATCH", path_regex=rf"/namespaces/{NS}/deployments/{name}$"
    )
    outcome: list[Result] = []
    call = threading.Thread(
        target=lambda: outcome.append(
            cluster.adapter("create", "--spec", "-", stdin=spec(name, cid), flags=TIMEOUT)
        )
    )
    call.start()
    assert watching.wait(30), "the wait never watched"
    fake.wait_for(lambda: fake.open_watches() >= 2, timeout=10)
    down = time.monotonic()
    fake.down()
    try:
        call.join(60)
    finally:
        fake.up()
    (result,) = outcome
    assert (result.code, result.error_type) == (8, "Unavailable"), _why(result)
    took = time.monotonic() - down
    assert 10.0 <= took < 10.0 + cluster.paced(5.0), (took, _why(result))


# -- 5. paused Deployments -------------------------------------------------------------------


def test_a_paused_deployment_stops_and_starts(env: tuple[Cluster, FakeCluster]) -> None:
    """A paused Deployment still scales: start answered RolloutFailed "is paused" while
    its own message said 1/1 available."""
    cluster, fake = env
    name, _ = _running(cluster, "pstart")
    _kubectl(fake, "rollout", "pause", f"deployment/{name}")
    stopped = cluster.adapter("stop", f"{NS}/{name}", flags=TIMEOUT)
    assert (stopped.code, stopped.doc.get("status")) == (0, "offline"), _why(stopped)
    started = cluster.adapter("start", f"{NS}/{name}", flags=TIMEOUT)
    assert (started.code, started.doc.get("status")) == (0, "running"), _why(started)
    assert started.seconds < cluster.paced(10), _why(started)


def test_a_paused_deployment_with_a_new_template_reports_what_its_pod_runs(
    env: tuple[Cluster, FakeCluster],
) -> None:
    """Paused, then its image changed by hand: status said "rollout in progress" and the new
    image, while its Pod (and ReplicaSet) still run the old one."""
    cluster, fake = env
    name, _ = _running(cluster, "ptmpl", image="nginx:1.26")
    _kubectl(fake, "rollout", "pause", f"deployment/{name}")
    _kubectl(fake, "set", "image", f"deployment/{name}", "main=nginx:1.27")
    status = cluster.adapter("status", f"{NS}/{name}")
    assert status.code == 0, _why(status)
    assert status.doc["status"] == "running", _why(status)
    assert "rollout paused" in status.doc["message"], _why(status)
    assert "in progress" not in status.doc["message"], _why(status)
    assert status.doc["image"] == "nginx:1.26", _why(status)
    listed = cluster.adapter("list")
    (item,) = [d for d in listed.doc["items"] if d["name"] == name]
    assert (item["image"], item["message"]) == (status.doc["image"], status.doc["message"])
    assert "paused" in [c["what"] for c in status.doc["drift"]["changes"]], status.doc["drift"]


# -- 6. what a wait that runs out says (issue 32) ----------------------------------------------


def test_a_slow_stop_shows_its_terminating_pod_while_waiting_and_in_the_timeout(
    env: tuple[Cluster, FakeCluster],
) -> None:
    """The progress line read ``0 live, 0 updated, 0 of 0 available`` and the Timeout
    ``still present … Running``: now both show the Pod terminating, since when, in which
    grace period, and the Timeout says the scale to 0 is done."""
    from tests.e2e.terminal import on_terminal

    cluster, fake = env
    name, _ = _running(cluster, "slowshow", image="nginx:slowshow")
    fake.set_stop_delay("nginx:slowshow", 60.0)
    try:
        seen = on_terminal(cluster, "-o", "json", "stop", f"{NS}/{name}", "--timeout", "5")
    finally:
        fake.set_stop_delay("nginx:slowshow", None)
    assert seen.code == 7, seen
    frames = seen.err.replace("\x1b[K", "").split("\r")
    assert any(
        re.search(rf"pod {name}-\S+ terminating since \d\d:\d\d:\d\dZ \(grace period 30s\)", f)
        for f in frames
    ), seen.err[-2000:]
    error = json.loads(seen.out)["error"]
    headline = error["message"].split(" | ")[0]
    assert headline.startswith(
        f"pods of {NS}/{name} still present after 5s: scaled to 0 (the controller has "
        f"observed it); 1 Pod left: pod {name}-"
    ), headline
    assert re.search(
        r"terminating for \d+s of its 30s grace period \(deletion requested ", headline
    )
    assert re.fullmatch(
        rf"kubectl wait --for=delete pod/{name}-\S+ -n {NS} --timeout=\d+s",
        error["details"]["nextStep"],
    ), error["details"]


def test_a_timeout_while_an_init_container_runs_names_it_in_the_headline(
    env: tuple[Cluster, FakeCluster],
) -> None:
    """A Timeout said only ``Pending``; the init container holding the Pod is named."""
    cluster, fake = env
    name, _ = _running(cluster, "initslow")
    assert cluster.adapter("stop", f"{NS}/{name}").code == 0
    image = f"busybox:{unique('init-slow')}"
    fake.set_image_behaviour(image, "never_ready")  # an init container that never exits
    init = {"spec": {"template": {"spec": {"initContainers": [{"name": "setup", "image": image}]}}}}
    _kubectl(fake, "patch", "deployment", name, "--type=strategic", "-p", json.dumps(init))
    result = cluster.adapter("start", f"{NS}/{name}", flags=["--timeout", "4"])
    assert (result.code, result.error_type) == (7, "Timeout"), _why(result)
    headline = result.doc["error"]["message"].split(" | ")[0]
    assert re.fullmatch(
        rf"rollout not complete after 4s: pod {name}-\S+: Pending, init container setup "
        r"running \(started \d+s ago\)",
        headline,
    ), headline
