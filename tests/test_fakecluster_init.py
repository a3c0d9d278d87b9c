"""The fake kubelet's init containers and the waiting reasons the adapter's rules judge."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.rules.pod_failures import pod_failures
from tests.fakecluster import FakeCluster
from tests.fakecluster.container_errors import invalid_image_message
from tests.test_fakecluster import Runner, deployment, needs_kubectl

CID = "org.mieweb.opensource-server.container-id"


def create(
    fc: FakeCluster,
    name: str,
    *,
    inits: list[dict[str, Any]] | None = None,
    image: str = "nginx:1.27",
    env: list[dict[str, Any]] | None = None,
) -> None:
    doc = json.loads(deployment(name=name, cid=name, image=image, env={}))
    spec = doc["spec"]["template"]["spec"]
    if inits:
        spec["initContainers"] = inits
    if env:
        spec["containers"][0]["env"] = env
    fc.create_object(doc)


def pod_of(fc: FakeCluster, name: str) -> dict[str, Any] | None:
    pods = fc.list("pods", "testns", label_selector=f"{CID}={name}")
    return pods[0] if pods else None


def waiting(
    fc: FakeCluster, name: str, reason: str, key: str = "containerStatuses"
) -> Callable[[], dict[str, Any] | None]:
    def check() -> dict[str, Any] | None:
        pod = pod_of(fc, name)
        for cs in (pod or {}).get("status", {}).get(key) or []:
            if cs["state"].get("waiting", {}).get("reason") == reason:
                return pod
        return None

    return check


def history(fc: FakeCluster, name: str) -> list[dict[str, Any]]:
    """Every stored version of the workload's Pod, oldest first (what a watch saw)."""
    return [
        obj for _, obj in fc.history("pods", "testns") if obj["metadata"]["labels"].get(CID) == name
    ]


def conditions(pod: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {c["type"]: (c["status"], c.get("reason")) for c in pod["status"]["conditions"]}


def states(pod: dict[str, Any], key: str = "initContainerStatuses") -> dict[str, str]:
    return {cs["name"]: next(iter(cs["state"])) for cs in pod["status"].get(key) or []}


def warnings(fc: FakeCluster) -> list[tuple[str, str, str]]:
    return [
        (e["reason"], e["involvedObject"].get("fieldPath", ""), e["message"])
        for e in fc.events("testns")
        if e["type"] == "Warning"
    ]


def failures(pod: dict[str, Any]) -> list[tuple[str | None, str, bool]]:
    return [(f.container, f.reason, f.init) for f in pod_failures([pod], datetime.now(UTC))]


@needs_kubectl
def test_init_containers_run_in_order_before_the_app(cluster: FakeCluster, kubectl: Runner) -> None:
    fc = cluster
    inits = [{"name": "first", "image": "busybox:1.36"}, {"name": "second", "image": "alpine:3"}]
    create(fc, "web-1", inits=inits)
    r = kubectl("rollout", "status", "deployment/web-1", "-n", "testns", "--timeout=30s")
    assert r.returncode == 0, r.stderr
    seen = history(fc, "web-1")
    bound = [p for p in seen if p["spec"].get("nodeName")]
    first = bound[0]
    assert first["status"]["phase"] == "Pending"
    assert conditions(first)["Initialized"] == ("False", "ContainersNotInitialized")
    assert {c["type"]: c.get("message") for c in first["status"]["conditions"]}[
        "Initialized"
    ] == "containers with incomplete status: [first second]"
    assert states(first) == {"first": "waiting", "second": "waiting"}
    assert first["status"]["containerStatuses"][0]["state"] == {
        "waiting": {"reason": "PodInitializing"}
    }
    order = []
    for p in bound:
        now = states(p)
        if not order or order[-1] != now:
            order.append(now)
        if "running" in now.values():
            assert p["status"]["phase"] == "Pending"
            assert states(p, "containerStatuses") == {"main": "waiting"}
    assert order[:4] == [
        {"first": "waiting", "second": "waiting"},
        {"first": "running", "second": "waiting"},
        {"first": "terminated", "second": "waiting"},
        {"first": "terminated", "second": "running"},
    ]
    r = kubectl("get", "pods", "-n", "testns", "-o", "json")
    (pod,) = json.loads(r.stdout)["items"]
    assert pod["status"]["phase"] == "Running"
    assert conditions(pod)["Initialized"] == ("True", None)
    for cs in pod["status"]["initContainerStatuses"]:
        term = cs["state"]["terminated"]
        assert (term["exitCode"], term["reason"], cs["ready"], cs["started"]) == (
            0,
            "Completed",
            True,
            False,
        )
    assert failures(pod) == []


@needs_kubectl
def test_an_init_container_exiting_1_crash_loops(cluster: FakeCluster, kubectl: Runner) -> None:
    fc = cluster
    # The `exit 1` convention, and the knob.
    exit1 = {"name": "setup", "image": "alpine:3", "command": ["sh", "-c", "exit 1"]}
    create(fc, "web-1", inits=[exit1])
    fc.set_image_behaviour("busybox", "crash")
    create(fc, "web-2", inits=[{"name": "setup", "image": "busybox:1.36"}])
    fc.wait_for(waiting(fc, "web-1", "CrashLoopBackOff", "initContainerStatuses"), 10)
    pod = fc.wait_for(waiting(fc, "web-2", "CrashLoopBackOff", "initContainerStatuses"), 10)
    (cs,) = pod["status"]["initContainerStatuses"]
    assert cs["restartCount"] >= 1 and not cs["ready"]
    assert re.match(
        r"back-off \d+s restarting failed container=setup pod=web-2-",
        cs["state"]["waiting"]["message"],
    )
    assert (cs["lastState"]["terminated"]["exitCode"], cs["lastState"]["terminated"]["reason"]) == (
        1,
        "Error",
    )
    assert pod["status"]["phase"] == "Pending"
    assert conditions(pod)["Initialized"] == ("False", "ContainersNotInitialized")
    assert states(pod, "containerStatuses") == {"main": "waiting"}
    assert failures(pod) == [("setup", "CrashLoopBackOff", True)]
    # Before the back-off the kubelet showed the exit itself (kubectl: Init:Error).
    ended = [
        p
        for p in history(fc, "web-2")
        if "terminated" in (p["status"].get("initContainerStatuses") or [{}])[0].get("state", {})
    ]
    assert ended and failures(ended[0]) == [("setup", "Error", True)]
    assert ("BackOff", "spec.initContainers{setup}") in {(w[0], w[1]) for w in warnings(fc)}
    r = kubectl("describe", "pod", pod["metadata"]["name"], "-n", "testns")
    assert r.returncode == 0, r.stderr
    init_part = r.stdout.split("Init Containers:")[1].split("Containers:")[0]
    # The loop goes on (back-off capped at 2 s): whatever its state now, the last one shows.
    assert "Last State:     Terminated" in init_part and "Exit Code:    1" in init_part
    assert "Restart Count:  0" not in init_part


def test_an_init_container_oom_killed(cluster: FakeCluster) -> None:
    fc = cluster
    fc.set_image_behaviour("memhog", "oom")
    create(fc, "web-1", inits=[{"name": "setup", "image": "example/memhog:1"}])
    pod = fc.wait_for(waiting(fc, "web-1", "CrashLoopBackOff", "initContainerStatuses"), 10)
    last = pod["status"]["initContainerStatuses"][0]["lastState"]["terminated"]
    assert (last["exitCode"], last["reason"]) == (137, "OOMKilled")


def test_an_init_image_that_cannot_be_pulled(cluster: FakeCluster) -> None:
    fc = cluster
    create(fc, "web-1", inits=[{"name": "setup", "image": "registry.example/does-not-exist:1"}])
    pod = fc.wait_for(waiting(fc, "web-1", "ImagePullBackOff", "initContainerStatuses"), 10)
    assert pod["status"]["phase"] == "Pending"
    assert failures(pod) == [("setup", "ImagePullBackOff", True)]
    pulls = [p for p in history(fc, "web-1") if states(p) == {"setup": "waiting"}]
    reasons = [p["status"]["initContainerStatuses"][0]["state"]["waiting"]["reason"] for p in pulls]
    assert reasons.index("ErrImagePull") < reasons.index("ImagePullBackOff")
    assert (
        "Failed",
        "spec.initContainers{setup}",
        "Error: ErrImagePull",
    ) in warnings(fc)


def test_a_sidecar_starts_and_keeps_running(cluster: FakeCluster) -> None:
    fc = cluster
    create(
        fc,
        "web-1",
        inits=[{"name": "proxy", "image": "envoy:1", "restartPolicy": "Always"}],
    )

    def ready() -> dict[str, Any] | None:
        pod = pod_of(fc, "web-1")
        return pod if pod and conditions(pod)["Ready"][0] == "True" else None

    pod = fc.wait_for(ready, 10)
    (cs,) = pod["status"]["initContainerStatuses"]
    assert ("running" in cs["state"], cs["ready"], cs["started"]) == (True, True, True)


@needs_kubectl
def test_invalid_image_name(cluster: FakeCluster, kubectl: Runner) -> None:
    fc = cluster
    create(fc, "upper", image="Nginx:1.27")
    create(fc, "bad", image="nginx:1.27:extra")
    pod = fc.wait_for(waiting(fc, "upper", "InvalidImageName"), 10)
    assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["message"] == (
        'Failed to apply default image tag "Nginx:1.27": couldn\'t parse image name '
        '"Nginx:1.27": invalid reference format: repository name must be lowercase'
    )
    assert failures(pod) == [("main", "InvalidImageName", False)]
    pod = fc.wait_for(waiting(fc, "bad", "InvalidImageName"), 10)
    msg = pod["status"]["containerStatuses"][0]["state"]["waiting"]["message"]
    assert msg.endswith('couldn\'t parse image name "nginx:1.27:extra": invalid reference format')
    assert ("InspectFailed", "spec.containers{main}", msg) in warnings(fc)
    assert ("Failed", "spec.containers{main}", "Error: InvalidImageName") in warnings(fc)
    assert pod["status"]["phase"] == "Pending"
    for good in (
        "nginx",
        "nginx:1.27",
        "registry.example:5000/team/app:v1.2_3",
        "a/b/c@sha256:" + "0" * 64,
    ):
        assert invalid_image_message(good) is None, good


def test_create_container_config_error(cluster: FakeCluster) -> None:
    fc = cluster

    def ref(kind: str, name: str, key: str, **extra: Any) -> list[dict[str, Any]]:
        return [{"name": "X", "valueFrom": {kind: {"name": name, "key": key, **extra}}}]

    fc.create_object(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "present", "namespace": "testns"},
            "data": {"user": "YQ=="},
        }
    )
    create(fc, "nosecret", env=ref("secretKeyRef", "creds", "password"))
    create(fc, "nokey", env=ref("secretKeyRef", "present", "password"))
    create(fc, "nocm", env=ref("configMapKeyRef", "settings", "mode"))
    create(fc, "optional", env=ref("configMapKeyRef", "settings", "mode", optional=True))
    expected = {
        "nosecret": 'secret "creds" not found',
        "nokey": "couldn't find key password in Secret testns/present",
        "nocm": 'configmap "settings" not found',
    }
    for name, message in expected.items():
        pod = fc.wait_for(waiting(fc, name, "CreateContainerConfigError"), 10)
        assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["message"] == message
        assert pod["status"]["phase"] == "Pending"
        assert failures(pod) == [("main", "CreateContainerConfigError", False)]
        assert ("Failed", "spec.containers{main}", f"Error: {message}") in warnings(fc)
    fc.wait_for(lambda: (pod_of(fc, "optional") or {}).get("status", {}).get("phase") == "Running")
    # The kubelet keeps trying: the Secret created, the container starts.
    fc.create_object(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "creds", "namespace": "testns"},
            "stringData": {"password": "x"},
        }
    )
    fc.wait_for(lambda: (pod_of(fc, "nosecret") or {}).get("status", {}).get("phase") == "Running")
    # The knob, on an init container: lifted, the Pod goes on.
    fc.set_image_behaviour("busybox", "config_error")
    create(fc, "knob", inits=[{"name": "setup", "image": "busybox:1.36"}])
    pod = fc.wait_for(
        waiting(fc, "knob", "CreateContainerConfigError", "initContainerStatuses"), 10
    )
    assert pod["status"]["initContainerStatuses"][0]["state"]["waiting"]["message"] == (
        'configmap "fake-config" not found'
    )
    assert failures(pod) == [("setup", "CreateContainerConfigError", True)]
    fc.set_image_behaviour("busybox", None)
    fc.wait_for(lambda: (pod_of(fc, "knob") or {}).get("status", {}).get("phase") == "Running")


def test_an_app_container_exiting_1_then_crash_looping(cluster: FakeCluster) -> None:
    """ErrImagePull then ImagePullBackOff, and exit 1 (Error) then CrashLoopBackOff: each
    step is stored, so a watch sees the first reason before the back-off."""
    fc = cluster
    create(fc, "pull", image="registry.example/does-not-exist:1")
    create(fc, "crash", image="busybox:crashloop")
    fc.wait_for(waiting(fc, "pull", "ImagePullBackOff"), 10)
    fc.wait_for(waiting(fc, "crash", "CrashLoopBackOff"), 10)

    def first(name: str, pick: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        seen = [p for p in history(fc, name) if p["status"].get("containerStatuses")]
        return next(p for p in seen if pick(p["status"]["containerStatuses"][0]))

    pulled = first(
        "pull",
        lambda cs: (
            "waiting" in cs["state"] and cs["state"]["waiting"]["reason"] != "ContainerCreating"
        ),
    )
    assert pulled["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ErrImagePull"
    assert failures(pulled) == [("main", "ErrImagePull", False)]
    exited = first("crash", lambda cs: "terminated" in cs["state"])
    term = exited["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (1, "Error")
    assert failures(exited) == [("main", "Error", False)]


def test_set_image_behaviour_knows_the_new_behaviours(cluster: FakeCluster) -> None:
    for behaviour in ("invalid_image", "config_error"):
        cluster.set_image_behaviour("x", behaviour)
    with pytest.raises(ValueError):
        cluster.set_image_behaviour("x", "sometimes")


_COMPONENT = st.from_regex(r"[a-z0-9]{1,5}(?:[._-][a-z0-9]{1,5}){0,2}", fullmatch=True)


@given(
    domain=st.sampled_from(["", "registry.example/", "localhost:5000/", "Reg.Example:443/"]),
    path=st.lists(_COMPONENT, min_size=1, max_size=3),
    tag=st.one_of(st.just(""), st.from_regex(r":[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", fullmatch=True)),
)
def test_every_well_formed_reference_parses(domain: str, path: list[str], tag: str) -> None:
    assert invalid_image_message(domain + "/".join(path) + tag) is None


@given(image=st.text(min_size=1, max_size=30))
def test_a_reference_that_does_not_parse_is_said_so(image: str) -> None:
    msg = invalid_image_message(image)
    if msg is not None:
        assert msg.startswith(f'Failed to apply default image tag "{image}": ')
        assert msg.endswith(("invalid reference format", "repository name must be lowercase"))
    if any(ch in image for ch in " !\"#$%&'()*+,;<=>?[]^`{|}~\n"):
        assert msg is not None
