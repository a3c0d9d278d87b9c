"""The full lifecycle demo: check, create, status, list, stop, start, reconfigure, network,
delete — each step through the real CLI and the real kubectl.

Without a kubeconfig it starts the project's fake API server (tests/fakecluster) and points
kubectl at it; with ``--kubeconfig``/``--context`` it runs against that cluster instead.

    ./dev demo                                    # built-in fake cluster
    ./dev demo --context kind-manager-e2e -n default
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubeconfig", help="run against this cluster instead of the fake")
    parser.add_argument("--context")
    parser.add_argument("-n", "--namespace", default=None)
    parser.add_argument("--timeout", default="120")
    args = parser.parse_args()

    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="adapter-demo-")))
        if args.kubeconfig or args.context:
            kubeconfig, context = args.kubeconfig, args.context
            namespace = args.namespace or "default"
            where = f"context {context or '(current)'}"
        else:
            sys.path.insert(0, str(ROOT))
            from tests.fakecluster import FakeCluster

            cluster = stack.enter_context(FakeCluster(work / "cluster"))
            kubeconfig, context, namespace = str(cluster.kubeconfig), cluster.context, "default"
            where = f"the built-in fake API server at {cluster.server_url}"
        print(f"== kubectl-adapter lifecycle demo against {where}, namespace {namespace}\n")
        base = [
            sys.executable,
            "-m",
            "kubectl_adapter",
            "-n",
            namespace,
            "--node-id",
            "7",
            "--timeout",
            args.timeout,
            "--cache-dir",
            str(work / "kubectl-cache"),
        ]
        if kubeconfig:
            base += ["--kubeconfig", kubeconfig]
        if context:
            base += ["--context", context]
        spec = json.loads((ROOT / "examples" / "nginx.json").read_text())
        pid = f"{namespace}/{spec['hostname']}"
        changed_env = spec | {"env": {**spec["env"], "GREETING": "hello"}}
        resized = changed_env | {"cpus": 0.5, "memoryMb": 512}
        steps: list[tuple[str, list[str], dict[str, Any] | None]] = [
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
        for number, (title, command, stdin) in enumerate(steps, 1):
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
            print(_summary(result.stdout))
            if result.returncode != 0:
                sys.stderr.write(result.stderr)
                print("demo failed", file=sys.stderr)
                return result.returncode
        print("== done: created, stopped, started, reconfigured twice and deleted.")
    return 0


def _summary(stdout: str) -> str:
    """The interesting fields of each result, one line."""
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError:
        return stdout
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
