"""The full lifecycle demo: check, create, status, list, stop, start, reconfigure, network,
delete — each step through the real CLI and the real kubectl.

Without a kubeconfig it starts the project's fake API server (tests/fakecluster) and points
kubectl at it. With ``--kubeconfig``, ``--context`` or ``$KUBECONFIG`` it runs against that
cluster instead, in ``-n NAMESPACE`` (default ``default``). It says on stderr which cluster
and namespace it uses, and stops at the first failure, printing the whole error document
(or ``check``'s report when the cluster is not ready) and exiting non-zero.

    ./dev demo                                    # built-in fake cluster
    ./dev demo --context kind-manager-e2e -n default
    KUBECONFIG=~/.kube/kind ./dev demo -n manager
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class DemoFailed(Exception):
    """A step failed: the message says which and why; ``code`` is the demo's exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kubeconfig", help="run against this cluster instead of the fake")
    parser.add_argument("--context", help="kubeconfig context (implies a real cluster)")
    parser.add_argument("-n", "--namespace", default=None, help="namespace (default: default)")
    parser.add_argument("--timeout", default="120", help="bound on each wait, seconds")
    parser.add_argument("--request-timeout", default=None, help="kubectl --request-timeout")
    parser.add_argument("--call-timeout", default=None, help="bound on each non-wait call")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except DemoFailed as exc:
        print(f"demo stopped: {exc}", file=sys.stderr)
        return exc.code


def run(args: argparse.Namespace) -> int:
    env_kubeconfig = os.environ.get("KUBECONFIG")
    real = bool(args.kubeconfig or args.context or env_kubeconfig)
    namespace = args.namespace or "default"
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="adapter-demo-")))
        if real:
            kubeconfig, context = args.kubeconfig, args.context
            source = (
                f"--kubeconfig {kubeconfig}"
                if kubeconfig
                else f"$KUBECONFIG={env_kubeconfig}"
                if env_kubeconfig
                else "~/.kube/config"
            )
            where = f"the cluster of {source}, context {context or '(current)'}"
        else:
            sys.path.insert(0, str(ROOT))
            from tests.fakecluster import FakeCluster

            cluster = stack.enter_context(
                FakeCluster(work / "cluster", namespaces=("default", namespace))
            )
            kubeconfig, context = str(cluster.kubeconfig), cluster.context
            where = f"the built-in fake API server at {cluster.server_url}"
        print(f"demo: using {where}, namespace {namespace}", file=sys.stderr)
        print(f"== kubectl-adapter lifecycle demo against {where}, namespace {namespace}\n")
        base = [sys.executable, "-m", "kubectl_adapter", "-n", namespace, "--node-id", "7"]
        base += ["--timeout", args.timeout, "--cache-dir", str(work / "kubectl-cache")]
        if args.request_timeout:
            base += ["--request-timeout", args.request_timeout]
        if args.call_timeout:
            base += ["--call-timeout", args.call_timeout]
        if kubeconfig:
            base += ["--kubeconfig", kubeconfig]
        if context:
            base += ["--context", context]
        for number, (title, command, stdin) in enumerate(_steps(namespace), 1):
            code, doc = _step(base, number, title, command, stdin)
            if command == ["check"] and (code != 0 or not doc.get("ok")):
                print(json.dumps(doc, indent=2))
                raise DemoFailed(
                    f"step {number}, check: the cluster is not ready for the adapter "
                    f"(namespace {namespace} exists: {doc.get('namespaceExists')}, missing "
                    f"permissions: {doc.get('missingPermissions')}); nothing was changed",
                    code or 1,
                )
        print("== done: created, stopped, started, reconfigured twice and deleted.")
    return 0


def _steps(namespace: str) -> list[tuple[str, list[str], dict[str, Any] | None]]:
    spec = json.loads((ROOT / "examples" / "nginx.json").read_text())
    pid = f"{namespace}/{spec['hostname']}"
    changed_env = spec | {"env": {**spec["env"], "GREETING": "hello"}}
    resized = changed_env | {"cpus": 0.5, "memoryMb": 512}
    return [
        ("validate the API connection", ["check"], None),
        ("create nginx:latest", ["create", "--spec", "-"], spec),
        ("status", ["status", pid], None),
        ("list this node's containers", ["list"], None),
        ("stop", ["stop", pid], None),
        ("start", ["start", pid], None),
        ("change an environment variable", ["reconfigure", pid, "--spec", "-"], changed_env),
        ("change CPU and memory", ["reconfigure", pid, "--spec", "-"], resized),
        ("read the (ephemeral) Pod IP; MAC is null", ["network", pid], None),
        ("delete", ["delete", pid], None),
        ("status after delete", ["status", pid], None),
    ]


def _step(
    base: list[str], number: int, title: str, command: list[str], stdin: dict[str, Any] | None
) -> tuple[int, dict[str, Any]]:
    """Run one CLI command: its exit code and JSON document, or DemoFailed showing the error
    document. A ``check`` report comes back whatever its exit code (the caller judges it)."""
    started = time.monotonic()
    result = subprocess.run(
        [*base, *command],
        input=json.dumps(stdin) if stdin else None,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    elapsed = time.monotonic() - started
    print(
        f"-- {number}. {title}: kubectl-adapter {' '.join(command)}  "
        f"(exit {result.returncode}, {elapsed:.1f}s)"
    )
    try:
        doc = json.loads(result.stdout)
    except json.JSONDecodeError:
        doc = None
    report = isinstance(doc, dict) and command == ["check"] and "ok" in doc
    if not isinstance(doc, dict) or "error" in doc or (result.returncode != 0 and not report):
        # The whole error document: its type, message and details are the point of a failure.
        print(json.dumps(doc, indent=2) if doc is not None else result.stdout)
        sys.stderr.write(result.stderr)
        kind = doc["error"]["type"] if isinstance(doc, dict) and "error" in doc else "no JSON"
        raise DemoFailed(f"step {number}, {title}: {kind}", result.returncode or 1)
    print(_summary(doc))
    return result.returncode, doc


def _summary(doc: dict[str, Any]) -> str:
    """The interesting fields of each result, one line."""
    if "items" in doc:
        return "   " + "; ".join(f"{i['providerId']} {i['status']}" for i in doc["items"])
    keys = (
        "providerId",
        "status",
        "message",
        "podIp",
        "macAddress",
        "replicas",
        "image",
        "cpus",
        "memoryMb",
        "deleted",
        "alreadyMissing",
        "ok",
        "serverVersion",
        "missingPermissions",
        "ephemeral",
    )
    return "   " + json.dumps({k: doc[k] for k in keys if k in doc})


if __name__ == "__main__":
    sys.exit(main())
