"""`python -m tests.fakecluster [--dir DIR] [--port N] ...`: serve until SIGTERM/SIGINT.

Line 1 of stdout is the kubeconfig path, line 2 `context=<name>`, line 3 `server=<url>`.
The delays default to FakeCluster's (the demo's and the tests'); `--help` shows them.
`./dev cluster` runs this in the background for the README's Quick use (see background.py).
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from pathlib import Path

from .cluster import DEFAULT_POD_READY_DELAY, DEFAULT_TERMINATION_DELAY, FakeCluster


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m tests.fakecluster",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--dir", type=Path, default=None, help="where to write the kubeconfig")
    p.add_argument("--port", type=int, default=0, help="0: any free port")
    p.add_argument(
        "--namespace", action="append", default=None, help="namespaces to create (repeatable)"
    )
    p.add_argument("--default-namespace", default="default", help="the context's namespace")
    p.add_argument(
        "--pod-ready-delay",
        type=float,
        default=DEFAULT_POD_READY_DELAY,
        help="seconds from a Pod's scheduling to its containers running",
    )
    p.add_argument(
        "--termination-delay",
        type=float,
        default=DEFAULT_TERMINATION_DELAY,
        help="seconds a deleted Pod takes to go",
    )
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
        while not stop.wait(1.0):  # a timed wait: signal handlers run between waits
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
