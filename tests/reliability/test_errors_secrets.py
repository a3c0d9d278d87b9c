"""Secrets a kubeconfig gives an exec credential plugin (``exec.env`` values, secret args)
never reach the CLI's output, even when the plugin echoes them on stderr, which kubectl
passes on as its own. Real kubectl, a tiny shell-script plugin, the fake API server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import ROOT, Cluster

ENV_SECRET = "envplain-7f3a9c2e"  # nothing about it looks like a credential
ARG_SECRET = "argplain-51d0b8aa"
KV_SECRET = "kvplain-c4e2a917"
SECRETS = (ENV_SECRET, ARG_SECRET, KV_SECRET)


def plugin_kubeconfig(tmp_path: Path, cluster: Cluster, *, token: str | None) -> Path:
    """The fake's kubeconfig plus a context whose user gets its token from a plugin that
    prints its environment and arguments to stderr; with ``token`` None it then fails."""
    fake = cluster.require_fake()
    plugin = tmp_path / "cred-plugin"
    if token is None:
        answer = "exit 1"
    else:
        credential = {
            "apiVersion": "client.authentication.k8s.io/v1",
            "kind": "ExecCredential",
            "status": {"token": token},
        }
        answer = f"echo '{json.dumps(credential)}'"
    plugin.write_text(
        f'#!/bin/sh\necho "cred-plugin: env=$PLUGIN_SECRET args=$*" >&2\n{answer}\n',
        encoding="utf-8",
    )
    plugin.chmod(0o755)
    config: dict[str, Any] = yaml.safe_load(Path(fake.kubeconfig).read_text(encoding="utf-8"))
    cluster_name = config["contexts"][0]["context"]["cluster"]
    config["users"].append(
        {
            "name": "plugin-user",
            "user": {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1",
                    "command": str(plugin),
                    "args": ["--token", ARG_SECRET, f"password={KV_SECRET}"],
                    "env": [{"name": "PLUGIN_SECRET", "value": ENV_SECRET}],
                    "interactiveMode": "Never",
                }
            },
        }
    )
    config["contexts"].append(
        {
            "name": "plugin",
            "context": {"cluster": cluster_name, "user": "plugin-user", "namespace": "testns"},
        }
    )
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def run(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "kubectl_adapter",
            "--kubeconfig",
            str(kubeconfig),
            "--context",
            "plugin",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--request-timeout",
            "3",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "KUBECONFIG"},
        check=False,
    )


def assert_clean(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    for secret in SECRETS:
        assert secret not in proc.stdout, proc.stdout
        assert secret not in proc.stderr, proc.stderr
    return dict(json.loads(proc.stdout)["error"])


@pytest.mark.parametrize("command", [["list"], ["status", "testns/web-1"], ["check"]])
def test_a_failing_plugin_echo_is_redacted(
    tmp_path: Path, cluster: Cluster, command: list[str]
) -> None:
    proc = run(plugin_kubeconfig(tmp_path, cluster, token=None), tmp_path, "-v", *command)
    error = assert_clean(proc)
    assert proc.returncode == 9 and error["type"] == "ConfigurationError", error
    # The plugin's line is there, its secrets masked: kubectl's stderr did carry them.
    assert "cred-plugin: env=[REDACTED] args=--token [REDACTED]" in error["details"]["stderr"]


def test_a_working_plugin_echo_is_redacted_when_the_api_fails(
    tmp_path: Path, cluster: Cluster
) -> None:
    fake = cluster.require_fake()
    kubeconfig = plugin_kubeconfig(tmp_path, cluster, token=fake.admin_token)
    fake.fail_next(1, 500, method="GET", path_regex=r"/deployments/web-1$")
    try:
        proc = run(kubeconfig, tmp_path, "-v", "stop", "testns/web-1")
    finally:
        fake.clear_faults()
    error = assert_clean(proc)
    assert error["type"] == "Unavailable", error
    assert "cred-plugin: env=[REDACTED]" in error["details"]["stderr"], error
