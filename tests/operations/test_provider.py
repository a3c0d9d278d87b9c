"""Provider operations against faked kubectl processes (pytest-subprocess).

Each test registers exactly the kubectl calls the operation is expected to make, with
realistic stdout/stderr, so an extra or missing call fails the test.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.contract import errors
from kubectl_adapter.contract.models import DryRunPlan, Snapshot
from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.contract.spec import ContainerSpec, parse_spec
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.runner import KubectlRunner
from kubectl_adapter.kubectl.transcript import pasteable_manifest, quiet
from kubectl_adapter.operations import resume, waits
from kubectl_adapter.operations.provider import KubernetesProvider
from kubectl_adapter.rules import clock as clock_module
from kubectl_adapter.rules.render import render_manifest
from kubectl_adapter.rules.wait_verdicts import Seen, rollout_verdict
from tests.k8s_objects import (
    NAME,
    condition,
    deployment,
    event,
    kubectl_list,
    kubectl_object,
    pod,
    replicaset,
    running_workloads,
)

K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]
PID = ProviderId("testns", "web-1")
# Every read of a Deployment asks kubectl to keep managedFields: drift is read from them.
MANAGED_FIELDS = "--show-managed-fields"
KW = ["kubectl", "-n", "testns"]  # waits carry no --request-timeout
SELECTOR = "org.mieweb.opensource-server.container-id=42,org.mieweb.opensource-server.managed=true"
GET = [*K, "get", "deployment", "web-1", "-o", "json", "--show-managed-fields"]
ABSENT = {  # kubectl get deployment NAME -o json, the object absent (a 404)
    "stderr": 'Error from server (NotFound): deployments.apps "web-1" not found\n',
    "returncode": 1,
}
APPLY = [
    *K,
    "apply",
    "--server-side",
    "--field-manager=opensource-server-manager",
    "--force-conflicts",
    "-f",
    "-",
]
APPLY_JSON = [*APPLY, "-o", "json", MANAGED_FIELDS, "-v=7"]  # a write logs its requests
READ = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    SELECTOR,
    "-o",
    "json",
    MANAGED_FIELDS,
    "-v=6",
]
OWNED = [*K, "get", "replicasets,pods", "-l", SELECTOR, "-o", "json", "-v=6"]
# status and network: the Deployment named web-1 with its ReplicaSets and Pods, one call
NAME_SELECTOR = "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.name=web-1"
NAMED = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    NAME_SELECTOR,
    "-o",
    "json",
    MANAGED_FIELDS,
    "-v=6",
]
EVENTS = [*K, "get", "events", "--field-selector", "type=Warning", "-o", "json"]
ALL_EVENTS = [*K, "get", "events", "-o", "json"]  # describe: Normal ones too
TIMED_OUT = "error: timed out waiting for the condition\n"
CONN_REFUSED = (
    'E1130 01:41:10.384773   14350 memcache.go:265] "Unhandled Error" err="couldn\'t get current '
    'server API group list: Get \\"https://127.0.0.1:6443/api?timeout=10s\\": dial tcp '
    '127.0.0.1:6443: connect: connection refused"\n'
    "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host "
    "or port?\n"
)

SPEC: dict[str, Any] = {
    "containerId": "42",
    "nodeId": "7",
    "hostname": "web-1",
    "image": "nginx:latest",
    "cpus": 1,
    "memoryMb": 1024,
    "env": {"KEY": "value"},
}


MANAGED = {"org.mieweb.opensource-server.managed": "true"}
# A wait: the Deployment's watch and its Pods' (kubectl prints one JSON event per line).
WATCH = [*KW, *commands.watch_deployment("web-1", MANAGED)]
WATCH_PODS = [*KW, *commands.watch_pods(SELECTOR)]
# create's: the Deployment by its name alone, whatever its labels (the ownership check's read).
WATCH_CREATE = [*KW, *commands.watch_deployment("web-1", None)]
# start's and stop's Pods' watch, started before the patch shows the Deployment's selector:
# by the name label (every Pod of a template that has it carries it).
BY_NAME = "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.name=web-1"
WATCH_PODS_NAMED = [*KW, *commands.watch_pods(BY_NAME)]
# kubectl -v=6's line for the watch request, after it printed what its list found.
LISTED = {
    "deployments": "I1201 20:13:24.942863   23620 round_trippers.go:560] GET https://127.0.0.1:"
    "6443/apis/apps/v1/namespaces/testns/deployments?fieldSelector=metadata.name%3Dweb-1&"
    "labelSelector=org.mieweb.opensource-server.managed%3Dtrue&resourceVersion=1002&watch=true "
    "200 OK in 0 milliseconds\n",
    "pods": "I1201 20:13:24.942901   23621 round_trippers.go:560] GET https://127.0.0.1:6443/api/"
    "v1/namespaces/testns/pods?labelSelector=org.mieweb.opensource-server.container-id%3D42%2Corg.mieweb."
    "opensource-server.managed%3Dtrue&resourceVersion=1002&watch=true 200 OK in 0 milliseconds\n",
}


REPLICASETS = [*K, *commands.replicasets(SELECTOR)]


def watch(
    fp: FakeProcess,
    deployment_events: str,
    pod_events: str = "",
    pods: list[str] = WATCH_PODS,
    **more: Any,
) -> None:
    """Register one run of a wait's two watches: what each prints, then its list is said
    complete (``LISTED``); ``pods``: the Pods' watch (by the selector, or by the name label
    for start and stop); ``more`` for the Deployment's watch (an exit status, stderr)."""
    fp.register(WATCH, stdout=deployment_events, **({"stderr": LISTED["deployments"]} | more))
    fp.register(pods, stdout=pod_events, stderr=LISTED["pods"])


def watch_create(
    fp: FakeProcess, deployment_events: str, pod_events: str = "", **more: Any
) -> None:
    """``watch`` for create, whose Deployment's watch selects by its name alone."""
    fp.register(
        WATCH_CREATE, stdout=deployment_events, **({"stderr": LISTED["deployments"]} | more)
    )
    fp.register(WATCH_PODS, stdout=pod_events, stderr=LISTED["pods"])


def watch_named(fp: FakeProcess, deployment_events: str, pod_events: str = "", **more: Any) -> None:
    """``watch`` for start and stop, whose Pods' watch selects by the name label."""
    watch(fp, deployment_events, pod_events, WATCH_PODS_NAMED, **more)


def rollout(seconds: int = 300) -> list[str]:
    """The wait's watch (the name stays from when it was ``rollout status``)."""
    return WATCH


def events(*objects: dict[str, Any]) -> str:
    """What ``get --watch -o json --output-watch-events`` prints for these states."""
    return "".join(
        json.dumps({"type": "MODIFIED" if i else "ADDED", "object": obj}, separators=(",", ":"))
        + "\n"
        for i, obj in enumerate(objects)
    )


def patch(replicas: int, owner: dict[str, str] | None = None) -> list[str]:
    return [*K, *commands.patch_replicas("web-1", replicas, owner or MANAGED)]


PATCH_1 = patch(1)
PATCH_0 = patch(0)
# What the write prints: the Deployment as it is right after it (its status not caught up).
APPLIED = kubectl_object(deployment(available=None, observed=None, conditions=[]))
STARTING = kubectl_object(deployment(generation=2, observed=1, available=None, conditions=[]))
STOPPING = kubectl_object(deployment(replicas=0, generation=2, observed=1))
ROLLED_OUT = events(deployment(available=None, conditions=[]), deployment())


class Clock:
    """A monotonic clock that moves only by the waits run so far: faked watches that end
    without a verdict "take" their whole bound, and a pause before watching again its
    length; nothing else takes time."""

    def __init__(self, fp: FakeProcess) -> None:
        self.fp = fp
        self.watched = 0.0

    def __call__(self) -> float:
        return 1000.0 + self.watched

    def sleep(self, seconds: float) -> None:
        self.watched += seconds


@pytest.fixture
def clock(fp: FakeProcess, monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock(fp)
    real_watch = KubectlRunner.watch_together

    def watch_together(self: KubectlRunner, args: Any, watching: Any, **kwargs: Any) -> Any:
        end = real_watch(self, args, watching, **kwargs)
        if end.decided is False:
            fake.watched += kwargs["seconds"]
        return end

    monkeypatch.setattr(KubectlRunner, "watch_together", watch_together)
    monkeypatch.setattr(waits, "monotonic", fake)
    monkeypatch.setattr(resume, "monotonic", fake)
    monkeypatch.setattr(waits.time, "sleep", fake.sleep)
    return fake


@pytest.fixture(autouse=True)
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def make_provider(**overrides: Any) -> KubernetesProvider:
    return KubernetesProvider(ClusterConfig(namespace="testns", **overrides))


def running_objects() -> list[dict[str, Any]]:
    dep = deployment()
    rs = replicaset(dep)
    return [dep, rs, pod(rs, ip="10.244.1.9")]


def legacy_objects() -> list[dict[str, Any]]:
    """A running Deployment applied before the name label existed."""
    dep = deployment(legacy=True)
    rs = replicaset(dep)
    return [dep, rs, pod(rs, ip="10.244.1.9")]


def calls(fp: FakeProcess) -> list[list[str]]:
    return [[str(a) for a in call] for call in fp.calls]


# -- create ------------------------------------------------------------------------------------


def test_create_applies_waits_and_reports_the_snapshot(fp: FakeProcess, clock: Clock) -> None:
    spec = parse_spec(SPEC)
    seen: dict[str, str] = {}
    fp.register(
        APPLY_JSON,
        stdout=APPLIED,
        stdin_callable=lambda text: seen.setdefault("manifest", text.decode()),
    )
    watch_create(fp, ROLLED_OUT)

    snapshot = make_provider().create(spec)

    assert isinstance(snapshot, Snapshot)
    assert snapshot.to_json() | {"message": "-"} == {
        "providerId": "testns/web-1",
        "vmid": "testns/web-1",
        "name": "web-1",
        "namespace": "testns",
        "node": "7",
        "containerId": "42",
        "status": "running",
        "message": "-",
        # The snapshot is the watch's last Deployment: no read of the Pods after the wait,
        # so no Pod IP (status and network give it; Manager never stores it).
        "podIp": None,
        "ipv4Address": None,
        "macAddress": None,
        "ephemeral": True,
        "image": "nginx:latest",
        "cpus": 1.0,
        "memoryMb": 1024,
        "replicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "updatedReplicas": 1,
        "generation": 1,
        "observedGeneration": 1,
        # These fixtures carry no managedFields: nothing to compare with.
        "drift": {"state": "unknown", "changes": [], "summary": "", "restored": []},
        "podNode": None,  # no Pod read
        "createdAt": "2026-11-30T00:00:00Z",
    }
    assert snapshot.message == "1/1 available"
    assert seen["manifest"] == render_manifest(spec, "testns")
    # Three kubectl processes: the watches (the Deployment's list is the ownership check's
    # read) and the apply; no final read.
    assert calls(fp) == [WATCH_CREATE, WATCH_PODS, APPLY_JSON]


def test_create_refuses_a_foreign_deployment_and_changes_nothing(fp: FakeProcess) -> None:
    # The Deployment's watch selects by name alone: its list shows the foreign one.
    watch_create(fp, events(deployment(managed=False)))
    with pytest.raises(errors.Conflict, match="not managed by Manager") as info:
        make_provider().create(parse_spec(SPEC))
    assert info.value.details["applied"] is False
    assert info.value.details.get("writeSent") is not True
    assert calls(fp) == [WATCH_CREATE, WATCH_PODS]  # no apply


def test_create_refuses_another_containers_deployment(fp: FakeProcess) -> None:
    watch_create(fp, events(deployment(container_id="99")))
    with pytest.raises(errors.Conflict, match="belongs to container '99'") as info:
        make_provider().create(parse_spec(SPEC))
    assert info.value.exit_code == 6
    assert calls(fp) == [WATCH_CREATE, WATCH_PODS]


def test_create_refuses_another_nodes_deployment(fp: FakeProcess) -> None:
    watch_create(fp, events(deployment(node_id="8")))
    with pytest.raises(errors.Conflict, match="belongs to Manager node '8'") as info:
        make_provider(node_id="7").create(parse_spec(SPEC))
    assert info.value.details["applied"] is False
    assert calls(fp) == [WATCH_CREATE, WATCH_PODS]


def test_create_failing_before_the_apply_says_nothing_was_applied(fp: FakeProcess) -> None:
    # Manager keeps a provider ID only when something may exist on the cluster.
    fp.register(WATCH_CREATE, stderr=CONN_REFUSED, returncode=1)
    fp.register(WATCH_PODS, stderr=CONN_REFUSED, returncode=1)
    with pytest.raises(errors.Unavailable) as info:
        make_provider().create(parse_spec(SPEC))
    assert info.value.details["applied"] is False
    assert info.value.details["writeSent"] is False
    watch_create(fp, events(deployment(container_id="99")))
    with pytest.raises(errors.Conflict) as conflict:
        make_provider().create(parse_spec(SPEC))
    assert conflict.value.details["applied"] is False
    assert APPLY_JSON not in calls(fp)


def test_create_keeps_the_uid_of_the_deployment_its_watch_listed(
    fp: FakeProcess, clock: Clock
) -> None:
    # An apply whose answer carries no uid: the wait judges each state by the uid the
    # watch's list showed before the apply (the answer, newer, is judged first: no uid, not
    # that Deployment).
    watch_create(fp, events(deployment(available=None, conditions=[])))
    answer = deployment(available=None, observed=None, conditions=[])
    answer["metadata"].pop("uid")
    answer["metadata"]["resourceVersion"] = "1002"
    fp.register(APPLY_JSON, stdout=kubectl_object(answer))
    with pytest.raises(errors.Conflict, match="was replaced") as info:
        make_provider().create(parse_spec(SPEC))
    assert info.value.details["expectedUid"] == "uid-deploy-web-1"


def test_create_failing_at_the_apply_does_not_say_nothing_was_applied(fp: FakeProcess) -> None:
    watch_create(fp, "")
    fp.register(APPLY_JSON, stderr=CONN_REFUSED, returncode=1)
    with pytest.raises(errors.Unavailable) as info:
        make_provider().create(parse_spec(SPEC))
    assert "applied" not in info.value.details


def test_a_wait_that_ends_on_a_failing_pod_is_rollout_failed_not_timeout(
    fp: FakeProcess, clock: Clock
) -> None:
    # The Pods' watch shows the crash loop; one read confirms it is the newest ReplicaSet's
    # Pod, and the wait ends there: retrying the same spec would crash again, so the answer
    # is RolloutFailed (permanent), not Timeout.
    dep = deployment(available=None, conditions=[])
    rs = replicaset(dep)
    crashing = pod(rs, ready=False, waiting=("CrashLoopBackOff", "back-off 10s"), restarts=3)
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, events(dep), events(crashing))
    fp.register(READ, stdout=kubectl_list([dep, rs, crashing]))
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.RolloutFailed) as info:
        make_provider(timeout=300).create(parse_spec(SPEC))
    assert info.value.message.startswith(
        "rollout of testns/web-1 cannot succeed: pod web-1-5d8f7c9b6d-abcde container main: "
        "CrashLoopBackOff"
    )
    assert info.value.details["failing"]
    assert clock() - 1000.0 == 0  # as the watch shows it, not after a slice


def test_create_retried_after_partial_failure_converges(fp: FakeProcess, clock: Clock) -> None:
    # The first attempt applied and timed out; the Deployment exists and is ours.
    # The watch lists it half done, then rolled out.
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, ROLLED_OUT)
    snapshot = make_provider().create(parse_spec(SPEC))
    assert isinstance(snapshot, Snapshot) and snapshot.status == "running"
    assert calls(fp) == [WATCH_CREATE, WATCH_PODS, APPLY_JSON]


def test_create_timeout_explains_why(fp: FakeProcess, clock: Clock) -> None:
    dep = deployment(
        available=None,
        conditions=[
            condition(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            ),
        ],
    )
    rs = replicaset(dep)
    pending = pod(rs, ready=False, ip=None, phase="Pending")
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, events(dep), events(pending))
    fp.register(READ, stdout=kubectl_list([dep, rs, pending]))
    fp.register(REPLICASETS, stdout=kubectl_list([rs]))  # is the Pod that holds it the workload's?
    fp.register(
        EVENTS,
        stdout=kubectl_list(
            [
                event("Pod", pending["metadata"]["name"], "FailedMount", "volume not ready"),
            ]
        ),
    )
    with pytest.raises(errors.Timeout) as info:
        make_provider(timeout=2).create(parse_spec(SPEC))
    message = info.value.message
    assert message.startswith(
        "rollout not complete after 2s: pod web-1-5d8f7c9b6d-abcde: Pending | "
        "deployment web-1: 0/1 available"
    )
    assert "MinimumReplicasUnavailable" not in message  # "0/1 available" says it
    assert "event FailedMount" in message
    assert clock() - 1000.0 == 2  # the watches ran the whole --timeout 2
    assert info.value.details["failing"] == []
    assert info.value.details["holding"] == [pending["metadata"]["name"]]
    assert info.value.exit_code == 7


def test_create_with_a_bad_image_fails_early_naming_the_reason(
    fp: FakeProcess, clock: Clock
) -> None:
    dep = deployment(image="nginx:does-not-exist", available=None, conditions=[])
    rs = replicaset(dep)
    stuck = pod(
        rs,
        ready=False,
        ip=None,
        phase="Pending",
        waiting=("ImagePullBackOff", 'Back-off pulling image "nginx:does-not-exist"'),
    )
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, events(dep), events(stuck))
    fp.register(READ, stdout=kubectl_list([dep, rs, stuck]))  # is it the new Pod? + diagnostics
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.RolloutFailed) as info:
        make_provider(timeout=300).create(parse_spec(SPEC))
    assert "ImagePullBackOff" in info.value.message
    assert clock() - 1000.0 == 0  # as the Pods' watch shows it, not after the 300 s
    assert info.value.exit_code == 10


def test_create_progress_deadline_is_rollout_failed(fp: FakeProcess, clock: Clock) -> None:
    dep = deployment(
        available=None,
        conditions=[
            condition(
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                'ReplicaSet "web-1-5d8f7c9b6d" has timed out progressing.',
            ),
        ],
    )
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, events(dep))
    fp.register(READ, stdout=kubectl_list([dep]))
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.RolloutFailed, match="ProgressDeadlineExceeded"):
        make_provider().create(parse_spec(SPEC))
    assert clock() - 1000.0 == 0


def test_create_waits_out_the_unschedulable_grace(
    fp: FakeProcess, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unschedulable is often transient: inside its 15 s grace it is no failure, and no
    read asks; past it (the watches judge again when it ends), one read confirms it."""
    scheduler_said_no = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
    now = [scheduler_said_no + timedelta(seconds=1)]
    monkeypatch.setattr(clock_module, "utc_now", lambda: now[0])
    dep = deployment(available=None, conditions=[])
    rs = replicaset(dep)
    stuck = pod(rs, ready=False, ip=None, phase="Pending", unschedulable="0/1 nodes are available")
    stuck["status"]["conditions"][0]["lastTransitionTime"] = "2026-11-30T12:00:00Z"
    seen = Seen(dep, True, [stuck], True)
    inside = rollout_verdict(PID, seen, None, "create", now[0])
    assert (inside.done, inside.suspect, inside.wake_in) == (False, None, 14.0)
    now[0] = scheduler_said_no + timedelta(seconds=16)
    past = rollout_verdict(PID, seen, None, "create", now[0])
    assert past.suspect is not None and "Unschedulable" in past.suspect[1]
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, events(dep), events(stuck))
    fp.register(READ, stdout=kubectl_list([dep, rs, stuck]))
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.RolloutFailed, match="Unschedulable") as info:
        make_provider(timeout=300).create(parse_spec(SPEC))
    assert "(unschedulable for 16s)" in info.value.message


def test_create_stops_on_replica_failure(fp: FakeProcess, clock: Clock) -> None:
    quota = (
        'pods "web-1-5d8f7c9b6d-x7k2p" is forbidden: exceeded quota: compute, requested: '
        "limits.cpu=1, used: limits.cpu=2, limited: limits.cpu=2"
    )
    dep = deployment(
        available=None,
        conditions=[
            condition("Progressing", "True", "ReplicaSetUpdated"),
            condition("ReplicaFailure", "True", "FailedCreate", quota),
        ],
    )
    rs = replicaset(dep)
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, events(dep))
    fp.register(READ, stdout=kubectl_list([dep, rs]))  # confirmed, and the diagnostics
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.RolloutFailed) as info:
        make_provider(timeout=300).create(parse_spec(SPEC))
    assert f"cannot succeed: ReplicaFailure FailedCreate: {quota} |" in info.value.message
    assert info.value.message.count(quota) == 1  # said once, not again among the conditions
    assert clock() - 1000.0 == 0


def test_create_dry_run_runs_nothing(fp: FakeProcess) -> None:
    plan = make_provider(dry_run=True).create(parse_spec(SPEC))
    assert isinstance(plan, DryRunPlan)
    # The wait's watches, started before the apply (their answer proves the wait's
    # permissions; the Deployment's, by its name alone, lists what the ownership check
    # reads), as comments: pasted, a watch never ends.
    assert plan.commands[0].split("\n") == [
        "# the adapter watches: kubectl -n testns get deployments --field-selector "
        "metadata.name=web-1 --watch -o json --output-watch-events --show-managed-fields",
        f"# and at once: kubectl -n testns get pods -l {SELECTOR} --watch -o json "
        "--output-watch-events",
    ]
    assert plan.commands[1].startswith("kubectl -n testns --request-timeout 10s apply")
    # Below the apply, the wait as a whole, which pasted waits for the same end state as
    # long as the adapter would.
    assert plan.commands[2].split("\n") == [
        "# (judging each event, killed once the wait is decided; pasted, a watch never ends: "
        "the next line waits for the same end state)",
        "kubectl -n testns rollout status deployment/web-1 --timeout=300s",
    ]
    assert len(plan.commands) == 3
    assert plan.manifest is not None and "web-1" in plan.manifest
    assert fp.calls == type(fp.calls)()


def test_create_without_namespace_uses_the_contexts(fp: FakeProcess, clock: Clock) -> None:
    fp.register(
        [
            "kubectl",
            "--request-timeout",
            "10s",
            "config",
            "view",
            "--minify",
            "-o",
            "jsonpath={.contexts[0].context.namespace}",
        ],
        stdout="testns",
    )
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, ROLLED_OUT)
    provider = KubernetesProvider(ClusterConfig())
    assert provider.create(parse_spec(SPEC)).namespace == "testns"  # type: ignore[union-attr]


# -- status and list ---------------------------------------------------------------------------


def test_status_of_a_labelled_deployment_costs_one_call(fp: FakeProcess) -> None:
    """The Deployment, its ReplicaSets and Pods by the name label: one kubectl get."""
    fp.register(NAMED, stdout=kubectl_list(running_objects()))
    snapshot = make_provider().status("testns/web-1")
    assert (snapshot.status, snapshot.pod_ip, snapshot.mac_address) == (
        "running",
        "10.244.1.9",
        None,
    )
    assert snapshot.drift.state == "unknown"  # the fixture carries no managedFields
    assert calls(fp) == [NAMED]


def test_status_of_a_legacy_deployment_reads_it_by_name_then_by_its_selector(
    fp: FakeProcess,
) -> None:
    """Applied before the name label existed: the labelled read finds nothing (its Pods carry
    no name label either), so it costs the old reads, until its next reconfigure."""
    dep, rs, p = legacy_objects()
    fp.register(NAMED, stdout=kubectl_list([]))
    fp.register(GET, stdout=kubectl_object(dep))
    fp.register(OWNED, stdout=kubectl_list([rs, p]))
    snapshot = make_provider().status("testns/web-1")
    assert (snapshot.status, snapshot.pod_ip) == ("running", "10.244.1.9")
    assert calls(fp) == [NAMED, GET, OWNED]


def test_status_missing(fp: FakeProcess) -> None:
    fp.register(NAMED, stdout=kubectl_list([]))
    fp.register(GET, **ABSENT)
    snapshot = make_provider().status("testns/web-1")
    assert snapshot.status == "missing"
    assert snapshot.provider_id == snapshot.vmid == "testns/web-1"
    assert calls(fp) == [NAMED, GET]


def test_status_of_a_foreign_deployment_is_missing(fp: FakeProcess) -> None:
    """A Deployment of that name without Manager's labels is never in the labelled answer,
    even when its Pods carry Manager's labels and the name (copied by hand): they count for
    nothing, and the read by name says whose it is."""
    foreign = deployment(managed=False)
    rs = replicaset(foreign)
    fp.register(NAMED, stdout=kubectl_list([rs, pod(rs)]))
    fp.register(GET, stdout=kubectl_object(foreign))
    snapshot = make_provider().status("testns/web-1")
    assert snapshot.status == "missing"
    assert "not managed by Manager" in snapshot.message
    assert calls(fp) == [NAMED, GET]


def test_status_judges_only_the_pods_the_deployment_owns(fp: FakeProcess) -> None:
    """An earlier web-1, deleted with --cascade=orphan, left a failing Pod with the same
    labels, and another Deployment carries web-1's name label (copied by hand): the label read
    returns all of them, the owner check by uid drops them (as list does)."""
    earlier_rs = replicaset(deployment(uid="uid-earlier"), "old1111111")
    earlier_rs["metadata"]["uid"] = "uid-rs-earlier"
    orphan = pod(earlier_rs, ready=False, ip=None, phase="Pending", waiting=("ErrImagePull", "x"))
    impostor = deployment("web-9", container_id="9", uid="uid-web-9", available=None)
    impostor["metadata"]["labels"][NAME] = "web-1"
    impostor["spec"]["template"]["metadata"]["labels"][NAME] = "web-1"
    impostor_rs = replicaset(impostor, "imp3333333")
    crashing = pod(impostor_rs, "zzzzz", ready=False, waiting=("CrashLoopBackOff", "back-off"))
    dep = deployment(available=None, conditions=[])
    rs = replicaset(dep, "new2222222")
    answer = [impostor, dep, earlier_rs, impostor_rs, rs, orphan, crashing, pod(rs, ready=False)]
    fp.register(NAMED, stdout=kubectl_list(answer))
    snapshot = make_provider().status("testns/web-1")
    assert (snapshot.status, snapshot.message) == ("creating", "0/1 available; pod(s) Running")
    assert (snapshot.container_id, snapshot.pod_ip) == ("42", None)
    assert calls(fp) == [NAMED]


def test_status_after_a_rollback_to_a_revision_without_the_name_label(fp: FakeProcess) -> None:
    """``kubectl rollout undo`` to a revision applied before the name label: the template has
    no name label, so its Pods are not in the labelled answer; they are read by selector."""
    dep, old_rs, _ = running_objects()
    del dep["spec"]["template"]["metadata"]["labels"][NAME]
    legacy_rs = replicaset(legacy_objects()[0], "leg4444444", revision=3)
    fp.register(NAMED, stdout=kubectl_list([dep, old_rs]))
    fp.register(OWNED, stdout=kubectl_list([old_rs, legacy_rs, pod(legacy_rs, ip="10.244.3.3")]))
    snapshot = make_provider().status("testns/web-1")
    assert (snapshot.status, snapshot.pod_ip) == ("running", "10.244.3.3")
    assert calls(fp) == [NAMED, OWNED]


def test_status_mid_rollout_from_a_legacy_revision_reads_every_pod(fp: FakeProcess) -> None:
    """The first reconfigure of a legacy Deployment rolls its Pod: the old ReplicaSet has no
    name label. The Deployment counts two Pods, the labelled answer holds one: the selector
    read holds both, and the old failing Pod is judged too."""
    dep = deployment(available=None, total=2, updated=1, generation=2, conditions=[])
    new_rs = replicaset(dep, "new2222222", revision=2)
    old_rs = replicaset(legacy_objects()[0], "old1111111")
    new_pod = pod(new_rs, ready=False, ip=None, phase="Pending")
    old_pod = pod(old_rs, ready=False, waiting=("CrashLoopBackOff", "back-off"), restarts=4)
    fp.register(NAMED, stdout=kubectl_list([dep, new_rs, new_pod]))
    fp.register(OWNED, stdout=kubectl_list([old_rs, new_rs, old_pod, new_pod]))
    snapshot = make_provider().status("testns/web-1")
    assert snapshot.status == "failed"
    assert "CrashLoopBackOff" in snapshot.message
    assert calls(fp) == [NAMED, OWNED]


@pytest.mark.parametrize(
    ("stderr", "kind"),
    [
        (CONN_REFUSED, "Unavailable"),
        ("error: You must be logged in to the server (Unauthorized)\n", "Unauthorized"),
        (
            "Error from server (Forbidden): deployments.apps is forbidden: User "
            '"system:serviceaccount:testns:sa" cannot list resource "deployments" in API group '
            '"apps" in the namespace "testns"\n',
            "Forbidden",
        ),
    ],
)
def test_status_is_unknown_when_the_api_cannot_answer(
    fp: FakeProcess, stderr: str, kind: str
) -> None:
    fp.register(NAMED, stderr=stderr, returncode=1)
    snapshot = make_provider().status("testns/web-1")
    assert snapshot.status == "unknown"
    assert snapshot.message.startswith(kind)
    assert len(fp.calls) == 1


@pytest.mark.parametrize("later", ["get", "owned"])
def test_status_is_unknown_when_a_fallback_read_cannot_answer(fp: FakeProcess, later: str) -> None:
    fp.register(NAMED, stdout=kubectl_list([]))
    if later == "get":
        fp.register(GET, stderr=CONN_REFUSED, returncode=1)
    else:
        fp.register(GET, stdout=kubectl_object(legacy_objects()[0]))
        fp.register(OWNED, stderr=CONN_REFUSED, returncode=1)
    snapshot = make_provider().status("testns/web-1")
    assert (snapshot.status, snapshot.message.split(":")[0]) == ("unknown", "Unavailable")


def test_status_rejects_a_bad_provider_id_before_any_call(fp: FakeProcess) -> None:
    with pytest.raises(errors.InvalidProviderId):
        make_provider().status("testns/Web_1")
    assert not fp.calls


def _many(n: int) -> str:
    return kubectl_list(running_workloads(n))


LIST = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.managed=true",
    "-o",
    "json",
    MANAGED_FIELDS,
    "-v=6",
]


@pytest.mark.parametrize("n", [1, 2000])
def test_list_makes_one_call_for_any_number_of_workloads(fp: FakeProcess, n: int) -> None:
    fp.register(LIST, stdout=_many(n))
    snapshots = make_provider().list()
    assert len(snapshots) == n
    assert len(fp.calls) == 1
    by_id = {s.provider_id: s for s in snapshots}
    assert by_id["testns/web-0"].pod_ip == "10.244.0.0"
    assert by_id[f"testns/web-{n - 1}"].status == "running"


def test_list_filters_by_node(fp: FakeProcess) -> None:
    node_list = [*LIST]
    node_list[-5] = (
        "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.node-id=7"
    )
    fp.register(node_list, stdout=kubectl_list(running_objects()))
    assert [s.node for s in make_provider(node_id="7").list()] == ["7"]


def test_list_fails_with_the_typed_error(fp: FakeProcess) -> None:
    # kubectl prints an empty List on stdout even though the LIST failed.
    fp.register(
        LIST,
        stdout=kubectl_list([]),
        stderr="Error from server (ServiceUnavailable): the server is currently unable to "
        "handle the request\n",
        returncode=1,
    )
    with pytest.raises(errors.Unavailable):
        make_provider().list()


# -- start / stop ------------------------------------------------------------------------------


PATCH_REFUSED = (
    "The request is invalid: testing value "
    "/metadata/labels/org.mieweb.opensource-server.managed failed\n"
)
NOT_FOUND = 'Error from server (NotFound): deployments.apps "web-1" not found\n'


def test_start_scales_a_stopped_workload_and_waits(fp: FakeProcess, clock: Clock) -> None:
    fp.register(PATCH_1, stdout=STARTING)
    watch_named(fp, ROLLED_OUT)
    snapshot = make_provider().start("testns/web-1")
    assert isinstance(snapshot, Snapshot) and snapshot.status == "running"
    assert (snapshot.message, snapshot.pod_ip) == ("1/1 available", None)
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_1]
    ops = json.loads(PATCH_1[PATCH_1.index("-p") + 1])
    assert ops[0] == {
        "op": "test",
        "path": "/metadata/labels/org.mieweb.opensource-server.managed",
        "value": "true",
    }
    assert ops[-1] == {"op": "replace", "path": "/spec/replicas", "value": 1}


def test_a_wait_is_logged_once_as_the_whole_wait(
    fp: FakeProcess, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """-v shows the wait as an operator would paste it: the adapter's watches as comments,
    then the one command that waits for the same end state bounded by --timeout; the
    watches started again after one broke off are comments."""
    caplog.set_level(logging.INFO, logger="kubectl_adapter")
    fp.register(PATCH_1, stdout=kubectl_object(deployment(available=None, observed=2)))
    # The API server restarts mid-wait, after the patch: the Deployment's watch is cut.
    cut = LISTED["deployments"] + CONN_REFUSED
    watch_named(fp, events(deployment(available=None)), stderr=cut, returncode=1)
    watch_named(fp, events(deployment()))  # started again at once: it had got through before
    make_provider(timeout=300, verbose=True).start("testns/web-1")
    logged = [r.getMessage() for r in caplog.records if r.name == "kubectl_adapter"]
    waits = [line for line in logged if "--watch" in line]
    watch_deployment = (
        "kubectl -n testns get deployments -l org.mieweb.opensource-server.managed=true "
        "--field-selector metadata.name=web-1 --watch -o json --output-watch-events "
        "--show-managed-fields"  # the run's -v=6 stays off the log at -v
    )
    watch_pods = f"kubectl -n testns get pods -l {BY_NAME} --watch -o json --output-watch-events"
    assert waits == [
        f"# the adapter watches: {watch_deployment}\n# and at once: {watch_pods}",
        "# a watch broke off: watching again\n"
        f"# the adapter watches: {watch_deployment}\n"
        f"# and at once: {watch_pods}",
    ]
    # The command that waits by hand pastes below the patch the watches started before.
    by_hand = (
        "# (judging each event, killed once the wait is decided; pasted, a watch never ends: "
        "the next line waits for the same end state)\n"
        "kubectl -n testns rollout status deployment/web-1 --timeout=300s"
    )
    patched = next(i for i, line in enumerate(logged) if " patch deployment web-1 " in line)
    assert logged.index(by_hand) == patched + 2  # below the patch and its outcome
    # the watches, the patch, the watches again; no read after the wait
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_1, WATCH, WATCH_PODS_NAMED]


def test_start_of_a_running_workload_waits_for_nothing(fp: FakeProcess, clock: Clock) -> None:
    watch_named(fp, "")
    fp.register(PATCH_1, stdout=kubectl_object(deployment()))  # a no-op: already complete
    snapshot = make_provider().start("testns/web-1")
    assert isinstance(snapshot, Snapshot) and snapshot.status == "running"
    # The watches started before the patch; what it printed is the answer.
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_1]


def test_start_missing_is_not_found(fp: FakeProcess) -> None:
    watch_named(fp, "")
    fp.register(PATCH_1, stderr=NOT_FOUND, returncode=1)
    with pytest.raises(errors.NotFound) as info:
        make_provider().start("testns/web-1")
    assert info.value.exit_code == 3


@pytest.mark.parametrize("operation", ["start", "stop"])
def test_lifecycle_never_touches_a_foreign_deployment(fp: FakeProcess, operation: str) -> None:
    """The API server refuses the patch (its test operation), nothing changes; one read
    then says whose the Deployment is."""
    watch_named(fp, "")
    fp.register(patch(1 if operation == "start" else 0), stderr=PATCH_REFUSED, returncode=1)
    fp.register(GET, stdout=kubectl_object(deployment(managed=False)))
    with pytest.raises(errors.Conflict, match="not managed by Manager"):
        getattr(make_provider(), operation)("testns/web-1")
    assert len(fp.calls) == 4  # the wait's two watches, the patch, the read


def test_delete_never_touches_a_foreign_deployment(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment(managed=False)))
    with pytest.raises(errors.Conflict, match="not managed by Manager"):
        make_provider().delete("testns/web-1")
    assert calls(fp) == [GET]


@pytest.mark.parametrize("operation", ["start", "stop"])
def test_lifecycle_refuses_another_container(fp: FakeProcess, operation: str) -> None:
    owner = MANAGED | {"org.mieweb.opensource-server.container-id": "43"}
    # The Pods' watch selects by the container's identity, as the Deployment's selector does.
    other = SELECTOR.replace("=42", "=43")
    watch(fp, "", pods=[*KW, *commands.watch_pods(other)])
    fp.register(patch(1 if operation == "start" else 0, owner), stderr=PATCH_REFUSED, returncode=1)
    fp.register(GET, stdout=kubectl_object(deployment(container_id="42")))
    with pytest.raises(errors.Conflict, match="belongs to container"):
        getattr(make_provider(), operation)("testns/web-1", container_id="43")
    ops = json.loads(fp.calls[2][fp.calls[2].index("-p") + 1])
    assert {"op": "test", "path": "/metadata/labels/org.mieweb.opensource-server.container-id",
            "value": "43"} in ops  # fmt: skip


def test_delete_refuses_another_container(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment(container_id="42")))
    with pytest.raises(errors.Conflict, match="belongs to container"):
        make_provider().delete("testns/web-1", container_id="43")
    assert calls(fp) == [GET]


def test_lifecycle_refuses_another_nodes_workload(fp: FakeProcess) -> None:
    owner = MANAGED | {"org.mieweb.opensource-server.node-id": "7"}
    watch_named(fp, "")
    fp.register(patch(0, owner), stderr=PATCH_REFUSED, returncode=1)
    fp.register(GET, stdout=kubectl_object(deployment(node_id="8")))
    with pytest.raises(errors.Conflict, match="Manager node"):
        make_provider(node_id="7").stop("testns/web-1")


def test_stop_scales_to_zero_and_waits_until_no_pod_is_live(fp: FakeProcess, clock: Clock) -> None:
    fp.register(PATCH_0, stdout=STOPPING)
    gone = deployment(replicas=0, generation=2, observed=2, available=None, total=0)
    watch_named(fp, events(deployment(replicas=0, generation=2, observed=2), gone))
    snapshot = make_provider().stop("testns/web-1")
    assert isinstance(snapshot, Snapshot)
    assert (snapshot.status, snapshot.replicas, snapshot.pod_ip) == ("offline", 0, None)
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_0]


def test_stop_twice_is_safe(fp: FakeProcess) -> None:
    stopped = deployment(replicas=0, available=None, total=0)
    watch_named(fp, events(stopped))  # no Pod left: the patch's answer ends the wait
    fp.register(PATCH_0, stdout=kubectl_object(stopped))
    snapshot = make_provider().stop("testns/web-1")
    assert isinstance(snapshot, Snapshot) and snapshot.status == "offline"
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_0]


def test_stop_wait_timeout_says_which_pods_remain(fp: FakeProcess, clock: Clock) -> None:
    dep = deployment(replicas=0, generation=2, observed=2)
    rs = replicaset(dep)
    stuck = pod(rs)
    fp.register(PATCH_0, stdout=STOPPING)
    for _ in range(2):  # two 10 s slices: a pod still counted
        watch_named(fp, events(dep))
    fp.register(NAMED, stdout=kubectl_list([dep, rs, stuck]))
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.Timeout, match="pods of testns/web-1 still present"):
        make_provider(timeout=20).stop("testns/web-1")
    assert clock() - 1000.0 == 20


def test_stop_ignores_pods_kubernetes_never_deletes(fp: FakeProcess, clock: Clock) -> None:
    """An evicted (Failed) Pod is not in status.replicas: the wait ends without it."""
    fp.register(PATCH_0, stdout=STOPPING)
    watch_named(fp, events(deployment(replicas=0, generation=2, observed=2, total=0,
                                                available=None)))  # fmt: skip
    assert make_provider(timeout=20).stop("testns/web-1").status == "offline"  # type: ignore[union-attr]
    assert clock() - 1000.0 == 0


def test_stop_is_not_held_by_a_pod_no_replicaset_controls(fp: FakeProcess, clock: Clock) -> None:
    """A Pod made by hand with the workload's labels: no ownerReference, no Deployment's. It
    costs no read, and the stop ends as the scale is observed."""
    dep = deployment(replicas=0, generation=2, observed=2, total=0, available=None)
    by_hand = pod(replicaset(dep), "byhand")
    by_hand["metadata"].pop("ownerReferences")
    fp.register(PATCH_0, stdout=STOPPING)
    watch_named(fp, events(dep), events(by_hand))
    snapshot = make_provider(timeout=20).stop("testns/web-1")
    assert isinstance(snapshot, Snapshot) and snapshot.status == "offline"
    assert clock() - 1000.0 == 0
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_0]


def test_stop_reads_the_pods_a_paged_list_printed_as_list_objects(
    fp: FakeProcess, clock: Clock
) -> None:
    """More Pods than kubectl's --chunk-size (500): ``get pods --watch`` prints its list one
    page at a time, each a List in one ADDED event. Its items are the Pods: evicted ones do
    not hold stop, and a live one does (seen, not taken for a nameless Pod)."""
    dep = deployment(replicas=0, generation=2, observed=2, total=0, available=None)
    rs = replicaset(dep)
    evicted = []
    for i in range(3):
        failed = pod(rs)
        failed["metadata"]["name"] = f"web-1-evicted-{i}"
        failed["status"] = {"phase": "Failed", "reason": "Evicted"}
        evicted.append(failed)

    def page(*items: dict[str, Any]) -> str:
        listed = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                  "items": list(items)}  # fmt: skip
        return json.dumps({"type": "ADDED", "object": listed}) + "\n"

    fp.register(PATCH_0, stdout=STOPPING)
    watch_named(fp, events(dep), page(*evicted[:2]) + page(evicted[2]))
    snapshot = make_provider(timeout=20).stop("testns/web-1")
    assert isinstance(snapshot, Snapshot) and snapshot.status == "offline"
    assert clock() - 1000.0 == 0  # decided on what the pages showed: no wait
    assert calls(fp) == [WATCH, WATCH_PODS_NAMED, PATCH_0]


# -- delete ------------------------------------------------------------------------------------


DELETE = [*KW, *commands.delete_owned("web-1", MANAGED, 300)]
FIND = [*K, *commands.find_deployment("web-1")]


def test_delete_is_foreground_and_reports(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(DELETE, stdout='deployment.apps "web-1" deleted\n')
    result = make_provider().delete("testns/web-1")
    assert calls(fp) == [GET, DELETE]  # kubectl waited for that uid to be gone
    assert result.to_json() == {
        "providerId": "testns/web-1",
        "deleted": True,
        "alreadyMissing": False,
    }


def test_delete_twice_is_success(fp: FakeProcess) -> None:
    fp.register(GET, **ABSENT)
    result = make_provider().delete("testns/web-1")
    assert result.to_json() == {
        "providerId": "testns/web-1",
        "deleted": False,
        "alreadyMissing": True,
    }
    assert len(fp.calls) == 1


@pytest.mark.parametrize(
    ("operation", "first"), [("status", NAMED), ("delete", GET), ("stop", PATCH_0)]
)
def test_a_kubectl_that_prints_nothing_is_never_an_absent_deployment(
    fp: FakeProcess, operation: str, first: list[str]
) -> None:
    """Exit 0 with nothing on stdout used to make `status` say missing and `delete` say
    alreadyMissing while the Deployment ran: only a 404 (NotFound) means absent."""
    writes = operation == "stop"
    if writes:  # its wait's watches start first
        watch(fp, "", pods=WATCH_PODS_NAMED)
    fp.register(first, stdout="")
    with pytest.raises(errors.InternalError) as info:
        getattr(make_provider(), operation)("testns/web-1")
    assert info.value.details["problem"] == "output is empty"
    assert len(fp.calls) == 1 + 2 * writes


def test_delete_timeout(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(
        DELETE,
        stdout='deployment.apps "web-1" deleted\n',
        stderr="error: timed out waiting for the condition on deployments/web-1\n",
        returncode=1,
    )
    fp.register(FIND, stdout=kubectl_list([deployment(deleting=True)]))  # still the same one
    fp.register(READ, stdout=kubectl_list([deployment(deleting=True)]))
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.Timeout, match="deletion of testns/web-1 not finished"):
        make_provider().delete("testns/web-1")


def test_delete_that_waited_on_a_recreated_deployment_is_a_conflict(fp: FakeProcess) -> None:
    # Our DELETE was answered 404 (another job had deleted it), then kubectl waited for the
    # Deployment another job created meanwhile under the same name, until --timeout.
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(
        DELETE,
        stderr="error: timed out waiting for the condition on deployments/web-1\n",
        returncode=1,
    )
    fp.register(FIND, stdout=kubectl_list([deployment(uid="uid-new")]))
    with pytest.raises(errors.Conflict, match="re-created by another operation"):
        make_provider().delete("testns/web-1")


# -- reconfigure -------------------------------------------------------------------------------


def _reconfigure(
    fp: FakeProcess,
    clock: Clock,
    before: dict[str, Any],
    after: dict[str, Any],
    spec: dict[str, Any],
    *,
    expect_rollout: bool = True,
) -> tuple[Snapshot, str]:
    seen: dict[str, str] = {}
    fp.register(GET, stdout=kubectl_object(before))
    applied = json.loads(json.dumps(after))  # as the apply prints it: not yet observed
    if expect_rollout:
        applied["status"]["observedGeneration"] = before["metadata"]["generation"]
    fp.register(
        APPLY_JSON,
        stdout=kubectl_object(applied),
        stdin_callable=lambda text: seen.setdefault("manifest", text.decode()),
    )
    watched = before["spec"]["replicas"] != 0  # a stopped workload's reconfigure: no wait
    if watched:
        watch(fp, events(applied, after) if expect_rollout else "")
    result = make_provider().reconfigure("testns/web-1", parse_spec(spec))
    assert isinstance(result, Snapshot)
    # No read after the wait: the snapshot is the Deployment the wait ended on.
    assert calls(fp) == [GET, *([WATCH, WATCH_PODS] if watched else []), APPLY_JSON]
    return result, seen["manifest"]


@pytest.mark.parametrize(
    ("change", "present", "absent"),
    [
        ({"env": {"KEY": "value", "NEW": "1"}}, ['name: "NEW"', 'value: "1"'], []),
        ({"env": {"KEY": "changed"}}, ['value: "changed"'], ['value: "value"']),
        ({"env": {}}, [], ["env:", "KEY"]),
        ({"entrypoint": "sleep 10"}, ['command: ["sleep", "10"]'], []),
        ({"entrypoint": None}, [], ["command:"]),
        ({"cpus": 0.5}, ['cpu: "500m"'], ['cpu: "1000m"']),
        ({"memoryMb": 2048}, ['memory: "2048Mi"'], ['memory: "1024Mi"']),
    ],
)
def test_reconfigure_renders_each_change(
    fp: FakeProcess, clock: Clock, change: dict[str, Any], present: list[str], absent: list[str]
) -> None:
    _, manifest = _reconfigure(
        fp, clock, deployment(), deployment(generation=2, observed=2), SPEC | change
    )
    for text in present:
        assert text in manifest
    for text in absent:
        assert text not in manifest
    assert "replicas" not in manifest


def test_reconfigure_of_a_stopped_workload_keeps_it_stopped(fp: FakeProcess, clock: Clock) -> None:
    fp.register(GET, stdout=kubectl_object(deployment(replicas=0, available=None)))
    # As the apply prints it: the new generation, not yet observed by the controller.
    applied = deployment(replicas=0, available=None, generation=2, observed=1)
    seen: dict[str, str] = {}
    fp.register(
        APPLY_JSON,
        stdout=kubectl_object(applied),
        stdin_callable=lambda text: seen.setdefault("manifest", text.decode()),
    )
    snapshot = make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {"env": {"A": "b"}}))
    assert isinstance(snapshot, Snapshot)
    assert "replicas" not in seen["manifest"]
    assert (snapshot.status, snapshot.replicas, snapshot.pod_ip) == ("offline", 0, None)
    assert (snapshot.generation, snapshot.observed_generation) == (2, 1)  # as the apply said
    # get, apply: no Pod to roll out, so no wait (a start rolls the new template out).
    assert calls(fp) == [GET, APPLY_JSON]


def test_reconfigure_of_a_stopped_deployment_being_deleted_is_not_found(
    fp: FakeProcess, clock: Clock
) -> None:
    """No wait on a stopped workload, yet what the apply printed is judged as the wait's
    first event would be: a Deployment being deleted is said, not reported offline."""
    fp.register(GET, stdout=kubectl_object(deployment(replicas=0, available=None)))
    applied = deployment(replicas=0, available=None, generation=2, observed=1, deleting=True)
    fp.register(APPLY_JSON, stdout=kubectl_object(applied))
    with pytest.raises(errors.NotFound, match="being deleted"):
        make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {"env": {"A": "b"}}))
    assert calls(fp) == [GET, APPLY_JSON]


def test_reconfigure_that_changes_nothing_makes_no_rollout(fp: FakeProcess, clock: Clock) -> None:
    _reconfigure(fp, clock, deployment(), deployment(), SPEC, expect_rollout=False)
    # get, the wait's watches, apply: what the apply printed is already complete
    assert len(fp.calls) == 4


@pytest.mark.parametrize(
    ("field", "value"), [("hostname", "web-2"), ("containerId", "43"), ("nodeId", "8")]
)
def test_reconfigure_rejects_an_identity_change(fp: FakeProcess, field: str, value: str) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    with pytest.raises(errors.InvalidInput, match=field):
        make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {field: value}))
    assert not any("apply" in call for call in calls(fp))


def test_reconfigure_rollback_reports_failure_and_rollback(fp: FakeProcess, clock: Clock) -> None:
    dep = deployment(generation=2, observed=2, available=1, updated=None, total=2)
    old_rs, new_rs = replicaset(dep, "oldhash111", 1), replicaset(dep, "newhash222", 2)
    crashing = pod(
        new_rs,
        ready=False,
        waiting=("CrashLoopBackOff", "back-off 10s"),
        last_terminated=("Error", 1),
        restarts=2,
    )
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(APPLY_JSON, stdout=kubectl_object(dep))
    watch(fp, events(dep), events(pod(old_rs, "old11"), crashing))
    objects = kubectl_list([dep, old_rs, new_rs, pod(old_rs, "old11"), crashing])
    fp.register(READ, stdout=objects)  # the new ReplicaSet's Pod: the diagnostics too
    fp.register(EVENTS, stdout=kubectl_list([]))
    failed = deployment(generation=2, observed=2)
    failed["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "2"
    fp.register(
        [*K, "rollout", "undo", "deployment/web-1", "-o", "json"], stdout=kubectl_object(failed)
    )
    rolled_back = deployment(generation=3, observed=3)
    rolled_back["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "3"
    watch(fp, events(deployment(available=None, conditions=[]), rolled_back))
    marked = []

    def annotated(process: Any) -> None:
        marked.append(process.args)

    fp.register([*K, "annotate", "deployment/web-1", fp.any()], callback=annotated)
    with pytest.raises(errors.RolloutFailed) as info:
        make_provider().reconfigure(
            "testns/web-1", parse_spec(SPEC | {"entrypoint": "false"}), rollback_on_failure=True
        )
    assert info.value.message.count("CrashLoopBackOff") == 1
    assert (
        " | rollback: rolled back to the previous revision, which is available (revision 3; "
        "revision 2 failed) | next step: kubectl rollout history deployment/web-1 -n testns "
        "--revision=2"
    ) in info.value.message
    # The undo replaced the failed revision's Pods: no `kubectl logs` of one of them.
    assert info.value.details["nextStep"] == (
        "kubectl rollout history deployment/web-1 -n testns --revision=2"
    )
    assert info.value.details["rollback"]["succeeded"] is True
    assert info.value.details["rollback"]["marked"] is True
    # The Deployment says it was rolled back, and from which revision (rules/rollback_mark.py)
    (argv,) = marked
    key, _, value = argv[argv.index("deployment/web-1") + 1].partition("=")
    assert key == "org.mieweb.opensource-server.rolled-back"
    assert json.loads(value) | {"at": None} == {
        "by": "--rollback-on-failure",
        "failedRevision": "2",
        "revision": "3",
        "at": None,
        "fields": {},  # what the undo left (none here: no managedFields in this read)
        "applied": None,
    }
    assert "--overwrite" in argv


# -- network and check -------------------------------------------------------------------------


def test_network_reports_an_ephemeral_ip_and_no_mac(fp: FakeProcess) -> None:
    fp.register(NAMED, stdout=kubectl_list(running_objects()))
    assert make_provider().network("testns/web-1").to_json() == {
        "providerId": "testns/web-1",
        "podIp": "10.244.1.9",
        "ipv4Address": "10.244.1.9",
        "macAddress": None,
        "ephemeral": True,
        "stable": False,
    }
    assert calls(fp) == [NAMED]


def test_network_of_a_legacy_deployment(fp: FakeProcess) -> None:
    dep, rs, p = legacy_objects()
    fp.register(NAMED, stdout=kubectl_list([]))
    fp.register(GET, stdout=kubectl_object(dep))
    fp.register(OWNED, stdout=kubectl_list([rs, p]))
    assert make_provider().network("testns/web-1").pod_ip == "10.244.1.9"
    assert calls(fp) == [NAMED, GET, OWNED]


def test_network_of_a_missing_deployment_is_not_found(fp: FakeProcess) -> None:
    fp.register(NAMED, stdout=kubectl_list([]))
    fp.register(GET, **ABSENT)
    with pytest.raises(errors.NotFound, match="deployment testns/web-1 not found"):
        make_provider().network("testns/web-1")
    assert calls(fp) == [NAMED, GET]


@pytest.mark.parametrize("labelled", [True, False])
def test_network_refuses_another_nodes_or_a_foreign_deployment_before_its_pods(
    fp: FakeProcess, labelled: bool
) -> None:
    """Another Manager node's Deployment (found by the labelled read), or one that is not
    Manager's (read by name): Conflict, and its Pods are never read."""
    if labelled:
        fp.register(NAMED, stdout=kubectl_list(running_objects()))
    else:
        fp.register(NAMED, stdout=kubectl_list([]))
        fp.register(GET, stdout=kubectl_object(deployment(managed=False)))
    with pytest.raises(errors.Conflict) as info:
        make_provider(node_id="8").network("testns/web-1")
    assert ("Manager node '7'" in info.value.message) is labelled
    assert len(fp.calls) == (1 if labelled else 2)


def test_check_reports_each_permission(fp: FakeProcess) -> None:
    from kubectl_adapter.contract.permissions import CLUSTER_NEEDS, NAMESPACED_NEEDS

    needs = [*NAMESPACED_NEEDS, *CLUSTER_NEEDS]
    version = {
        "clientVersion": {"gitVersion": "v1.32.4-dispatcher", "minor": "32+"},
        "serverVersion": {"gitVersion": "v1.32.0", "minor": "32"},
    }
    sent: dict[str, Any] = {}

    def reviews(text: str) -> None:
        sent["reviews"] = json.loads(text)

    answers = [
        {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": n.verb, "resource": n.resource}},
            "status": {"allowed": not (n.verb == "delete" and n.resource == "deployments")},
        }
        for n in needs
    ]
    fp.register([*K, "version", "-o", "json"], stdout=json.dumps(version))
    fp.register(
        [*K, "get", "namespace", "testns", "--ignore-not-found", "-o", "json"],
        stdout=kubectl_object(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "testns"}}
        ),
    )
    # kubectl create -o json of a List prints each created object, back to back.
    fp.register(
        [*K, "create", "-f", "-", "-o", "json"],
        stdout="".join(kubectl_object(answer) for answer in answers),
        stdin_callable=reviews,
    )
    result = make_provider().check()
    assert result.ok is False
    assert result.missing_permissions == ["delete deployments (apps)"]
    assert len(sent["reviews"]["items"]) == len(needs)
    assert result.server_version == "v1.32.0"
    assert result.capabilities.stable_mac_address is False


def test_spec_type_is_strict() -> None:
    assert isinstance(parse_spec(SPEC), ContainerSpec)


# -- races with another Manager job (issue 11) -------------------------------------------------
# stderr of kubectl 1.32 `apply --server-side` when the API server refuses the precondition
# (captured against tests/fakecluster, whose 409 bodies are the API server's).
SSA_CONFLICT_ADVICE = (
    "Please review the fields above--they currently have other managers. Here\n"
    "are the ways you can resolve this warning:\n"
    "* If you intend to manage all of these fields, please re-run the apply\n"
    "  command with the `--force-conflicts` flag.\n"
    "* If you do not intend to manage all of the fields, please edit your\n"
    "  manifest to remove references to the fields that should keep their\n"
    "  current managers.\n"
    "* You may co-own fields by updating your manifest to match the existing\n"
    "  value; in this case, you'll become the manager if the other manager(s)\n"
    "  stop managing the field (remove it from their configuration).\n"
    "See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n"
)
APPLY_UID_MISMATCH = (
    'error: Operation cannot be fulfilled on deployments.apps "web-1": uid mismatch: the '
    "provided object specified uid uid-deploy-web-1, and no existing object was found\n"
    + SSA_CONFLICT_ADVICE
)
APPLY_MODIFIED = (
    'error: Operation cannot be fulfilled on deployments.apps "web-1": the object has been '
    "modified; please apply your changes to the latest version and try again\n"
    + SSA_CONFLICT_ADVICE
)


def _with_rv(dep: dict[str, Any], rv: str) -> dict[str, Any]:
    dep["metadata"]["resourceVersion"] = rv
    return dep


def test_reconfigure_pins_the_apply_to_the_deployment_it_read(
    fp: FakeProcess, clock: Clock
) -> None:
    _, manifest = _reconfigure(
        fp, clock, deployment(), deployment(generation=2, observed=2), SPEC | {"cpus": 0.5}
    )
    assert '  uid: "uid-deploy-web-1"\n  resourceVersion: "1001"\n' in manifest
    assert "replicas" not in manifest


@pytest.mark.parametrize("replicas", [1, 0])
def test_reconfigure_racing_a_delete_is_not_found_and_creates_nothing(
    fp: FakeProcess, replicas: int
) -> None:
    fp.register(GET, stdout=kubectl_object(deployment(replicas=replicas)))
    if replicas:  # its wait's watches start first (a stopped workload's has no wait)
        watch(fp, "")
    fp.register(APPLY_JSON, stderr=APPLY_UID_MISMATCH, returncode=1)
    fp.register(GET, **ABSENT)  # why refused: the Deployment is gone
    with pytest.raises(errors.NotFound, match="deleted by another operation") as info:
        make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {"cpus": 0.5}))
    assert info.value.exit_code == 3
    assert len(fp.calls) == 3 + 2 * replicas


def test_reconfigure_of_a_replaced_deployment_is_a_conflict(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    watch(fp, "")
    fp.register(APPLY_JSON, stderr=APPLY_MODIFIED, returncode=1)
    fp.register(GET, stdout=kubectl_object(_with_rv(deployment(uid="uid-new"), "2002")))
    with pytest.raises(errors.Conflict, match="replaced") as info:
        make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {"cpus": 0.5}))
    assert info.value.details["uid"] == "uid-new"
    assert len(fp.calls) == 5


def test_reconfigure_applies_again_when_only_the_resource_version_moved(
    fp: FakeProcess, clock: Clock
) -> None:
    manifests: list[str] = []
    moved = _with_rv(deployment(replicas=0, available=None), "1005")  # stopped meanwhile
    after = _with_rv(deployment(replicas=0, available=None, generation=2, observed=2), "1006")
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(
        APPLY_JSON,
        stderr=APPLY_MODIFIED,
        returncode=1,
        stdin_callable=lambda text: manifests.append(text.decode()),
    )
    fp.register(GET, stdout=kubectl_object(moved))
    fp.register(
        APPLY_JSON,
        stdout=kubectl_object(after),
        stdin_callable=lambda text: manifests.append(text.decode()),
    )
    watch(fp, ROLLED_OUT)
    snapshot = make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {"cpus": 0.5}))
    assert isinstance(snapshot, Snapshot)
    assert (snapshot.status, snapshot.replicas) == ("offline", 0)
    assert ['resourceVersion: "1001"' in m for m in manifests] == [True, False]
    assert 'resourceVersion: "1005"' in manifests[1]


def test_reconfigure_gives_up_on_a_deployment_that_keeps_changing(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    watch(fp, "")
    for rv in ("1002", "1003", "1004"):
        fp.register(APPLY_JSON, stderr=APPLY_MODIFIED, returncode=1)
        fp.register(GET, stdout=kubectl_object(_with_rv(deployment(), rv)))
    with pytest.raises(errors.Conflict, match="kept changing"):
        make_provider().reconfigure("testns/web-1", parse_spec(SPEC | {"cpus": 0.5}))
    assert len(fp.calls) == 9


def test_start_raced_by_a_stop_is_a_conflict(fp: FakeProcess, clock: Clock) -> None:
    # The stop scaled to 0 while start waited: the watch shows it as it happens.
    fp.register(PATCH_1, stdout=STARTING)
    watch_named(fp, events(deployment(replicas=0, generation=3, observed=2)))
    with pytest.raises(errors.Conflict, match=r"scaled to 0 .* by another operation") as info:
        make_provider().start("testns/web-1")
    assert info.value.exit_code == 6
    assert clock() - 1000.0 == 0  # at once, not after a slice


@pytest.mark.parametrize("operation", ["start", "create"])
def test_start_or_create_raced_by_a_delete_is_not_found(
    fp: FakeProcess, clock: Clock, operation: str
) -> None:
    """Another job deletes the Deployment while the rollout is under way: the wait's watch
    shows the foreground deletion (deletionTimestamp set) before the rollout completes, and
    that ends the wait; no read after it would have anything to add."""
    if operation == "start":
        fp.register(PATCH_1, stdout=STARTING)
    else:
        fp.register(APPLY_JSON, stdout=APPLIED)
    deleted = json.dumps({"type": "DELETED", "object": deployment()}) + "\n"
    rolling = deployment(available=None, conditions=[])
    shown = events(rolling, deployment(deleting=True)) + deleted
    if operation == "start":
        watch_named(fp, shown)
    else:
        watch_create(fp, shown)
    first = [WATCH, WATCH_PODS_NAMED] if operation == "start" else [WATCH_CREATE, WATCH_PODS]
    provider = make_provider()
    run = (
        (lambda: provider.start("testns/web-1"))
        if operation == "start"
        else (lambda: provider.create(parse_spec(SPEC)))
    )
    with pytest.raises(errors.NotFound, match=f"deleted by another operation while {operation}"):
        run()
    assert calls(fp)[-3:-1] == first  # the watches, then the write
    assert clock() - 1000.0 == 0  # at once, not after a slice


def test_start_whose_watch_sees_the_deployment_deleted_is_not_found(
    fp: FakeProcess, clock: Clock
) -> None:
    deleted = json.dumps({"type": "DELETED", "object": deployment()}) + "\n"
    fp.register(PATCH_1, stdout=STARTING)
    watch_named(fp, events(deployment(available=None)) + deleted)
    with pytest.raises(errors.NotFound, match="deleted by another operation while start"):
        make_provider().start("testns/web-1")


def test_start_of_a_deployment_being_deleted_says_so_at_once(fp: FakeProcess, clock: Clock) -> None:
    watch_named(fp, "")
    fp.register(PATCH_1, stdout=kubectl_object(deployment(deleting=True, available=None)))
    with pytest.raises(errors.NotFound, match="being deleted") as info:
        make_provider().start("testns/web-1")
    assert info.value.details["finalizers"] == ["foregroundDeletion"]
    assert len(fp.calls) == 3  # the wait's watches, the patch


def test_start_of_a_paused_deployment_waits_for_its_replica(fp: FakeProcess, clock: Clock) -> None:
    """A paused Deployment still scales (its current ReplicaSet): start succeeds once the
    replica is available, though a template change the pause holds back is not rolled out."""
    scaling = deployment(generation=2, observed=2, available=None, updated=0)
    scaling["spec"]["paused"] = True
    scaled = deployment(generation=2, observed=2, available=1, updated=0)
    scaled["spec"]["paused"] = True
    fp.register(PATCH_1, stdout=STARTING)
    watch_named(fp, events(scaling, scaled))
    snapshot = make_provider().start("testns/web-1")
    assert isinstance(snapshot, Snapshot) and snapshot.status == "running"
    assert clock() - 1000.0 == 0


def test_a_rollout_a_pause_holds_back_says_so_at_once(fp: FakeProcess, clock: Clock) -> None:
    """What create and reconfigure wait for is the new template's rollout: paused, it
    cannot finish until someone resumes it."""
    paused = deployment(generation=2, observed=2, available=1, updated=0, total=1)
    paused["spec"]["paused"] = True
    fp.register(APPLY_JSON, stdout=kubectl_object(paused))
    watch_create(fp, events(deployment(), paused))
    fp.register(READ, stdout=kubectl_list([paused]))
    fp.register(EVENTS, stdout=kubectl_list([]))
    with pytest.raises(errors.RolloutFailed, match="paused"):
        make_provider().create(parse_spec(SPEC))
    assert clock() - 1000.0 == 0


def test_start_of_a_replaced_deployment_is_a_conflict(fp: FakeProcess, clock: Clock) -> None:
    fp.register(PATCH_1, stdout=STARTING)
    watch_named(fp, events(deployment(uid="uid-new")))
    with pytest.raises(errors.Conflict, match="replaced"):
        make_provider().start("testns/web-1")


def test_delete_answered_404_while_the_deployment_stays_is_not_success(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(DELETE, stderr=NOT_FOUND, returncode=1)
    fp.register(FIND, stdout=kubectl_list([deployment()]))
    with pytest.raises(errors.Unavailable, match="404 Not Found, yet the same Deployment"):
        make_provider().delete("testns/web-1")


def test_delete_raced_by_a_delete_and_recreate_is_a_conflict(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(DELETE, stderr=NOT_FOUND, returncode=1)
    fp.register(FIND, stdout=kubectl_list([deployment(uid="uid-new")]))
    with pytest.raises(errors.Conflict, match="re-created by another operation") as info:
        make_provider().delete("testns/web-1")
    assert info.value.details["uid"] == "uid-new"


def test_delete_raced_by_a_delete_is_already_missing(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(DELETE, stderr=NOT_FOUND, returncode=1)
    fp.register(FIND, stdout=kubectl_list([]))
    result = make_provider().delete("testns/web-1")
    assert (result.deleted, result.already_missing) == (False, True)  # type: ignore[union-attr]


def test_stop_raced_by_a_start_says_so_at_once(fp: FakeProcess, clock: Clock) -> None:
    fp.register(PATCH_0, stdout=STOPPING)
    watch_named(fp, events(deployment(replicas=0, generation=2, observed=2),
                                     deployment(generation=3, observed=2)))  # fmt: skip
    with pytest.raises(errors.Conflict, match="scaled back up to 1 replica") as info:
        make_provider(timeout=300).stop("testns/web-1")
    assert info.value.exit_code == 6
    assert clock() - 1000.0 == 0  # not a slice, not the whole 300 s


# -- --dry-run prints what the real run executes -------------------------------------------------


def _argv(shown: str) -> list[str]:
    """The argv of a plan entry: its first line, without comment and heredoc operator, and a
    wait with its first slice's --timeout (the entry shows the whole wait)."""
    import shlex

    first = shown.split("\n")[0].removeprefix("# the adapter watches: ")  # the watch that runs
    argv = [a for a in shlex.split(first, comments=True) if not a.startswith("<<")]
    if argv[-2:] == ["||", "true"]:  # a read whose 404 means "absent": pasted, bash goes on
        argv = argv[:-2]
    if argv[:4] == ["kubectl", "-n", "testns", "wait"] or "rollout" in argv[:4]:
        argv = [re.sub(r"^--timeout=\d+s$", "--timeout=10s", a) for a in argv]
    return argv


def _without_notes(plan: DryRunPlan) -> list[list[str]]:
    """Each command a plan runs: a wait's entry names each watch it runs at once."""
    argvs = []
    for command in plan.commands:
        if command.startswith("# (judging each event"):
            continue  # what pastes in place of the watches: not run
        lines = command.split("\n")
        watches = [line for line in lines if line.startswith("# and at once: ")]
        argvs.append(_argv(command))
        argvs.extend(_argv(line.removeprefix("# and at once: ")) for line in watches)
    return argvs


def _uncommented(shown: str) -> str:
    """A plan entry or a logged command without its notes (the command line's comment)."""
    return "\n".join(
        line if line.startswith("#") else line.split("  # ", 1)[0] for line in shown.split("\n")
    )


def _planned_then_ran(
    fp: FakeProcess, plan_calls: int, operation: Any
) -> tuple[list[list[str]], list[list[str]]]:
    """The plan (after its own reads) and the argv the real run then executed; the plan's
    text is also what the real run's -v log shows of the commands it ran."""
    plan = operation(make_provider(dry_run=True))
    assert isinstance(plan, DryRunPlan)
    assert len(fp.calls) == plan_calls  # a dry run reads, it never writes
    assert not any(verb in c for c in calls(fp) for verb in ("apply", "patch", "delete"))
    logger = logging.getLogger("kubectl_adapter")
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        operation(make_provider(verbose=True))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    logged = [_uncommented(r) for r in records if not r.splitlines()[-1].startswith("#")]
    shown = [c for c in plan.commands if not c.splitlines()[-1].startswith("#")]
    assert [_uncommented(c) for c in shown] == logged
    ran = [["kubectl", *c[1:]] for c in calls(fp)[plan_calls:]]
    return _without_notes(plan), ran


def test_dry_run_create_equals_the_real_run(fp: FakeProcess, clock: Clock) -> None:
    fp.register(APPLY_JSON, stdout=APPLIED)
    watch_create(fp, ROLLED_OUT)
    planned, ran = _planned_then_ran(fp, 0, lambda p: p.create(parse_spec(SPEC)))
    assert ran == [WATCH_CREATE, WATCH_PODS, APPLY_JSON]
    assert planned == [quiet(c) for c in ran]


@pytest.mark.parametrize("replicas", [0, 1])
def test_dry_run_start_equals_the_real_run(fp: FakeProcess, clock: Clock, replicas: int) -> None:
    before = deployment(replicas=replicas, available=replicas or None)
    fp.register(PATCH_1, stdout=STARTING if replicas == 0 else kubectl_object(before))
    watch_named(fp, ROLLED_OUT if replicas == 0 else "")
    planned, ran = _planned_then_ran(fp, 0, lambda p: p.start("testns/web-1"))
    # Running already: the watches start all the same, and the patch's answer ends the wait.
    assert ran == [WATCH, WATCH_PODS_NAMED, PATCH_1]
    # the patch runs with -v=7 and the watches with -v=6 (kubectl's log follows their
    # requests), and the plan, like the -v log, leaves kubectl's own verbosity out of the
    # pasteable line
    assert planned == [quiet(c) for c in ran]


def test_dry_run_stop_equals_the_real_run(fp: FakeProcess, clock: Clock) -> None:
    fp.register(PATCH_0, stdout=STOPPING)
    watch_named(fp, events(deployment(replicas=0, generation=2, observed=2, total=0)))
    planned, ran = _planned_then_ran(fp, 0, lambda p: p.stop("testns/web-1"))
    assert ran == [WATCH, WATCH_PODS_NAMED, PATCH_0] and planned == [quiet(c) for c in ran]


def test_dry_run_delete_equals_the_real_run(fp: FakeProcess) -> None:
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(GET, stdout=kubectl_object(deployment()))
    fp.register(DELETE, stdout='deployment.apps "web-1" deleted\n')
    planned, ran = _planned_then_ran(fp, 1, lambda p: p.delete("testns/web-1"))
    assert ran == [GET, DELETE] and planned == [quiet(c) for c in ran]


@pytest.mark.parametrize("replicas", [1, 0])
def test_dry_run_reconfigure_equals_the_real_run(
    fp: FakeProcess, clock: Clock, replicas: int
) -> None:
    sent: list[str] = []
    before = deployment(replicas=replicas, available=replicas or None)
    after = deployment(replicas=replicas, available=replicas or None, generation=2, observed=2)
    fp.register(GET, stdout=kubectl_object(before))  # the dry run's read
    fp.register(GET, stdout=kubectl_object(before))
    fp.register(
        APPLY_JSON,
        stdout=kubectl_object(
            deployment(replicas=replicas, available=replicas or None, generation=2, observed=1)
        ),
        stdin_callable=lambda text: sent.append(text.decode()),
    )
    if replicas:
        watch(fp, events(after))
    spec = parse_spec(SPEC | {"cpus": 0.5})
    plans: list[Any] = []

    def reconfigure(provider: KubernetesProvider) -> Any:
        plans.append(provider.reconfigure("testns/web-1", spec))
        return plans[-1]

    planned, ran = _planned_then_ran(fp, 1, reconfigure)
    # A stopped workload has no Pod to roll out: no wait.
    assert ran == [GET, *([WATCH, WATCH_PODS] if replicas else []), APPLY_JSON]
    assert planned == [quiet(c) for c in ran]
    # The manifest shown is the one sent, less the resourceVersion (the uid stays): pasted
    # later it still applies, and only to this Deployment.
    assert pasteable_manifest(sent[0]) == (plans[0].manifest, '"1001"')
    assert 'uid: "uid-deploy-web-1"' in plans[0].manifest


def _read_only(command: str) -> Any:
    """status or network, planned (``--dry-run``) or run."""

    def operation(provider: KubernetesProvider) -> Any:
        if provider.config.dry_run:
            return provider.read_plan(command, "testns/web-1")
        return getattr(provider, command)("testns/web-1")

    return operation


@pytest.mark.parametrize("command", ["status", "network"])
@pytest.mark.parametrize("case", ["labelled", "legacy", "missing"])
def test_dry_run_status_and_network_equal_the_real_run(
    fp: FakeProcess, command: str, case: str
) -> None:
    """The plan runs the reads that decide which commands follow (all but the last read by
    selector), and shows exactly what the real run then sends."""
    expected = {"labelled": [NAMED], "legacy": [NAMED, GET, OWNED], "missing": [NAMED, GET]}
    for _ in range(2):  # the plan's reads, then the real run's
        if case == "labelled":
            fp.register(NAMED, stdout=kubectl_list(running_objects()))
            continue
        fp.register(NAMED, stdout=kubectl_list([]))
        if case == "missing":
            fp.register(GET, **ABSENT)
            continue
        fp.register(GET, stdout=kubectl_object(legacy_objects()[0]))
    fp.register(OWNED, stdout=kubectl_list(legacy_objects()[1:]))
    plan_calls = len(expected[case]) - (case == "legacy")
    if case == "missing" and command == "network":
        with pytest.raises(errors.NotFound):
            make_provider(dry_run=True).read_plan(command, "testns/web-1")
        assert calls(fp) == expected[case]
        return
    planned, ran = _planned_then_ran(fp, plan_calls, _read_only(command))
    assert ran == expected[case] and planned == [quiet(c) for c in ran]


@pytest.mark.parametrize("case", ["labelled", "legacy", "missing"])
def test_dry_run_describe_equals_the_real_run(fp: FakeProcess, case: str) -> None:
    """describe: status's reads, then the events (not for a missing workload)."""
    expected = {
        "labelled": [NAMED, ALL_EVENTS],
        "legacy": [NAMED, GET, OWNED, ALL_EVENTS],
        "missing": [NAMED, GET],
    }
    for _ in range(2):  # the plan's reads, then the real run's
        if case == "labelled":
            fp.register(NAMED, stdout=kubectl_list(running_objects()))
        else:
            fp.register(NAMED, stdout=kubectl_list([]))
            if case == "missing":
                fp.register(GET, **ABSENT)
            else:
                fp.register(GET, stdout=kubectl_object(legacy_objects()[0]))
    fp.register(OWNED, stdout=kubectl_list(legacy_objects()[1:]))
    fp.register(ALL_EVENTS, stdout=kubectl_list([]))
    plan_calls = {"labelled": 1, "legacy": 2, "missing": 2}[case]
    planned, ran = _planned_then_ran(fp, plan_calls, _read_only("describe"))
    assert ran == expected[case] and planned == [quiet(c) for c in ran]


# -- drift: reconfigure takes back what another manager added -----------------------------------


def test_reconfigure_takes_back_a_sidecar_and_says_so(fp: FakeProcess, clock: Clock) -> None:
    """The apply cannot remove a container another manager added: one strategic patch does,
    pinned by uid, and the snapshot lists it in drift.restored. The dry run shows the same."""
    from kubectl_adapter.kubectl import commands
    from tests.rules.test_drift import sidecar_added, workload

    before = sidecar_added()
    cleaned = workload()
    cleaned["metadata"]["generation"] = 2
    cleaned["status"]["observedGeneration"] = 2
    patch = {
        "metadata": {"uid": before["metadata"]["uid"]},
        "spec": {"template": {"spec": {"containers": [{"$patch": "delete", "name": "sidecar"}]}}},
    }
    restore = [
        *K,
        *commands.restore("web-1", json.dumps(patch, separators=(",", ":"), sort_keys=True)),
    ]
    fp.register(GET, stdout=kubectl_object(before))  # the dry run's read
    fp.register(GET, stdout=kubectl_object(before))
    fp.register(APPLY_JSON, stdout=kubectl_object(before))  # the sidecar survives the apply
    unobserved = json.loads(json.dumps(cleaned))
    unobserved["status"]["observedGeneration"] = 1  # the patch's rollout has not begun
    fp.register(restore, stdout=kubectl_object(unobserved))
    watch(fp, events(cleaned))
    results: list[Any] = []

    def reconfigure(provider: KubernetesProvider) -> Any:
        results.append(
            provider.reconfigure("testns/web-1", parse_spec(SPEC | {"env": {"KEY": "value"}}))
        )
        return results[-1]

    planned, ran = _planned_then_ran(fp, 1, reconfigure)
    assert ran == [GET, WATCH, WATCH_PODS, APPLY_JSON, restore]
    assert planned == [quiet(c) for c in ran]
    snapshot = results[-1]
    assert isinstance(snapshot, Snapshot)
    assert snapshot.drift.state == "in-sync"
    assert [(c.what, c.change, c.name, c.by) for c in snapshot.drift.restored] == [
        ("container", "added", "sidecar", ["kubectl-patch"])
    ]


def test_reconfigure_without_foreign_fields_makes_no_patch(fp: FakeProcess, clock: Clock) -> None:
    from tests.rules.test_drift import image_edited, workload

    before = image_edited()  # the apply takes the image back by itself
    applied = json.loads(json.dumps(before))
    applied["metadata"]["managedFields"] = workload()["metadata"]["managedFields"]
    applied["metadata"]["generation"] = 2
    fp.register(GET, stdout=kubectl_object(before))
    fp.register(APPLY_JSON, stdout=kubectl_object(applied))
    rolled_out = json.loads(json.dumps(applied))
    rolled_out["status"]["observedGeneration"] = 2
    watch(fp, events(rolled_out))  # the snapshot's drift is read from it
    snapshot = make_provider().reconfigure(
        "testns/web-1", parse_spec(SPEC | {"env": {"KEY": "value"}})
    )
    assert calls(fp) == [GET, WATCH, WATCH_PODS, APPLY_JSON]
    assert isinstance(snapshot, Snapshot)
    assert [(c.what, c.by) for c in snapshot.drift.restored] == [("image", ["kubectl-edit"])]


def test_a_wait_whose_api_server_stays_unreachable_is_unavailable_after_ten_seconds(
    fp: FakeProcess, clock: Clock
) -> None:
    """Once the patch is made, the wait's watches are started again while the API server
    refuses connections: after 0.5, 1, 2 s… between attempts; once it has been unreachable
    for 10 s in a row (not --timeout's 300), Unavailable."""
    fp.register(PATCH_1, stdout=kubectl_object(deployment(available=None, observed=2)))
    cut = LISTED["deployments"] + CONN_REFUSED  # the API server goes away after the patch
    watch_named(fp, events(deployment(available=None)), stderr=cut, returncode=1)
    for _ in range(8):  # at 0, 0.5, 1.5, 3.5, 5.5, 7.5, 9.5 and 11.5 s
        fp.register(WATCH, stderr=CONN_REFUSED, returncode=1)
        fp.register(WATCH_PODS_NAMED, stderr=LISTED["pods"])
    with pytest.raises(errors.Unavailable, match="refused"):
        make_provider(timeout=300).start("testns/web-1")
    assert clock() - 1000.0 == 11.5
    assert calls(fp)[:3] == [WATCH, WATCH_PODS_NAMED, PATCH_1]
    assert len(fp.calls) == 3 + 2 * 8  # the first pair and the patch, then 8 pairs


def test_a_fault_before_the_write_is_said_at_once_as_a_read_says_it(
    fp: FakeProcess, clock: Clock
) -> None:
    """Before the patch the wait's watches are start's first calls, a read: a refused
    connection ends the command at once, worded as a read meeting it (issue 38: one fault,
    one message), with nothing written and no watch started again."""
    fp.register(NAMED, stderr=CONN_REFUSED, returncode=1)
    read = make_provider().status("testns/web-1")  # status answers "unknown", and why
    fp.register(WATCH, stderr=CONN_REFUSED, returncode=1)
    fp.register(WATCH_PODS_NAMED, stderr=LISTED["pods"])
    with pytest.raises(errors.Unavailable) as info:
        make_provider(timeout=300).start("testns/web-1")
    assert clock() - 1000.0 == 0
    assert calls(fp) == [NAMED, WATCH, WATCH_PODS_NAMED]  # no patch, no second try
    assert (read.status, read.message) == ("unknown", f"Unavailable: {info.value.message}")
    assert info.value.details["writeSent"] is False
