"""What ``list -w`` costs against polling ``list`` every 5 s (issue 32), on the fake API
server through the real kubectl:

    .venv/bin/python benchmarks/watch.py [--workloads 1000] [--seconds 60] [--every 5]

N running workloads (Deployment, ReplicaSet, Pod each, made by the fake's controllers);
during the window one workload is stopped or started every 10 s. Each side is measured
alone over the same window: kubectl processes started (a wrapper given as ``--kubectl``
counts them), CPU seconds of the clients (the adapter processes and their kubectl: the
children's rusage) and of the API server (this process: the fake runs in it), bytes the
adapter wrote on stdout, the seconds from a change being in the API server to the client
having it (a poll: the next list's answer), and the watching adapter's peak RSS and its
three kubectl's. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import MANAGER, Changes, counting_kubectl  # noqa: E402
from kubectl_adapter.contract.spec import parse_spec  # noqa: E402
from kubectl_adapter.rules.render import render_manifest  # noqa: E402
from tests.fakecluster import FakeCluster  # noqa: E402

NS = "default"
ADAPTER = [sys.executable, "-m", "kubectl_adapter"]
CHANGE_EVERY = 10.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _rss_kib(pid: int, field: str = "VmHWM") -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Setup:
    def __init__(self, fc: FakeCluster, work: Path, n: int) -> None:
        import yaml

        self.fc = fc
        self.names = [f"w-{i:04d}" for i in range(n)]
        for i, name in enumerate(self.names):
            spec = parse_spec(
                {
                    "containerId": f"c{i}",
                    "nodeId": "7",
                    "hostname": name,
                    "image": "nginx:latest",
                    "cpus": 0.01,
                    "memoryMb": 16,
                }
            )
            fc.create_object(yaml.safe_load(render_manifest(spec, NS)), manager=MANAGER)
        print(f"{n} Deployments created; waiting for their Pods", file=sys.stderr, flush=True)
        # Polled, not awaited on every write: each look lists every Pod.
        deadline = time.monotonic() + 900
        while not self._all_ready():
            if time.monotonic() > deadline:
                raise TimeoutError("workloads not ready")
            time.sleep(2)
        wrapper, self.log = counting_kubectl(work)
        self.base = [
            *ADAPTER, "--kubeconfig", str(fc.kubeconfig), "--context", fc.context, "-n", NS,
            "--cache-dir", str(work / "cache"), "--kubectl", str(wrapper),
        ]  # fmt: skip

    def _all_ready(self) -> bool:
        ready = 0
        for pod in self.fc.list("pods", NS):
            conditions = (pod.get("status") or {}).get("conditions") or []
            ready += any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        return ready >= len(self.names)

    def processes(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


Seen = list[tuple[float, dict[str, Any]]]


def _seen_at(lines: Seen, name: str, replicas: int, after: float) -> float | None:
    for at, snapshot in lines:
        if at >= after and snapshot.get("name") == name and snapshot.get("replicas") == replicas:
            return at - after
    return None


def poll(setup: Setup, seconds: float, every: float) -> dict[str, Any]:
    setup.log.write_text("")
    changes = Changes(setup.fc, setup.names, NS, CHANGE_EVERY)
    cpu, server = _children_cpu(), time.process_time()
    seen: list[tuple[float, dict[str, Any]]] = []
    written = lists = 0
    took: list[float] = []
    started = time.monotonic()
    changes.thread.start()
    while time.monotonic() - started < seconds:
        tick = time.monotonic()
        proc = subprocess.run([*setup.base, "list"], capture_output=True, check=True)
        answered = time.monotonic()
        took.append(answered - tick)
        written += len(proc.stdout)
        lists += 1
        seen += [(answered, item) for item in json.loads(proc.stdout)["items"]]
        seen = [pair for pair in seen if pair[0] >= answered]  # keep only the latest answer
        _note_latency(changes, seen, answered)
        time.sleep(max(0.0, every - (time.monotonic() - tick)))
    changes.stop.set()
    changes.thread.join()
    return {
        "processes": setup.processes(),
        "runs": lists,
        "client_cpu": _children_cpu() - cpu,
        "server_cpu": time.process_time() - server,
        "bytes": written,
        "latency": _latencies(changes),
        "list_seconds": statistics.median(took),
    }


_LATENCY: dict[int, float] = {}


def _note_latency(changes: Changes, seen: list[tuple[float, dict[str, Any]]], at: float) -> None:
    for index, (name, replicas, when) in enumerate(changes.made):
        if index not in _LATENCY and any(
            s.get("name") == name and s.get("replicas") == replicas for _, s in seen
        ):
            _LATENCY[index] = at - when


def _latencies(changes: Changes) -> list[float]:
    found = [_LATENCY[i] for i in range(len(changes.made)) if i in _LATENCY]
    _LATENCY.clear()
    return found


def watch(setup: Setup, seconds: float) -> dict[str, Any]:
    setup.log.write_text("")
    cpu, server = _children_cpu(), time.process_time()
    proc = subprocess.Popen([*setup.base, "list", "-w"], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    lines: list[tuple[float, dict[str, Any]]] = []
    written = 0
    synced = threading.Event()

    def read() -> None:
        nonlocal written
        assert proc.stdout is not None
        for raw in proc.stdout:
            written += len(raw)
            event = json.loads(raw)
            if event.get("type") == "SYNCED":
                synced.set()
            elif "snapshot" in event:
                lines.append((time.monotonic(), event["snapshot"]))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started = time.monotonic()
    synced.wait(300)
    first_list = time.monotonic() - started
    changes = Changes(setup.fc, setup.names, NS, CHANGE_EVERY)
    changes.thread.start()
    time.sleep(max(0.0, seconds - first_list))
    changes.stop.set()
    changes.thread.join()
    time.sleep(2)  # the last change's lines
    kubectls = [
        int(p) for p in os.listdir("/proc") if p.isdigit() and _is_kubectl_of(int(p), proc.pid)
    ]
    rss = _rss_kib(proc.pid)
    kubectl_rss = sum(_rss_kib(pid, "VmRSS") for pid in kubectls)
    proc.send_signal(signal.SIGINT)
    code = proc.wait(60)
    reader.join(10)
    latencies = [
        found
        for name, replicas, when in changes.made
        if (found := _seen_at(lines, name, replicas, when)) is not None
    ]
    return {
        "processes": setup.processes(),
        "runs": 1,
        "client_cpu": _children_cpu() - cpu,
        "server_cpu": time.process_time() - server,
        "bytes": written,
        "latency": latencies,
        "first_list": first_list,
        "rss_kib": rss,
        "kubectl_rss_kib": kubectl_rss,
        "exit": code,
        "changes": len(changes.made),
    }


def _is_kubectl_of(pid: int, parent: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return ppid == parent and b"--watch" in cmdline.read()
    except (OSError, ValueError, IndexError):
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=5.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with FakeCluster(
            work / "fake", nodes=10, node_cpu="8", pod_ready_delay=0.05, termination_delay=0.05
        ) as fc:
            setup = Setup(fc, work, options.workloads)
            print("ready; polling", file=sys.stderr, flush=True)
            polled = poll(setup, options.seconds, options.every)
            print("watching", file=sys.stderr, flush=True)
            watched = watch(setup, options.seconds)
    window = options.seconds
    print(f"{options.workloads} workloads, a {window:g} s window, one change every "
          f"{CHANGE_EVERY:g} s; polling every {options.every:g} s\n")  # fmt: skip
    print("| | kubectl processes | adapter processes | client CPU s | API server CPU s | "
          "stdout bytes | change seen after, s (median; max) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for label, result in (("poll `list` every 5 s", polled), ("`list -w`", watched)):
        lat = result["latency"]
        shown = f"{statistics.median(lat):.2f}; {max(lat):.2f}" if lat else "none seen"
        print(
            f"| {label} | {result['processes']} | {result['runs']} | {result['client_cpu']:.1f} "
            f"| {result['server_cpu']:.1f} | {result['bytes']:,} | {shown} |"
        )
    print(
        f"\nlist: {polled['list_seconds']:.2f} s each (median); list -w: first list "
        f"{watched['first_list']:.2f} s, peak RSS {watched['rss_kib'] / 1024:.0f} MiB (adapter), "
        f"{watched['kubectl_rss_kib'] / 1024:.0f} MiB (its three kubectl, at the end); "
        f"exit {watched['exit']} on SIGINT; {watched['changes']} changes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
