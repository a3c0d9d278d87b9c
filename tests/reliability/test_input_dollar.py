"""Values with ``$`` reach the container exactly as Manager sent them (issue 26), end to end
with the real kubectl against the fake API server.

Kubernetes expands ``$(VAR)`` and turns ``$$`` into ``$`` in ``env[].value``, ``command`` and
``args`` (the kubelet does it when it starts the container; the fake runs no container, so
these tests read what the API server stores and apply the kubelet's rule to it:
``tests/k8s_expansion.py``). Each env value is expanded with the variables listed before it,
the command with all of them, as the kubelet does.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from kubectl_adapter.contract.spec import parse_spec
from kubectl_adapter.rules.render import render_manifest
from tests.e2e.conftest import Cluster, Result, selector, spec
from tests.k8s_expansion import expand

# Sorted by name, as rendered: HOME_DIR comes before the values that name it.
ENV = {
    "A_PLAIN": "$HOME/$USER a$ $",
    "B_ESCAPED": "costs $$(5)",
    "HOME_DIR": "/srv",
    "P_REF": "$(HOME_DIR)/x",
    "Q_DOUBLE": "$$",
    "R_REF_ESCAPED": "$$(HOME_DIR)",
    "S_OPEN": "$(",
    "T_CLOSE": "a) b)",
    "U_OPEN_REF": "$(HOME_DIR",
    "V_ACCENT": "$\u00e9t\u00e9",
}
COMMAND = ["sh", "-c", "echo $(HOME_DIR) $$(HOME_DIR) $$ $( ) $HOME b) $(", "$", "a)", "$(HOME_DIR"]


def as_the_container_sees_it(container: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The kubelet's expansion of what the API server stores for the container."""
    env: dict[str, str] = {}
    for item in container.get("env") or []:
        env[item["name"]] = expand(item["value"], env.get)
    command = [expand(part, env.get) for part in container.get("command") or []]
    return env, command


def _main_container(cluster: Cluster, name: str) -> dict[str, Any]:
    deployment = cluster.deployment(name)
    assert deployment is not None
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert isinstance(container, dict)
    return container


def _ok(result: Result) -> Any:
    assert result.code == 0, result
    return result.doc


@pytest.mark.parametrize("form", ["list", "string"])
def test_env_and_entrypoint_reach_the_container_as_sent(cluster: Cluster, form: str) -> None:
    name, cid = cluster.workload(f"dollar-{form}")
    entrypoint: Any = COMMAND if form == "list" else shlex.join(COMMAND)
    body = spec(name, cid, env=ENV, entrypoint=entrypoint)
    _ok(cluster.adapter("create", "--spec", "-", stdin=body))
    env, command = as_the_container_sees_it(_main_container(cluster, name))
    assert env == ENV
    assert command == COMMAND
    # The two examples, by name: a reference to another variable stays a reference.
    assert env["P_REF"] == "$(HOME_DIR)/x" and env["B_ESCAPED"] == "costs $$(5)"

    # The same spec again: nothing to change, so no rollout (one ReplicaSet, same generation).
    generation = (cluster.deployment(name) or {})["metadata"]["generation"]
    snapshot = _ok(cluster.adapter("reconfigure", f"testns/{name}", "--spec", "-", stdin=body))
    assert snapshot["drift"]["state"] == "in-sync"
    assert (cluster.deployment(name) or {})["metadata"]["generation"] == generation
    assert len(cluster.replicasets(selector(cid))) == 1
    _ok(cluster.adapter("delete", f"testns/{name}"))


def _unescaped_manifest(cluster: Cluster, body: dict[str, Any]) -> str:
    """What the adapter applied before it escaped anything: the values as Manager sent them."""
    parsed = parse_spec(body)
    manifest = json.loads(json.dumps(_yaml(render_manifest(parsed, cluster.namespace))))
    container = manifest["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": key, "value": value} for key, value in parsed.env.items()]
    if parsed.entrypoint:
        container["command"] = list(parsed.entrypoint)
    return json.dumps(manifest)


def _yaml(text: str) -> dict[str, Any]:
    import yaml

    found = yaml.safe_load(text)
    assert isinstance(found, dict)
    return found


def _apply_as_manager(cluster: Cluster, name: str, manifest: str) -> None:
    """A server-side apply with Manager's field manager, as the older adapter made it."""
    manager = "--field-manager=opensource-server-manager"
    cluster.kubectl("apply", "--server-side", manager, "-f", "-", stdin=manifest)
    cluster.kubectl("rollout", "status", f"deployment/{name}", "--timeout=60s")


@pytest.mark.parametrize(
    ("env", "rolls"),
    [
        ({"A": "$HOME/x", "B": "plain", "C": "a$"}, False),
        ({"A": "$(HOME_DIR)/x", "B": "costs $$(5)", "HOME_DIR": "/srv"}, True),
    ],
    ids=["left-alone-by-kubernetes", "changed-by-kubernetes"],
)
def test_a_deployment_rendered_before_the_escaping(
    cluster: Cluster, env: dict[str, str], rolls: bool
) -> None:
    """Applied unescaped by an older adapter: it reads as in-sync (drift compares owners and
    names, never values), and the next reconfigure with the same spec rolls the Pod only when
    Kubernetes was changing one of its values (then once, to fix it), never otherwise."""
    name, cid = cluster.workload("dollar-old")
    body = spec(name, cid, env=env, entrypoint=["sh", "-c", "echo $HOME"])
    _apply_as_manager(cluster, name, _unescaped_manifest(cluster, body))
    pid = f"testns/{name}"
    status = _ok(cluster.adapter("status", pid))
    assert (status["status"], status["drift"]["state"]) == ("running", "in-sync"), status

    generation = (cluster.deployment(name) or {})["metadata"]["generation"]
    snapshot = _ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=body))
    assert (snapshot["status"], snapshot["drift"]["state"]) == ("running", "in-sync"), snapshot
    rolled = (cluster.deployment(name) or {})["metadata"]["generation"] != generation
    assert rolled == rolls
    assert len(cluster.replicasets(selector(cid))) == (2 if rolls else 1)
    seen_env, command = as_the_container_sees_it(_main_container(cluster, name))
    assert (seen_env, command) == (env, ["sh", "-c", "echo $HOME"])

    # Reconfigured once, it stays put: the next same-spec reconfigure changes nothing.
    generation = (cluster.deployment(name) or {})["metadata"]["generation"]
    snapshot = _ok(cluster.adapter("reconfigure", pid, "--spec", "-", stdin=body))
    assert snapshot["drift"]["state"] == "in-sync"
    assert (cluster.deployment(name) or {})["metadata"]["generation"] == generation
    status = _ok(cluster.adapter("status", pid))
    assert status["drift"]["state"] == "in-sync", status
    _ok(cluster.adapter("delete", pid))
