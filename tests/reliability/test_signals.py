"""SIGTERM, SIGHUP and SIGINT while kubectl runs: the whole kubectl process group dies (an
exec credential plugin included) and stdout still carries the error document.

Real processes only: the CLI as Manager spawns it, and a shell script standing in for
kubectl that starts a grandchild (as kubectl starts a credential plugin) and then hangs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.k8s_objects import deployment, kubectl_object

from .helpers import alive, await_true, cli_argv, cli_env, group_members, script

# A kubectl that answers `get` with a running Deployment and hangs on anything else (a
# rollout status that never ends, or `get` too when HANG_GET is set), after starting a
# grandchild and writing both pids.
KUBECTL = """\
case " $* " in
  *" get "*) if [ -z "$HANG_GET" ]; then cat "$DIR/deployment.json"; exit 0; fi ;;
esac
sleep 300 &
echo $! > "$DIR/grandchild.pid"
echo $$ > "$DIR/kubectl.pid"
wait
"""

SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]
COMMANDS = {
    "status": (["status", "testns/web-1"], True),  # its `get` hangs
    "start": (["start", "testns/web-1"], False),  # its `rollout status` (a wait) hangs
}
CASES = [(sig, cmd) for sig in SIGNALS for cmd in COMMANDS]


@pytest.mark.parametrize(("signum", "command"), CASES, ids=[f"{s.name}-{c}" for s, c in CASES])
def test_signal_kills_kubectl_group_and_prints_the_error(
    tmp_path: Path, signum: signal.Signals, command: str
) -> None:
    (tmp_path / "deployment.json").write_text(kubectl_object(deployment()))
    kubectl = script(tmp_path / "kubectl", KUBECTL)
    args, hang_get = COMMANDS[command]
    env = {**cli_env(), "DIR": str(tmp_path)}
    if hang_get:
        env["HANG_GET"] = "1"
    proc = subprocess.Popen(
        cli_argv("--kubectl", kubectl, "--timeout", "60", *args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    pids: list[int] = []
    try:
        await_true(lambda: (tmp_path / "kubectl.pid").exists(), 20, "kubectl started")
        await_true(lambda: (tmp_path / "kubectl.pid").read_text().strip() != "", 5, "pid")
        kubectl_pid = int((tmp_path / "kubectl.pid").read_text())
        grandchild = int((tmp_path / "grandchild.pid").read_text())
        pids = [kubectl_pid, grandchild]
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=15)
        # Checked before the clean-up below, which would otherwise hide a survivor.
        await_true(lambda: not alive(kubectl_pid), 5, "kubectl killed")
        await_true(lambda: not alive(grandchild), 5, "the credential-plugin-like grandchild killed")
        await_true(lambda: group_members(kubectl_pid) == [], 5, "no process of the group left")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for pid in pids:  # only what this test started, by id
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 128 + signum, stderr
    document = json.loads(stdout)
    assert document["error"]["type"] == "Interrupted"
    assert document["error"]["details"] == {"signal": signum.name}


# The real kubectl, with an exec credential plugin that never answers: kubectl (or the Cloud
# SDK dispatcher before it) waits on the plugin, a grandchild of the CLI.
PLUGIN = """\
echo $$ > "$DIR/plugin.pid"
exec sleep 300
"""


def test_sigterm_kills_a_real_kubectls_credential_plugin(tmp_path: Path) -> None:
    plugin = script(tmp_path / "plugin", PLUGIN)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:9",
                                                   "insecure-skip-tls-verify": True}}],
            "users": [{"name": "u", "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1", "command": plugin,
                "interactiveMode": "Never"}}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        })
    )  # fmt: skip
    proc = subprocess.Popen(
        cli_argv("--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp_path / "cache"),
                 "status", "testns/web-1"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**cli_env(), "DIR": str(tmp_path)},
    )  # fmt: skip
    pidfile = tmp_path / "plugin.pid"
    plugin_pid = 0
    try:
        await_true(lambda: pidfile.exists() and pidfile.read_text().strip() != "", 20, "plugin")
        plugin_pid = int(pidfile.read_text())
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=15)
        await_true(lambda: not alive(plugin_pid), 5, "the credential plugin killed")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if plugin_pid and alive(plugin_pid):
            os.kill(plugin_pid, signal.SIGKILL)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert json.loads(stdout)["error"]["type"] == "Interrupted"
