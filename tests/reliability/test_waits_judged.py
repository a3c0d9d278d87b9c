"""Waits that judge what Kubernetes really does (issue 24): each wait ends when what it waits
for has happened in the cluster, and as soon as it can no longer happen.

Real CLI, real kubectl, the fake API server. The times asserted run from the moment the fake
showed the end state (or the failure) to the moment the CLI process had answered: the
fake's store and request hooks say when things happened.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cluster, Result, spec, unique
from tests.fakecluster import FakeCluster

NS = "testns"
TIMEOUT = ["--timeout", "30"]
# The bounds of issue 24, plus the CLI process's own exit (interpreter teardown), on an
# idle machine. On a loaded one each is ``Cluster.paced``: no less than twice what a command
# of the same shape (the CLI, a kubectl read and the exit) took just after, on this machine.
EXIT = 0.5
DELETION_SEEN = 1.0 + EXIT
FAILURE_SEEN = 2.0 + EXIT


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, FakeCluster]]:
    workdir: Path = tmp_path_factory.mktemp("judged")
    with FakeCluster(
        workdir / "fake",
        namespaces=(NS,),
        default_namespace=NS,
        pod_ready_delay=0.2,
        termination_delay=0.1,
    ) as fake:
        yield Cluster(str(fake.kubeconfig), fake.context, NS, workdir, fake), fake


def _why(result: Result) -> str:
    return f"{result.code} {result.seconds:.1f}s {str(result.doc)[:1500]} {result.stderr[-1500:]}"


def _timed(call: Callable[[], Result]) -> tuple[Result, float]:
    """The result and the moment (``monotonic``) the CLI process had answered."""
    result = call()
    return result, time.monotonic()


def _running(cluster: Cluster, prefix: str, image: str = "nginx:latest") -> tuple[str, str]:
    name, cid = cluster.workload(prefix)
    result = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid, image=image))
    assert result.code == 0, _why(result)
    return name, cid


def _pods(fake: FakeCluster, name: str) -> list[dict[str, Any]]:
    return [p for p in fake.list("pods", NS) if p["metadata"]["name"].startswith(f"{name}-")]


def _kubectl(fake: FakeCluster, *args: str) -> None:
    subprocess.run(
        ["kubectl", "--kubeconfig", str(fake.kubeconfig), "--context", fake.context,
         "-n", NS, *args],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip


class FirstSeen:
    """When the fake's store first held a state (``predicate`` over the fake, run on every
    write): a thread waits on the store's condition variable, so nothing polls."""

    def __init__(self, fake: FakeCluster, predicate: Callable[[], Any], within: float) -> None:
        self.at: float | None = None
        self.value: Any = None

        def run() -> None:
            try:
                self.value = fake.wait_for(predicate, timeout=within)
                self.at = time.monotonic()
            except TimeoutError:
                pass

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def when(self) -> float:
        self.thread.join(timeout=60)
        assert self.at is not None, "the fake never showed that state"
        return self.at


# -- 1. stop ends when no Pod of the workload is left ----------------------------------------


def test_a_succeeded_pod_does_not_hold_stop(env: tuple[Cluster, FakeCluster]) -> None:
    """A Pod that ended on its own (Succeeded), which nothing deletes, has no container left
    to stop: it does not hold stop (a Pod being deleted does, until it is gone)."""
    cluster, fake = env
    name, _ = _running(cluster, "succeeded")
    (live,) = _pods(fake, name)
    fake.evict_pod(NS, live["metadata"]["name"], phase="Succeeded", reason="Completed", message="")
    fake.wait_for(lambda: len(_pods(fake, name)) == 2, timeout=10)  # its replacement
    result = cluster.adapter("stop", f"{NS}/{name}", flags=TIMEOUT)
    assert (result.code, result.doc.get("status")) == (0, "offline"), _why(result)
    assert result.seconds < cluster.paced(12), _why(result)
    assert fake.get("pods", NS, live["metadata"]["name"]) is not None  # nothing deletes it


def test_stop_waits_for_a_pod_slow_to_go(env: tuple[Cluster, FakeCluster]) -> None:
    """A deleted Pod runs its containers until they stop (3 s here); the ReplicaSet stops
    counting it at once. stop answered offline in 0.4 s with the Pod still running."""
    cluster, fake = env
    name, _ = _running(cluster, "slowgo", image="nginx:slowgo")
    fake.set_stop_delay("nginx:slowgo", 3.0)
    try:
        gone = FirstSeen(fake, lambda: not _pods(fake, name), within=30)
        result, answered = _timed(lambda: cluster.adapter("stop", f"{NS}/{name}", flags=TIMEOUT))
    finally:
        fake.set_stop_delay("nginx:slowgo", None)
    assert (result.code, result.doc.get("status")) == (0, "offline"), _why(result)
    assert not _pods(fake, name), "stop answered while a Pod of it was still there"
    assert answered - gone.when() < cluster.paced(DELETION_SEEN), _why(result)
    assert result.seconds >= 3.0, _why(result)


def test_the_logged_stop_wait_ends_where_stop_ended(env: tuple[Cluster, FakeCluster]) -> None:
    """The -v log's by-hand command (``kubectl wait --for=delete pod -l …``), run the moment
    stop answered, finds nothing left to wait for: both describe the same end state."""
    cluster, fake = env
    name, _ = _running(cluster, "byhand", image="nginx:byhand")
    fake.set_stop_delay("nginx:byhand", 4.0)
    try:
        result = cluster.adapter("stop", f"{NS}/{name}", flags=[*TIMEOUT, "-v"])
    finally:
        fake.set_stop_delay("nginx:byhand", None)
    assert result.code == 0, _why(result)
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("kubectl ") and " wait " in x]
    # By the name label: stop's Pods' watch starts before its patch shows the selector.
    assert "--for=delete pod -l" in line and f"name={name}" in line, line
    started = time.monotonic()
    pasted = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert pasted.returncode == 0, pasted.stderr
    # kubectl's own start-up and one list (the Pod took 4 s to go): no longer than a plain
    # list of the Pods takes now, on the same machine, or the idle machine's 2.5 s.
    started = time.monotonic()
    cluster.kubectl("get", "pods", "-l", f"org.mieweb.opensource-server.container-id=c-{name}")
    baseline = time.monotonic() - started
    assert took < max(2.5, 3 * baseline), f"the by-hand wait still had Pods to wait for: {took}"


# -- 2. a Deployment deleted under a wait ----------------------------------------------------


def _prepared(cluster: Cluster, fake: FakeCluster, operation: str) -> tuple[str, list[str], Any]:
    """A workload whose ``operation`` will wait (its Pod never gets ready, or is slow to go):
    (name, the CLI arguments, what the operation's stdin is)."""
    image = f"nginx:{unique(f'del-{operation}')}"  # its own: the knobs outlive a test
    if operation == "create":
        name, cid = cluster.workload("del-create")
        fake.set_image_behaviour(image, "never_ready")
        return name, ["create", "--spec", "-"], spec(name, cid, image=image)
    name, cid = _running(cluster, f"del-{operation[:5]}", image=image)
    if operation == "stop":
        fake.set_stop_delay(image, 20.0)
        return name, ["stop", f"{NS}/{name}"], None
    if operation == "start":
        assert cluster.adapter("stop", f"{NS}/{name}").code == 0
        fake.set_image_behaviour(image, "never_ready")
        return name, ["start", f"{NS}/{name}"], None
    fake.set_image_behaviour(f"{image}-new", "never_ready")
    changed = spec(name, cid, image=f"{image}-new")
    return name, ["reconfigure", f"{NS}/{name}", "--spec", "-"], changed


OPERATIONS = ["create", "start", "stop", "reconfigure"]


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_deployment_deleted_as_the_write_lands_is_said_at_once(
    env: tuple[Cluster, FakeCluster], operation: str
) -> None:
    """Deleted just after the write, before its answer reaches kubectl: the wait's watches,
    started before the write (issue 38), show it gone at once (it used to be deleted before
    the watch listed it, which showed nothing at all: stop waited its whole --timeout, the
    others a 10 s slice)."""
    cluster, fake = env
    name, args, stdin = _prepared(cluster, fake, operation)
    deleted: list[float] = []

    def delete() -> None:
        fake.delete_object("deployments", NS, name)
        deleted.append(time.monotonic())

    hook = fake.on_request(
        after=delete, method="PATCH", path_regex=rf"/namespaces/{NS}/deployments/{name}$"
    )
    try:
        result, answered = _timed(lambda: cluster.adapter(*args, stdin=stdin, flags=TIMEOUT))
    finally:
        fake.clear_faults()
    assert hook.fired.is_set() and not hook.errors, hook.errors
    assert (result.code, result.error_type) == (3, "NotFound"), _why(result)
    assert "deleted" in result.doc["error"]["message"], _why(result)
    assert answered - deleted[0] < cluster.paced(DELETION_SEEN), _why(result)


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_deployment_deleted_during_the_watch_is_said_at_once(
    env: tuple[Cluster, FakeCluster], operation: str
) -> None:
    cluster, fake = env
    name, args, stdin = _prepared(cluster, fake, operation)
    deleted: list[float] = []

    def delete_soon() -> None:
        def delete() -> None:
            fake.delete_object("deployments", NS, name)
            deleted.append(time.monotonic())

        threading.Timer(0.5, delete).start()

    # Half a second after the write was handled: its wait's watches started before it, so
    # they are running. (Timed from the Deployment watch's arrival instead, a loaded machine
    # could reach the deletion before create's apply: nothing to delete, and the create waited
    # out its whole --timeout.)
    hook = fake.on_request(
        after=delete_soon, method="PATCH", path_regex=rf"/namespaces/{NS}/deployments/{name}$"
    )
    try:
        result, answered = _timed(lambda: cluster.adapter(*args, stdin=stdin, flags=TIMEOUT))
    finally:
        fake.clear_faults()
    assert hook.fired.is_set() and not hook.errors, hook.errors
    assert (result.code, result.error_type) == (3, "NotFound"), _why(result)
    assert deleted, _why(result)
    assert answered - deleted[0] < cluster.paced(DELETION_SEEN), _why(result)


# -- 3. a Pod that cannot start --------------------------------------------------------------

FAILING = {
    # behaviour (fc.set_image_behaviour), the waiting/terminated reason the fake shows first
    "crash": ("crash", ("Error", "CrashLoopBackOff")),
    "oom": ("oom", ("OOMKilled", "CrashLoopBackOff")),
    "pull": ("pull_error", ("ErrImagePull", "ImagePullBackOff")),
    "invalid": ("invalid_image", ("InvalidImageName",)),
    "config": ("config_error", ("CreateContainerConfigError",)),
}


def _failing_reason(pod: dict[str, Any], reasons: tuple[str, ...]) -> bool:
    status = pod.get("status") or {}
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        for state in (cs.get("state") or {}).values():
            if isinstance(state, dict) and state.get("reason") in reasons:
                return True
    return False


@pytest.mark.parametrize("kind", sorted(FAILING))
def test_create_of_a_pod_that_cannot_start_fails_within_two_seconds(
    env: tuple[Cluster, FakeCluster], kind: str
) -> None:
    """The watch saw only the Deployment, and the Pod read waited for the 10 s slice."""
    cluster, fake = env
    behaviour, reasons = FAILING[kind]
    name, cid = cluster.workload(f"fail-{kind}")
    image = f"nginx:fail-{kind}"
    fake.set_image_behaviour(image, behaviour)
    seen = FirstSeen(
        fake, lambda: any(_failing_reason(p, reasons) for p in _pods(fake, name)), within=30
    )
    result, answered = _timed(
        lambda: cluster.adapter(
            "create", "--spec", "-", stdin=spec(name, cid, image=image), flags=TIMEOUT
        )
    )
    assert (result.code, result.error_type) == (10, "RolloutFailed"), _why(result)
    assert any(r in result.doc["error"]["message"] for r in reasons), _why(result)
    assert answered - seen.when() < cluster.paced(FAILURE_SEEN), _why(result)


INIT_FAILING = {
    "exit": ("crash", ("Error", "CrashLoopBackOff")),
    "pull": ("pull_error", ("ErrImagePull", "ImagePullBackOff")),
}


@pytest.mark.parametrize("kind", sorted(INIT_FAILING))
def test_start_of_a_pod_whose_init_container_fails_fails_within_two_seconds(
    env: tuple[Cluster, FakeCluster], kind: str
) -> None:
    """An init container added by hand (Manager's spec has none) that cannot run: the Pod
    stays Pending in ``Init:…``, which the Deployment's status never shows."""
    cluster, fake = env
    behaviour, reasons = INIT_FAILING[kind]
    name, _ = _running(cluster, f"init-{kind}")
    assert cluster.adapter("stop", f"{NS}/{name}").code == 0
    image = f"busybox:init-{kind}"
    fake.set_image_behaviour(image, behaviour)
    init = {"spec": {"template": {"spec": {"initContainers": [{"name": "setup", "image": image}]}}}}
    _kubectl(fake, "patch", "deployment", name, "--type=strategic", "-p", json.dumps(init))
    seen = FirstSeen(
        fake, lambda: any(_failing_reason(p, reasons) for p in _pods(fake, name)), within=30
    )
    result, answered = _timed(lambda: cluster.adapter("start", f"{NS}/{name}", flags=TIMEOUT))
    assert (result.code, result.error_type) == (10, "RolloutFailed"), _why(result)
    assert "init container setup" in result.doc["error"]["message"], _why(result)
    assert answered - seen.when() < cluster.paced(FAILURE_SEEN), _why(result)


def test_a_rollout_past_its_progress_deadline_fails_as_the_deployment_says_so(
    env: tuple[Cluster, FakeCluster],
) -> None:
    """A Pod that never becomes ready is no failure of its own; the Deployment's progress
    deadline (2 s here, set by hand with a new template) is, the moment its condition says
    so."""
    cluster, fake = env
    name, _ = _running(cluster, "deadline")
    # A new template (a rollout: only a rollout has a progress deadline) that never gets
    # ready; start waits for the rollout the Deployment is in.
    fake.set_image_behaviour("nginx:deadline", "never_ready")
    _kubectl(fake, "patch", "deployment", name, "--type=merge",
             "-p", '{"spec":{"progressDeadlineSeconds":2}}')  # fmt: skip
    _kubectl(fake, "set", "image", f"deployment/{name}", "main=nginx:deadline")

    def exceeded() -> bool:
        found = fake.get("deployments", NS, name) or {}
        return any(
            c.get("reason") == "ProgressDeadlineExceeded"
            for c in (found.get("status") or {}).get("conditions") or []
        )

    seen = FirstSeen(fake, exceeded, within=30)
    result, answered = _timed(lambda: cluster.adapter("start", f"{NS}/{name}", flags=TIMEOUT))
    assert (result.code, result.error_type) == (10, "RolloutFailed"), _why(result)
    assert "progress deadline" in result.doc["error"]["message"], _why(result)
    assert answered - seen.when() < cluster.paced(FAILURE_SEEN), _why(result)


def test_an_old_pod_failing_does_not_end_a_rollout(env: tuple[Cluster, FakeCluster]) -> None:
    """The Pods' watch sees every Pod of the workload: a failing Pod of the previous
    ReplicaSet is not the rollout's (a read of the ReplicaSets tells them apart)."""
    cluster, fake = env
    name, cid = _running(cluster, "oldfail", image="nginx:oldfail")
    (old,) = _pods(fake, name)
    old["status"]["containerStatuses"][0]["state"] = {
        "waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s"}
    }
    changed = spec(name, cid, image="nginx:oldfail-2", env={"KEY": "new"})
    fake.set_pod_stop_delay(NS, old["metadata"]["name"], 2.0)
    result = cluster.adapter(
        "reconfigure", f"{NS}/{name}", "--spec", "-", stdin=changed, flags=TIMEOUT
    )
    assert (result.code, result.doc.get("status")) == (0, "running"), _why(result)
