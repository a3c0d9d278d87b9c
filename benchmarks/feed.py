"""What one node's live feed costs Manager against today's polling (issue 42), on the fake API
server through the real kubectl:

    .venv/bin/python benchmarks/feed.py [--workloads 10 1000] [--seconds 30] [--with-5000]
        [--rest-only]

For each N: N running workloads (Deployment, ReplicaSet, Ready Pod, made by the fake's
controllers). Each side is measured alone over the same window, during which one workload
is stopped or started every ``CHANGE_EVERY`` seconds:

- polling: ``kubectl-adapter list`` once a second (back to back when a list takes longer),
  as Manager's status reads would;
- the feed: one ``kubectl-adapter list -w``, first at rest (every workload settled: its
  kubectl processes and resident memory, adapter and kubectl together), then through the
  changes.

Figures: processes started per minute (adapter runs plus the kubectl a counting wrapper
sees), the seconds from a change being in the API server to the line (or list answer) that
shows it (median; max), CPU seconds per minute of the client side (the adapters and their
kubectl: the children's rusage) and of the API server (this process: the fake runs in it),
peak resident memory (the feed: adapter plus its kubectl, sampled every 0.2 s; polling: the
largest process), the feed's first sync against one ``list``. Prints a Markdown table.
``--rest-only``: the feed's first sync and its cost at rest alone (no polling, no changes:
what 5,000 workloads allow on a shared machine).
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

from benchmarks.common import ENV, MANAGER, Changes, counting_kubectl  # noqa: E402
from kubectl_adapter.contract.spec import parse_spec  # noqa: E402
from kubectl_adapter.rules.render import render_manifest  # noqa: E402
from tests.fakecluster import FakeCluster  # noqa: E402

NS = "default"
ADAPTER = [sys.executable, "-m", "kubectl_adapter"]
CHANGE_EVERY = 5.0
SAMPLE_EVERY = 0.2
# At rest before the changes: long enough for the feed's look at a silent API server (after
# two request timeouts of silence, 20 s at the default) and for Go's forced collection (every
# 2 minutes) in the kubectl that watches, whose memory is read again at the end.
REST_SECONDS = 130.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _status_kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_of(pid: int, children: bool = False) -> float:
    """CPU seconds of a live process (with what it reaped of its children: ``children``)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(f) for f in fields[11 : 15 if children else 13])
    return ticks / os.sysconf("SC_CLK_TCK")


def _feed_cpu(pid: int) -> float:
    return _cpu_of(pid, True) + sum(_cpu_of(k) for k in _kubectls_of(pid))


def _kubectls_of(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                words = cmdline.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and any(word.endswith(b"kubectl") for word in words[:2]):
            found.append(int(entry))
    return found


class Setup:
    """N running workloads, created while the controllers are held (one pass makes them all:
    created one by one, each write would cost a pass over every object)."""

    def __init__(self, fc: FakeCluster, work: Path, n: int) -> None:
        import yaml

        self.fc = fc
        self.names = [f"w-{i:04d}" for i in range(n)]
        fc.controller.hold(True)
        for i, name in enumerate(self.names):
            spec = parse_spec({"containerId": f"c{i}", "nodeId": "7", "hostname": name,
                               "image": "nginx:latest", "cpus": 0.01, "memoryMb": 16})  # fmt: skip
            fc.create_object(yaml.safe_load(render_manifest(spec, NS)), manager=MANAGER)
        fc.controller.hold(False)
        deadline = time.monotonic() + 1800
        while not self._all_ready():
            if time.monotonic() > deadline:
                raise TimeoutError("workloads not ready")
            time.sleep(1)
        wrapper, self.log = counting_kubectl(work)
        self.base = [
            *ADAPTER, "--kubeconfig", str(fc.kubeconfig), "--context", fc.context, "-n", NS,
            "--cache-dir", str(work / "cache"), "--kubectl", str(wrapper),
        ]  # fmt: skip

    def _all_ready(self) -> bool:
        available = 0
        for deployment in self.fc.list("deployments", NS):
            status = deployment.get("status") or {}
            available += status.get("availableReplicas") == status.get("replicas") == 1
        return available >= len(self.names)

    def kubectls_started(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


class FeedChanges(Changes):
    """``Changes``, and how long each took to reach an answer."""

    def latencies(self, seen: list[tuple[float, str, int]]) -> list[float]:
        """Per change: from its write to the first answer after it showing it."""
        found = []
        for name, replicas, when in self.made:
            times = [at for at, n, r in seen if at >= when and n == name and r == replicas]
            if times:
                found.append(min(times) - when)
        return found


def poll(setup: Setup, seconds: float) -> dict[str, Any]:
    setup.log.write_text("")
    changes = FeedChanges(setup.fc, setup.names, NS, CHANGE_EVERY)
    cpu, server = _children_cpu(), time.process_time()
    seen: list[tuple[float, str, int]] = []
    took: list[float] = []
    started = time.monotonic()
    changes.thread.start()
    while time.monotonic() - started < seconds:
        tick = time.monotonic()
        proc = subprocess.run([*setup.base, "list"], capture_output=True, check=True, env=ENV)
        answered = time.monotonic()
        took.append(answered - tick)
        seen += [(answered, i["name"], i["replicas"]) for i in json.loads(proc.stdout)["items"]
                 if i["name"] in {name for name, _, _ in changes.made[-2:]}]  # fmt: skip
        time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
    changes.stop.set()
    changes.thread.join()
    window = time.monotonic() - started
    return {
        "per_minute": (setup.kubectls_started() + len(took)) * 60 / window,
        "latency": changes.latencies(seen),
        "client_cpu": (_children_cpu() - cpu) * 60 / window,
        "server_cpu": (time.process_time() - server) * 60 / window,
        "peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "list_seconds": statistics.median(took),
    }


def feed(setup: Setup, seconds: float, rest_only: bool = False) -> dict[str, Any]:
    setup.log.write_text("")
    cpu, server = _children_cpu(), time.process_time()
    began = time.monotonic()
    proc = subprocess.Popen([*setup.base, "list", "-w"], stdout=subprocess.PIPE, env=ENV)
    seen: list[tuple[float, str, int]] = []
    synced = threading.Event()
    peak = [0]
    done = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            event = json.loads(raw)
            if event.get("type") == "SYNCED":
                synced.set()
            elif "error" in event:  # the feed ended: say why, not a silent wait
                print(f"the feed ended: {json.dumps(event)}", file=sys.stderr, flush=True)
                synced.set()
            elif event.get("snapshot"):
                snapshot = event["snapshot"]
                seen.append((time.monotonic(), snapshot["name"], snapshot["replicas"]))

    def sample() -> None:
        while not done.wait(SAMPLE_EVERY):
            kib = _status_kib(proc.pid, "VmRSS")
            kib += sum(_status_kib(pid, "VmRSS") for pid in _kubectls_of(proc.pid))
            peak[0] = max(peak[0], kib)

    threading.Thread(target=read, daemon=True).start()
    threading.Thread(target=sample, daemon=True).start()
    synced.wait(900)
    first_sync = time.monotonic() - began
    rest_deadline = time.monotonic() + 60
    while len(_kubectls_of(proc.pid)) != 1 and time.monotonic() < rest_deadline:
        time.sleep(SAMPLE_EVERY)
    time.sleep(1.0)  # at rest: nothing moves
    at_rest = _kubectls_of(proc.pid)
    adapter_kib = _status_kib(proc.pid, "VmRSS")
    rest_kib = adapter_kib + sum(_status_kib(p, "VmRSS") for p in at_rest)
    setup.log.write_text("")
    rest_cpu, rest_began = _feed_cpu(proc.pid), time.monotonic()
    time.sleep(REST_SECONDS)  # at rest: what a quiet node costs (its probes included)
    rest_window = time.monotonic() - rest_began
    late = _kubectls_of(proc.pid)
    late_adapter = _status_kib(proc.pid, "VmRSS")
    late_kib = late_adapter + sum(_status_kib(p, "VmRSS") for p in late)
    late_anon = _status_kib(proc.pid, "RssAnon") + sum(_status_kib(p, "RssAnon") for p in late)
    rest_cpu = (_feed_cpu(proc.pid) - rest_cpu) * 60 / rest_window
    rest_started = setup.kubectls_started() * 60 / rest_window
    setup.log.write_text("")
    if rest_only:
        seconds = 0.0
    changes = FeedChanges(setup.fc, setup.names, NS, CHANGE_EVERY)
    window_start = time.monotonic()
    changes.thread.start()
    time.sleep(seconds)
    changes.stop.set()
    changes.thread.join()
    time.sleep(2)  # the last change's lines
    window = time.monotonic() - window_start
    started = setup.kubectls_started()
    proc.send_signal(signal.SIGINT)
    code = proc.wait(60)
    done.set()
    return {
        "per_minute": started * 60 / window,
        "latency": changes.latencies(seen),
        "client_cpu": (_children_cpu() - cpu) * 60 / (time.monotonic() - began),
        "server_cpu": (time.process_time() - server) * 60 / (time.monotonic() - began),
        "peak_mib": peak[0] / 1024,
        "first_sync": first_sync,
        "rest_kubectls": len(at_rest),
        "rest_mib": rest_kib / 1024,
        "rest_adapter_mib": adapter_kib / 1024,
        "late_mib": late_kib / 1024,
        "late_adapter_mib": late_adapter / 1024,
        "late_anon_mib": late_anon / 1024,
        "late_kubectls": len(late),
        "rest_cpu": rest_cpu,
        "rest_started": rest_started,
        "exit": code,
    }


def first_answers(setup: Setup, rounds: int) -> tuple[list[float], list[float]]:
    """``list`` and the feed's first ``SYNCED``, interleaved (a loaded machine slows both
    alike): the seconds of each."""
    lists, syncs = [], []
    for _ in range(rounds):
        began = time.monotonic()
        subprocess.run([*setup.base, "list"], capture_output=True, check=True, env=ENV)
        lists.append(time.monotonic() - began)
        began = time.monotonic()
        proc = subprocess.Popen([*setup.base, "list", "-w"], stdout=subprocess.PIPE, env=ENV)
        assert proc.stdout is not None
        for raw in proc.stdout:
            if json.loads(raw).get("type") == "SYNCED":
                break
        syncs.append(time.monotonic() - began)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
        proc.stdout.close()
    return lists, syncs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--with-5000", action="store_true", help="also 5,000 (a long setup)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=3, help="list against the first sync")
    parser.add_argument("--rest-only", action="store_true", help="the feed's sync and rest only")
    options = parser.parse_args()
    sizes = [*options.workloads, *([5000] if options.with_5000 else [])]
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            with FakeCluster(work / "fake", nodes=max(1, n // 100), node_cpu="8",
                             pod_ready_delay=0.05, termination_delay=0.05) as fc:  # fmt: skip
                setup = Setup(fc, work, n)
                print(f"{n}: ready; polling", file=sys.stderr, flush=True)
                polled = {} if options.rest_only else poll(setup, options.seconds)
                print(f"{n}: the feed", file=sys.stderr, flush=True)
                fed = feed(setup, options.seconds, options.rest_only)
                fed["lists"], fed["syncs"] = first_answers(setup, options.rounds)
        rows.append((n, polled, fed))
    print(f"a {options.seconds:g} s window per side, one change every {CHANGE_EVERY:g} s; "
          f"load average {os.getloadavg()[0]:.1f} at the end\n")  # fmt: skip
    print("| N | | processes started / min | change to answer, s (median; p90; max) | client "
          "CPU s / min | API server CPU s / min | peak RSS MiB | first answer, s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for n, polled, fed in rows:
        for label, result, first in (
            ("poll `list` 1/s", polled, polled.get("list_seconds", 0.0)),
            ("`list -w`", fed, fed["first_sync"]),
        ):
            if not result:
                continue
            lat = sorted(result["latency"])
            shown = (
                f"{statistics.median(lat):.2f}; {lat[int(0.9 * (len(lat) - 1))]:.2f}; "
                f"{max(lat):.2f}"
                if lat
                else "none seen"
            )
            print(f"| {n:,} | {label} | {result['per_minute']:.0f} | {shown} | "
                  f"{result['client_cpu']:.1f} | {result['server_cpu']:.1f} | "
                  f"{result['peak_mib']:.0f} | {first:.2f} |")  # fmt: skip
    print()
    for n, _, fed in rows:
        print(f"- {n:,} at rest: {fed['rest_kubectls']} kubectl, {fed['rest_mib']:.0f} MiB "
              f"(adapter {fed['rest_adapter_mib']:.0f} and its kubectl), "
              f"{fed['rest_cpu']:.2f} CPU s / min, "
              f"{fed['rest_started']:.1f} processes started / min ({REST_SECONDS:g} s), then "
              f"{fed['late_kubectls']} kubectl, {fed['late_mib']:.0f} MiB (adapter "
              f"{fed['late_adapter_mib']:.0f}; {fed['late_anon_mib']:.0f} MiB not shared with "
              f"other processes: RssAnon); "
              f"exit {fed['exit']} on SIGINT; `list` {_seconds(fed['lists'])} s against the "
              f"feed's first SYNCED {_seconds(fed['syncs'])} s (interleaved)")  # fmt: skip
    return 0


def _seconds(samples: list[float]) -> str:
    return f"{statistics.median(samples):.2f} (" + ", ".join(f"{x:.2f}" for x in samples) + ")"


if __name__ == "__main__":
    sys.exit(main())
