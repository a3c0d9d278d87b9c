"""Waits judge the Pods the workload owns, and a stop run again still waits (issue 30).

Real CLI, real kubectl, the fake API server. A stop that finds the Deployment already at 0
(run again after a Timeout) used to answer ``offline`` at once while the Pod of the first
stop still ran its containers; a Pod carrying the workload's labels that no ReplicaSet of the
Deployment owns (made by hand, or by another controller) held stop to its ``--timeout``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.cost import Pace
from tests.e2e.conftest import Cluster, Result, selector, spec
from tests.fakecluster import FakeCluster
from tests.reliability.helpers import await_true, cli_argv, cli_env, fake_testns

# Far inside the stops' --timeout: one kubectl start-up and a watch event, on a loaded machine.
# Scaled by the creates this file ran (tests/cost.py): a loaded machine stretches both.
PACE = Pace(12.0)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, FakeCluster]]:
    with fake_testns(tmp_path_factory.mktemp("owned")) as env:
        yield env


def _running(cluster: Cluster, prefix: str) -> tuple[str, str, str]:
    """A created workload: its name, container ID and its Pod's name."""
    name, cid = cluster.workload(prefix)
    result = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert result.code == 0, (result.doc, result.stderr[-1500:])
    PACE.note(result.seconds)
    (pod,) = cluster.pods(selector(cid))
    return name, cid, str(pod["metadata"]["name"])


def _why(result: Result) -> str:
    return f"{result.code} {result.seconds:.1f}s {str(result.doc)[:1500]} {result.stderr[-800:]}"


def _pod_watches(fake: FakeCluster) -> int:
    return sum(
        1 for r in fake.requests if r.path.endswith("/pods") and r.query.get("watch") == "true"
    )


def test_a_stop_run_again_waits_for_the_pod_the_first_one_left(
    env: tuple[Cluster, FakeCluster],
) -> None:
    cluster, fake = env
    name, cid = cluster.workload("again")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, _why(created)
    (pod,) = (str(p["metadata"]["name"]) for p in cluster.pods(selector(cid)))
    fake.set_pod_stop_delay("testns", pod, 600)  # its containers run out the 30 s grace
    # Its --timeout runs out with the Pod terminating, then its last reads say so: time for
    # them on this machine now (twice what the create took; with a fixed 2 s, a loaded
    # machine cut the read that names the Pod).
    timeout = f"{max(2.0, 2 * created.seconds):.1f}"
    first = cluster.adapter("stop", f"testns/{name}", flags=["--timeout", timeout])
    assert first.error_type == "Timeout", _why(first)
    assert (fake.get("pods", "testns", pod) or {})["metadata"].get("deletionTimestamp")

    # Run again: the Deployment is at 0 already, the Pod still runs its containers. A stop
    # that answers before that Pod is gone answers "offline" too early.
    watches = _pod_watches(fake)
    again = subprocess.Popen(
        cli_argv(*cluster._conn_flags(), "-n", "testns", "--timeout", "60", "stop",
                 f"testns/{name}"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
    )  # fmt: skip
    try:
        await_true(
            lambda: again.poll() is not None or _pod_watches(fake) > watches,
            60,
            "the second stop neither answered nor watched the Pods",
        )
        assert again.poll() is None, (
            f"stop answered while its Pod {pod} still ran: {again.communicate()}"
        )
        assert fake.get("pods", "testns", pod) is not None
        fake.controller.delete("pods", "testns", pod, grace=0)  # its containers end now
        out, err = again.communicate(timeout=60)
    finally:
        if again.poll() is None:
            again.kill()
            again.communicate()
    assert again.returncode == 0, (out, err[-1500:])
    assert json.loads(out)["status"] == "offline"
    assert fake.get("pods", "testns", pod) is None
    # The first stop ran out of time with the Pod terminating: its Timeout names it.
    error = first.doc["error"]
    assert error["details"]["holding"] == [pod], _why(first)
    assert f"1 Pod left: pod {pod} terminating" in error["message"], _why(first)


def test_a_stop_run_again_with_nothing_left_answers_at_once(
    env: tuple[Cluster, FakeCluster],
) -> None:
    """The retried stop's watches, started before its patch, list no Pod: it answers once
    the patch's answer shows the scale observed, with no read (stop twice costs 3 calls)."""
    cluster, fake = env
    name, _, _ = _running(cluster, "twice")
    assert cluster.adapter("stop", f"testns/{name}").code == 0
    watches = _pod_watches(fake)
    again = cluster.adapter("stop", f"testns/{name}", flags=["-v"])
    assert (again.code, again.doc.get("status")) == (0, "offline"), _why(again)
    assert _pod_watches(fake) == watches + 1
    ran = [line for line in again.stderr.splitlines() if line.startswith("kubectl ")]
    expected = [
        " patch deployment ",  # below the wait's watches (comments), started before it
        " wait --for=delete pod ",  # what pastes to wait the same way
    ]
    assert len(ran) == len(expected), again.stderr
    assert again.stderr.index("# the adapter watches: ") < again.stderr.index(ran[0])
    assert all(part in line for part, line in zip(expected, ran, strict=True)), again.stderr


def _by_hand_pod(name: str, labels: dict[str, str]) -> str:
    """A Pod with the workload's labels, as a person applies it: no ownerReference (and no
    status: the API server gives it its first)."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": [{"name": "main", "image": "nginx:latest"}]},
    }
    return json.dumps(pod)


def _other_replicaset(name: str, labels: dict[str, str]) -> str:
    """Another controller's ReplicaSet whose Pod carries the workload's labels too (its own
    labels do not match the Deployment's selector, so the Deployment never adopts it)."""
    own = {"by-hand": name}
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": own},
            "template": {
                "metadata": {"labels": labels | own},
                "spec": {"containers": [{"name": "main", "image": "nginx:latest"}]},
            },
        },
    }
    return json.dumps(rs)


def test_pods_the_deployment_does_not_own_hold_no_wait(
    env: tuple[Cluster, FakeCluster],
) -> None:
    cluster, fake = env
    name, cid, _ = _running(cluster, "foreign")
    deployment = cluster.deployment(name)
    assert deployment is not None
    labels = dict(deployment["spec"]["template"]["metadata"]["labels"])
    by_hand = f"{name}-by-hand"
    cluster.kubectl("apply", "-f", "-", stdin=_by_hand_pod(by_hand, labels))
    cluster.kubectl("apply", "-f", "-", stdin=_other_replicaset(f"{name}-other", labels))

    def foreign_running() -> list[str]:
        pods = fake.list("pods", "testns", label_selector=selector(cid))
        return [
            p["metadata"]["name"]
            for p in pods
            if p["metadata"]["name"].startswith((by_hand, f"{name}-other-"))
            and (p.get("status") or {}).get("phase") == "Running"
        ]

    foreign = fake.wait_for(lambda: len(foreign_running()) == 2 and foreign_running())
    assert isinstance(foreign, list)

    stopped = cluster.adapter("stop", f"testns/{name}", flags=["--timeout", "30", "-v"])
    assert (stopped.code, stopped.doc.get("status")) == (0, "offline"), _why(stopped)
    assert stopped.seconds < PACE.quick(), _why(stopped)
    # Which Pods are the workload's: one read of the ReplicaSets, not one per Pod.
    reads = [line for line in stopped.stderr.splitlines() if " get replicasets " in line]
    assert len(reads) <= 1, stopped.stderr
    for pod in foreign:
        assert fake.get("pods", "testns", pod) is not None  # not the workload's to delete

    # start and stop again with them there: neither wait counts them.
    started = cluster.adapter("start", f"testns/{name}", flags=["--timeout", "30"])
    assert (started.code, started.doc.get("status")) == (0, "running"), _why(started)
    again = cluster.adapter("stop", f"testns/{name}", flags=["--timeout", "30"])
    assert (again.code, again.doc.get("status")) == (0, "offline"), _why(again)
    assert again.seconds < PACE.quick(), _why(again)
