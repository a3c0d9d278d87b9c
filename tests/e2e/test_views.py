"""What a person sees at a terminal: the DRIFT column, ``-o wide``, ``-o name`` into kubectl,
``--no-headers``; the real CLI on pseudo-terminals, the real kubectl, the fake cluster."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import Cluster, Result, spec
from tests.e2e.terminal import on_terminal, plugin_argv, plugin_env


def ok(result: Result) -> Any:
    assert result.code == 0, (result.code, result.doc, result.stderr[-2000:])
    return result.doc


def row(table: str, provider_id: str) -> dict[str, str]:
    """The row of ``provider_id`` by column name (columns are three spaces apart or more)."""
    header, *rows = table.splitlines()
    names = re.split(r" {3,}", header)
    for line in rows:
        if line.split()[0] == provider_id:
            starts: list[int] = []
            for column in names:  # in order: "NODE" is found after "NODE ID"
                starts.append(header.index(column, starts[-1] + 1 if starts else 0))
            ends = [*starts[1:], None]
            return {n: line[s:e].strip() for n, s, e in zip(names, starts, ends, strict=True)}
    raise AssertionError(f"{provider_id} not in\n{table}")


def test_a_drifted_workload_shows_in_the_tables(cluster: Cluster) -> None:
    """Issue 27: after ``kubectl set image`` the table said only "1/1 available"."""
    name, cid = cluster.workload("view-drift")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    cluster.kubectl("set", "image", f"deployment/{name}", "main=nginx:1.27")
    seen = on_terminal(cluster, "status", pid, "-o", "table")
    assert seen.code == 0, seen
    assert row(seen.out, pid)["DRIFT"] == "image"
    assert f"{pid} drifted from what Manager applied: kubectl-adapter describe {pid}" in seen.err
    listed = on_terminal(cluster, "list", "-o", "table")
    assert row(listed.out, pid)["DRIFT"] == "image"
    quiet = on_terminal(cluster, "status", pid, "-o", "table", "--no-headers")
    assert quiet.out.split()[0] == pid and quiet.out.split()[4] == "image"
    assert "NAME" not in quiet.out and "drifted" not in quiet.err


def test_wide_adds_age_pod_ip_node_and_image(cluster: Cluster) -> None:
    name, cid = cluster.workload("view-wide")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    document = ok(cluster.adapter("status", pid))
    assert document["podIp"] and document["podNode"] and document["createdAt"]
    pods = cluster.kubectl_json("get", "pods", "-l", f"org.mieweb.opensource-server.name={name}")
    nodes = {p["spec"].get("nodeName") for p in pods["items"]}
    assert document["podNode"] in nodes
    seen = on_terminal(cluster, "status", pid, "-o", "wide")
    assert seen.code == 0, seen
    wide = row(seen.out, pid)
    assert re.fullmatch(r"\d+s|\d+m(\d+s)?", wide["AGE"]), wide
    assert (wide["POD IP"], wide["NODE"], wide["IMAGE"]) == (
        document["podIp"],
        document["podNode"],
        "nginx:latest",
    )
    assert list(wide)[-1] == "MESSAGE"


def test_names_pipe_into_kubectl(cluster: Cluster) -> None:
    name, cid = cluster.workload("view-name")
    body = spec(name, cid)
    created = cluster.adapter("create", "--spec", "-", "-o", "name", stdin=body)
    assert (created.code, created.doc) == (0, f"deployment.apps/{name}\n")
    listed = cluster.adapter("list", "-o", "name")
    assert f"deployment.apps/{name}" in str(listed.doc).splitlines()
    read = cluster.kubectl("get", *str(listed.doc).split(), "-o", "jsonpath={.items[*].kind}")
    assert set(read.split()) == {"Deployment"}
    stopped = cluster.adapter("stop", f"{cluster.namespace}/{name}", "-o", "name")
    assert (stopped.code, stopped.doc) == (0, f"deployment.apps/{name}\n")
    deleted = cluster.adapter("delete", f"{cluster.namespace}/{name}", "-o", "name")
    assert (deleted.code, deleted.doc) == (0, f"deployment.apps/{name}\n")
    again = cluster.adapter("delete", f"{cluster.namespace}/{name}", "-o", "name")
    # -o name is for a person (or xargs): a name that names nothing is NotFound, as kubectl's
    assert (again.code, again.doc) == (3, None)
    assert f'deployments.apps "{name}" not found' in again.stderr
    refused = cluster.adapter("check", "-o", "name")
    assert refused.code == 2 and refused.stderr.startswith("Error (InvalidInput): check names")


def test_a_terminal_gets_the_human_view_a_pipe_the_same_json(cluster: Cluster) -> None:
    """Issue 32: on a terminal ``list``, ``status``, ``check`` and ``nodes`` printed about
    150 lines of indented JSON; a pipe (Manager) still gets exactly the JSON it read."""
    name, cid = cluster.workload("view-default")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    listed = on_terminal(cluster, "list")
    assert listed.code == 0, listed
    assert row(listed.out, pid)["STATUS"] == "running"
    status = on_terminal(cluster, "status", pid)
    assert status.code == 0, status
    assert row(status.out, pid)["READY"] == "1/1" and "{" not in status.out
    check = on_terminal(cluster, "check")
    assert check.out.startswith("OK:"), check
    assert re.search(r"^RESOURCES +VERBS +DENIED", check.out, re.M), check.out
    nodes = on_terminal(cluster, "nodes")
    assert nodes.code == 0 and nodes.out.split()[:2] == ["NAME", "STATUS"], nodes
    json_on_terminal = on_terminal(cluster, "list", "-o", "json")
    assert json_on_terminal.out.startswith('{\n  "items": [')  # asked for: still JSON
    piped = cluster.adapter("list")
    assert pid in [item["providerId"] for item in ok(piped)["items"]]
    assert isinstance(ok(cluster.adapter("check")), dict)


def test_a_terminal_reads_a_write_and_its_failure_as_a_person_would(cluster: Cluster) -> None:
    """create, stop, start and delete on a terminal: the workload's row (delete: its result)
    and an error as kubectl's ``Error`` line on stderr, not 60 lines of JSON on stdout."""
    name, cid = cluster.workload("view-writes")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    stopped = on_terminal(cluster, "stop", pid)
    assert stopped.code == 0, stopped
    assert row(stopped.out, pid)["STATUS"] == "offline" and "{" not in stopped.out
    started = on_terminal(cluster, "start", pid)
    assert started.code == 0 and row(started.out, pid)["STATUS"] == "running", started
    refused = on_terminal(cluster, "stop", pid, "--container-id", "not-its-id")
    assert refused.code != 0 and refused.out == "", refused
    assert refused.err.startswith("Error (Conflict): "), refused.err
    deleted = on_terminal(cluster, "delete", pid)
    assert deleted.code == 0 and "{" not in deleted.out, deleted
    assert ok(cluster.adapter("delete", pid))["alreadyMissing"] is True


def test_describe_prints_its_text_on_a_pipe_too(cluster: Cluster) -> None:
    name, cid = cluster.workload("view-describe")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    piped = cluster.adapter("describe", pid)
    assert piped.code == 0 and str(piped.doc).startswith(f"Name:          {name}\n"), piped
    asked = cluster.adapter("describe", pid, "-o", "json")
    assert ok(asked)["snapshot"]["providerId"] == pid


def test_the_drift_pointer_names_the_command_as_it_was_typed(cluster: Cluster) -> None:
    """Issue 32: run as ``kubectl adapter``, the pointer said ``kubectl-adapter describe``."""
    name, cid = cluster.workload("view-plugin")
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))["providerId"]
    cluster.kubectl("set", "image", f"deployment/{name}", "main=nginx:1.27")
    typed = plugin_argv(cluster, "status", pid)
    seen = on_terminal(cluster, argv=typed, env=plugin_env())
    assert seen.code == 0, seen
    assert f"{pid} drifted from what Manager applied: kubectl adapter describe {pid}" in seen.err
    direct = on_terminal(cluster, "status", pid)
    assert f"kubectl-adapter describe {pid} shows what changed" in direct.err
