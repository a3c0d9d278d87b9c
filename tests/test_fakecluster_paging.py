"""Lists in pages (``limit``/``continue``), as kubectl asks for them: every page of one list
says the first page's resourceVersion, as an API server's do. kubectl watches from that
version only when its pages agree; otherwise it watches from "" and the watch replays every
object (and a wait reads a list twice). A write between two pages neither repeats nor skips
an item that was there all along (the next page continues after the last key sent)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.fakecluster import FakeCluster
from tests.test_fakecluster import KUBECTL, needs_kubectl


def _pod(name: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "paged"}},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
    }


@needs_kubectl
def test_a_watch_after_a_paged_list_starts_from_the_first_pages_version(tmp_path: Path) -> None:
    with FakeCluster(tmp_path / "fake", pod_ready_delay=0.2, termination_delay=0.1) as fc:
        for i in range(3):
            fc.create_object(_pod(f"paged-{i}"))
        # A write between the first and the second page moves the store's resourceVersion,
        # and adds a Pod that sorts before the page's last one (an offset would then repeat it).
        fc.on_request(
            after=lambda: fc.create_object(_pod("a-paged")),
            method="GET",
            path_regex=r"/api/v1/namespaces/default/pods$",
            query={"limit": "1"},
        )
        assert KUBECTL is not None
        proc = subprocess.Popen(
            [
                KUBECTL,
                "--kubeconfig",
                str(fc.kubeconfig),
                "--cache-dir",
                str(tmp_path / "c"),
                "get",
                "pods",
                "-l",
                "app=paged",
                "--chunk-size=1",
                "--watch",
                "-o",
                "json",
                "--output-watch-events",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            watch = fc.wait_for(
                lambda: next((r for r in fc.requests if r.query.get("watch") == "true"), None),
                timeout=30,
                message="kubectl's watch request",
            )
        finally:
            proc.kill()
            out, _ = proc.communicate()
        pages = [r for r in fc.requests if r.path.endswith("/pods") and "watch" not in r.query]
        assert len(pages) == 3  # one Pod a page
        paged = [
            item["metadata"]["name"]
            for line in out.splitlines()
            for item in json.loads(line)["object"].get("items", [])
        ]  # each page is printed as a List (the watch's own events are single objects)
        assert paged == ["paged-0", "paged-1", "paged-2"]
        # The watch resumes from the list's version, not from "" (a replay of everything).
        assert watch.query.get("resourceVersion") not in (None, "", "0")
