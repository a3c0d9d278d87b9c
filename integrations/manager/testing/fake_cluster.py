"""The project's fake Kubernetes API server with a JSON-lines control channel, for node tests.

Started by testing/cluster.js as ``python fake_cluster.py --dir DIR --namespace NS``. Prints
one JSON line ``{"kubeconfig": ..., "context": ...}`` when ready, then answers one JSON line
per request line on stdin until stdin closes:

    {"op": "failNext", "count": 3, "code": 500, "method": "DELETE", "pathRegex": "deployments"}
    {"op": "clearFaults"}
    {"op": "deployments"}            -> {"ok": true, "items": ["ns/name", ...]} (all namespaces)
    {"op": "deploymentUid", "namespace": "ns", "name": "web"} -> {"ok": true, "uid": ... or null}
    {"op": "down"} / {"op": "up"}    stop listening (connection refused) / listen again
    {"op": "downAfter", "method": "PATCH", "pathRegex": "deployments/web$"}
                                     the API goes down right after the next matching request
                                     is answered (e.g. kubectl apply's)
    {"op": "addUser", "name": "bob", "namespace": "ns"} -> {"ok": true, "token", "context"}
                                     a user with no RBAC, and a context for it in the kubeconfig
    {"op": "revokeToken", "token": "..."}   that token is refused (401) from now on
    {"op": "imageBehaviour", "image": "restore-crash", "behaviour": "crash"}
                                     Pods made from now on whose image contains that text
                                     behave so ("crash", "pull_error", ...; null: as usual)
    {"op": "stopDelay", "image": "slow-stop", "seconds": 4}
                                     containers whose image contains that text take that long
                                     to stop once their Pod is deleted (null: as usual)
    {"op": "wrongCaKubeconfig", "path": "/tmp/x"}
                                     write a copy of the kubeconfig whose CA did not sign the
                                     server's certificate (kubectl: x509 unknown authority)
    {"op": "seed", "namespace": "ns", "count": 1000, "nodeId": "7"}
                                     that many Manager Deployments (w-0000, ...) written straight
                                     to the store, as the adapter would render them (benchmarks)
    {"op": "ready", "namespace": "ns"} -> {"ok": true, "ready": N}  Pods Ready in the namespace
    {"op": "scale", "namespace": "ns", "name": "w-0001", "replicas": 0}
                                     a change made in the API server (as kubectl scale would)

``--node-cpu``/``--node-memory`` size the one fake node (default 4 CPUs, 8Gi);
``--pod-ready-delay`` is how long a new Pod takes to be Ready (default 0.2 s).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import threading
from pathlib import Path
from typing import Any

import trustme
import yaml

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.fakecluster import FakeCluster  # noqa: E402


def answer(fc: FakeCluster, request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "failNext":
        fc.fail_next(
            int(request["count"]),
            int(request["code"]),
            method=request.get("method"),
            path_regex=request.get("pathRegex"),
        )
        return {"ok": True}
    if op == "clearFaults":
        fc.clear_faults()
        return {"ok": True}
    if op == "down":
        fc.down()
        return {"ok": True}
    if op == "up":
        fc.up()
        return {"ok": True}
    if op == "downAfter":
        # From a thread: the hook runs on the request's own server thread, which down() joins.
        fc.on_request(
            after=lambda: threading.Thread(target=fc.down, daemon=True).start(),
            method=request.get("method"),
            path_regex=request.get("pathRegex"),
        )
        return {"ok": True}
    if op == "addUser":
        token = fc.add_user(request["name"])
        context = fc.add_user_context(request["name"], token, namespace=request.get("namespace"))
        return {"ok": True, "token": token, "context": context}
    if op == "revokeToken":
        fc.revoke_token(request["token"])
        return {"ok": True}
    if op == "imageBehaviour":
        fc.set_image_behaviour(request["image"], request.get("behaviour"))
        return {"ok": True}
    if op == "stopDelay":
        fc.set_stop_delay(request["image"], request.get("seconds"))
        return {"ok": True}
    if op == "wrongCaKubeconfig":
        config = yaml.safe_load(Path(fc.kubeconfig).read_text(encoding="utf-8"))
        other = base64.b64encode(trustme.CA().cert_pem.bytes()).decode()
        for cluster in config["clusters"]:
            cluster["cluster"]["certificate-authority-data"] = other
        Path(request["path"]).write_text(yaml.safe_dump(config), encoding="utf-8")
        return {"ok": True}
    if op == "deploymentUid":
        found = fc.get("deployments", request["namespace"], request["name"])
        return {"ok": True, "uid": found["metadata"]["uid"] if found else None}
    if op == "deployments":
        items = [
            f"{d['metadata']['namespace']}/{d['metadata']['name']}" for d in fc.list("deployments")
        ]
        return {"ok": True, "items": sorted(items)}
    if op in ("seed", "ready", "scale"):
        return _bench(fc, request)
    return {"ok": False, "error": f"unknown op {op!r}"}


MANAGER = "opensource-server-manager"


def _bench(fc: FakeCluster, request: dict[str, Any]) -> dict[str, Any]:
    """The benchmark's ops: many workloads at once, their readiness, one change."""
    namespace = request["namespace"]
    if request["op"] == "seed":
        from kubectl_adapter.contract.spec import parse_spec
        from kubectl_adapter.rules.render import render_manifest

        for i in range(int(request["count"])):
            spec = parse_spec(
                {
                    "containerId": f"c{i}",
                    "nodeId": str(request["nodeId"]),
                    "hostname": f"w-{i:04d}",
                    "image": "nginx:latest",
                    "cpus": 0.01,
                    "memoryMb": 16,
                }
            )
            manifest = yaml.safe_load(render_manifest(spec, namespace))
            fc.create_object(manifest, manager=MANAGER)
        return {"ok": True}
    if request["op"] == "ready":
        ready = 0
        for pod in fc.list("pods", namespace):
            conditions = (pod.get("status") or {}).get("conditions") or []
            ready += any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        return {"ok": True, "ready": ready}
    deployment = fc.get("deployments", namespace, request["name"])
    if deployment is None:
        return {"ok": False, "error": f"no deployment {request['name']}"}
    deployment["spec"]["replicas"] = int(request["replicas"])
    fc.create_object(deployment, replace=True, manager=MANAGER)
    return {"ok": True}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--namespace", action="append", default=[])
    parser.add_argument("--node-cpu", default="4")
    parser.add_argument("--node-memory", default="8Gi")
    parser.add_argument("--pod-ready-delay", type=float, default=0.2)
    args = parser.parse_args()
    namespaces = ("default", *args.namespace)
    with FakeCluster(
        args.dir,
        namespaces=namespaces,
        pod_ready_delay=args.pod_ready_delay,
        termination_delay=0.1,
        node_cpu=args.node_cpu,
        node_memory=args.node_memory,
    ) as fc:
        print(json.dumps({"kubeconfig": str(fc.kubeconfig), "context": fc.context}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                reply = answer(fc, json.loads(line))
            except Exception as exc:  # a bad request must not kill the cluster under test
                reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            print(json.dumps(reply), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
