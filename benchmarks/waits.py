"""How soon each wait answers once the cluster has decided it (issue 24), and its kubectl
processes: per operation, the seconds from the fake API server showing the end state (or
the failure) to the CLI process having answered, through the real kubectl.

    .venv/bin/python benchmarks/waits.py [--rounds N]

The fake's store is watched from a thread (its condition variable, notified on every
write), so "the API showed it" is the moment the store held it; the answer is the moment
the CLI process exited. Processes are counted by a kubectl wrapper (``--kubectl``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import ADAPTER, SPEC, counting_kubectl, sh  # noqa: E402
from tests.fakecluster import FakeCluster  # noqa: E402

NS = "default"


class FirstSeen:
    """When the fake's store first held what ``predicate`` looks for."""

    def __init__(self, fc: FakeCluster, predicate: Callable[[], Any]) -> None:
        self.at: float | None = None

        def run() -> None:
            try:
                fc.wait_for(predicate, timeout=60)
                self.at = time.monotonic()
            except TimeoutError:
                pass

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def when(self) -> float:
        self.thread.join(60)
        assert self.at is not None, "the fake never showed it"
        return self.at


class Bench:
    def __init__(self, fc: FakeCluster, work: Path) -> None:
        self.fc = fc
        wrapper, self.log = counting_kubectl(work)
        self.base = [
            *ADAPTER, "--kubeconfig", str(fc.kubeconfig), "--context", fc.context, "-n", NS,
            "--cache-dir", str(work / "cache"), "--kubectl", str(wrapper), "--timeout", "60",
        ]  # fmt: skip

    def run(
        self, *args: str, stdin: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], float, int]:
        """The CLI's document, when it had answered, and how many kubectl it ran."""
        self.log.write_text("")
        result = sh([*self.base, *args], json.dumps(stdin) if stdin is not None else None)
        answered = time.monotonic()
        processes = len(self.log.read_text().splitlines())
        return json.loads(result.stdout), answered, processes

    def pods(self, name: str) -> list[dict[str, Any]]:
        return [p for p in self.fc.list("pods", NS) if p["metadata"]["name"].startswith(f"{name}-")]

    def rolled_out(self, name: str) -> Callable[[], bool]:
        def done() -> bool:
            d = self.fc.get("deployments", NS, name)
            if d is None:
                return False
            s, want = d.get("status") or {}, d["spec"].get("replicas", 1)
            return bool(
                want >= 1
                and s.get("observedGeneration", 0) >= d["metadata"]["generation"]
                and s.get("updatedReplicas", 0) == want == s.get("availableReplicas", 0)
                and s.get("replicas", 0) == want
            )

        return done


def failing(bench: Bench, name: str, reasons: tuple[str, ...]) -> Callable[[], bool]:
    def seen() -> bool:
        for pod in bench.pods(name):
            status = pod.get("status") or {}
            for cs in (status.get("initContainerStatuses") or []) + (
                status.get("containerStatuses") or []
            ):
                for state in (cs.get("state") or {}).values():
                    if isinstance(state, dict) and state.get("reason") in reasons:
                        return True
        return False

    return seen


def lifecycle(bench: Bench, i: int, rows: dict[str, list[tuple[float, int, str]]]) -> None:
    fc, name = bench.fc, f"w{i}"
    spec = SPEC | {"hostname": name, "containerId": f"c{i}"}
    pid = f"{NS}/{name}"

    def measure(label: str, seen: FirstSeen, *args: str, stdin: Any = None) -> None:
        doc, answered, processes = bench.run(*args, stdin=stdin)
        outcome = doc.get("status") or doc.get("error", {}).get("type") or str(doc.get("deleted"))
        rows.setdefault(label, []).append((answered - seen.when(), processes, outcome))

    measure("create", FirstSeen(fc, bench.rolled_out(name)), "create", "--spec", "-", stdin=spec)
    measure("stop", FirstSeen(fc, lambda: not bench.pods(name)), "stop", pid)
    measure("start", FirstSeen(fc, bench.rolled_out(name)), "start", pid)
    changed = spec | {"env": {"ROUND": str(i)}}
    # the end state: rolled out with the new template (not the old one still available)
    generation = fc.get("deployments", NS, name)["metadata"]["generation"]  # type: ignore[index]

    def reconfigured() -> bool:
        d = fc.get("deployments", NS, name)
        return (
            d is not None and d["metadata"]["generation"] > generation and bench.rolled_out(name)()
        )

    measure("reconfigure", FirstSeen(fc, reconfigured), "reconfigure", pid, "--spec", "-",
            stdin=changed)  # fmt: skip
    measure("delete", FirstSeen(fc, lambda: fc.get("deployments", NS, name) is None), "delete", pid)


def failures(bench: Bench, i: int, rows: dict[str, list[tuple[float, int, str]]]) -> None:
    fc = bench.fc
    for kind, behaviour, reasons in [
        ("create: container exits 1", "crash", ("Error", "CrashLoopBackOff")),
        ("create: OOMKilled", "oom", ("OOMKilled", "CrashLoopBackOff")),
        ("create: image pull error", "pull_error", ("ErrImagePull", "ImagePullBackOff")),
    ]:
        name = f"f{behaviour[:4].replace('_', '')}{i}"
        image = f"nginx:{name}"
        fc.set_image_behaviour(image, behaviour)
        seen = FirstSeen(fc, failing(bench, name, reasons))
        spec = SPEC | {"hostname": name, "containerId": f"c{name}", "image": image}
        doc, answered, processes = bench.run("create", "--spec", "-", stdin=spec)
        rows.setdefault(kind, []).append(
            (answered - seen.when(), processes, doc.get("error", {}).get("type", "?"))
        )
        sh([*bench.base, "delete", f"{NS}/{name}"])


def deleted_under(bench: Bench, i: int, rows: dict[str, list[tuple[float, int, str]]]) -> None:
    """The Deployment deleted just before the wait's watch lists it."""
    fc = bench.fc
    for operation in ("create", "start", "stop", "reconfigure"):
        name = f"d{operation[:4]}{i}"
        image = f"nginx:{name}"
        spec = SPEC | {"hostname": name, "containerId": f"c{name}", "image": image}
        args: list[str] = [operation, f"{NS}/{name}"]
        stdin: dict[str, Any] | None = None
        if operation == "create":
            fc.set_image_behaviour(image, "never_ready")
            args, stdin = ["create", "--spec", "-"], spec
        else:
            sh([*bench.base, "create", "--spec", "-"], json.dumps(spec))
            if operation == "start":
                sh([*bench.base, "stop", f"{NS}/{name}"])
            if operation == "stop":
                fc.set_stop_delay(image, 20.0)
            if operation == "reconfigure":
                fc.set_image_behaviour(image + "-2", "never_ready")
                args, stdin = (
                    ["reconfigure", f"{NS}/{name}", "--spec", "-"],
                    spec | {"image": image + "-2"},
                )
        deleted: list[float] = []

        def delete(name: str = name, deleted: list[float] = deleted) -> None:
            fc.delete_object("deployments", NS, name)
            deleted.append(time.monotonic())

        fc.on_request(
            before=delete, method="GET", path_regex=rf"/namespaces/{NS}/deployments$",
            query={"fieldSelector": f"metadata.name={name}"}, kubectl_command="kubectl get",
        )  # fmt: skip
        doc, answered, processes = bench.run(*args, stdin=stdin)
        fc.clear_faults()
        rows.setdefault(f"{operation}: Deployment deleted before the watch", []).append(
            (answered - deleted[0], processes, doc.get("error", {}).get("type", "?"))
        )


def restart(work: Path, rounds: int) -> list[tuple[float, int, str]]:
    """A 1 s API server restart in the middle of a create's wait."""
    out = []
    with FakeCluster(work / "fake-restart", namespaces=(NS,), pod_ready_delay=3.0,
                     termination_delay=0.05) as fc:  # fmt: skip
        bench = Bench(fc, work)
        for i in range(rounds):
            name = f"r{i}"
            watching = threading.Event()
            pods = rf"/namespaces/{NS}/pods$"
            fc.on_request(before=watching.set, method="GET", path_regex=pods,
                          query={"watch": "true"})  # fmt: skip

            def cut(watching: threading.Event = watching) -> None:
                watching.wait(30)
                fc.wait_for(lambda: fc.open_watches() >= 2, timeout=10)
                fc.restart(1.0)

            threading.Thread(target=cut, daemon=True).start()
            seen = FirstSeen(fc, bench.rolled_out(name))
            spec = SPEC | {"hostname": name, "containerId": f"c{name}"}
            doc, answered, processes = bench.run("create", "--spec", "-", stdin=spec)
            out.append((answered - seen.when(), processes, doc.get("status", "?")))
    return out


# docs/performance.md's section for these figures (``./dev bench`` writes it with them).
INTRO = """
## Each wait, from the API server showing its outcome to the answer (issue 24)

The real kubectl against the fake API server: the seconds from the moment the fake's store
held the end state (rolled out, no Pod left, gone) or the failure (a container's `Error`,
`OOMKilled`, `ErrImagePull` state; the Deployment deleted by a request hook just before the
wait's watch lists it) to the moment the CLI process had exited, and the kubectl processes it
ran (a wrapper counts them). A failure costs two reads after the watches: the one that
confirms it is the newest ReplicaSet's Pod, and the Warning events that explain it. The
restart row: the fake down for 1 s while both watches run, then up; the watches are started
again (two more processes each time) and the create completes. Alone:
`.venv/bin/python benchmarks/waits.py --rounds 3`.

Before issue 24 (its own figures, same fake): stop answered in 0.40 s while its Pod still ran
for 6 s more; a stop whose Deployment was deleted before its watch ended `Timeout` after its
whole `--timeout` (11.6 s at 12), create/start/reconfigure `NotFound` after a 10 s slice; a
create whose container exits 1 answered 11.4 s after the Pod showed it (12.7 s after it
began); a 1 s API restart ended a create `Unavailable`.
"""


def measure(rounds: int) -> list[str]:
    """The table's lines: each operation and failure, ``rounds`` times."""
    rows: dict[str, list[tuple[float, int, str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with FakeCluster(work / "fake", namespaces=(NS,), pod_ready_delay=0.3,
                         termination_delay=0.3) as fc:  # fmt: skip
            bench = Bench(fc, work)
            for i in range(rounds):
                lifecycle(bench, i, rows)
                failures(bench, i, rows)
                deleted_under(bench, i, rows)
        rows["create: 1 s API restart mid-wait"] = restart(work, rounds)
    lines = [f"| operation | seconds from the API showing it to the answer (median of {rounds}; "
             "max) | kubectl processes | answer |", "|---|---|---|---|"]  # fmt: skip
    for label, samples in rows.items():
        seconds = [s for s, _, _ in samples]
        processes = sorted({p for _, p, _ in samples})
        outcomes = sorted({o for _, _, o in samples})
        lines.append(f"| {label} | {statistics.median(seconds):.2f}; {max(seconds):.2f} | "
                     f"{'/'.join(map(str, processes))} | {', '.join(outcomes)} |")  # fmt: skip
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    print("\n".join(measure(parser.parse_args().rounds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
