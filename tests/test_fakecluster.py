"""Tests of the fake API server, mostly driving the real kubectl 1.32 against it."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

try:
    from tests.fakecluster import FakeCluster
except ModuleNotFoundError:  # pytest run without the project root on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.fakecluster import FakeCluster

from tests.fakecluster import resources
from tests.fakecluster import ssa as ssa_mod

REFERENCE = Path(__file__).parent / "fakecluster" / "data" / "reference"
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
LABELS = {
    "org.mieweb.opensource-server.managed": "true",
    "org.mieweb.opensource-server.container-id": "42",
}
SEL = "org.mieweb.opensource-server.container-id=42"
SSA = ["apply", "--server-side", "--field-manager=opensource-server-manager", "--force-conflicts"]


def deployment(
    name: str = "web-1",
    image: str = "nginx:1.27",
    env: dict[str, str] | None = None,
    cid: str = "42",
    **spec_extra: Any,
) -> str:
    labels = {**LABELS, "org.mieweb.opensource-server.container-id": cid}
    container: dict[str, Any] = {"name": "main", "image": image, "ports": [{"containerPort": 80}]}
    if env is None:
        env = {"A": "1", "B": "2"}
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    doc = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "testns", "labels": labels},
        "spec": {
            **spec_extra,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
    return json.dumps(doc)


Runner = Callable[..., subprocess.CompletedProcess[str]]


def make_runner(fc: FakeCluster, tmp: Path) -> Runner:
    counter = iter(range(10**6))

    def run(
        *args: str, stdin: str | None = None, context: str | None = None, timeout: float = 40
    ) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None
        cache = tmp / f"cache-{next(counter)}"
        cmd = [
            KUBECTL,
            "--kubeconfig",
            str(fc.kubeconfig),
            "--context",
            context or fc.context,
            "--cache-dir",
            str(cache),
            *args,
        ]
        return subprocess.run(
            cmd, input=stdin, capture_output=True, text=True, timeout=timeout, check=False
        )

    return run


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def https(
    fc: FakeCluster,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    content_type: str = "application/json",
    accept: str = "application/json",
) -> tuple[int, dict[str, str], bytes]:
    ctx = ssl.create_default_context(cadata=fc.ca_pem.decode())
    data = (
        None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    )
    req = urllib.request.Request(fc.server_url + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token or fc.admin_token}")
    req.add_header("Accept", accept)
    if data is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as e:
        with e:
            return e.code, dict(e.headers), e.read()


def pod_waiting_reason(
    fc: FakeCluster, cid: str, reason: str
) -> Callable[[], dict[str, Any] | None]:
    def check() -> dict[str, Any] | None:
        for pod in fc.list(
            "pods", "testns", label_selector=f"org.mieweb.opensource-server.container-id={cid}"
        ):
            for cs in pod["status"].get("containerStatuses") or []:
                if cs["state"].get("waiting", {}).get("reason") == reason:
                    return pod
        return None

    return check


# --------------------------------------------------------------------------- kubectl basics
@needs_kubectl
def test_version_nodes_namespaces(cluster: FakeCluster, kubectl: Runner) -> None:
    r = kubectl("version", "-o", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["serverVersion"]["minor"] == "32"
    r = kubectl("get", "nodes", "-o", "json")
    assert r.returncode == 0, r.stderr
    node = json.loads(r.stdout)["items"][0]
    assert node["status"]["allocatable"] == {
        **node["status"]["allocatable"],
        "cpu": "4",
        "memory": "8Gi",
    }
    r = kubectl("get", "namespace", "testns", "-o", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["metadata"]["name"] == "testns"
    r = kubectl("get", "namespace", "nope")
    assert r.returncode == 1
    assert last_line(r.stderr) == 'Error from server (NotFound): namespaces "nope" not found'


@needs_kubectl
def test_deployment_lifecycle(cluster: FakeCluster, kubectl: Runner) -> None:
    fc = cluster
    r = kubectl(*SSA, "-n", "testns", "-f", "-", stdin=deployment())
    assert (r.returncode, r.stdout.strip()) == (0, "deployment.apps/web-1 serverside-applied"), (
        r.stderr
    )
    r = kubectl(*SSA, "-n", "testns", "-f", "-", "-o", "json", stdin=deployment())
    assert r.returncode == 0 and json.loads(r.stdout)["spec"]["replicas"] == 1

    r = kubectl("rollout", "status", "deployment/web-1", "-n", "testns", "--timeout=30s")
    done = time.monotonic()
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith('deployment "web-1" successfully rolled out')
    assert done - fc.mark_available_times["web-1"] < 1.5

    r = kubectl(
        "get",
        "deployments",
        "-l",
        "org.mieweb.opensource-server.managed=true",
        "-n",
        "testns",
        "-o",
        "json",
    )
    assert [d["metadata"]["name"] for d in json.loads(r.stdout)["items"]] == ["web-1"]
    r = kubectl("get", "pods,replicasets", "-l", SEL, "-n", "testns", "-o", "json")
    kinds = sorted(i["kind"] for i in json.loads(r.stdout)["items"])
    assert kinds == ["Pod", "ReplicaSet"], r.stdout
    r = kubectl("get", "deployment", "web-1", "-n", "testns", "-o", "json")
    dep = json.loads(r.stdout)
    assert dep["status"]["availableReplicas"] == 1
    assert {c["type"]: c["reason"] for c in dep["status"]["conditions"]} == {
        "Available": "MinimumReplicasAvailable",
        "Progressing": "NewReplicaSetAvailable",
    }
    assert dep["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"

    # scale to zero, wait for the pod to go, re-apply: replicas stays 0
    r = kubectl("scale", "deployment/web-1", "-n", "testns", "--replicas=0")
    assert r.stdout.strip() == "deployment.apps/web-1 scaled", r.stderr
    r = kubectl("wait", "--for=delete", "pod", "-l", SEL, "-n", "testns", "--timeout=30s")
    assert r.returncode == 0, r.stderr
    fc.wait_for(lambda: not fc.list("pods", "testns"), 5)
    assert kubectl(*SSA, "-n", "testns", "-f", "-", stdin=deployment()).returncode == 0
    assert fc.get("deployments", "testns", "web-1")["spec"]["replicas"] == 0  # type: ignore[index]
    assert kubectl("scale", "deployment/web-1", "-n", "testns", "--replicas=1").returncode == 0
    assert (
        kubectl("rollout", "status", "deployment/web-1", "-n", "testns", "--timeout=30s").returncode
        == 0
    )

    # removing an env var from the applied config removes it; a new ReplicaSet rolls out
    gen = fc.get("deployments", "testns", "web-1")["metadata"]["generation"]  # type: ignore[index]
    old_pods = {p["metadata"]["name"] for p in fc.list("pods", "testns")}
    assert (
        kubectl(*SSA, "-n", "testns", "-f", "-", stdin=deployment(env={"A": "1"})).returncode == 0
    )
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None
    assert dep["spec"]["template"]["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]
    assert dep["metadata"]["generation"] == gen + 1
    assert (
        kubectl("rollout", "status", "deployment/web-1", "-n", "testns", "--timeout=30s").returncode
        == 0
    )
    fc.wait_for(
        lambda: not old_pods & {p["metadata"]["name"] for p in fc.list("pods", "testns")}, 5
    )
    assert len(fc.list("replicasets", "testns")) == 2

    r = kubectl("rollout", "undo", "deployment/web-1", "-n", "testns")
    assert r.stdout.strip() == "deployment.apps/web-1 rolled back", r.stderr
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None and len(dep["spec"]["template"]["spec"]["containers"][0]["env"]) == 2
    assert (
        kubectl("rollout", "status", "deployment/web-1", "-n", "testns", "--timeout=30s").returncode
        == 0
    )
    # Read again: the copy taken right after the undo may predate the controller's revision
    # bump (a race a loaded machine lost: '2' == '3').
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None
    assert dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"

    r = kubectl(
        "delete", "deployment", "web-1", "-n", "testns", "--cascade=foreground", "--timeout=30s"
    )
    assert (r.returncode, r.stdout.strip()) == (0, 'deployment.apps "web-1" deleted'), r.stderr
    assert not fc.list("replicasets", "testns") and not fc.list("pods", "testns")
    r = kubectl("delete", "deployment", "web-1", "-n", "testns", "--ignore-not-found")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


@needs_kubectl
def test_events_field_selector(cluster: FakeCluster, kubectl: Runner) -> None:
    assert (
        kubectl(
            *SSA, "-n", "testns", "-f", "-", stdin=deployment(image="fake.invalid/nope:1")
        ).returncode
        == 0
    )
    cluster.wait_for(pod_waiting_reason(cluster, "42", "ImagePullBackOff"), 5)
    r = kubectl("get", "events", "-n", "testns", "--field-selector", "type=Warning", "-o", "json")
    events = json.loads(r.stdout)["items"]
    assert events and all(e["type"] == "Warning" for e in events)
    assert any(
        e["message"].startswith('Failed to pull image "fake.invalid/nope:1"') for e in events
    )
    pod = cluster.list("pods", "testns")[0]["metadata"]["name"]
    r = kubectl(
        "get",
        "events",
        "-n",
        "testns",
        "--field-selector",
        f"involvedObject.name={pod},involvedObject.kind=Pod",
        "-o",
        "json",
    )
    assert {e["involvedObject"]["name"] for e in json.loads(r.stdout)["items"]} == {pod}


# --------------------------------------------------------------------------- authorization
SSAR_LIST = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
    f"""- apiVersion: authorization.k8s.io/v1
  kind: SelfSubjectAccessReview
  spec:
    resourceAttributes:
      {{namespace: testns, verb: {verb}, group: apps, resource: deployments, subresource: "{sub}"}}
"""
    for verb, sub in (("patch", ""), ("get", ""), ("patch", "scale"))
)
ROLE = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: manager, namespace: testns}
rules:
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch, create, delete]
- apiGroups: [apps]
  resources: [deployments/scale]
  verbs: [get, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: manager, namespace: testns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: manager}
subjects:
- {kind: ServiceAccount, name: manager, namespace: testns}
"""


def parse_stream(text: str) -> list[dict[str, Any]]:
    """`kubectl create -o json` prints one JSON document per created object."""
    dec, out, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = dec.raw_decode(text, i)
        out.append(obj)
    return out


@needs_kubectl
def test_selfsubjectaccessreviews_and_rbac(cluster: FakeCluster, kubectl: Runner) -> None:
    r = kubectl("create", "-f", "-", "-o", "json", stdin=SSAR_LIST)
    assert r.returncode == 0, r.stderr
    assert [o["status"]["allowed"] for o in parse_stream(r.stdout)] == [True, True, True]
    posts = [q for q in cluster.requests if q.method == "POST"]
    assert posts[-1].query == {"fieldManager": "kubectl-create", "fieldValidation": "Strict"}

    token = cluster.add_service_account("testns", "manager")
    ctx = cluster.add_user_context("manager", token, "testns")
    cluster.load_rbac(ROLE)
    r = kubectl("create", "-f", "-", "-o", "json", stdin=SSAR_LIST, context=ctx)
    assert r.returncode == 0, r.stderr
    assert [o["status"]["allowed"] for o in parse_stream(r.stdout)] == [False, True, True]

    cluster.clear_requests()
    r = kubectl(*SSA, "-f", "-", stdin=deployment(), context=ctx)
    assert r.returncode == 1
    assert last_line(r.stderr) == (
        'Error from server (Forbidden): deployments.apps "web-1" is forbidden: User '
        '"system:serviceaccount:testns:manager" cannot patch resource "deployments" in API group '
        '"apps" in the namespace "testns"'
    )
    assert not any(q.method == "PATCH" and q.status < 400 for q in cluster.requests)
    r = kubectl("get", "pods", "-n", "testns", "-o", "json", context=ctx)
    assert last_line(r.stderr) == (
        "Error from server (Forbidden): pods is forbidden: "
        'User "system:serviceaccount:testns:manager" '
        'cannot list resource "pods" in API group "" in the namespace "testns"'
    )
    r = kubectl(
        "auth", "can-i", "patch", "deployments", "--subresource=scale", "-n", "testns", context=ctx
    )
    assert (r.returncode, r.stdout.strip()) == (0, "yes")


@needs_kubectl
def test_unknown_token_is_unauthorized(cluster: FakeCluster, kubectl: Runner) -> None:
    ctx = cluster.add_user_context("nobody", "not-a-token", "testns")
    r = kubectl("get", "deployments", "-o", "json", context=ctx)
    assert r.returncode == 1 and "You must be logged in to the server" in last_line(r.stderr)


# --------------------------------------------------------------------------- faults
APPLY_ERRORS = {
    403: 'Error from server (Forbidden): deployments.apps "web-1" is forbidden: User '
    '"kubernetes-admin" cannot patch resource "deployments" in API group "apps" in the namespace '
    '"testns"',
    409: 'error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using '
    "apps/v1: .spec.replicas",
    500: "Error from server (InternalError): Internal error occurred: etcdserver: request timed "
    "out",
    503: "Error from server (ServiceUnavailable): the server is currently unable to handle the "
    "request",
    401: "error: You must be logged in to the server (Unauthorized)",
}


@needs_kubectl
def test_injected_failures_on_apply(cluster: FakeCluster, kubectl: Runner) -> None:
    for code, text in APPLY_ERRORS.items():
        cluster.fail_next(1, code, method="PATCH", path_regex=r"/deployments/web-1$")
        r = kubectl(*SSA, "-n", "testns", "-f", "-", stdin=deployment())
        assert r.returncode == 1
        assert r.stderr.strip().splitlines()[0] == text
    assert kubectl(*SSA, "-n", "testns", "-f", "-", stdin=deployment()).returncode == 0


@needs_kubectl
def test_down_up_and_black_hole(cluster: FakeCluster, kubectl: Runner) -> None:
    cluster.down()
    r = kubectl("get", "deployments", "-n", "testns")
    assert last_line(r.stderr) == (
        f"The connection to the server 127.0.0.1:{cluster.port} was refused - "
        "did you specify the right host or port?"
    )
    cluster.up()
    started = time.monotonic()
    assert kubectl("get", "deployments", "-n", "testns").returncode == 0
    baseline = time.monotonic() - started  # the same get answered: kubectl's own cost now
    cluster.black_hole(True, path_regex=r"/deployments$")
    started = time.monotonic()
    r = kubectl("get", "deployments", "-n", "testns", "--request-timeout=2s")
    # Its 2 s request timeout, plus what the answered get took on this machine just before
    # (a loaded machine stretches kubectl's start-up, not the 2 s).
    assert r.returncode == 1 and time.monotonic() - started < 2 + max(6, 3 * baseline)
    assert any(
        s in last_line(r.stderr)
        for s in ("Client.Timeout exceeded", "context deadline exceeded", "request canceled")
    )
    cluster.black_hole(False)
    assert kubectl("get", "deployments", "-n", "testns").returncode == 0


# --------------------------------------------------------------------------- pod failures
@needs_kubectl
def test_failure_simulations(cluster: FakeCluster, kubectl: Runner) -> None:
    fc = cluster
    big = json.loads(deployment(name="big", cid="big"))
    big["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "64"}}
    for doc in (
        deployment(name="bad", cid="bad", image="registry.example/does-not-exist:1"),
        deployment(name="crash", cid="crash", image="busybox:crashloop"),
        json.dumps(big),
    ):
        assert kubectl(*SSA, "-n", "testns", "-f", "-", stdin=doc).returncode == 0
    pod = fc.wait_for(pod_waiting_reason(fc, "bad", "ImagePullBackOff"), 5)
    assert pod["status"]["phase"] == "Pending"
    pod = fc.wait_for(pod_waiting_reason(fc, "crash", "CrashLoopBackOff"), 5)
    cs = pod["status"]["containerStatuses"][0]
    assert cs["restartCount"] >= 1 and cs["lastState"]["terminated"]["reason"] == "Error"

    def unschedulable() -> dict[str, Any] | None:
        for p in fc.list(
            "pods", "testns", label_selector="org.mieweb.opensource-server.container-id=big"
        ):
            for c in p["status"].get("conditions") or []:
                if c.get("reason") == "Unschedulable":
                    return c
        return None

    cond = fc.wait_for(unschedulable, 5)
    assert cond["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    reasons = {e["reason"] for e in fc.list("events", "testns", field_selector="type=Warning")}
    assert {"Failed", "BackOff", "FailedScheduling"} <= reasons


@needs_kubectl
def test_progress_deadline(cluster: FakeCluster, kubectl: Runner) -> None:
    doc = deployment(image="fake.invalid/app:1", progressDeadlineSeconds=1)
    assert kubectl(*SSA, "-n", "testns", "-f", "-", stdin=doc).returncode == 0
    r = kubectl("rollout", "status", "deployment/web-1", "-n", "testns", "--timeout=30s")
    assert r.returncode == 1
    assert last_line(r.stderr) == 'error: deployment "web-1" exceeded its progress deadline'
    dep = cluster.get("deployments", "testns", "web-1")
    assert dep is not None
    prog = next(c for c in dep["status"]["conditions"] if c["type"] == "Progressing")
    assert (prog["status"], prog["reason"]) == ("False", "ProgressDeadlineExceeded")


# --------------------------------------------------------------------------- faithful controllers
def pods_of(fc: FakeCluster, cid: str = "42") -> list[dict[str, Any]]:
    return fc.list(
        "pods", "testns", label_selector=f"org.mieweb.opensource-server.container-id={cid}"
    )


def ready_pod(
    fc: FakeCluster, cid: str = "42", *, besides: set[str] = frozenset()
) -> Callable[[], dict[str, Any] | None]:
    def check() -> dict[str, Any] | None:
        for p in pods_of(fc, cid):
            if p["metadata"]["name"] in besides or p["metadata"].get("deletionTimestamp"):
                continue
            if any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in p["status"].get("conditions") or []
            ):
                return p
        return None

    return check


def test_replicaset_leaves_ended_pods_alone_and_replaces_them(cluster: FakeCluster) -> None:
    """Real Kubernetes: an evicted or completed Pod is not counted by its ReplicaSet (a
    replacement comes), not deleted by it, and not touched by the kubelet again."""
    fc = cluster
    fc.create_object(json.loads(deployment()))
    first = fc.wait_for(ready_pod(fc), 10)["metadata"]["name"]
    fc.evict_pod("testns", first)
    second = fc.wait_for(ready_pod(fc, besides={first}), 10)["metadata"]["name"]
    fc.evict_pod("testns", second, phase="Succeeded", reason="Completed", message="")
    third = fc.wait_for(ready_pod(fc, besides={first, second}), 10)["metadata"]["name"]
    (rs,) = fc.list("replicasets", "testns")
    fc.wait_for(
        lambda: (
            (fc.get("replicasets", "testns", rs["metadata"]["name"]) or {})
            .get("status", {})
            .get("replicas")
            == 1
        ),
        5,
    )
    phases = {p["metadata"]["name"]: p["status"]["phase"] for p in pods_of(fc)}
    assert phases == {first: "Failed", second: "Succeeded", third: "Running"}
    evicted = fc.get("pods", "testns", first)
    assert evicted is not None and evicted["status"]["reason"] == "Evicted"
    assert "deletionTimestamp" not in evicted["metadata"]

    # Scaled to 0: the running Pod goes, the ended ones stay.
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None
    dep["spec"]["replicas"] = 0
    fc.create_object(dep, replace=True)
    fc.wait_for(lambda: third not in {p["metadata"]["name"] for p in pods_of(fc)}, 10)
    assert {p["metadata"]["name"] for p in pods_of(fc)} == {first, second}
    # Deleting the Deployment takes them with it (garbage collection).
    fc.delete_object("deployments", "testns", "web-1")
    fc.wait_for(lambda: not pods_of(fc), 10)


def test_kubelet_does_not_restart_an_evicted_crashing_pod(cluster: FakeCluster) -> None:
    fc = cluster
    fc.create_object(json.loads(deployment(image="busybox:crashloop")))
    crashing = fc.wait_for(pod_waiting_reason(fc, "42", "CrashLoopBackOff"), 10)
    fc.evict_pod("testns", crashing["metadata"]["name"])

    def replacement_restarted() -> bool:
        return any(
            p["metadata"]["name"] != crashing["metadata"]["name"]
            and any(cs.get("restartCount") for cs in p["status"].get("containerStatuses") or [])
            for p in pods_of(fc)
        )

    fc.wait_for(replacement_restarted, 10)
    ended = fc.get("pods", "testns", crashing["metadata"]["name"])
    assert ended is not None and ended["status"]["phase"] == "Failed"
    assert all("terminated" in cs["state"] for cs in ended["status"]["containerStatuses"])


def test_paused_deployment_gets_no_new_replicaset(cluster: FakeCluster) -> None:
    fc = cluster
    fc.create_object(json.loads(deployment()))
    fc.wait_for(lambda: "web-1" in fc.mark_available_times, 10)
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None
    dep["spec"]["paused"] = True
    dep["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "A", "value": "changed"}]
    dep["spec"]["replicas"] = 2
    gen = fc.create_object(dep, replace=True)["metadata"]["generation"]

    def settled() -> dict[str, Any] | None:
        d = fc.get("deployments", "testns", "web-1")
        if not d or d["status"].get("observedGeneration") != gen:
            return None
        return d if d["status"].get("availableReplicas") == 2 else None

    paused = fc.wait_for(settled, 10)
    (rs,) = fc.list("replicasets", "testns")  # scaled, but no ReplicaSet for the new template
    assert rs["spec"]["replicas"] == 2
    assert "updatedReplicas" not in paused["status"]
    prog = next(c for c in paused["status"]["conditions"] if c["type"] == "Progressing")
    assert (prog["status"], prog["reason"], prog["message"]) == (
        "Unknown",
        "DeploymentPaused",
        "Deployment is paused",
    )
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None
    dep["spec"]["paused"] = False
    fc.create_object(dep, replace=True)

    def rolled_out() -> dict[str, Any] | None:
        d = fc.get("deployments", "testns", "web-1")
        prog = next(
            (
                c
                for c in (d or {}).get("status", {}).get("conditions") or []
                if c["type"] == "Progressing"
            ),
            {},
        )
        return d if prog.get("reason") == "NewReplicaSetAvailable" else None

    done = fc.wait_for(rolled_out, 10)
    assert done["status"]["updatedReplicas"] == 2
    assert len(fc.list("replicasets", "testns")) == 2


def test_settle_waits_for_the_controllers_reaction_to_a_write(cluster: FakeCluster) -> None:
    """A write is answered before the controllers react (their own thread, as on a cluster):
    ``settle`` returns once they have, and never while they are held."""
    fc = cluster
    fc.settle()
    with fc.controllers_held():
        created = fc.create_object(json.loads(deployment(replicas=0)))
        with pytest.raises(TimeoutError):
            fc.settle(timeout=0.3)
        assert fc.list("replicasets", "testns") == []
        stored = fc.get("deployments", "testns", "web-1") or created
        assert "observedGeneration" not in (stored.get("status") or {})
    fc.settle()
    dep = fc.get("deployments", "testns", "web-1")
    assert dep is not None and dep["status"]["observedGeneration"] == 1
    assert dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    (rs,) = fc.list("replicasets", "testns")
    assert rs["spec"]["replicas"] == 0


def _cpu_to_available(tmp_path: Path, workloads: int) -> float:
    """The process's CPU seconds (the fake's threads and this one's polling) from creating
    ``workloads`` Deployments to all of them available."""
    with FakeCluster(tmp_path, pod_ready_delay=0.3, termination_delay=0.1) as fc:
        started = time.process_time()
        for i in range(workloads):
            doc = json.loads(deployment(name=f"w-{i}", cid=str(i)))
            doc["metadata"]["namespace"] = "default"
            fc.create_object(doc)
        fc.wait_for(lambda: len(fc.mark_available_times) == workloads, 300)
        return time.process_time() - started


def test_controllers_scale_linearly(tmp_path: Path) -> None:
    """10x the workloads cost the controllers about 10x the CPU time (they used to deep-copy
    every ReplicaSet and Pod on every pass under the store lock: 100x, 200 workloads took
    over 80 s). CPU seconds against the same run's 10 workloads, so load cannot fail it
    (it did: 200 took 28 s of wall-clock beside a second copy of the suite)."""
    small = _cpu_to_available(tmp_path / "small", 10)
    assert small < 5, f"10 workloads cost {small:.2f} CPU seconds"
    large = _cpu_to_available(tmp_path / "large", 100)
    assert large < 40 * max(small, 0.05), (small, large)


# --------------------------------------------------------------------------- shapes
def test_discovery_matches_reference(cluster: FakeCluster) -> None:
    for path, ref_file in (("/api", "api.aggregated.json"), ("/apis", "apis.aggregated.json")):
        code, headers, body = https(
            cluster,
            "GET",
            path,
            accept="application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
        )
        assert code == 200 and headers["Content-Type"] == resources.AGGREGATED_CT
        ours = {
            (g["metadata"]["name"], r["resource"]): r
            for g in json.loads(body)["items"]
            for v in g["versions"]
            for r in v["resources"]
        }
        ref = json.loads((REFERENCE / ref_file).read_text())
        for g in ref["items"]:
            for v in g["versions"]:
                for r in v["resources"]:
                    mine = ours[(g["metadata"]["name"], r["resource"])]
                    for key in ("responseKind", "scope", "singularResource", "verbs"):
                        assert mine[key] == r[key], (r["resource"], key)
    code, _, body = https(cluster, "GET", "/openapi/v3")
    url = json.loads(body)["paths"]["apis/apps/v1"]["serverRelativeURL"]
    doc = json.loads(https(cluster, "GET", url)[2])
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert "fieldValidation" in {p["name"] for p in patch["parameters"]}


def test_status_bodies_match_reference(cluster: FakeCluster) -> None:
    ref = json.loads((REFERENCE / "status-bodies-injected.json").read_text())
    base = "/apis/apps/v1/namespaces/testns/deployments"
    token = cluster.add_service_account("testns", "sa")
    cases = [
        ("get-403", "GET", base, None, token),
        ("scale-404", "GET", f"{base}/web-1/scale", None, None),
        ("delete-404", "DELETE", f"{base}/web-1", None, None),
    ]
    for case, method, path, body, tok in cases:
        code, _, out = https(cluster, method, path, body, token=tok)
        assert (code, json.loads(out)) == (ref[case]["http_status"], ref[case]["body"]), case
    for case in ("apply-500", "apply-503", "get-401", "scale-409", "apply-404"):
        code = ref[case]["http_status"]
        cluster.fail_next(1, code)
        path = f"{base}/web-1/scale" if case.startswith("scale") else f"{base}/web-1"
        got_code, _, out = https(
            cluster,
            "PATCH" if case != "get-401" else "GET",
            path,
            {"spec": {}},
            content_type="application/merge-patch+json",
        )
        assert (got_code, json.loads(out)) == (code, ref[case]["body"]), case


def test_ssa_conflict_body_matches_reference(cluster: FakeCluster) -> None:
    dep = json.loads(deployment())
    dep["spec"]["replicas"] = 2
    path = "/apis/apps/v1/namespaces/testns/deployments/web-1"
    code, _, _ = https(
        cluster,
        "POST",
        "/apis/apps/v1/namespaces/testns/deployments?fieldManager=kubectl-client-side-apply",
        dep,
    )
    assert code == 201
    dep["spec"]["replicas"] = 3
    code, _, out = https(
        cluster,
        "PATCH",
        f"{path}?fieldManager=opensource-server&force=false",
        dep,
        content_type="application/apply-patch+yaml",
    )
    assert (code, json.loads(out)) == (
        409,
        json.loads((REFERENCE / "ssa-conflict-409.json").read_text()),
    )
    code, _, out = https(
        cluster,
        "PATCH",
        f"{path}?fieldManager=opensource-server&force=true",
        dep,
        content_type="application/apply-patch+yaml",
    )
    assert code == 200 and json.loads(out)["spec"]["replicas"] == 3
    managers = {
        (m["manager"], m["operation"]) for m in json.loads(out)["metadata"]["managedFields"]
    }
    assert ("opensource-server", "Apply") in managers


def test_watch_framing(cluster: FakeCluster) -> None:
    assert (
        https(
            cluster, "POST", "/apis/apps/v1/namespaces/testns/deployments", json.loads(deployment())
        )[0]
        == 201
    )
    code, _, body = https(
        cluster,
        "GET",
        "/apis/apps/v1/namespaces/testns/deployments?fieldSelector=metadata.name%3Dweb-1&limit=500&resourceVersion=0",
    )
    rv = json.loads(body)["metadata"]["resourceVersion"]
    # the controller keeps writing status, so a short watch from the list RV sees MODIFIED events
    cluster.wait_for(
        lambda: (
            (cluster.get("deployments", "testns", "web-1") or {})
            .get("status", {})
            .get("availableReplicas")
        ),
        5,
    )
    code, headers, body = https(
        cluster,
        "GET",
        f"/apis/apps/v1/namespaces/testns/deployments?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dweb-1&resourceVersion={rv}&timeoutSeconds=1&watch=true",
    )
    assert code == 200 and headers.get("Transfer-Encoding") == "chunked"
    events = [json.loads(line) for line in body.decode().splitlines()]
    assert events and {e["type"] for e in events} <= {"ADDED", "MODIFIED", "DELETED"}
    assert all(
        e["object"]["kind"] == "Deployment" and e["object"]["metadata"]["name"] == "web-1"
        for e in events
    )


def test_ssa_field_removal_respects_other_managers() -> None:
    own = ssa_mod.Ownership()
    a = {"apiVersion": "v1", "kind": "X", "metadata": {"labels": {"a": "1", "b": "2"}}}
    live = own.apply(None, a, "m1", force=False, api_version="v1", now="t")
    live = own.apply(
        live,
        {**a, "metadata": {"labels": {"b": "2"}}},
        "m2",
        force=False,
        api_version="v1",
        now="t",
    )
    live = own.apply(
        live, {**a, "metadata": {"labels": {}}}, "m1", force=False, api_version="v1", now="t"
    )
    assert live["metadata"]["labels"] == {"b": "2"}
    with pytest.raises(ssa_mod.ApplyConflict):
        own.apply(
            live,
            {**a, "metadata": {"labels": {"b": "3"}}},
            "m1",
            force=False,
            api_version="v1",
            now="t",
        )


def _owners(obj: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(m["manager"], m["operation"]): m["fieldsV1"] for m in obj["metadata"]["managedFields"]}


def test_managed_fields_of_an_update_and_of_another_managers_apply(cluster: FakeCluster) -> None:
    """What drift reads: an update (kubectl edit's strategic patch) owns what it changed and
    takes it from the applier; a removal leaves nobody owning the field; another manager's
    forced apply takes a field over; a patch's resourceVersion and uid are preconditions."""
    path = "/apis/apps/v1/namespaces/testns/deployments/web-1"
    code, _, _ = https(
        cluster,
        "PATCH",
        f"{path}?fieldManager=opensource-server-manager&force=true",
        json.loads(deployment()),
        content_type="application/apply-patch+yaml",
    )
    assert code == 201
    edit = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "nginx:1.28",
                            "env": [{"name": "B", "$patch": "delete"}],
                        }
                    ]
                }
            }
        }
    }
    code, _, out = https(
        cluster,
        "PATCH",
        f"{path}?fieldManager=kubectl-edit",
        edit,
        content_type="application/strategic-merge-patch+json",
    )
    assert code == 200
    owners = _owners(json.loads(out))
    main_ = 'k:{"name":"main"}'
    edited = owners[("kubectl-edit", "Update")]["f:spec"]["f:template"]["f:spec"]
    assert edited == {"f:containers": {main_: {"f:image": {}}}}
    ours = owners[("opensource-server-manager", "Apply")]["f:spec"]["f:template"]["f:spec"]
    assert "f:image" not in ours["f:containers"][main_]
    assert set(ours["f:containers"][main_]["f:env"]) == {'k:{"name":"A"}'}  # B: nobody's
    hand = json.loads(deployment(env={"A": "9"}))
    code, _, out = https(
        cluster,
        "PATCH",
        f"{path}?fieldManager=kubectl&force=true",
        hand,
        content_type="application/apply-patch+yaml",
    )
    assert code == 200
    owners = _owners(json.loads(out))
    hand_env = owners[("kubectl", "Apply")]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert "f:value" in hand_env[main_]["f:env"]['k:{"name":"A"}']
    ours = owners[("opensource-server-manager", "Apply")]["f:spec"]["f:template"]["f:spec"]
    assert "f:value" not in ours["f:containers"][main_]["f:env"]['k:{"name":"A"}']
    for precondition, want in (({"resourceVersion": "1"}, 409), ({"uid": "not-this-one"}, 422)):
        code, _, _ = https(
            cluster,
            "PATCH",
            path,
            {"metadata": precondition, "spec": {"paused": True}},
            content_type="application/strategic-merge-patch+json",
        )
        assert code == want, precondition


# --------------------------------------------------------------------------- standalone
@needs_kubectl
def test_standalone_mode(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakecluster", "--dir", str(tmp_path)],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    try:
        assert proc.stdout is not None
        kubeconfig = proc.stdout.readline().strip()
        assert proc.stdout.readline().strip() == "context=fake"
        assert KUBECTL is not None
        r = subprocess.run(
            [
                KUBECTL,
                "--kubeconfig",
                kubeconfig,
                "--context",
                "fake",
                "--cache-dir",
                str(tmp_path / "cache"),
                "get",
                "namespace",
                "default",
                "-o",
                "name",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert r.stdout.strip() == "namespace/default", r.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        if proc.stdout:
            proc.stdout.close()


def test_an_idle_watch_sends_its_headers_at_once(cluster: FakeCluster) -> None:
    # kubectl waits for a watch's response headers; if they sat in the write buffer until the
    # first event, `rollout status --timeout` on a Pod that never gets ready would hang past
    # its timeout (until the adapter killed it).
    _, _, body = https(cluster, "GET", "/apis/apps/v1/namespaces/testns/deployments")
    rv = json.loads(body)["metadata"]["resourceVersion"]
    ctx = ssl.create_default_context(cadata=cluster.ca_pem.decode())
    path = (
        f"/apis/apps/v1/namespaces/testns/deployments?resourceVersion={rv}"
        "&timeoutSeconds=30&watch=true"
    )
    conn = http.client.HTTPSConnection(cluster.host, cluster.port, context=ctx, timeout=5)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {cluster.admin_token}"})
        started = time.monotonic()
        response = conn.getresponse()  # raises TimeoutError if no headers within 5 s
        assert response.status == 200
        assert time.monotonic() - started < 2
    finally:
        conn.close()
