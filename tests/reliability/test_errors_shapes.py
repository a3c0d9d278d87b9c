"""kubectl output that is valid JSON of the wrong shape, end to end: the CLI process answers
InternalError (exit 1) naming the command, and never prints a traceback.

kubectl itself decodes what the API server sends into typed objects, so a wrong shape can only
come from another kubectl build, a wrapper or a plugin: a stub ``--kubectl`` plays that part.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT

SHAPES = {
    "items-string": {"kind": "List", "items": "x"},
    "top-level-list": [],
    "item-not-object": {"kind": "List", "items": [1]},
    "no-metadata": {"kind": "List", "items": [{"kind": "Deployment"}]},
    "status-string": {"kind": "Deployment", "metadata": {"name": "web-1"}, "status": "x"},
    "null": None,
}
COMMANDS = {
    "list": (["list"], "get deployments,replicasets,pods"),
    "status": (["status", "testns/web-1"], "get deployment web-1"),
    "nodes": (["nodes"], "get nodes"),
}


def stub_kubectl(tmp_path: Path, output: object) -> Path:
    canned = tmp_path / "out.json"
    canned.write_text(json.dumps(output), encoding="utf-8")
    stub = tmp_path / "kubectl"
    stub.write_text(f"#!/bin/sh\nexec cat '{canned}'\n", encoding="utf-8")
    stub.chmod(0o755)
    return stub


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_wrong_shape_is_internal_error_naming_the_command(
    tmp_path: Path, shape: str, command: str
) -> None:
    args, named = COMMANDS[command]
    stub = stub_kubectl(tmp_path, SHAPES[shape])
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "--kubectl", str(stub), "-n", "testns", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert (proc.returncode, error["type"]) == (1, "InternalError"), error
    assert named in error["message"] and named in error["details"]["command"], error
    assert "cannot read" in error["message"], error


def test_check_with_a_wrong_version_document(tmp_path: Path) -> None:
    stub = stub_kubectl(tmp_path, {"clientVersion": "v1.32.4"})
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "--kubectl", str(stub), "-n", "testns", "check"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    error = json.loads(proc.stdout)["error"]
    assert (proc.returncode, error["type"]) == (1, "InternalError"), error
    assert error["details"]["problem"] == "output.clientVersion is a string, expected an object"
