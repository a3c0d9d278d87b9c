"""``describe`` end to end: text on a terminal, JSON on a pipe, for a drifted, a crashing and
an image-pull-failing workload, in two kubectl calls (counted from the ``-v`` log)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import Cluster, spec
from tests.e2e.terminal import on_terminal
from tests.e2e.test_lifecycle import command_lines, subcommand
from tests.e2e.test_views import ok

NAME = "org.mieweb.opensource-server.name"


def failing(cluster: Cluster, prefix: str, shown: Callable[[Any], bool], **changes: Any) -> str:
    """A workload whose create fails, once its container shows the failure: its provider ID."""
    name, cid = cluster.workload(prefix)
    # The wait judges both failures at once (RolloutFailed in 2-4 s on an idle machine): a
    # --timeout no load can use up. With --timeout 4, a loaded machine could reach the
    # deadline before the apply left, and no container ever failed.
    created = cluster.adapter(
        "create", "--spec", "-", stdin=spec(name, cid, **changes), flags=["--timeout", "60"]
    )
    assert created.error_type in ("RolloutFailed", "Timeout"), created.doc
    fake = cluster.require_fake()

    def container() -> Any:
        for pod in fake.list("pods", cluster.namespace, label_selector=f"{NAME}={name}"):
            for status in pod.get("status", {}).get("containerStatuses") or []:
                if shown(status):
                    return status
        return None

    fake.wait_for(container, timeout=30, message=f"{name}: its container never failed")
    return f"{cluster.namespace}/{name}"


def crashed(status: Any) -> bool:
    return bool(status.get("lastState", {}).get("terminated"))


def pull_backoff(status: Any) -> bool:
    return status.get("state", {}).get("waiting", {}).get("reason") == "ImagePullBackOff"


def test_a_crash_loop_shows_the_reason_restarts_last_exit_and_events(cluster: Cluster) -> None:
    pid = failing(cluster, "desc-crash", crashed, env={"FAKE_CRASH": "1"})
    seen = on_terminal(cluster, "describe", pid)  # no -o: text, as kubectl describe
    assert seen.code == 0, seen
    text = seen.out
    assert re.search(r"^Status: +failed$", text, re.M), text
    # The loop goes on while we read: back-off (most of the time), running, exited.
    state = re.search(r"^      State: +(.*)$", text, re.M)
    assert state and re.match(
        r"Waiting: CrashLoopBackOff: back-off \d+s restarting failed container=main|Running"
        r"|Terminated: 1 \(Error\)",
        state.group(1),
    ), text
    assert re.search(r"^      Last exit: +1 \(Error\)", text, re.M), text
    restarts = re.search(r"^      Restarts: +(\d+)$", text, re.M)
    assert restarts and int(restarts.group(1)) >= 1, text
    assert re.search(
        r"^  Warning +BackOff +.* Back-off restarting failed container main", text, re.M
    )
    assert "Failing:\n  pod " in text and "Available     False" in text

    document = ok(cluster.adapter("describe", pid, "-o", "json"))  # a pipe: text unless asked
    (main,) = document["pods"][0]["containers"]
    assert main["lastExit"]["exitCode"] == 1 and main["restartCount"] >= 1


def test_an_image_pull_failure_shows_the_pull_message(cluster: Cluster) -> None:
    pid = failing(cluster, "desc-pull", pull_backoff, image="registry.example/does-not-exist:1")
    document = ok(cluster.adapter("describe", pid, "-o", "json"))
    (main,) = document["pods"][0]["containers"]
    assert (main["state"], main["reason"]) == ("waiting", "ImagePullBackOff")
    assert "registry.example/does-not-exist:1" in main["message"]
    failed = [e for e in document["events"] if e["reason"] == "Failed"]
    assert any("Failed to pull image" in e["message"] for e in failed), document["events"]
    text = on_terminal(cluster, "describe", pid).out
    assert (
        'State:      Waiting: ImagePullBackOff: Back-off pulling image "registry.example/' in text
    )


def test_a_drifted_workload_says_what_changed_by_whom_and_what_reconfigure_does(
    cluster: Cluster,
) -> None:
    name, cid = cluster.workload("desc-drift")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    cluster.kubectl("set", "image", f"deployment/{name}", "main=nginx:1.27")
    text = on_terminal(cluster, "describe", pid).out
    assert "Drift:         drifted (changed since Manager last applied it)\n" in text
    assert "  image changed to nginx:1.27 by kubectl-set: reconfigure takes it back\n" in text


def test_describe_runs_two_kubectl_commands(cluster: Cluster) -> None:
    name, cid = cluster.workload("desc-calls")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    logged = cluster.adapter("-v", "describe", pid)
    assert logged.code == 0
    assert [subcommand(line)[:2] for line in command_lines(logged.stderr)] == [
        ["get", "deployments,replicasets,pods"],
        ["get", "events"],
    ]
    missing = cluster.adapter("-v", "describe", f"{cluster.namespace}/{name}-gone", "-o", "json")
    assert ok(missing)["snapshot"]["status"] == "missing"
    assert all("events" not in line for line in command_lines(missing.stderr))


def test_describe_shows_what_kubectl_describe_deployment_does_in_two_calls(
    cluster: Cluster,
) -> None:
    """Issue 32: env, command, requests, labels, selector, the revision history and Normal
    events, as ``kubectl describe deployment`` shows them; still two kubectl calls."""
    name, cid = cluster.workload("desc-full")
    first = spec(name, cid, entrypoint="nginx -g 'daemon off;'")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=first))["providerId"]
    ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=first | {"image": "nginx:1.27"}))
    text = on_terminal(cluster, "describe", pid).out
    for line in (
        f"Labels:        org.mieweb.opensource-server.container-id={cid}",
        "Selector:      org.mieweb.opensource-server.container-id="
        f"{cid},org.mieweb.opensource-server.managed=true",
        "Pod Template:",
        "    Image:        nginx:1.27",
        "    Command:      nginx",
        "                  daemon off;",
        "    Limits:       cpu: 100m",
        "    Requests:     cpu: 25m",
        "    Environment:  KEY:  value",
        "Revisions (newest first):",
    ):
        assert f"\n{line}\n" in text, (line, text)
    assert re.search(rf"^  2 +{name}-\S+ \(current\) +1/1 +nginx:1\.27$", text, re.M), text
    assert re.search(rf"^  1 +{name}-\S+ +0/0 +nginx:latest$", text, re.M), text
    assert re.search(r"^  Normal +ScalingReplicaSet ", text, re.M), text
    logged = cluster.adapter("-v", "describe", pid)
    assert [subcommand(line)[:2] for line in command_lines(logged.stderr)] == [
        ["get", "deployments,replicasets,pods"],
        ["get", "events"],
    ]
