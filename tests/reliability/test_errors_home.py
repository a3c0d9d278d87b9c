"""``~/.kube`` that kubectl cannot look into (issue 26): with an explicit kubeconfig
(``--kubeconfig`` or ``$KUBECONFIG``) every command works, end to end with the real kubectl.

The Cloud SDK kubectl stats ``$HOME/.kube/config`` even when it was given a kubeconfig, and
fails on anything but "no such file": ``~/.kube`` a regular file ("not a directory"), a
symlink loop ("too many levels of symbolic links"). No ``--cache-dir`` is passed: kubectl's
default cache lives in ``~/.kube/cache``, which is just as unusable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, Cluster, Result, spec


def _regular_file(home: Path) -> None:
    (home / ".kube").write_text("not a directory\n")


def _symlink_loop(home: Path) -> None:
    (home / ".kube").symlink_to(home / ".kube")


HOMES: dict[str, Callable[[Path], None]] = {"file": _regular_file, "loop": _symlink_loop}


def _adapter(
    cluster: Cluster, home: Path, route: str, *args: str, stdin: str | None = None
) -> Result:
    """The CLI as a process under ``home``, told its kubeconfig by ``route`` alone."""
    fake = cluster.require_fake()
    env = {**os.environ, "HOME": str(home)}
    env.pop("KUBECONFIG", None)
    flags = ["--timeout", "30"]
    if route == "--kubeconfig":
        flags += ["--kubeconfig", str(fake.kubeconfig)]
    else:
        env["KUBECONFIG"] = str(fake.kubeconfig)
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", *flags, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
        env=env,
        check=False,
    )
    out = proc.stdout
    doc = json.loads(out) if out.strip() and not out.startswith("apiVersion") else out
    return Result(proc.returncode, doc, proc.stderr)


@pytest.mark.parametrize("kind", sorted(HOMES))
@pytest.mark.parametrize("route", ["--kubeconfig", "$KUBECONFIG"])
def test_every_command_works_when_kubectl_cannot_look_into_dot_kube(
    cluster: Cluster, tmp_path: Path, kind: str, route: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    HOMES[kind](home)
    name, cid = cluster.workload(f"home-{kind}")
    pid = f"testns/{name}"
    the_spec = json.dumps(spec(name, cid))

    def ok(*args: str, stdin: str | None = None) -> Result:
        result = _adapter(cluster, home, route, *args, stdin=stdin)
        assert result.code == 0, (args, result)
        return result

    # Without -n: the context's namespace is read from the given kubeconfig (testns).
    rendered = ok("render", "--spec", "-", stdin=the_spec)
    assert 'namespace: "testns"' in rendered.doc, rendered.doc
    assert ok("check").doc["ok"] is True
    assert ok("nodes").doc["items"]
    assert ok("create", "--spec", "-", stdin=the_spec).doc["status"] == "running"
    assert ok("status", pid).doc["status"] == "running"
    assert ok("network", pid).doc["ipv4Address"]
    assert name in {item["name"] for item in ok("list").doc["items"]}
    assert ok("stop", pid).doc["status"] == "offline"
    assert ok("start", pid).doc["status"] == "running"
    changed = json.dumps(spec(name, cid, env={"KEY": "changed"}))
    assert ok("reconfigure", pid, "--spec", "-", stdin=changed).doc["status"] == "running"
    assert ok("delete", pid).doc["deleted"] is True
    assert cluster.deployment(name) is None
    # What was in the way is left as it was.
    assert (home / ".kube").is_symlink() or (home / ".kube").read_text() == "not a directory\n"


def test_without_a_kubeconfig_the_error_names_the_one_looked_for(
    cluster: Cluster, tmp_path: Path
) -> None:
    """No explicit kubeconfig and ``~/.kube`` a file: there is no kubeconfig, and the error
    says which one was looked for (ConfigurationError, exit 9), never a connection attempt
    that looks like an outage."""
    home = tmp_path / "home"
    home.mkdir()
    _regular_file(home)
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "status", "testns/x"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
        check=False,
    )
    doc = json.loads(proc.stdout)
    assert (proc.returncode, doc["error"]["type"]) == (9, "ConfigurationError"), doc
    assert doc["error"]["details"]["kubeconfig"].startswith(f"{home}/.kube/config"), doc
