"""A kubectl the adapter cannot use is said so: ``check`` reports the client and server
versions against the supported range and fails (ok: false, exit 9) outside it, and any
command that meets a kubectl rejecting one of the adapter's flags ends in ConfigurationError
(exit 9) naming that kubectl by its path (with kubectl 1.16 ``check`` said ok and every other
command failed as InvalidInput, exit 2).

The old kubectl is a stub in front of the real one, against the fake API server: it prints
what kubectl 1.16 prints for the flags it did not know yet
(``Error: unknown flag: --show-managed-fields`` and the usage hint, exit 1) and its version;
everything else goes to the real kubectl.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.contract.kubectl_support import OLDEST_KUBECTL
from tests.fakecluster import FakeCluster

from .helpers import timed_cli

STUB = """\
import json, os, subprocess, sys

REAL, RELEASE, UNKNOWN = {real!r}, {release!r}, {unknown!r}
args = sys.argv[1:]
client = {{"major": "1", "minor": RELEASE.split(".")[1], "gitVersion": "v" + RELEASE,
          "gitCommit": "0" * 40, "gitTreeState": "clean", "buildDate": "2020-09-02T11:40:00Z",
          "goVersion": "go1.13.15", "compiler": "gc", "platform": "linux/amd64"}}
with_values = {{"--kubeconfig", "--context", "--cache-dir", "-n", "--request-timeout", "-l",
               "--field-selector", "-o", "-p", "-f"}}
verb, skip = None, False
for arg in args:
    if skip:
        skip = False
    elif arg in with_values:
        skip = True
    elif not arg.startswith("-"):
        verb = verb or arg
for arg in args:
    if arg.split("=")[0] in UNKNOWN or arg in UNKNOWN:
        sys.stderr.write(f"Error: unknown flag: {{arg.split('=')[0]}}\\n"
                         f"See 'kubectl {{verb}} --help' for usage.\\n")
        sys.exit(1)
if verb == "version":
    if "--client" in args:
        print(json.dumps({{"clientVersion": client}}, indent=2))
        sys.exit(0)
    real = subprocess.run([REAL, *args], capture_output=True, text=True)
    if real.returncode:
        sys.stderr.write(real.stderr)
        sys.exit(real.returncode)
    document = json.loads(real.stdout)
    document["clientVersion"] = client
    print(json.dumps(document, indent=2))
    sys.exit(0)
os.execv(REAL, [REAL, *args])
"""

# kubectl 1.16 knew neither of these (kubernetes#96878: 1.21; kubernetes#93384: 1.20).
UNKNOWN_IN_1_16 = ["--show-managed-fields", "--cascade"]


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    with FakeCluster(tmp_path_factory.mktemp("versions") / "fake") as cluster:
        yield cluster


def kubectl_of(tmp: Path, release: str, unknown: list[str]) -> str:
    real = shutil.which("kubectl")
    assert real is not None
    body = STUB.format(real=real, release=release, unknown=unknown)
    path = tmp / f"kubectl-{release}"
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return str(path)


def spec(name: str) -> str:
    return json.dumps({"containerId": name, "nodeId": "7", "hostname": name,
                       "image": "nginx:latest", "cpus": 0.1, "memoryMb": 64})  # fmt: skip


def check(fake: FakeCluster, tmp: Path, kubectl: str) -> dict[str, Any]:
    return timed_cli(fake, tmp / "cache", "--kubectl", kubectl, "check")


def test_check_fails_on_a_kubectl_older_than_the_adapters_flags(
    fake: FakeCluster, tmp_path: Path
) -> None:
    result = check(fake, tmp_path, kubectl_of(tmp_path, "1.16.15", UNKNOWN_IN_1_16))
    doc = result["doc"]
    assert (result["code"], doc["ok"]) == (9, False), result
    assert doc["clientVersion"] == "v1.16.15", doc
    assert doc["serverVersion"].startswith("v1.32"), doc
    assert doc["supportedKubectl"] == "v1.31 to v1.33", doc
    problems = " ".join(doc["kubectlProblems"])
    assert "v1.16 is older than v1.21" in problems, problems
    assert "--show-managed-fields" in problems, problems
    assert "version skew" in problems, problems


def test_check_fails_on_a_kubectl_outside_the_skew_policy(
    fake: FakeCluster, tmp_path: Path
) -> None:
    """Every flag known (1.29 has them all), but three minors from the 1.32 server."""
    result = check(fake, tmp_path, kubectl_of(tmp_path, "1.29.3", []))
    doc = result["doc"]
    assert (result["code"], doc["ok"]) == (9, False), result
    assert doc["kubectlProblems"] == [
        "kubectl v1.29 is more than 1 minor version from the API server's v1.32 "
        "(kubectl's version skew policy)"
    ], doc


@pytest.mark.parametrize("release", ["1.31.0", "1.33.1"])
def test_check_passes_within_the_range(fake: FakeCluster, tmp_path: Path, release: str) -> None:
    result = check(fake, tmp_path, kubectl_of(tmp_path, release, []))
    assert (result["code"], result["doc"]["ok"]) == (0, True), result
    assert result["doc"]["kubectlProblems"] == [], result


@pytest.mark.parametrize("command", ["list", "status", "stop", "create", "delete"])
def test_an_unknown_flag_is_configuration_naming_the_version(
    fake: FakeCluster, tmp_path: Path, command: str
) -> None:
    name = f"old-{command}"
    if command != "create":
        created = timed_cli(fake, tmp_path / "c0", "create", "--spec", "-", stdin=spec(name))
        assert created["code"] == 0, created
    args = {
        "list": ["list"],
        "create": ["create", "--spec", "-"],
    }.get(command, [command, f"default/{name}"])
    old = kubectl_of(tmp_path, "1.16.15", UNKNOWN_IN_1_16)
    result = timed_cli(
        fake, tmp_path / "c1", "--kubectl", old, *args,
        stdin=spec(name) if command == "create" else None,
    )  # fmt: skip
    assert result["code"] == 9, result
    error = result["doc"]["error"]
    assert error["type"] == "ConfigurationError", error
    # Named by its path, from the error text alone: classifying starts no process of its own
    # (issue 38); ``check`` says its version.
    assert error["message"].startswith(f"kubectl at {old}: "), error
    assert f"v{OLDEST_KUBECTL[0]}.{OLDEST_KUBECTL[1]} or newer" in error["message"], error
    assert error["details"]["kubectl"] == old, error
