"""The feed at rest watches Deployments alone (issue 42), yet each workload leaves and enters
its statuses exactly as the three-watch feed reported them: a scripted scenario (create, stop,
start, a Pod deleted by hand, a rollout, a rollout whose new Pod crashes, a delete) is watched
at once by ``list -w`` and by the three-watch feed it replaced, rebuilt here as it was (one
``kubectl get --watch`` per kind, every object kept, a workload's snapshot rebuilt with the
same rules on each event: ``rules.snapshots``). Both see the same API events; their
sequences of statuses per workload must be the same, and so must the last snapshots."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from kubectl_adapter.operations.feed_objects import DEPLOYMENTS, Objects
from tests.e2e.conftest import Cluster, spec
from tests.e2e.test_watch import BOUND, Watch

KINDS = ("deployments", "replicasets", "pods")


class ThreeWatches:
    """The feed as it was before issue 42: three kubectl watches, all objects kept."""

    def __init__(self, cluster: Cluster, selector: str) -> None:
        fake = cluster.require_fake()
        self.objects = Objects()
        self.statuses: dict[str, list[str]] = {}
        self.last: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        connection = ["--kubeconfig", str(fake.kubeconfig), "--context", fake.context]
        self.procs = []
        for index, kind in enumerate(KINDS):
            argv = ["kubectl", *connection, "-n", cluster.namespace, "get", kind, "-l", selector,
                    "--watch", "-o", "json", "--output-watch-events",
                    *(["--show-managed-fields"] if index == DEPLOYMENTS else [])]  # fmt: skip
            self.procs.append(
                subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            )
        for index, proc in enumerate(self.procs):
            threading.Thread(target=self._read, args=(index, proc), daemon=True).start()

    def _read(self, index: int, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            obj = event["object"]
            with self.lock:
                for item in (
                    obj.get("items", [obj]) if obj.get("kind", "").endswith("List") else [obj]
                ):
                    for uid in self.objects.seen(index, event["type"], item):
                        self._give(uid, item if index == DEPLOYMENTS else None)

    def _give(self, uid: str, deployment: dict[str, Any] | None) -> None:
        document = self.objects.snapshot(uid)
        if document is None:
            meta = (deployment or {}).get("metadata") or {}
            pid, status = f"{meta.get('namespace')}/{meta.get('name')}", "missing"
        else:
            pid, status = str(document["providerId"]), str(document["status"])
            self.last[pid] = document
        seen = self.statuses.setdefault(pid, [])
        if not seen or seen[-1] != status:
            seen.append(status)

    def status(self, pid: str) -> str | None:
        with self.lock:
            return (self.statuses.get(pid) or [None])[-1]

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


def _await(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_statuses_as_the_three_watch_feed_gave_them(cluster: Cluster) -> None:
    fake = cluster.require_fake()
    name, cid = cluster.workload("feed-same")
    pid = f"{cluster.namespace}/{name}"
    selector = f"org.mieweb.opensource-server.name={name}"
    reference = ThreeWatches(cluster, f"org.mieweb.opensource-server.managed=true,{selector}")
    watch = Watch(cluster, "list", "-w", "-l", selector, terminal=False)
    feed: list[str] = []
    last: dict[str, Any] = {}

    def follow(line: str) -> None:
        snapshot = json.loads(line).get("snapshot") or {}
        if snapshot.get("providerId") == pid:
            if not feed or feed[-1] != snapshot["status"]:
                feed.append(snapshot["status"])
            last.clear()
            last.update(snapshot)

    def shown(wanted: Callable[[dict[str, Any]], bool], what: str) -> None:
        """``list -w`` comes to a snapshot ``wanted`` takes (every line it printed kept)."""
        if not (last and wanted(last)):
            watch.until(lambda line: follow(line) or (bool(last) and wanted(last)), what)

    def reached(status: str) -> None:
        """Both feeds show ``status`` for the workload."""
        _await(lambda: reference.status(pid) == status, f"the three watches: {status}")
        shown(lambda snapshot: snapshot["status"] == status, f"list -w: {status}")

    try:
        watch.until(lambda line: json.loads(line)["type"] == "SYNCED", "the first SYNCED")
        assert cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)).code == 0
        reached("running")
        assert cluster.adapter("stop", pid).code == 0
        reached("offline")
        assert cluster.adapter("start", pid).code == 0
        reached("running")
        pod = cluster.pods(selector)[0]["metadata"]["name"]
        cluster.kubectl("delete", "pod", pod, "--wait=false")
        _await(lambda: pod not in [p["metadata"]["name"] for p in cluster.pods(selector)]
               and reference.last[pid]["readyReplicas"] == 1, "a new Pod serving")  # fmt: skip
        reached("running")
        cluster.kubectl("set", "image", f"deployment/{name}", "main=nginx:1.27")
        _await(lambda: reference.last[pid]["image"] == "nginx:1.27"
               and reference.last[pid]["updatedReplicas"] == 1
               and reference.last[pid]["message"] == "1/1 available", "rolled out")  # fmt: skip
        fake.set_image_behaviour("crashloop", "crash")
        cluster.kubectl("set", "image", f"deployment/{name}", "main=example/crashloop:1")
        _await(lambda: "rollout stuck" in reference.last[pid]["message"], "stuck")
        shown(lambda snapshot: "rollout stuck" in str(snapshot["message"]), "list -w: stuck")
        reached("running")
        cluster.kubectl("delete", "deployment", name, "--wait=false")
        reached("missing")
    finally:
        watch.stop(15)
        reference.stop()
        fake.set_image_behaviour("crashloop", None)
    assert feed == reference.statuses[pid], (feed, reference.statuses[pid])
    steps = iter(feed)  # each step's status, in order (and what came between them)
    assert all(status in steps for status in ("running", "offline", "running", "missing")), feed
