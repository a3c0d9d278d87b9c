"""`python -m tests.fakecluster [--dir DIR] [--port N]`: serve until SIGTERM/SIGINT.

The first stdout line is the kubeconfig path, the second `context=<name>`.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from pathlib import Path

from .cluster import FakeCluster


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fakecluster")
    p.add_argument("--dir", type=Path, default=None, help="where to write the kubeconfig")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--namespace", action="append", default=None, help="namespaces to create")
    p.add_argument("--default-namespace", default="default")
    p.add_argument("--pod-ready-delay", type=float, default=1.0)
    p.add_argument("--termination-delay", type=float, default=0.5)
    p.add_argument("--rbac", type=Path, action="append", default=[], help="RBAC YAML to load")
    args = p.parse_args(argv)
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="fakecluster-"))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    namespaces = args.namespace or ["default"]
    with FakeCluster(
        workdir,
        namespaces=namespaces,
        default_namespace=args.default_namespace,
        port=args.port,
        pod_ready_delay=args.pod_ready_delay,
        termination_delay=args.termination_delay,
    ) as fc:
        for path in args.rbac:
            fc.load_rbac(path)
        print(fc.kubeconfig, flush=True)
        print(f"context={fc.context}", flush=True)
        print(f"server={fc.server_url}", flush=True)
        while not stop.wait(1.0):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
