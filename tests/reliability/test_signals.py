"""SIGTERM, SIGHUP and SIGINT while kubectl runs: the whole kubectl process group dies (an
exec credential plugin included) and stdout still carries the error document.

Real processes only: the CLI as Manager spawns it, and a shell script standing in for
kubectl that starts a grandchild (as kubectl starts a credential plugin) and then hangs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.k8s_objects import deployment, kubectl_object

from .helpers import alive, await_true, cli_argv, cli_env, group_members, script

# A kubectl that answers `get` with a running Deployment and hangs on anything else (a
# wait's watch that never ends, or `get` too when HANG_GET is set), after starting a
# grandchild and writing both pids.
KUBECTL = """\
case " $* " in
  *" --watch "*) ;;
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
    "start": (["start", "testns/web-1"], False),  # its wait's watches (before its patch) hang
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


def _catches(pid: int, signum: int) -> bool:
    """The process has a handler for ``signum`` (``SigCgt`` in /proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) >> (signum - 1) & 1)


def _one_document(stdout: str) -> dict[str, object]:
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout
    document = json.loads(lines[0])
    assert isinstance(document, dict)
    return document


# Milliseconds after the CLI's first handler is in place: dense where start-up is (imports,
# the parser), then sparse into the command.
START_UP_DELAYS_MS = [0, 0.5, 1, 1.5, 2, 3, 4, 6, 9, 14, 20, 30]


@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_signal_at_any_moment_of_start_up_gives_one_document(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """From the process's first line on (imports, building the parser, the command), a signal
    gives the Interrupted document and 128 + N, never a traceback and exit 1."""
    (tmp_path / "deployment.json").write_text(kubectl_object(deployment()))
    kubectl = script(tmp_path / "kubectl", KUBECTL)
    env = {**cli_env(), "DIR": str(tmp_path), "HANG_GET": "1"}
    outcomes = []
    for delay in START_UP_DELAYS_MS:
        proc = subprocess.Popen(
            cli_argv("--kubectl", kubectl, "status", "testns/web-1"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            deadline = time.monotonic() + 20
            while not _catches(proc.pid, signal.SIGTERM):  # no event to await: poll /proc
                assert time.monotonic() < deadline and proc.poll() is None, "no handler"
                time.sleep(0.0002)
            time.sleep(delay / 1000)  # the moment under test
            proc.send_signal(signum)
            stdout, stderr = proc.communicate(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
            if (tmp_path / "kubectl.pid").exists():  # the fake kubectl this test started
                text = (tmp_path / "kubectl.pid").read_text().strip()
                (tmp_path / "kubectl.pid").unlink()
                if text and alive(int(text)):
                    os.killpg(int(text), signal.SIGKILL)
        outcomes.append((delay, proc.returncode, stdout, stderr))
    bad = [o for o in outcomes if o[1] != 128 + signum or "Traceback" in o[3]]
    assert not bad, bad
    for _, _, stdout, _ in outcomes:
        error = _one_document(stdout)["error"]
        assert isinstance(error, dict)
        assert (error["type"], error["details"]) == ("Interrupted", {"signal": signum.name})


@pytest.mark.parametrize("gap_ms", [0, 5, 20, 50])
def test_sigterm_then_sigint_still_exits_143(tmp_path: Path, gap_ms: float) -> None:
    """The first signal decides: a SIGINT that lands while (or after) the SIGTERM document is
    printed is ignored, not a KeyboardInterrupt that makes the exit status -2."""
    (tmp_path / "deployment.json").write_text(kubectl_object(deployment()))
    kubectl = script(tmp_path / "kubectl", KUBECTL)
    proc = subprocess.Popen(
        cli_argv("--kubectl", kubectl, "status", "testns/web-1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**cli_env(), "DIR": str(tmp_path), "HANG_GET": "1"},
    )
    kubectl_pid = 0
    try:
        pidfile = tmp_path / "kubectl.pid"
        await_true(lambda: pidfile.exists() and pidfile.read_text().strip() != "", 20, "kubectl")
        kubectl_pid = int(pidfile.read_text())
        proc.send_signal(signal.SIGTERM)
        # Two signals pending at once are handled in signal-number order (SIGINT first), so
        # "then" starts once the SIGTERM was acted on: kubectl's group is being killed.
        await_true(lambda: not alive(kubectl_pid), 10, "kubectl killed after SIGTERM")
        time.sleep(gap_ms / 1000)  # the gap under test (the fault run used 20 ms)
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if kubectl_pid and alive(kubectl_pid):
            os.killpg(kubectl_pid, signal.SIGKILL)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    error = _one_document(stdout)["error"]
    assert isinstance(error, dict) and error["details"] == {"signal": "SIGTERM"}
