"""The adapter beside what an operator types by hand, and beside the official Python client.

One fake cluster (TCP_NODELAY), one workload lifecycle per way and round, the three ways
interleaved round by round so a burst of load on this shared machine hits each alike:

* adapter: ``kubectl-adapter OP`` as Manager runs it (a fresh interpreter per command), the
  way the shipped launcher starts it (``packaging/manager/bin/kubectl-adapter``: ``python3 -S
  -P -m kubectl_adapter``, the package and its dependencies on ``PYTHONPATH``): no ``site``,
  so none of the development venv's ``.pth`` files run, whose editable-install import hook
  alone imports ``pathlib`` and some 25 modules before the adapter's first line. ``site=True``
  (``--with-site``) measures it as ``.venv/bin/python -m kubectl_adapter`` starts instead;
* by hand: the fewest kubectl commands an operator types for the same job and the same wait
  (``apply`` + ``rollout status``, ``scale`` + ``wait --for=delete``, ``delete --wait``…);
* python client: the official ``kubernetes`` package in one process, with a watch, when it
  is installed (an optional peer: ``pip install kubernetes``; not a dependency).

Processes are counted by a kubectl wrapper that logs each run; HTTP requests by the fake.
Both kubectl ways use one warm ``--cache-dir`` each, as an operator's and Manager's do.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubectl_adapter.contract.naming import CONTAINER_ID_LABEL, MANAGED_LABEL, identity_labels
from kubectl_adapter.contract.naming import selector_string as _selector
from kubectl_adapter.contract.spec import parse_spec
from kubectl_adapter.rules.render import render_manifest
from tests.fakecluster import FakeCluster

OPS = ("create", "status", "list", "stop", "start", "reconfigure", "delete")
# The fake's Pods: ready this long after they start, gone this long after their deletion
# (issue 38's budget is stated for these).
POD_READY_SECONDS = 0.3
POD_GONE_SECONDS = 0.2
NS = "default"

Sample = dict[str, tuple[float, int, int]]  # op -> (seconds, kubectl processes, requests)


def _spec(name: str, env: str = "value") -> dict[str, Any]:
    return {
        "containerId": f"c-{name}",
        "nodeId": "7",
        "hostname": name,
        "image": "nginx:latest",
        "cpus": 0.05,
        "memoryMb": 64,
        "env": {"KEY": env},
    }


class Ways:
    def __init__(self, fc: FakeCluster, work: Path, root: Path, site: bool = False) -> None:
        self.fc = fc
        self.root = root
        self.log = work / "kubectl-calls.log"
        real = shutil.which("kubectl") or "kubectl"
        self.kubectl = work / "bin" / "kubectl"
        self.kubectl.parent.mkdir(parents=True, exist_ok=True)
        self.kubectl.write_text(
            f'#!/bin/sh\necho x >> {shlex.quote(str(self.log))}\nexec {shlex.quote(real)} "$@"\n'
        )
        self.kubectl.chmod(0o755)
        conn = ["--kubeconfig", str(fc.kubeconfig), "--context", fc.context]
        python = [sys.executable] if site else [sys.executable, "-S", "-P"]
        self.adapter = [
            *python,
            "-m",
            "kubectl_adapter",
            *conn,
            "-n",
            NS,
            "--cache-dir",
            str(work / "cache-adapter"),
            "--kubectl",
            str(self.kubectl),
            "--node-id",
            "7",
        ]
        self.hand = [str(self.kubectl), *conn, "-n", NS, "--cache-dir", str(work / "cache-hand")]
        # Bytecode caches kept, as an installed package has them (see run.py's ENV).
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        # Without site, the package is a tree as the launcher's (installed, not the editable
        # hook: templates/ is the package's kubectl_adapter.templates only once installed),
        # and its dependencies (jinja2, msgspec...) the venv's, on PYTHONPATH after it.
        paths = [str(root)] if site else [_installed_tree(root, work), *_dependency_paths()]
        self.env = {**environ, "PYTHONPATH": os.pathsep.join(paths)}
        self.client: Any = _python_client(fc)

    # -- measuring ------------------------------------------------------------------------

    def _measure(self, run: Callable[[], None]) -> tuple[float, int, int]:
        self.log.write_text("")
        requests = len(self.fc.requests)
        started = time.perf_counter()
        run()
        seconds = time.perf_counter() - started
        processes = len(self.log.read_text().split())
        return seconds, processes, len(self.fc.requests) - requests

    def _sh(self, argv: list[str], stdin: str | None = None) -> str:
        proc = subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
            cwd=self.root,
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{shlex.join(argv[-6:])}: {proc.stdout[-500:]} {proc.stderr[-800:]}"
            )
        return proc.stdout

    # -- the three ways -------------------------------------------------------------------

    def adapter_lifecycle(self, name: str) -> Sample:
        pid = f"{NS}/{name}"
        steps: dict[str, tuple[list[str], str | None]] = {
            "create": (["create", "--spec", "-"], json.dumps(_spec(name))),
            "status": (["status", pid], None),
            "list": (["list"], None),
            "stop": (["stop", pid], None),
            "start": (["start", pid], None),
            "reconfigure": (["reconfigure", pid, "--spec", "-"], json.dumps(_spec(name, "new"))),
            "delete": (["delete", pid], None),
        }
        return {
            op: self._measure(lambda a=args, s=stdin: self._sh([*self.adapter, *a], s))  # type: ignore[misc]
            for op, (args, stdin) in steps.items()
        }

    def hand_lifecycle(self, name: str) -> Sample:
        k = self.hand
        sel = _selector(identity_labels(f"c-{name}"))
        read = [*k, "get", "deployments,replicasets,pods", "-o", "json", "-l"]
        manifest = render_manifest(parse_spec(_spec(name)), NS)
        changed = render_manifest(parse_spec(_spec(name, "new")), NS)
        apply = [
            *k,
            "apply",
            "--server-side",
            "--field-manager=opensource-server-manager",
            "--force-conflicts",
            "-f",
            "-",
        ]
        rollout = [*k, "rollout", "status", f"deployment/{name}", "--timeout=60s"]
        steps: dict[str, list[tuple[list[str], str | None]]] = {
            "create": [(apply, manifest), (rollout, None)],
            "status": [([*read, sel], None)],
            "list": [([*read, f"{MANAGED_LABEL}=true"], None)],
            "stop": [
                ([*k, "scale", f"deployment/{name}", "--replicas=0"], None),
                ([*k, "wait", "--for=delete", "pod", "-l", sel, "--timeout=60s"], None),
            ],
            "start": [([*k, "scale", f"deployment/{name}", "--replicas=1"], None), (rollout, None)],
            "reconfigure": [(apply, changed), (rollout, None)],
            "delete": [
                (
                    [
                        *k,
                        "delete",
                        "deployment",
                        name,
                        "--cascade=foreground",
                        "--wait=true",
                        "--timeout=60s",
                    ],
                    None,
                )
            ],
        }

        def run(commands: list[tuple[list[str], str | None]]) -> None:
            for argv, stdin in commands:
                self._sh(argv, stdin)

        return {op: self._measure(lambda c=commands: run(c)) for op, commands in steps.items()}  # type: ignore[misc]

    def client_lifecycle(self, name: str) -> Sample | None:
        if self.client is None:
            return None
        c = self.client
        body = _manifest_dict(render_manifest(parse_spec(_spec(name)), NS))
        changed = _manifest_dict(render_manifest(parse_spec(_spec(name, "new")), NS))
        sel = f"{CONTAINER_ID_LABEL}=c-{name}"
        steps: dict[str, Callable[[], None]] = {
            "create": lambda: (c.create(body), c.until(name, c.complete)),
            "status": lambda: c.status(name, sel),
            "list": c.list_all,
            "stop": lambda: (c.scale(name, 0), c.until(name, c.stopped)),
            "start": lambda: (c.scale(name, 1), c.until(name, c.complete)),
            "reconfigure": lambda: (c.apply(name, changed), c.until(name, c.complete)),
            "delete": lambda: (c.delete(name), c.until(name, None)),
        }  # type: ignore[dict-item]
        return {op: self._measure(run) for op, run in steps.items()}


def _installed_tree(root: Path, work: Path) -> str:
    """The package as an install lays it out (``pyproject.toml``'s package-dir: templates/ is
    ``kubectl_adapter.templates``), copied into a tree of its own, as ``make -C
    packaging/manager build`` assembles it; its bytecode is compiled at the first command."""
    tree = work / "tree"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(root / "kubectl_adapter", tree / "kubectl_adapter", ignore=skip)
    shutil.copytree(root / "templates", tree / "kubectl_adapter" / "templates", ignore=skip)
    return str(tree)


def _dependency_paths() -> list[str]:
    """Where this interpreter's packages are (the venv's site-packages), for ``-S``."""
    import sysconfig

    found = sysconfig.get_paths()
    return list(dict.fromkeys([found["purelib"], found["platlib"]]))


def _manifest_dict(text: str) -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def _python_client(fc: FakeCluster) -> Any:
    try:
        from kubernetes import client, config, watch  # type: ignore[import-untyped]
    except ImportError:
        return None

    api = config.new_client_from_config(config_file=str(fc.kubeconfig), context=fc.context)
    apps, core = client.AppsV1Api(api), client.CoreV1Api(api)

    class PythonClient:
        @staticmethod
        def create(body: dict[str, Any]) -> None:
            apps.create_namespaced_deployment(NS, body)

        @staticmethod
        def apply(name: str, body: dict[str, Any]) -> None:
            apps.patch_namespaced_deployment(name, NS, body)

        @staticmethod
        def scale(name: str, replicas: int) -> None:
            apps.patch_namespaced_deployment_scale(name, NS, {"spec": {"replicas": replicas}})

        @staticmethod
        def delete(name: str) -> None:
            apps.delete_namespaced_deployment(name, NS, propagation_policy="Foreground")

        @staticmethod
        def status(name: str, sel: str) -> None:
            apps.read_namespaced_deployment(name, NS)
            apps.list_namespaced_replica_set(NS, label_selector=sel)
            core.list_namespaced_pod(NS, label_selector=sel)

        @staticmethod
        def list_all() -> None:
            sel = f"{MANAGED_LABEL}=true"
            apps.list_namespaced_deployment(NS, label_selector=sel)
            apps.list_namespaced_replica_set(NS, label_selector=sel)
            core.list_namespaced_pod(NS, label_selector=sel)

        @staticmethod
        def complete(d: Any) -> bool:
            s, want = d.status, d.spec.replicas or 0
            return bool(
                (s.observed_generation or 0) >= d.metadata.generation
                and (s.updated_replicas or 0) >= want
                and (s.replicas or 0) <= (s.updated_replicas or 0)
                and (s.available_replicas or 0) >= (s.updated_replicas or 0)
            )

        @staticmethod
        def stopped(d: Any) -> bool:
            s = d.status
            return bool((s.observed_generation or 0) >= d.metadata.generation and not s.replicas)

        @staticmethod
        def until(name: str, done: Callable[[Any], bool] | None) -> None:
            """Watch the Deployment until ``done`` (None: until it is deleted)."""
            w = watch.Watch()
            for event in w.stream(
                apps.list_namespaced_deployment,
                NS,
                field_selector=f"metadata.name={name}",
                timeout_seconds=60,
            ):
                gone = event["type"] == "DELETED"
                if (done is None and gone) or (
                    done is not None and not gone and done(event["object"])
                ):
                    w.stop()
                    return
            if (
                done is None
                and not apps.list_namespaced_deployment(
                    NS, field_selector=f"metadata.name={name}"
                ).items
            ):
                return
            raise RuntimeError(f"python client: {name} did not get there in 60 s")

    return PythonClient()


def compare(work: Path, root: Path, rounds: int, *, site: bool = False) -> dict[str, Any]:
    """Medians per operation and way, and of the whole lifecycle, over ``rounds`` rounds."""
    samples: dict[str, list[Sample]] = {"adapter": [], "hand": [], "client": []}
    work = work / "compare"
    work.mkdir()
    with FakeCluster(
        work / "fake-compare",
        namespaces=(NS,),
        pod_ready_delay=POD_READY_SECONDS,
        termination_delay=POD_GONE_SECONDS,
    ) as fc:
        ways = Ways(fc, work, root, site)
        # Warm both caches (discovery, the dispatcher's /version) as a working node has them.
        ways._sh([*ways.adapter, "list"])
        ways._sh([*ways.hand, "get", "deployments"])
        for r in range(rounds):
            samples["adapter"].append(ways.adapter_lifecycle(f"ad-{r}"))
            samples["hand"].append(ways.hand_lifecycle(f"hd-{r}"))
            py = ways.client_lifecycle(f"py-{r}")
            if py is not None:
                samples["client"].append(py)
    result: dict[str, Any] = {"rounds": rounds, "client": bool(samples["client"])}
    for way, runs in samples.items():
        if not runs:
            continue
        table: dict[str, tuple[float, int, int]] = {}
        for op in (*OPS, "lifecycle"):
            if op == "lifecycle":
                seconds = statistics.median(sum(run[o][0] for o in OPS) for run in runs)
                procs = statistics.median(sum(run[o][1] for o in OPS) for run in runs)
                reqs = statistics.median(sum(run[o][2] for o in OPS) for run in runs)
            else:
                seconds = statistics.median(run[op][0] for run in runs)
                procs = statistics.median(run[op][1] for run in runs)
                reqs = statistics.median(run[op][2] for run in runs)
            table[op] = (seconds, int(procs), int(reqs))
        result[way] = table
    return result


def report(result: dict[str, Any]) -> list[str]:
    client = result["client"]
    lines = [
        "| op | adapter s | by hand s | ratio | kubectl processes adapter / by hand | "
        "HTTP requests adapter / by hand"
        + (" / python client | python client s |" if client else " |"),
        "|---|---|---|---|---|---" + ("|---|" if client else "|"),
    ]
    for op in (*OPS, "lifecycle"):
        a, h = result["adapter"][op], result["hand"][op]
        row = (
            f"| {'whole lifecycle' if op == 'lifecycle' else op} | {a[0]:.2f} | {h[0]:.2f} | "
            f"{a[0] / h[0]:.2f} | {a[1]} / {h[1]} | {a[2]} / {h[2]}"
        )
        if client:
            p = result["client"][op]
            row += f" / {p[2]} | {p[0]:.2f} |"
        else:
            row += " |"
        lines.append(row)
    return lines
