"""``./dev demo``'s error paths: the whole error document is shown, the cluster and namespace
it uses are named, ``$KUBECONFIG`` and ``-n`` are honoured, and it stops (non-zero) when
``check`` says the cluster is not ready. The happy path runs in ``test_demo_runs_through``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.fakecluster import FakeCluster

from .helpers import ROOT

DEMO = ROOT / "examples" / "demo.py"
FAST = ["--timeout", "5", "--request-timeout", "2", "--call-timeout", "8"]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def kubeconfig_to(tmp_path: Path, server: str) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "closed",
            "clusters": [{"name": "closed", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": {}}],
            "contexts": [{"name": "closed", "context": {"cluster": "closed", "user": "u"}}],
        })
    )  # fmt: skip
    return path


def demo(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    return subprocess.run(
        [sys.executable, str(DEMO), *FAST, *args],
        capture_output=True,
        text=True,
        env={**environment, **(env or {})},
        cwd=ROOT,
        timeout=90,
        check=False,
    )


def error_document(stdout: str) -> dict[str, object]:
    """The indented error document the demo printed after the failed step's line."""
    start = stdout.index('{\n  "error"')
    document: dict[str, object] = json.loads(stdout[start:])
    return document


def test_kubeconfig_env_is_honoured_and_the_error_document_shown(tmp_path: Path) -> None:
    # Before the fix $KUBECONFIG was ignored (the fake ran), and a failure printed `{}`.
    kubeconfig = kubeconfig_to(tmp_path, f"http://127.0.0.1:{closed_port()}")
    result = demo("-n", "team-a", env={"KUBECONFIG": str(kubeconfig)})
    assert result.returncode != 0
    assert f"$KUBECONFIG={kubeconfig}" in result.stderr
    assert "namespace team-a" in result.stderr
    error = error_document(result.stdout)["error"]
    assert isinstance(error, dict)
    assert error["type"] in ("Unavailable", "ConfigurationError")
    assert "refused" in str(error["message"]) + json.dumps(error["details"])
    assert "demo stopped: step 1" in result.stderr
    assert "-- 2." not in result.stdout  # nothing after the failed step


def test_kubeconfig_flag_is_honoured(tmp_path: Path) -> None:
    kubeconfig = kubeconfig_to(tmp_path, f"http://127.0.0.1:{closed_port()}")
    result = demo("--kubeconfig", str(kubeconfig))
    assert result.returncode != 0
    assert f"--kubeconfig {kubeconfig}" in result.stderr
    assert "namespace default" in result.stderr
    assert error_document(result.stdout)["error"]


def test_check_not_ok_stops_the_demo(tmp_path: Path) -> None:
    # Before the fix the demo carried on into create after `check` said ok: false.
    with FakeCluster(tmp_path / "fake") as fake:
        result = demo(
            "--kubeconfig", str(fake.kubeconfig), "--context", fake.context, "-n", "no-such-ns"
        )
        creates = [r for r in fake.requests if r.method in ("POST", "PATCH", "PUT")]
    assert result.returncode != 0
    assert "demo stopped: step 1, check" in result.stderr
    assert "namespace no-such-ns exists: False" in result.stderr
    assert "-- 2." not in result.stdout
    assert not [r for r in creates if "deployments" in r.path]


def test_demo_runs_through_on_the_fake_in_the_namespace_asked_for() -> None:
    # Before the fix -n was ignored on the fake (always "default").
    result = demo("-n", "team-a")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "built-in fake API server" in result.stderr
    assert "namespace team-a" in result.stderr
    assert "team-a/web-1 running" in result.stdout
    assert result.stdout.rstrip().endswith("reconfigured twice and deleted.")
