"""status and network end to end: one kubectl process for a Deployment with the name label,
the old reads for one applied before it existed, until its next reconfigure adds it.

Counted from the ``-v`` log (each kubectl process the adapter runs is one command line
there); the labels checked with plain kubectl, so the same assertions hold on a real cluster.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from kubectl_adapter.contract.spec import parse_spec
from kubectl_adapter.rules.render import render_manifest
from tests.e2e.conftest import Cluster, Result, selector, spec
from tests.e2e.test_lifecycle import command_lines, ok, subcommand, the_ready_pod

NAME_LABEL = "org.mieweb.opensource-server.name"
HASH = "pod-template-hash"


def _commands(result: Result) -> list[list[str]]:
    return [subcommand(line) for line in command_lines(result.stderr)]


def _named(name: str) -> list[str]:
    return [
        "get",
        "deployments,replicasets,pods",
        "-l",
        f"org.mieweb.opensource-server.managed=true,{NAME_LABEL}={name}",
        "-o",
        "json",
        "--show-managed-fields",  # the run's -v=6 (its bound follows its requests) is not logged
    ]


def _manifest(cluster: Cluster, body: dict[str, Any]) -> dict[str, Any]:
    found = yaml.safe_load(render_manifest(parse_spec(body), cluster.namespace))
    assert isinstance(found, dict)
    return found


def _legacy_manifest(cluster: Cluster, body: dict[str, Any]) -> str:
    """What an adapter older than the name label applied: today's manifest without it."""
    manifest = _manifest(cluster, body)
    del manifest["metadata"]["labels"][NAME_LABEL]
    del manifest["spec"]["template"]["metadata"]["labels"][NAME_LABEL]
    return json.dumps(manifest)


def test_status_and_network_of_a_labelled_deployment_run_one_kubectl(cluster: Cluster) -> None:
    name, cid = cluster.workload("reads")
    ok(cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))
    pid = f"{cluster.namespace}/{name}"
    # The controller copies the Pod template's labels to the ReplicaSet and its Pods.
    (rs,) = cluster.replicasets(selector(cid))
    pod = the_ready_pod(cluster, cid)
    for obj in (rs, pod):
        assert obj["metadata"]["labels"][NAME_LABEL] == name
        assert obj["metadata"]["labels"][HASH]
    assert NAME_LABEL not in (cluster.deployment(name) or {})["spec"]["selector"]["matchLabels"]

    status = cluster.adapter("-v", "status", pid)
    assert ok(status)["status"] == "running"
    assert ok(status)["podIp"] == pod["status"]["podIP"]
    assert ok(status)["drift"]["state"] == "in-sync"
    assert _commands(status) == [_named(name)]

    network = cluster.adapter("-v", "network", pid)
    assert ok(network)["podIp"] == pod["status"]["podIP"]
    assert _commands(network) == [_named(name)]

    plan = ok(cluster.adapter("--dry-run", "status", pid))
    assert [subcommand(c) for c in command_lines("\n".join(plan["commands"]))] == [_named(name)]
    ok(cluster.adapter("delete", pid))


def test_a_legacy_deployment_costs_the_old_reads_until_its_next_reconfigure(
    cluster: Cluster,
) -> None:
    name, cid = cluster.workload("legacy")
    body = spec(name, cid)
    cluster.kubectl(
        "apply",
        "--server-side",
        "--field-manager=opensource-server-manager",
        "-f",
        "-",
        stdin=_legacy_manifest(cluster, body),
    )
    cluster.kubectl("rollout", "status", f"deployment/{name}", "--timeout=60s")
    pid = f"{cluster.namespace}/{name}"
    old_pod = the_ready_pod(cluster, cid)
    assert NAME_LABEL not in old_pod["metadata"]["labels"]

    status = cluster.adapter("-v", "status", pid)
    assert ok(status)["status"] == "running", ok(status)
    assert ok(status)["podIp"] == old_pod["status"]["podIP"]
    assert ok(status)["drift"]["state"] == "in-sync"  # a missing name label is no drift
    assert [c[:2] for c in _commands(status)] == [
        ["get", "deployments,replicasets,pods"],
        ["get", "deployment"],
        ["get", "replicasets,pods"],
    ]
    network = cluster.adapter("-v", "network", pid)
    assert ok(network)["podIp"] == old_pod["status"]["podIP"]
    assert len(_commands(network)) == 3

    # The next reconfigure adds the label: the Pod template changed, so the Pod rolls once.
    ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=body))
    new_pod = the_ready_pod(cluster, cid)
    assert new_pod["metadata"]["name"] != old_pod["metadata"]["name"]
    assert new_pod["metadata"]["labels"][NAME_LABEL] == name
    status = cluster.adapter("-v", "status", pid)
    assert (ok(status)["status"], ok(status)["podIp"]) == ("running", new_pod["status"]["podIP"])
    assert _commands(status) == [_named(name)]
    ok(cluster.adapter("delete", pid))


def test_missing_and_foreign_deployments(cluster: Cluster) -> None:
    """No Deployment in the labelled answer: the read by name says missing (404) or whose
    it is; a foreign Deployment's Pods carrying Manager's labels and the name never count."""
    name, cid = cluster.workload("absent")
    pid = f"{cluster.namespace}/{name}"
    status = cluster.adapter("-v", "status", pid)
    assert ok(status)["status"] == "missing"
    assert [c[:3] for c in _commands(status)] == [
        _named(name)[:3],
        ["get", "deployment", name],
    ]

    # Manager's labels on the Pod template only (so on its Pods): the Deployment itself is
    # not Manager's.
    manifest = _manifest(cluster, spec(name, cid))
    del manifest["metadata"]["labels"]["org.mieweb.opensource-server.managed"]
    foreign = json.dumps(manifest)
    cluster.kubectl("apply", "--server-side", "--field-manager=x", "-f", "-", stdin=foreign)
    cluster.kubectl("rollout", "status", f"deployment/{name}", "--timeout=60s")
    status = cluster.adapter("-v", "status", pid)
    assert ok(status)["status"] == "missing"
    assert "not managed by Manager" in ok(status)["message"]
    assert len(_commands(status)) == 2
    pods = cluster.pods(f"org.mieweb.opensource-server.managed=true,{NAME_LABEL}={name}")
    assert pods  # in the labelled answer, and not counted
    network = cluster.adapter("network", pid)
    assert network.error_type == "Conflict"
    cluster.kubectl("delete", "deployment", name, "--wait=true")
