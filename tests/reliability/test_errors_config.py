"""No kubeconfig, no current context, an unknown context: ConfigurationError (exit 9) naming
the kubeconfig kubectl looked for, never InternalError or Unavailable.

Each case runs the CLI as Manager would, with the real kubectl, in a fresh HOME so that
``~/.kube/config`` is under the test's control. With no kubeconfig kubectl talks to
``localhost:8080``, which nothing on the loopback serves (checked below), so the "outage"
is immediate.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ROOT, Cluster


def run(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, Any]:
    environ = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    environ["HOME"] = str(home)
    environ.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "--request-timeout", "5", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=environ,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout)


def configuration_error(code: int, doc: Any) -> dict[str, Any]:
    assert code == 9, doc
    assert doc["error"]["type"] == "ConfigurationError", doc
    return dict(doc["error"])


@pytest.fixture(scope="module", autouse=True)
def nothing_serves_localhost_8080() -> None:
    # The no-kubeconfig cases rely on kubectl's default server being refused at once.
    with socket.socket() as sock:
        sock.settimeout(1)
        assert sock.connect_ex(("127.0.0.1", 8080)) != 0, "something listens on localhost:8080"


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["list"],
        ["-n", "testns", "check"],
        ["-n", "testns", "list"],
        ["status", "testns/web-1"],
        ["stop", "testns/web-1"],
        ["delete", "testns/web-1"],
    ],
)
def test_no_kubeconfig_at_all(tmp_path: Path, args: list[str]) -> None:
    error = configuration_error(*run(tmp_path, *args))
    wanted = str(tmp_path / ".kube" / "config")
    assert wanted in error["message"], error
    assert error["details"]["kubeconfig"].startswith(wanted)


@pytest.mark.parametrize("args", [["list"], ["-n", "testns", "status", "testns/web-1"]])
def test_kubeconfig_env_names_only_missing_files(tmp_path: Path, args: list[str]) -> None:
    listed = f"{tmp_path / 'a.yaml'}{os.pathsep}{tmp_path / 'b.yaml'}"
    error = configuration_error(*run(tmp_path, *args, env={"KUBECONFIG": listed}))
    assert f"$KUBECONFIG={listed}" in error["message"], error


def test_kubeconfig_flag_names_a_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.yaml")
    error = configuration_error(*run(tmp_path, "--kubeconfig", missing, "list"))
    assert f"--kubeconfig {missing}" in error["message"], error


def test_kubeconfig_without_a_current_context(tmp_path: Path, cluster: Cluster) -> None:
    fake = cluster.require_fake()
    text = Path(fake.kubeconfig).read_text(encoding="utf-8")
    stripped = "\n".join(
        line for line in text.splitlines() if not line.startswith("current-context")
    )
    kubeconfig = tmp_path / "kc.yaml"
    kubeconfig.write_text(stripped, encoding="utf-8")
    for args in (["list"], ["-n", "testns", "list"], ["-n", "testns", "check"]):
        error = configuration_error(*run(tmp_path, "--kubeconfig", str(kubeconfig), *args))
        assert str(kubeconfig) in error["message"], error


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["check"],
        ["-n", "testns", "list"],
        ["-n", "testns", "status", "testns/web-1"],
        ["stop", "testns/web-1"],
    ],
)
def test_unknown_context(tmp_path: Path, cluster: Cluster, args: list[str]) -> None:
    fake = cluster.require_fake()
    error = configuration_error(
        *run(tmp_path, "--kubeconfig", str(fake.kubeconfig), "--context", "nosuchctx", *args)
    )
    assert "nosuchctx" in error["message"], error
    assert error["details"]["kubeconfig"] == f"--kubeconfig {fake.kubeconfig}"
    # kubectl says it once per kind it was asked for (status reads three): shown once
    lines = error["details"]["stderr"].splitlines()
    assert len(lines) == 1 and "nosuchctx" in lines[0], error


def test_a_good_kubeconfig_still_works(tmp_path: Path, cluster: Cluster) -> None:
    # The same runs with the context named: the cases above fail for the stated reason only.
    fake = cluster.require_fake()
    code, doc = run(
        tmp_path, "--kubeconfig", str(fake.kubeconfig), "--context", fake.context, "list"
    )
    assert code == 0 and doc == {"items": []}, doc


def test_check_names_the_context_kubectl_used(tmp_path: Path, cluster: Cluster) -> None:
    """Without --context, check said "context": null (the table `Context: <none>`) although
    kubectl used the kubeconfig's current-context."""
    fake = cluster.require_fake()
    listed = f"{tmp_path / 'missing.yaml'}{os.pathsep}{fake.kubeconfig}"
    code, doc = run(tmp_path, "-n", "testns", "check", env={"KUBECONFIG": listed})
    assert (code, doc["ok"], doc["context"]) == (0, True, fake.context), doc
    code, doc = run(tmp_path, "--kubeconfig", str(fake.kubeconfig), "-n", "testns", "check")
    assert doc["context"] == fake.context, doc
