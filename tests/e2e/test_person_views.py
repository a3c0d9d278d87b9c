"""Issue 41, as a person sees it on a pseudo-terminal and as Manager reads it on a pipe: a
name that names nothing is an error on a terminal (and Manager's answers on a pipe), a
failure fits on a screen (the document behind -o yaml, exact on a pipe), a Ctrl-C'd create
says how to read it, tables fit the width, check groups permissions as kubectl auth can-i
--list, a command's help shows its own flags, and time flags take Go durations."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import ROOT, Cluster, Result, spec
from tests.e2e.terminal import OnTerminals, Seen, adapter_argv, on_terminal


def ok(result: Result) -> Any:
    assert result.code == 0, (result.code, result.doc, result.stderr[-2000:])
    return result.doc


@pytest.fixture(scope="module")
def web(cluster: Cluster) -> str:
    name, cid = cluster.workload("person")
    return str(ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"])


def fits(text: str, columns: int) -> bool:
    return all(len(line) <= columns for line in text.splitlines())


def screen_lines(err: str) -> list[str]:
    """stderr's lines as the screen keeps them: the progress line erased (``\r``, ``ESC[K``)."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", err)
    return [line.split("\r")[-1] for line in text.split("\n") if line.split("\r")[-1]]


# -- a wrong name ---------------------------------------------------------------------------


def test_a_name_that_names_nothing_is_notfound_on_a_terminal(cluster: Cluster) -> None:
    nope = f"{cluster.namespace}/nope-41"
    for command in ("describe", "status", "stop", "delete"):
        seen = on_terminal(cluster, command, nope)
        assert seen.code == 3, (command, seen)
        assert 'Error (NotFound): deployments.apps "nope-41" not found in namespace testns' in (
            seen.err
        ), seen.err
        assert "<none>" not in seen.out
    gone = on_terminal(cluster, "stop", "web-1", "-n", "nosuch-41")
    assert gone.code == 3 and 'namespaces "nosuch-41" not found' in gone.err, gone


def test_on_a_pipe_manager_keeps_missing_and_already_missing(cluster: Cluster) -> None:
    nope = f"{cluster.namespace}/nope-41"
    status = cluster.adapter("status", nope)
    assert (status.code, status.doc["status"], status.doc["providerId"]) == (0, "missing", nope)
    deleted = cluster.adapter("delete", nope)
    assert (deleted.code, deleted.doc) == (
        0,
        {"providerId": nope, "deleted": False, "alreadyMissing": True},
    )
    described = cluster.adapter("describe", nope, "-o", "json")
    assert described.code == 0 and described.doc["snapshot"]["status"] == "missing"
    stopped = cluster.adapter("stop", "web-1", "-n", "nosuch-41")
    assert stopped.code == 3 and stopped.error_type == "NotFound"


# -- a failure on one screen ------------------------------------------------------------------


def test_a_failed_create_fits_on_a_screen_and_says_what_was_left(cluster: Cluster) -> None:
    name, cid = cluster.workload("bad-img")
    path = cluster.workdir / f"{name}.json"
    path.write_text(__import__("json").dumps(spec(name, cid, image="fake.invalid/nope:1")))
    pid = f"{cluster.namespace}/{name}"
    seen = on_terminal(cluster, "create", "--spec", str(path), columns=80)
    assert seen.code == 10, seen
    shown = screen_lines(seen.err)
    assert len(shown) <= 5 and fits("\n".join(shown), 80), shown
    assert shown[0].startswith("Error (RolloutFailed): rollout of " + pid)
    text = "\n".join(shown)
    assert f"deployment {pid} was created and is kept" in text
    assert f"kubectl-adapter status {pid}" in text and f"kubectl-adapter delete {pid}" in text
    assert "-o yaml" in text
    # the whole document behind -o yaml, and on a pipe exactly Manager's document
    whole = on_terminal(cluster, "create", "--spec", str(path), "-o", "yaml")
    document = yaml.safe_load(whole.out)
    piped = cluster.adapter("create", "--spec", str(path))
    assert piped.code == whole.code == 10
    assert piped.doc["error"]["type"] == document["error"]["type"] == "RolloutFailed"
    assert set(piped.doc["error"]["details"]) == set(document["error"]["details"])
    assert {"failing", "pods", "events", "conditions"} <= set(piped.doc["error"]["details"])
    assert ok(cluster.adapter("delete", pid))["deleted"] is True


def interrupted_create(cluster: Cluster, path: str, *, terminal: bool) -> Seen:
    """create, then Ctrl-C (SIGINT to its process group, as a terminal sends it) once its
    wait has begun: on pseudo-terminals, or on pipes as Manager runs it."""
    argv = adapter_argv(cluster, "create", "--spec", path)
    if not terminal:
        proc = subprocess.Popen(
            [*argv[:3], "-v", *argv[3:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=ROOT, start_new_session=True, text=True,
        )  # fmt: skip
        assert proc.stderr is not None
        for line in proc.stderr:
            if "rollout status" in line:
                break
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        return Seen(proc.returncode, out, err)
    running = OnTerminals(argv, columns=80)
    deadline = time.monotonic() + 60
    while b"waiting for rollout" not in b"".join(running.chunks[1]):
        assert time.monotonic() < deadline and running.proc.poll() is None, running.chunks
        time.sleep(0.05)  # polling a terminal's screen: no event to await
    os.killpg(running.proc.pid, signal.SIGINT)
    return running.finish(running.proc.wait(timeout=60))


def test_a_ctrl_c_create_says_the_command_to_read_it(cluster: Cluster) -> None:
    name, cid = cluster.workload("slow")
    path = cluster.workdir / f"{name}.json"
    path.write_text(__import__("json").dumps(spec(name, cid, image="registry.local/never-ready:1")))
    pid = f"{cluster.namespace}/{name}"
    seen = interrupted_create(cluster, str(path), terminal=True)
    assert seen.code == 130, seen
    shown = [line for line in screen_lines(seen.err) if not line.startswith("kubectl-adapter: ")]
    assert shown[0].startswith("Error (Interrupted): interrupted by SIGINT")
    text = "\n".join(shown)
    assert f"deployment {pid} may have been created and is kept" in text
    assert f"kubectl-adapter status {pid}" in text
    assert len(shown) <= 5 and fits("\n".join(shown), 80), shown
    on_pipe = interrupted_create(cluster, str(path), terminal=False)
    document = __import__("json").loads(on_pipe.out)
    assert on_pipe.code == 130 and document["error"]["type"] == "Interrupted"
    assert f"(read its status: kubectl-adapter status {pid})" in document["error"]["message"]
    ok(cluster.adapter("delete", pid))


# -- too wide ---------------------------------------------------------------------------------


def test_tables_fit_the_terminal_and_wide_shows_them_whole(cluster: Cluster, web: str) -> None:
    long_name, cid = cluster.workload("long-workload-name-for-80-cols")
    ok(cluster.adapter("create", "--spec", "-", stdin=spec(long_name, cid)))
    seen = on_terminal(cluster, "list", columns=80)
    assert seen.code == 0
    assert re.split(r" {3,}", seen.out.splitlines()[0])[:4] == ["NAME", "STATUS", "READY", "AGE"]
    assert fits(seen.out, 80) and "\u2026" in seen.out, seen.out
    wide = on_terminal(cluster, "list", "-o", "wide", columns=80)
    assert not fits(wide.out, 80) and "\u2026" not in wide.out
    assert "CONTAINER ID" in wide.out and "available" in wide.out
    piped = cluster.adapter("list", "-o", "table")  # a pipe has no width: whole
    assert "\u2026" not in piped.doc and "available" in piped.doc
    assert web in {item["providerId"] for item in ok(cluster.adapter("list"))["items"]}


def test_check_groups_permissions_as_kubectl_auth_can_i_list(cluster: Cluster) -> None:
    seen = on_terminal(cluster, "check", columns=80)
    assert seen.code == 0, seen
    assert fits(seen.out, 80), seen.out
    rows = {line.split()[0]: line for line in seen.out.splitlines()[9:]}
    assert "[get list watch create patch delete]" in rows["deployments.apps"]
    assert "[list watch]" in rows["pods"]
    document = ok(cluster.adapter("check"))  # on a pipe: one entry per permission, as ever
    assert {"verb", "resource", "group", "allowed", "reason"} <= set(document["permissions"][0])


def test_a_commands_help_shows_its_own_flags_then_points_at_options(cluster: Cluster) -> None:
    seen = on_terminal(cluster, argv=["python3", "-m", "kubectl_adapter", "create", "--help"])
    lines = seen.out.splitlines()
    assert seen.code == 0 and "--spec FILE" in seen.out and "--kubeconfig" not in seen.out
    assert lines[-1] == (
        'Use "kubectl-adapter options" for a list of global command-line options '
        "(applies to all commands)."
    )
    assert len([line for line in lines if line.lstrip().startswith("-")]) <= 3
    options = on_terminal(cluster, argv=["python3", "-m", "kubectl_adapter", "options"])
    assert options.code == 0 and "--kubeconfig PATH" in options.out and "--timeout" in options.out


# -- durations --------------------------------------------------------------------------------


def test_time_flags_take_go_durations(cluster: Cluster, web: str) -> None:
    seen = on_terminal(cluster, "--timeout", "5m", "--request-timeout", "10s", "status", web)
    assert seen.code == 0 and web in seen.out, seen
    assert ok(cluster.adapter("status", web, flags=["--deadline", "1m30s"]))["status"] == "running"
    refused = on_terminal(cluster, "status", web, "--call-timeout", "5 minutes")
    assert refused.code == 2 and "such as 90s, 5m or 1h30m" in refused.err, refused
    piped = cluster.adapter("status", web, flags=["--deadline", "25h"])
    assert piped.code == 2 and "at most 24h" in piped.doc["error"]["message"]
