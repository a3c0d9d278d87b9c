"""Status by class of container state (docs/lifecycle.md, "Container classes"): every state of
init containers, sidecar init containers, app containers, lost containers and pods that lost
their readiness after serving, each decided once in a table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kubectl_adapter.contract.statuses import Status
from kubectl_adapter.rules.status import deployment_status
from tests.k8s_objects import condition, deployment, replicaset

NOW = datetime(2026, 11, 30, 1, 0, 0, tzinfo=UTC)
RS = replicaset(deployment())


def ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- container states, as the kubelet reports them ----------------------------------------------


def running(since: float = 3600) -> dict[str, Any]:
    return {"running": {"startedAt": ago(since)}}


def waiting(reason: str, message: str = "") -> dict[str, Any]:
    return {"waiting": {"reason": reason, **({"message": message} if message else {})}}


def terminated(reason: str, code: int, message: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {"reason": reason, "exitCode": code, "finishedAt": ago(2)}
    if message:
        body["message"] = message
    return {"terminated": body}


LOST = terminated(
    "ContainerStatusUnknown",
    137,
    "The container could not be located when the pod was terminated",
)


def cs(
    name: str,
    state: dict[str, Any],
    *,
    ready: bool = False,
    restarts: int = 0,
    last: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "image": "registry.example/app:1",
        "ready": ready,
        "started": "running" in state,
        "restartCount": restarts,
        "state": state,
        "lastState": last or {},
    }


def _init_spec(name: str, sidecars: tuple[str, ...]) -> dict[str, Any]:
    return {"name": name, **({"restartPolicy": "Always"} if name in sidecars else {})}


def make_pod(
    *,
    init: list[dict[str, Any]] | None = None,
    app: list[dict[str, Any]] | None = None,
    sidecars: tuple[str, ...] = (),
    phase: str = "Running",
    ready: str = "False",
    ready_since: float | None = 3000,
    deleting: bool = False,
    restart_policy: str = "Always",
) -> dict[str, Any]:
    init, app = init or [], app or []
    name = f"{RS['metadata']['name']}-x1x2x"
    meta: dict[str, Any] = {
        "name": name,
        "namespace": RS["metadata"]["namespace"],
        "uid": f"uid-pod-{name}",
        "labels": dict(RS["metadata"]["labels"]),
        "creationTimestamp": ago(3700),
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": RS["metadata"]["name"],
                "uid": RS["metadata"]["uid"],
                "controller": True,
            }
        ],
    }
    if deleting:
        meta["deletionTimestamp"] = ago(1)
        meta["deletionGracePeriodSeconds"] = 30
    ready_condition: dict[str, Any] = {"type": "Ready", "status": ready}
    if ready_since is not None:
        ready_condition["lastTransitionTime"] = ago(ready_since)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {
            "restartPolicy": restart_policy,
            "initContainers": [_init_spec(c["name"], sidecars) for c in init],
            "containers": [{"name": c["name"]} for c in app] or [{"name": "main"}],
        },
        "status": {
            "phase": phase,
            "conditions": [
                {"type": "PodScheduled", "status": "True"},
                {"type": "Initialized", "status": "False" if phase == "Pending" else "True"},
                ready_condition,
            ],
            "initContainerStatuses": init,
            "containerStatuses": app,
            **({"podIP": "10.244.0.9"} if phase == "Running" else {}),
        },
    }


ROLLING = deployment(
    available=None,
    conditions=[
        condition("Available", "False", "MinimumReplicasUnavailable"),
        condition("Progressing", "True", "ReplicaSetUpdated"),
    ],
)
# Rollout completed (the controller keeps NewReplicaSetAvailable), then readiness was lost.
SERVED = deployment(
    available=None,
    total=1,
    updated=1,
    conditions=[
        condition("Available", "False", "MinimumReplicasUnavailable"),
        condition("Progressing", "True", "NewReplicaSetAvailable"),
    ],
)

PENDING_APP = [cs("main", waiting("PodInitializing"))]
SIDECAR_APP = [cs("main", running(), ready=True)]

Case = tuple[str, dict[str, Any], dict[str, Any], Status, str]
CASES: list[Case] = [
    # -- init containers: the app containers' failure rules ------------------------------------
    (
        "init exited non-zero before any restart shows (Init:Error)",
        ROLLING,
        make_pod(phase="Pending", init=[cs("migrate", terminated("Error", 1))], app=PENDING_APP),
        Status.FAILED,
        "init container migrate: Error: exited with code 1",
    ),
    (
        "init exited with a message (terminationMessagePath)",
        ROLLING,
        make_pod(
            phase="Pending",
            init=[cs("migrate", terminated("Error", 2, "relation users does not exist"))],
            app=PENDING_APP,
        ),
        Status.FAILED,
        "exited with code 2: relation users does not exist",
    ),
    (
        "init OOMKilled before any restart shows (Init:OOMKilled)",
        ROLLING,
        make_pod(
            phase="Pending", init=[cs("migrate", terminated("OOMKilled", 137))], app=PENDING_APP
        ),
        Status.FAILED,
        "init container migrate: OOMKilled: container exceeded its memory limit (code 137",
    ),
    (
        "init command not found (exit 127)",
        ROLLING,
        make_pod(phase="Pending", init=[cs("migrate", terminated("Error", 127))], app=PENDING_APP),
        Status.FAILED,
        "exited with code 127 (command not found)",
    ),
    (
        "Init:Error between two back-offs, with restarts",
        ROLLING,
        make_pod(
            phase="Pending",
            init=[cs("migrate", terminated("Error", 1), restarts=3, last=terminated("Error", 1))],
            app=PENDING_APP,
        ),
        Status.FAILED,
        "init container migrate: Error: exited with code 1 (restarts: 3)",
    ),
    (
        "Init:CrashLoopBackOff",
        ROLLING,
        make_pod(
            phase="Pending",
            init=[
                cs(
                    "migrate",
                    waiting("CrashLoopBackOff", "back-off 20s restarting failed container"),
                    restarts=3,
                    last=terminated("Error", 1),
                )
            ],
            app=PENDING_APP,
        ),
        Status.FAILED,
        "CrashLoopBackOff: back-off 20s restarting failed container; last exit code 1 (Error)",
    ),
    (
        "init running again after an error exit (between back-off and next exit)",
        ROLLING,
        make_pod(
            phase="Pending",
            init=[cs("migrate", running(1), restarts=2, last=terminated("Error", 1))],
            app=PENDING_APP,
        ),
        Status.FAILED,
        "init container migrate: Error: exited with code 1, running again after a restart",
    ),
    (
        "init running for the first time",
        ROLLING,
        make_pod(phase="Pending", init=[cs("migrate", running(5))], app=PENDING_APP),
        Status.CREATING,
        "pod(s) Pending",
    ),
    (
        "init waiting PodInitializing",
        ROLLING,
        make_pod(phase="Pending", init=[cs("migrate", waiting("PodInitializing"))], app=[]),
        Status.CREATING,
        "pod(s) Pending",
    ),
    (
        "init completed (exit 0), app container starting",
        ROLLING,
        make_pod(
            phase="Pending",
            init=[cs("migrate", terminated("Completed", 0), ready=True)],
            app=[cs("main", waiting("ContainerCreating"))],
        ),
        Status.CREATING,
        "pod(s) Pending",
    ),
    (
        "init completed after earlier error exits: it recovered",
        ROLLING,
        make_pod(
            phase="Running",
            init=[
                cs(
                    "migrate",
                    terminated("Completed", 0),
                    ready=True,
                    restarts=2,
                    last=terminated("Error", 1),
                )
            ],
            app=[cs("main", running(3))],
            ready_since=None,
        ),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "init lost by the kubelet (ContainerStatusUnknown)",
        ROLLING,
        make_pod(phase="Pending", init=[cs("migrate", LOST)], app=PENDING_APP),
        Status.CREATING,
        "pod(s) Pending",
    ),
    (
        "init running again after being lost: recovery, not a crash",
        ROLLING,
        make_pod(phase="Pending", init=[cs("migrate", running(2), restarts=1, last=LOST)]),
        Status.CREATING,
        "pod(s) Pending",
    ),
    # -- sidecar init containers (restartPolicy: Always): app-container rules --------------------
    (
        "sidecar exited non-zero: failing at once",
        ROLLING,
        make_pod(init=[cs("proxy", terminated("Error", 1))], app=SIDECAR_APP, sidecars=("proxy",)),
        Status.FAILED,
        "init container proxy: Error: exited with code 1",
    ),
    (
        "sidecar crash-looping",
        ROLLING,
        make_pod(
            init=[
                cs("proxy", waiting("CrashLoopBackOff"), restarts=4, last=terminated("Error", 1))
            ],
            app=SIDECAR_APP,
            sidecars=("proxy",),
        ),
        Status.FAILED,
        "init container proxy: CrashLoopBackOff",
    ),
    (
        "sidecar restarted and not ready (Argo CD's rule applies to it)",
        ROLLING,
        make_pod(
            init=[cs("proxy", running(2), restarts=1, last=terminated("Error", 1))],
            app=SIDECAR_APP,
            sidecars=("proxy",),
        ),
        Status.FAILED,
        "init container proxy: Error: exited with code 1, restarted and not ready",
    ),
    (
        "sidecar restarted and ready again: not failing",
        ROLLING,
        make_pod(
            init=[cs("proxy", running(2), ready=True, restarts=1, last=terminated("Error", 1))],
            app=SIDECAR_APP,
            sidecars=("proxy",),
            ready_since=None,
        ),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "sidecar starting, not yet ready",
        ROLLING,
        make_pod(
            init=[cs("proxy", running(2))],
            app=[cs("main", waiting("PodInitializing"))],
            sidecars=("proxy",),
            phase="Pending",
        ),
        Status.CREATING,
        "pod(s) Pending",
    ),
    (
        "sidecar exited 0 (Completed): restarted by its policy, not an error",
        ROLLING,
        make_pod(
            init=[cs("proxy", terminated("Completed", 0))], app=SIDECAR_APP, sidecars=("proxy",)
        ),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "sidecar restarted after being lost",
        ROLLING,
        make_pod(
            init=[cs("proxy", running(2), restarts=1, last=LOST)],
            app=SIDECAR_APP,
            sidecars=("proxy",),
        ),
        Status.CREATING,
        "pod(s) Running",
    ),
    # -- app containers ------------------------------------------------------------------------
    (
        "app exited with an error before its restart shows: failing at once",
        ROLLING,
        make_pod(app=[cs("main", terminated("Error", 1))]),
        Status.FAILED,
        "container main: Error: exited with code 1",
    ),
    (
        "app OOMKilled before its restart shows",
        ROLLING,
        make_pod(app=[cs("main", terminated("OOMKilled", 137))]),
        Status.FAILED,
        "container main: OOMKilled: container exceeded its memory limit (code 137 (killed",
    ),
    (
        "app killed by SIGTERM (liveness probe) before its restart shows",
        ROLLING,
        make_pod(app=[cs("main", terminated("Error", 143))]),
        Status.FAILED,
        "exited with code 143 (terminated (SIGTERM))",
    ),
    (
        "app segfault",
        ROLLING,
        make_pod(app=[cs("main", terminated("Error", 139))]),
        Status.FAILED,
        "code 139 (segmentation fault (SIGSEGV))",
    ),
    (
        "app exited 0 (Completed): its restart is coming, not an error yet",
        ROLLING,
        make_pod(app=[cs("main", terminated("Completed", 0))]),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "app exited 0 and restarted, not ready: failing (Argo CD's rule)",
        ROLLING,
        make_pod(app=[cs("main", running(2), restarts=1, last=terminated("Completed", 0))]),
        Status.FAILED,
        "container main: Completed: exited with code 0, restarted and not ready",
    ),
    (
        "app restarted after an error and not ready",
        ROLLING,
        make_pod(app=[cs("main", running(2), restarts=1, last=terminated("Error", 1))]),
        Status.FAILED,
        "exited with code 1, restarted and not ready",
    ),
    (
        "app lost by the kubelet (ContainerStatusUnknown): not a crash",
        ROLLING,
        make_pod(app=[cs("main", LOST)]),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "app restarted after being lost, not yet ready: recovery",
        ROLLING,
        make_pod(app=[cs("main", running(2), restarts=1, last=LOST)]),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "app in back-off after being lost: the back-off follows the loss, not a crash",
        ROLLING,
        make_pod(app=[cs("main", waiting("CrashLoopBackOff"), restarts=1, last=LOST)]),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "app lost, then crashed: the crash decides",
        ROLLING,
        make_pod(
            app=[cs("main", waiting("CrashLoopBackOff"), restarts=2, last=terminated("Error", 1))]
        ),
        Status.FAILED,
        "CrashLoopBackOff",
    ),
    (
        "second app container failing beside a healthy one",
        ROLLING,
        make_pod(app=[cs("main", running(), ready=True), cs("worker", terminated("Error", 3))]),
        Status.FAILED,
        "container worker: Error: exited with code 3",
    ),
    (
        "restartPolicy Never (refused in a Deployment by the API): an error exit still fails",
        ROLLING,
        make_pod(app=[cs("main", terminated("Error", 1))], restart_policy="Never"),
        Status.FAILED,
        "exited with code 1",
    ),
    # -- pods being deleted: their containers' exits are the shutdown, never a failure ------------
    (
        "pod being deleted, app exited 143",
        ROLLING,
        make_pod(app=[cs("main", terminated("Error", 143))], deleting=True),
        Status.CREATING,
        "waiting for a pod",
    ),
    (
        "pod being deleted, init crash-looping",
        ROLLING,
        make_pod(
            phase="Pending",
            init=[cs("migrate", waiting("CrashLoopBackOff"), restarts=5)],
            app=PENDING_APP,
            deleting=True,
        ),
        Status.CREATING,
        "waiting for a pod",
    ),
    # -- serving, then readiness lost ----------------------------------------------------------
    (
        "lost readiness 10 s ago after the rollout completed: running, saying so",
        SERVED,
        make_pod(app=[cs("main", running())], ready_since=10),
        Status.RUNNING,
        "0/1 available; pod web-1-5d8f7c9b6d-x1x2x lost its readiness 10s ago while serving, "
        "failed in 50s unless ready again",
    ),
    (
        "lost readiness 61 s ago: failed",
        SERVED,
        make_pod(app=[cs("main", running())], ready_since=61),
        Status.FAILED,
        "pod web-1-5d8f7c9b6d-x1x2x: NotReady: lost its readiness 61s ago while serving",
    ),
    (
        "lost readiness exactly 60 s ago: failed",
        SERVED,
        make_pod(app=[cs("main", running())], ready_since=60),
        Status.FAILED,
        "NotReady",
    ),
    (
        "lost readiness long ago: failed (no progress deadline will fire)",
        SERVED,
        make_pod(app=[cs("main", running(7200))], ready_since=3600),
        Status.FAILED,
        "lost its readiness 3600s ago",
    ),
    (
        "replacement pod never ready yet after a completed rollout: creating",
        SERVED,
        make_pod(app=[cs("main", running(30))], ready_since=40),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "not ready during a rollout: the progress deadline judges it (Pulumi: not ready)",
        ROLLING,
        make_pod(app=[cs("main", running())], ready_since=600),
        Status.CREATING,
        "pod(s) Running",
    ),
    (
        "lost readiness, then the liveness probe restarted it: failing at once",
        SERVED,
        make_pod(
            app=[cs("main", running(5), restarts=1, last=terminated("Error", 137))],
            ready_since=20,
        ),
        Status.FAILED,
        "restarted and not ready",
    ),
    (
        "lost readiness on a pod being deleted: the replacement decides",
        SERVED,
        make_pod(app=[cs("main", running())], ready_since=600, deleting=True),
        Status.CREATING,
        "waiting for a pod",
    ),
    (
        "node stopped reporting (Ready Unknown): node lost, not lost readiness",
        SERVED,
        make_pod(app=[cs("main", running())], ready="Unknown", ready_since=600),
        Status.CREATING,
        "node lost",
    ),
    (
        "readiness lost but no transition time known: cannot say how long, creating",
        SERVED,
        make_pod(app=[cs("main", running())], ready_since=None),
        Status.CREATING,
        "pod(s) Running",
    ),
]


@pytest.mark.parametrize(
    ("deployment_json", "pod_json", "expected", "fragment"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_container_classes(
    deployment_json: dict[str, Any], pod_json: dict[str, Any], expected: Status, fragment: str
) -> None:
    result = deployment_status(deployment_json, [pod_json], now=NOW)
    assert result.status == expected, result.message
    assert fragment in result.message, result.message


def test_every_class_has_both_verdicts() -> None:
    """The table holds, per class, a state that fails and one that does not."""
    seen = {(case[0].split()[0], case[3] == Status.FAILED) for case in CASES}
    for head in ("init", "sidecar", "app", "lost"):
        assert {(head, True), (head, False)} <= seen, head
