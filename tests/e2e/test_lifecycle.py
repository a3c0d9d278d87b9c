"""The seeds' 18-step lifecycle, end to end: the CLI as Manager runs it, the real kubectl, and
a cluster (the fake API server by default, kind with ``KUBECTL_ADAPTER_E2E_*``).

Every step checks two things: what the adapter printed, and what the server now holds (read
with plain kubectl, so the same assertions hold on a real cluster).
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.e2e.conftest import Cluster, Result, concurrently, selector, spec

MANAGED = "org.mieweb.opensource-server.managed"
NODE_ID = "org.mieweb.opensource-server.node-id"
CONTAINER_ID = "org.mieweb.opensource-server.container-id"
NAME = "org.mieweb.opensource-server.name"
FIELD_MANAGER = "opensource-server-manager"


def ok(result: Result) -> Any:
    """The document of a successful command (the error document in the failure message)."""
    assert result.code == 0, (result.code, result.doc, result.stderr[-2000:])
    return result.doc


def main_container(deployment_or_pod: dict[str, Any]) -> dict[str, Any]:
    spec_ = deployment_or_pod["spec"]
    containers = (
        spec_["template"]["spec"]["containers"] if "template" in spec_ else spec_["containers"]
    )
    return next(c for c in containers if c["name"] == "main")


def env_of(container: dict[str, Any]) -> dict[str, str | None]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


def live_pods(cluster: Cluster, container_id: str) -> list[dict[str, Any]]:
    return [
        p
        for p in cluster.pods(selector(container_id))
        if not p["metadata"].get("deletionTimestamp")
    ]


def is_ready(pod: dict[str, Any]) -> bool:
    return any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in pod["status"].get("conditions") or []
    )


def the_ready_pod(cluster: Cluster, container_id: str) -> dict[str, Any]:
    pods = live_pods(cluster, container_id)
    assert len(pods) == 1, [p["metadata"]["name"] for p in pods]
    assert is_ready(pods[0]), pods[0]["status"]
    assert pods[0]["status"].get("podIP")
    return pods[0]


def command_lines(text: str) -> list[str]:
    """The commands of a ``-v`` log or of plan entries: each command's first line, without
    its comment and heredoc operator; comments and heredoc bodies skipped."""
    out: list[str] = []
    delimiter: str | None = None
    for line in text.splitlines():
        if delimiter is not None:
            delimiter = None if line == delimiter else delimiter
            continue
        if not line.strip() or line.startswith("#"):
            continue
        argv = shlex.split(line, comments=True)
        if argv[-1].startswith("<<"):
            delimiter = argv.pop()[2:]
        out.append(shlex.join(argv))
    return out


def subcommand(command: str) -> list[str]:
    """``kubectl [connection flags] -n NS [--request-timeout S] ARGS`` -> ``ARGS``."""
    argv = shlex.split(command)
    assert argv[0] == "kubectl", command
    rest = argv[argv.index("-n") + 2 :]
    return rest[2:] if rest[0] == "--request-timeout" else rest


def applied_fields(deployment: dict[str, Any]) -> dict[str, Any]:
    """The fields the adapter's server-side apply owns (``fieldsV1`` of its Apply entry)."""
    entries = [
        m
        for m in deployment["metadata"].get("managedFields") or []
        if m.get("manager") == FIELD_MANAGER and m.get("operation") == "Apply"
    ]
    assert len(entries) == 1, deployment["metadata"].get("managedFields")
    return dict(entries[0]["fieldsV1"])


@dataclass
class Flow:
    """What the ordered steps hand each other."""

    name: str = ""
    container_id: str = ""
    provider_id: str = ""
    uid: str = ""
    pod: str = ""
    generation: int = 0
    replicasets: set[str] = field(default_factory=set)
    snapshots: list[dict[str, Any]] = field(default_factory=list)

    def keep(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        self.snapshots.append(snapshot)
        return snapshot


@pytest.fixture(scope="module")
def flow() -> Flow:
    return Flow()


def assert_snapshot(flow: Flow, doc: dict[str, Any], status: str, replicas: int) -> None:
    assert doc["providerId"] == flow.provider_id
    assert doc["vmid"] == doc["providerId"]
    assert f"{doc['namespace']}/{doc['name']}" == flow.provider_id
    assert (doc["node"], doc["containerId"]) == ("7", flow.container_id)
    assert doc["status"] == status, doc["message"]
    assert doc["replicas"] == replicas
    assert doc["macAddress"] is None
    assert doc["ephemeral"] is True
    assert doc["ipv4Address"] == doc["podIp"]


@pytest.mark.incremental
class TestLifecycle:
    """Steps 1-18, in order, on one workload."""

    env_before: ClassVar[dict[str, str]] = {"KEY": "value", "DROP": "me"}
    env_after: ClassVar[dict[str, str]] = {"KEY": "changed", "ADDED": "yes"}

    def test_01_configure_node(self, cluster: Cluster, flow: Flow) -> None:
        # kubeconfig, context and namespace come from the fixture; the namespace must exist.
        namespace = cluster.kubectl_json("get", "namespace", cluster.namespace)
        assert namespace["metadata"]["name"] == cluster.namespace
        flow.name, flow.container_id = cluster.workload("lc")
        flow.provider_id = f"{cluster.namespace}/{flow.name}"
        assert cluster.deployment(flow.name) is None

    def test_02_validate_api_connection(self, cluster: Cluster) -> None:
        doc = ok(cluster.adapter("check"))
        assert doc["ok"] is True
        assert str(doc["serverVersion"]).startswith("v1.")
        assert doc["clientVersion"]
        assert (doc["context"], doc["namespace"]) == (cluster.context, cluster.namespace)
        assert doc["namespaceExists"] is True
        assert doc["missingPermissions"] == []
        namespaced = [p for p in doc["permissions"] if p["resource"] != "nodes"]
        assert namespaced and all(p["allowed"] for p in namespaced), namespaced
        assert doc["capabilities"]["stableMacAddress"] is False

    def test_03_create(self, cluster: Cluster, flow: Flow) -> None:
        result = cluster.adapter(
            "create", "--spec", "-", stdin=spec(flow.name, flow.container_id, env=self.env_before)
        )
        doc = flow.keep(ok(result))
        assert_snapshot(flow, doc, "running", 1)
        assert doc["availableReplicas"] == 1
        assert (doc["image"], doc["cpus"], doc["memoryMb"]) == ("nginx:latest", 0.1, 64)
        # The answer is the Deployment the wait ended on, with no read of the Pod after it:
        # the ephemeral Pod IP is for status and network (Manager never stores it).
        assert doc["podIp"] is None

    def test_04_verify_deployment(self, cluster: Cluster, flow: Flow) -> None:
        d = cluster.kubectl_json("get", "deployment", flow.name, "--show-managed-fields")
        meta = d["metadata"]
        assert meta["namespace"] == cluster.namespace
        identity = {MANAGED: "true", CONTAINER_ID: flow.container_id}
        # The name label too (status reads the workload by it), never in the selector.
        labels = {**identity, NODE_ID: "7", NAME: flow.name}
        assert meta["labels"] == labels
        assert d["spec"]["selector"] == {"matchLabels": identity}
        assert d["spec"]["template"]["metadata"]["labels"] == labels
        # One replica by API defaulting: the adapter's apply never sets spec.replicas.
        assert d["spec"]["replicas"] == 1
        assert "f:replicas" not in applied_fields(d).get("f:spec", {})
        container = main_container(d)
        assert container["image"] == "nginx:latest"
        assert env_of(container) == self.env_before
        resources = container["resources"]
        assert resources["limits"] == {"cpu": "100m", "memory": "64Mi"}
        assert resources["requests"] == {"cpu": "25m", "memory": "16Mi"}
        assert d["status"].get("availableReplicas") == 1
        flow.uid = meta["uid"]
        flow.generation = meta["generation"]

    def test_05_verify_ready_pod(self, cluster: Cluster, flow: Flow) -> None:
        pod = the_ready_pod(cluster, flow.container_id)
        assert pod["status"]["podIP"]
        assert pod["metadata"]["labels"][CONTAINER_ID] == flow.container_id
        assert env_of(main_container(pod)) == self.env_before
        flow.pod = pod["metadata"]["name"]

    def test_06_status_reports_running(self, cluster: Cluster, flow: Flow) -> None:
        doc = flow.keep(ok(cluster.adapter("status", flow.provider_id)))
        assert_snapshot(flow, doc, "running", 1)
        pod = the_ready_pod(cluster, flow.container_id)
        assert doc["podIp"] == pod["status"]["podIP"]
        # Manager lists its node's workloads: "7" has it, another node does not.
        lists = concurrently(
            {
                node: lambda node=node: cluster.adapter("list", flags=["--node-id", node])
                for node in ("7", "8")
            }
        )
        others = ok(lists.pop("8"))["items"]
        assert flow.provider_id not in {i["providerId"] for i in others}
        for listed in lists.values():
            items = ok(listed)["items"]
            mine = [i for i in items if i["providerId"] == flow.provider_id]
            assert len(mine) == 1, items
            flow.keep(mine[0])
            assert mine[0]["vmid"] == mine[0]["providerId"]
            assert mine[0]["status"] == "running"
            assert mine[0]["podIp"] == doc["podIp"]

    def test_07_stop(self, cluster: Cluster, flow: Flow) -> None:
        doc = flow.keep(ok(cluster.adapter("stop", flow.provider_id)))
        assert_snapshot(flow, doc, "offline", 0)
        assert doc["podIp"] is None

    def test_08_replicas_zero_and_pods_gone(self, cluster: Cluster, flow: Flow) -> None:
        d = cluster.deployment(flow.name)
        assert d is not None and d["metadata"]["uid"] == flow.uid
        assert d["spec"]["replicas"] == 0
        assert cluster.pods(selector(flow.container_id)) == []  # stop waited for them
        doc = flow.keep(ok(cluster.adapter("status", flow.provider_id)))
        assert_snapshot(flow, doc, "offline", 0)

    def test_09_start(self, cluster: Cluster, flow: Flow) -> None:
        doc = flow.keep(ok(cluster.adapter("start", flow.provider_id)))
        assert_snapshot(flow, doc, "running", 1)
        assert doc["availableReplicas"] == 1
        assert doc["podIp"] is None  # as for create: status and network give it

    def test_10_replicas_one_and_ready_pod(self, cluster: Cluster, flow: Flow) -> None:
        d = cluster.deployment(flow.name)
        assert d is not None and d["spec"]["replicas"] == 1
        assert d["metadata"]["uid"] == flow.uid
        pod = the_ready_pod(cluster, flow.container_id)
        assert pod["metadata"]["name"] != flow.pod  # a new pod, not the stopped one
        network = ok(cluster.adapter("network", flow.provider_id))
        assert pod["status"]["podIP"] == network["podIp"]
        flow.pod = pod["metadata"]["name"]
        flow.generation = d["metadata"]["generation"]
        flow.replicasets = {
            rs["metadata"]["name"] for rs in cluster.replicasets(selector(flow.container_id))
        }

    def test_11_change_environment(self, cluster: Cluster, flow: Flow) -> None:
        new = spec(flow.name, flow.container_id, env=self.env_after)
        doc = flow.keep(
            ok(cluster.adapter("reconfigure", flow.provider_id, "--spec", "-", stdin=new))
        )
        assert_snapshot(flow, doc, "running", 1)
        assert doc["generation"] > flow.generation
        assert doc["observedGeneration"] == doc["generation"]
        assert doc["podIp"] is None

    def test_12_verify_env_rollout(self, cluster: Cluster, flow: Flow) -> None:
        self._verify_rollout(cluster, flow)
        d = cluster.deployment(flow.name)
        assert d is not None
        env = env_of(main_container(d))
        assert env == self.env_after
        assert "DROP" not in env  # removed from the spec -> removed by server-side apply
        assert env_of(main_container(the_ready_pod(cluster, flow.container_id))) == self.env_after

    def test_13_change_cpu_and_memory(self, cluster: Cluster, flow: Flow) -> None:
        new = spec(flow.name, flow.container_id, env=self.env_after, cpus=0.2, memoryMb=128)
        doc = flow.keep(
            ok(cluster.adapter("reconfigure", flow.provider_id, "--spec", "-", stdin=new))
        )
        assert_snapshot(flow, doc, "running", 1)
        assert (doc["cpus"], doc["memoryMb"]) == (0.2, 128)

    def test_14_verify_resources_rollout(self, cluster: Cluster, flow: Flow) -> None:
        self._verify_rollout(cluster, flow)
        d = cluster.deployment(flow.name)
        assert d is not None
        wanted = {
            "limits": {"cpu": "200m", "memory": "128Mi"},
            "requests": {"cpu": "50m", "memory": "32Mi"},
        }
        assert main_container(d)["resources"] == wanted
        assert main_container(the_ready_pod(cluster, flow.container_id))["resources"] == wanted
        assert env_of(main_container(d)) == self.env_after  # unchanged by this reconfigure

    def test_15_read_pod_ip(self, cluster: Cluster, flow: Flow) -> None:
        doc = ok(cluster.adapter("network", flow.provider_id))
        pod = the_ready_pod(cluster, flow.container_id)
        assert doc["providerId"] == flow.provider_id
        assert doc["podIp"] == doc["ipv4Address"] == pod["status"]["podIP"]
        assert doc["ephemeral"] is True
        assert doc["stable"] is False
        flow.keep(doc)

    def test_16_mac_is_null_everywhere(self, cluster: Cluster, flow: Flow) -> None:
        items = ok(cluster.adapter("list"))["items"]
        documents = [*flow.snapshots, *items]
        assert len(flow.snapshots) >= 8
        assert all("macAddress" in d and d["macAddress"] is None for d in documents), documents
        assert ok(cluster.adapter("capabilities"))["stableMacAddress"] is False

    def test_17_delete(self, cluster: Cluster, flow: Flow) -> None:
        doc = ok(cluster.adapter("delete", flow.provider_id))
        assert doc == {"providerId": flow.provider_id, "deleted": True, "alreadyMissing": False}

    def test_18_everything_gone(self, cluster: Cluster, flow: Flow) -> None:
        # Foreground deletion: when delete returned, the garbage collector had finished.
        assert cluster.deployment(flow.name) is None
        assert cluster.replicasets(selector(flow.container_id)) == []
        assert cluster.pods(selector(flow.container_id)) == []
        again = ok(cluster.adapter("delete", flow.provider_id))
        assert again == {"providerId": flow.provider_id, "deleted": False, "alreadyMissing": True}
        status = ok(cluster.adapter("status", flow.provider_id))
        assert status["status"] == "missing"
        assert status["podIp"] is None and status["macAddress"] is None

    # -- shared by steps 12 and 14 ------------------------------------------------------------

    def _verify_rollout(self, cluster: Cluster, flow: Flow) -> None:
        """Same Deployment, a new generation, a new ReplicaSet and Pod, the old Pod gone."""
        d = cluster.deployment(flow.name)
        assert d is not None
        assert d["metadata"]["uid"] == flow.uid
        assert d["metadata"]["generation"] > flow.generation
        assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
        assert d["spec"]["replicas"] == 1
        assert f"{d['metadata']['namespace']}/{d['metadata']['name']}" == flow.provider_id
        replicasets = cluster.replicasets(selector(flow.container_id))
        names = {rs["metadata"]["name"] for rs in replicasets}
        assert names - flow.replicasets, "no new ReplicaSet"
        for rs in replicasets:
            if rs["metadata"]["name"] in flow.replicasets:
                assert rs["spec"]["replicas"] == 0  # the old ReplicaSet was scaled down
        # The rollout is complete when the old pod is terminating; it is gone moments later.
        cluster.wait_deleted("pods", flow.pod, timeout=60)
        pod = the_ready_pod(cluster, flow.container_id)
        assert pod["metadata"]["name"] != flow.pod
        network = ok(cluster.adapter("network", flow.provider_id))
        assert pod["status"]["podIP"] == network["podIp"]
        flow.pod = pod["metadata"]["name"]
        flow.generation = d["metadata"]["generation"]
        flow.replicasets = names


def workload_objects(
    cluster: Cluster, container_id: str
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The Deployment, its ReplicaSets and its Pods, in one kubectl call."""
    items = cluster.kubectl_json(
        "get", "deployments,replicasets,pods", "-l", selector(container_id)
    )
    by_kind: dict[str, list[dict[str, Any]]] = {"Deployment": [], "ReplicaSet": [], "Pod": []}
    for item in items["items"]:
        by_kind[item["kind"]].append(item)
    assert len(by_kind["Deployment"]) == 1, by_kind["Deployment"]
    return by_kind["Deployment"][0], by_kind["ReplicaSet"], by_kind["Pod"]


def test_reconfigure_of_a_stopped_workload_stays_stopped(cluster: Cluster) -> None:
    name, cid = cluster.workload("stopped")
    pid = f"{cluster.namespace}/{name}"
    ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))
    stopped = ok(cluster.adapter("stop", pid))

    new = spec(name, cid, env={"KEY": "changed"}, cpus=0.2)
    doc = ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=new))
    assert doc["status"] == "offline", doc["message"]
    assert (doc["replicas"], doc["podIp"], doc["cpus"]) == (0, None, 0.2)
    assert doc["generation"] > stopped["generation"]

    d, replicasets, pods = workload_objects(cluster, cid)
    assert d["spec"]["replicas"] == 0
    assert d["metadata"]["generation"] == doc["generation"]
    assert env_of(main_container(d)) == {"KEY": "changed"}
    assert main_container(d)["resources"]["limits"]["cpu"] == "200m"
    assert pods == []
    assert replicasets and all(rs["spec"]["replicas"] == 0 for rs in replicasets)


def test_noop_reconfigure_makes_no_new_replicaset(cluster: Cluster) -> None:
    name, cid = cluster.workload("noop")
    pid = f"{cluster.namespace}/{name}"
    ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))
    before, replicasets, pods = workload_objects(cluster, cid)

    doc = ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=spec(name, cid)))
    assert doc["status"] == "running"
    assert doc["generation"] == before["metadata"]["generation"]

    after, replicasets_after, pods_after = workload_objects(cluster, cid)
    assert after["metadata"]["generation"] == before["metadata"]["generation"]
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert {rs["metadata"]["name"] for rs in replicasets_after} == {
        rs["metadata"]["name"] for rs in replicasets
    }
    assert len(replicasets) == 1
    assert [p["metadata"]["name"] for p in pods_after] == [p["metadata"]["name"] for p in pods]


def test_dry_run_create_sends_nothing(cluster: Cluster) -> None:
    name, cid = cluster.workload("dry")
    if cluster.fake is not None:
        cluster.fake.clear_requests()
    result = cluster.adapter("--dry-run", "create", "--spec", "-", stdin=spec(name, cid))
    doc = ok(result)
    if cluster.fake is not None:
        assert cluster.fake.requests == []
    assert doc["dryRun"] is True
    # The wait pastes as `rollout status`; the watch that runs is named in a comment above.
    assert [subcommand(c)[:3] for c in command_lines("\n".join(doc["commands"]))] == [
        ["apply", "--server-side", f"--field-manager={FIELD_MANAGER}"],
        ["rollout", "status", f"deployment/{name}"],
    ]  # no read after the wait: its last event is the answer
    # The wait's watches start before the apply (their answer proves the wait's permissions);
    # the Deployment's, by its name alone, lists what the ownership check reads.
    watch = doc["commands"][0].split("\n")[0]
    assert watch.startswith("# the adapter watches: kubectl "), watch
    assert f"deployments --field-selector metadata.name={name} --watch -o json" in watch
    assert f'name: "{name}"' in doc["manifest"]
    assert cluster.deployment(name) is None


def _logged(result: Result) -> list[list[str]]:
    return [subcommand(line) for line in command_lines(result.stderr)]


def _whole_wait(commands: list[list[str]]) -> list[list[str]]:
    """A wait's ``--timeout`` left out: a plan shows the whole ``--timeout``, the log what
    the wait had left of it when it began (counted from the command's start)."""
    return [
        [arg for arg in c if not arg.startswith("--timeout=")] if c[0] in ("rollout", "wait") else c
        for c in commands
    ]


def _is_subsequence(short: list[Any], long: list[Any]) -> bool:
    remaining = iter(long)
    return all(item in remaining for item in short)


def test_dry_run_plans_are_the_commands_that_run(cluster: Cluster) -> None:
    """Each plan, comments aside, is what `-v` then logs for the real run: the same argv,
    the real selector and wait slices, no placeholder; the dry run itself only reads."""
    name, cid = cluster.workload("plan")
    ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))
    pid = f"{cluster.namespace}/{name}"
    for args, stdin in [
        (["stop", pid], None),
        (["start", pid], None),
        (["reconfigure", pid, "--spec", "-"], spec(name, cid, cpus=0.2)),
        (["status", pid], None),
        (["delete", pid], None),
    ]:
        if cluster.fake is not None:
            cluster.fake.clear_requests()
        plan = ok(cluster.adapter("--dry-run", *args, stdin=stdin))
        if cluster.fake is not None:
            assert {r.method for r in cluster.fake.requests} <= {"GET"}, args
        planned = [subcommand(c) for c in command_lines("\n".join(plan["commands"]))]
        assert all("SELECTOR" not in arg for command in planned for arg in command)
        # The ReplicaSets' read that tells a wait which Pods are the Deployment's runs only
        # when a Pod it has not placed yet would change the verdict: no plan lists it.
        logged = [
            c
            for c in _logged(cluster.adapter("-v", *args, stdin=stdin))
            if c[:2] != ["get", "replicasets"]
        ]
        if cluster.fake is not None:
            assert _whole_wait(planned) == _whole_wait(logged), args
        else:  # a real cluster may need more than one wait slice (and a read between)
            assert _is_subsequence(planned, logged), args
    assert cluster.deployment(name) is None


def test_verbose_logs_each_kubectl_command(cluster: Cluster) -> None:
    name, cid = cluster.workload("verbose")
    if cluster.fake is not None:
        cluster.fake.clear_requests()
    result = cluster.adapter("-v", "create", "--spec", "-", stdin=spec(name, cid))
    doc = ok(result)  # stdout is still exactly one JSON document
    assert doc["status"] == "running"
    lines = command_lines(result.stderr)
    commands = [subcommand(line) for line in lines]
    assert [c[:2] for c in commands] == [
        ["apply", "--server-side"],  # the wait's watches, started before it, are comments
        ["rollout", "status"],  # what pastes, below the write the watches saw land
    ]
    assert "\n# the adapter watches: kubectl " in result.stderr
    for argv in map(shlex.split, lines):  # ready to paste: the adapter's connection flags
        assert argv[argv.index("-n") + 1] == cluster.namespace
        if cluster.context:
            assert argv[argv.index("--context") + 1] == cluster.context
    if cluster.fake is not None:
        # Every kubectl the server heard from is one the log showed.
        heard = {r.kubectl_command for r in cluster.fake.requests if r.kubectl_command}
        shown = {"kubectl " + (" ".join(c[:2]) if c[0] == "rollout" else c[0]) for c in commands}
        # The wait's watches (create's first kubectl) are logged as comments above the apply.
        comments = ("# the adapter watches: kubectl ", "# and at once: kubectl ")
        watches = [line for line in result.stderr.splitlines() if line.startswith(comments)]
        assert len(watches) == 2 and all(" --watch " in line for line in watches), watches
        shown.add("kubectl get")
        assert heard <= shown, (heard, shown)


def test_kubectl_processes_per_operation(cluster: Cluster, tmp_path: Path) -> None:
    """Each operation's kubectl processes (issue 17), counted by a wrapper around kubectl: no
    read after a wait (the wait's last event is the answer), no wait where the write's own
    answer shows it done. A read that comes back fails here."""
    if cluster.fake is None:
        pytest.skip("exact counts need the fake: a real cluster's waits may take more slices")
    real = shutil.which("kubectl")
    assert real is not None
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "kubectl"
    wrapper.write_text(
        f"#!/bin/sh\nprintf '%s\\037' \"$@\" >> {shlex.quote(str(log))}\n"
        f'echo >> {shlex.quote(str(log))}\nexec {shlex.quote(real)} "$@"\n'
    )
    wrapper.chmod(0o755)
    name, cid = cluster.workload("calls")
    pid = f"{cluster.namespace}/{name}"

    def verbs(*args: str, stdin: Any = None) -> list[str]:
        log.write_text("")
        ok(cluster.adapter(*args, stdin=stdin, flags=["--kubectl", str(wrapper)]))
        called = []
        for line in log.read_text().splitlines():
            argv = line.rstrip("\x1f").split("\x1f")
            rest = argv[argv.index("-n") + 2 :]
            rest = rest[2:] if rest[0] == "--request-timeout" else rest
            called.append(" ".join(rest[:2]))
        # A wait's two watches start together: in the log, in either order.
        for i in range(len(called) - 1):
            if {called[i], called[i + 1]} == {"get deployments", "get pods"}:
                called[i : i + 2] = [watch, "+ pods"]
        return called

    # The wait: get deployments … --watch, and beside it get pods … --watch (issue 24: the
    # Pods' watch is what sees a Pod that cannot start, and the last Pod go).
    watch = "get deployments"
    changed = spec(name, cid, env={"KEY": "changed"})
    # Before each write that waits, the wait's watches start: the API server answering them
    # proves the wait's permissions (issue 38), and they see the write land.
    waits = [watch, "+ pods"]
    # create's Deployment watch selects by name alone: its list is the ownership check's
    # read, at no process of its own (issue 38): three processes.
    assert verbs("create", "--spec", "-", stdin=spec(name, cid)) == [*waits, "apply --server-side"]
    # Its Pod still there once the scale is observed: one read says it is the Deployment's.
    assert verbs("stop", pid) in (
        [*waits, "patch deployment"],
        [*waits, "patch deployment", "get replicasets"],
    )
    # Stopped again: the Pods' watch lists none, and the patch's answer ends the wait.
    assert verbs("stop", pid) == [*waits, "patch deployment"]
    stopped = ["get deployment", "apply --server-side"]  # nothing to roll out: no wait
    assert verbs("reconfigure", pid, "--spec", "-", stdin=changed) == stopped
    assert verbs("start", pid) == [*waits, "patch deployment"]
    assert verbs("start", pid) == [*waits, "patch deployment"]  # the patch shows it running
    rollout = ["get deployment", *waits, "apply --server-side"]
    assert verbs("reconfigure", pid, "--spec", "-", stdin=spec(name, cid)) == rollout
    unchanged = ["get deployment", *waits, "apply --server-side"]  # the apply: complete
    assert verbs("reconfigure", pid, "--spec", "-", stdin=spec(name, cid)) == unchanged
    workload = "get deployments,replicasets,pods"
    assert verbs("status", pid) == [workload]
    assert verbs("list") == [workload]
    # describe: status's read, then the Warning events (they cannot join it: cli.md)
    assert verbs("describe", pid) == [workload, "get events"]
    assert verbs("delete", pid) == ["get deployment", "delete deployments"]
