"""Drift end to end: each kind of change made outside Manager, by ``kubectl edit`` (an update
under the field manager ``kubectl-edit``), by a hand ``kubectl apply`` (client-side, field
manager ``kubectl-client-side-apply``) and by a hand ``kubectl apply --server-side`` (field
manager ``kubectl``), then seen by ``status`` and ``list`` and taken back by ``reconfigure``
with Manager's spec.

The edits are real: ``kubectl edit`` runs with ``EDITOR`` set to a small script that changes
the YAML kubectl opens, and ``kubectl apply -f`` applies Manager's own manifest (rendered by
the adapter) with the same change. Every drift report is what the adapter reads from the
managedFields the API server (the fake, or a real cluster) recorded for those writes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import Cluster, Result, concurrently, spec

MAIN = "main"
NODE_ID = "org.mieweb.opensource-server.node-id"
Mutation = Callable[[dict[str, Any]], None]


def _main(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    return next(c for c in containers if c["name"] == MAIN)


def _env(container: dict[str, Any]) -> list[dict[str, Any]]:
    return container.setdefault("env", [])


def set_image(d: dict[str, Any]) -> None:
    _main(d)["image"] = "nginx:1.99-drift"


def set_command(d: dict[str, Any]) -> None:
    _main(d)["command"] = ["nginx", "-g", "daemon off;"]


def change_env(d: dict[str, Any]) -> None:
    for entry in _env(_main(d)):
        if entry["name"] == "KEY":
            entry["value"] = "changed-by-hand"


def add_env(d: dict[str, Any]) -> None:
    _env(_main(d)).append({"name": "EXTRA", "value": "1"})


def remove_env(d: dict[str, Any]) -> None:
    container = _main(d)
    container["env"] = [e for e in _env(container) if e["name"] != "GONE"]


def set_resources(d: dict[str, Any]) -> None:
    _main(d)["resources"]["limits"]["memory"] = "96Mi"


def add_resource(d: dict[str, Any]) -> None:
    _main(d)["resources"]["limits"]["ephemeral-storage"] = "1Gi"


def scale_to_two(d: dict[str, Any]) -> None:
    d["spec"]["replicas"] = 2


def pause(d: dict[str, Any]) -> None:
    d["spec"]["paused"] = True


def add_sidecar(d: dict[str, Any]) -> None:
    d["spec"]["template"]["spec"]["containers"].append(
        {"name": "sidecar", "image": "busybox:1.36", "command": ["sleep", "86400"]}
    )


def add_init_container(d: dict[str, Any]) -> None:
    d["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "setup", "image": "busybox:1.36", "command": ["true"]}
    ]


def relabel_template(d: dict[str, Any]) -> None:
    d["spec"]["template"]["metadata"]["labels"][NODE_ID] = "8"


def relabel(d: dict[str, Any]) -> None:
    d["metadata"]["labels"][NODE_ID] = "8"


def every_kind(d: dict[str, Any]) -> None:
    """All the changes of KINDS in one edit (one workload per way keeps the suite fast; each
    change is still checked on its own)."""
    for _, mutation, _ in KINDS:
        mutation(d)


def every_kind_but_removals(d: dict[str, Any]) -> None:
    for _, mutation, expected in KINDS:
        if expected[1] != "removed":
            mutation(d)


# (id, mutation, the change drift reports: (what, change, name))
KINDS: list[tuple[str, Mutation, tuple[str, str, str | None]]] = [
    ("image", set_image, ("image", "changed", None)),
    ("command", set_command, ("command", "added", None)),
    ("env-changed", change_env, ("env", "changed", "KEY")),
    ("env-added", add_env, ("env", "added", "EXTRA")),
    ("env-removed", remove_env, ("env", "removed", "GONE")),
    ("resources-changed", set_resources, ("resources", "changed", "limits.memory")),
    ("resources-added", add_resource, ("resources", "added", "limits.ephemeral-storage")),
    ("replicas", scale_to_two, ("replicas", "changed", None)),
    ("paused", pause, ("paused", "changed", None)),
    ("container-added", add_sidecar, ("container", "added", "sidecar")),
    ("init-container-added", add_init_container, ("container", "added", "setup")),
    ("template-label", relabel_template, ("labels", "changed", NODE_ID)),
]
# How each way names itself in managedFields.
WAYS = {
    "edit": "kubectl-edit",
    "apply": "kubectl-client-side-apply",
    "server-side-apply": "kubectl",
}

# kubectl edit runs "$EDITOR FILE"; this editor applies one of the mutations above to FILE.
EDITOR = """\
import sys, yaml
from tests.e2e import test_drift
with open(sys.argv[2]) as f:
    doc = yaml.safe_load(f)
getattr(test_drift, sys.argv[1])(doc)
with open(sys.argv[2], "w") as f:
    yaml.safe_dump(doc, f)
"""
ROOT = Path(__file__).resolve().parents[2]


def _kubectl(
    cluster: Cluster, *args: str, env: dict[str, str] | None = None, stdin: str = ""
) -> str:
    proc = subprocess.run(
        [
            "kubectl",
            *cluster._conn_flags(),
            "--cache-dir",
            cluster._cache_dir(),
            "-n",
            cluster.namespace,
            *args,
        ],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout


def kubectl_edit(cluster: Cluster, name: str, mutation: Mutation, workdir: Path) -> None:
    """``kubectl edit deployment/NAME`` with an editor that makes ``mutation``."""
    editor = workdir / "editor.py"
    editor.write_text(EDITOR)
    command = f"{sys.executable} {editor} {mutation.__name__}"
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    _kubectl(
        cluster,
        "edit",
        f"deployment/{name}",
        env={"EDITOR": command, "KUBE_EDITOR": command, "PYTHONPATH": pythonpath},
    )


def hand_apply(cluster: Cluster, manifest: str, mutation: Mutation) -> None:
    """What an operator does with Manager's manifest: apply it, change it, apply again (the
    first apply records last-applied-configuration, so the second can also remove fields)."""
    _kubectl(cluster, "apply", "-f", "-", stdin=manifest)
    changed = yaml.safe_load(manifest)
    mutation(changed)
    _kubectl(cluster, "apply", "-f", "-", stdin=yaml.safe_dump(changed))


def hand_server_side_apply(cluster: Cluster, manifest: str, mutation: Mutation) -> None:
    """``kubectl apply --server-side --force-conflicts`` of Manager's manifest, changed: the
    same values are shared with Manager, the changed ones taken over. It cannot remove a field
    it never applied, so the removals are not made this way."""
    changed = yaml.safe_load(manifest)
    mutation(changed)
    _kubectl(
        cluster,
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
        stdin=yaml.safe_dump(changed),
    )


def change_by(
    cluster: Cluster, way: str, name: str, wanted: dict[str, Any], mutation: Mutation, workdir: Path
) -> None:
    if way == "edit":
        kubectl_edit(cluster, name, mutation, workdir)
    elif way == "apply":
        hand_apply(cluster, render(cluster, wanted), mutation)
    else:
        hand_server_side_apply(cluster, render(cluster, wanted), mutation)


def kinds_of(way: str) -> list[tuple[str, Mutation, tuple[str, str, str | None]]]:
    return [k for k in KINDS if way != "server-side-apply" or k[2][1] != "removed"]


def render(cluster: Cluster, manager_spec: dict[str, Any]) -> str:
    result = cluster.adapter("render", "--spec", "-", stdin=manager_spec)
    assert result.code == 0 and isinstance(result.doc, str), result
    return result.doc


def ok(result: Result) -> Any:
    assert result.code == 0, (result.code, result.doc, result.stderr[-2000:])
    return result.doc


def _found(drift: dict[str, Any], expected: tuple[str, str, str | None]) -> dict[str, Any]:
    matching = [c for c in drift["changes"] if (c["what"], c["change"], c["name"]) == expected]
    assert len(matching) == 1, (expected, drift)
    return matching[0]


def manager_spec(name: str, container_id: str) -> dict[str, Any]:
    return spec(name, container_id, env={"KEY": "value", "GONE": "soon"})


@pytest.mark.parametrize("way", sorted(WAYS))
def test_each_kind_of_drift_is_reported_and_reconfigure_takes_it_back(
    cluster: Cluster, tmp_path: Path, way: str
) -> None:
    """Every kind of change, made by ``way``: ``status`` and ``list`` report each one with the
    manager that made it; ``reconfigure`` with Manager's spec takes each one back."""
    name, container_id = cluster.workload(f"drift-{way}")
    wanted = manager_spec(name, container_id)
    created = ok(cluster.adapter("create", "--spec", "-", stdin=wanted))
    assert created["drift"]["state"] == "in-sync", created["drift"]
    pid = created["providerId"]

    kinds = kinds_of(way)
    mutation = every_kind if len(kinds) == len(KINDS) else every_kind_but_removals
    change_by(cluster, way, name, wanted, mutation, tmp_path)

    seen = concurrently(
        {
            "status": lambda: cluster.adapter("status", pid),
            "list": lambda: cluster.adapter("list"),
        }
    )
    drift = ok(seen["status"])["drift"]
    listed = [s for s in ok(seen["list"])["items"] if s["providerId"] == pid]
    assert len(listed) == 1
    assert listed[0]["drift"] == drift
    assert drift["state"] == "drifted"
    reported = {}
    for kind, _, expected in kinds:
        change = _found(drift, expected)
        assert change["by"] == ([] if expected[1] == "removed" else [WAYS[way]]), (kind, change)
        assert change["reconfigure"] == "restores", (kind, change)  # as the reconfigure below
        reported[kind] = change
    assert len(drift["changes"]) == len(kinds), drift["summary"]

    after = ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=wanted))
    assert after["drift"]["state"] == "in-sync", after["drift"]
    for kind, _, expected in kinds:
        assert _found({"changes": after["drift"]["restored"]}, expected) == reported[kind], kind
    again = ok(cluster.adapter("status", pid))
    assert (again["status"], again["drift"]["state"]) == ("running", "in-sync"), again
    live = cluster.deployment(name)
    assert live is not None
    template = live["spec"]["template"]["spec"]
    assert [c["name"] for c in template["containers"]] == [MAIN]
    assert not template.get("initContainers")
    main = template["containers"][0]
    assert main["image"] == wanted["image"] and "command" not in main
    assert {e["name"]: e["value"] for e in main["env"]} == wanted["env"]
    assert "ephemeral-storage" not in main["resources"]["limits"]
    assert main["resources"]["limits"] == {"cpu": "100m", "memory": "64Mi"}
    assert (live["spec"]["replicas"], live["spec"].get("paused", False)) == (1, False)


@pytest.mark.parametrize("way", sorted(WAYS))
def test_altered_ownership_label_is_reported_and_reconfigure_refuses_until_restored(
    cluster: Cluster, tmp_path: Path, way: str
) -> None:
    """The Deployment's own node-id label is identity: reconfigure never rewrites it (it
    refuses, as for any workload whose labels say it is not this container's), so the
    operator restores it by hand and reconfigure then takes back the ownership."""
    name, container_id = cluster.workload("drift-owner")
    wanted = manager_spec(name, container_id)
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=wanted))["providerId"]
    change_by(cluster, way, name, wanted, relabel, tmp_path)
    drift = ok(cluster.adapter("status", pid))["drift"]
    change = _found(drift, ("labels", "changed", NODE_ID))
    assert (change["by"], change["value"]) == ([WAYS[way]], "8")
    assert change["reconfigure"] == "refuses"  # as the reconfigure below does
    refused = cluster.adapter("reconfigure", pid, "--spec", "-", stdin=wanted)
    assert refused.error_type == "InvalidInput", refused.doc
    # Issue 32: the refusal says how to restore it; that command, pasted, does.
    step = refused.doc["error"]["details"]["nextStep"]
    assert step == (
        f"kubectl label deployment {name} {NODE_ID}=7 --overwrite -n {cluster.namespace}"
    ), refused.doc
    assert step in refused.doc["error"]["message"]
    words = step.split()
    assert words[:1] == ["kubectl"] and words[-2:] == ["-n", cluster.namespace]
    _kubectl(cluster, *words[1:-2])
    after = ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=wanted))
    assert after["drift"]["state"] == "in-sync", after["drift"]


def test_a_label_added_by_hand_is_reported_and_reconfigure_keeps_it(cluster: Cluster) -> None:
    """Issue 32: ``kubectl label deployment NAME team=ops`` was neither reported nor removed."""
    name, container_id = cluster.workload("drift-team")
    wanted = manager_spec(name, container_id)
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=wanted))["providerId"]
    _kubectl(cluster, "label", "deployment", name, "team=ops")
    drift = ok(cluster.adapter("status", pid))["drift"]
    change = _found(drift, ("labels", "added", "team"))
    assert (change["by"], change["value"], change["reconfigure"]) == (
        ["kubectl-label"],
        "ops",
        "keeps",
    )
    after = ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=wanted))
    assert _found(after["drift"], ("labels", "added", "team"))["reconfigure"] == "keeps"
    assert (cluster.deployment(name) or {})["metadata"]["labels"]["team"] == "ops"


def test_a_rollback_is_named_as_one_and_its_quantities_are_no_drift(cluster: Cluster) -> None:
    """Issue 32: after ``reconfigure --rollback-on-failure`` rolled back, describe said
    limits.cpu and limits.memory "changed by kubectl" (live 1/1Gi, applied 1000m/1024Mi) and
    advised the reconfigure that re-applies the failed spec."""
    from tests.e2e.terminal import on_terminal

    name, container_id = cluster.workload("drift-undo")
    wanted = manager_spec(name, container_id) | {"cpus": 1, "memoryMb": 1024}
    pid = ok(cluster.adapter("create", "--spec", "-", stdin=wanted))["providerId"]
    crashing = wanted | {"env": {"KEY": "crash"}, "entrypoint": "sh -c 'exit 1'"}
    failed = cluster.adapter(
        "reconfigure", pid, "--spec", "-", "--rollback-on-failure", stdin=crashing
    )
    assert failed.error_type in ("RolloutFailed", "Timeout"), failed.doc
    rollback = failed.doc["error"]["details"]["rollback"]
    assert rollback["succeeded"] is True and rollback["marked"] is True, rollback
    # The undo replaced the failed Pod: the next step reads the failed revision instead.
    step = failed.doc["error"]["details"]["nextStep"]
    assert re.fullmatch(
        rf"kubectl rollout history deployment/{pid.split('/')[1]} -n {cluster.namespace} "
        r"--revision=\d+",
        step,
    ), step
    assert failed.doc["error"]["message"].endswith(f" | next step: {step}")
    described = ok(cluster.adapter("describe", pid, "-o", "json"))
    changes = described["snapshot"]["drift"]["changes"]
    assert not [c for c in changes if c["what"] == "resources"], changes
    # The rollback's own fields (the template and record of revision 1) are no drift
    # (issue 39; tests/reliability/test_drift_own_changes.py), and it is named as one.
    assert changes == [], described
    assert described["snapshot"]["drift"]["state"] == "in-sync", described["snapshot"]
    assert described["rollback"]["by"] == "--rollback-on-failure", described["rollback"]
    assert described["rollback"]["failedRevision"] == "2", described["rollback"]
    text = on_terminal(cluster, "describe", pid).out
    assert "  rolled back by --rollback-on-failure at " in text, text
    assert "re-applies the spec that failed (revision 2): fix it first" in text, text
    assert "reconfigure takes it back" not in text, text
