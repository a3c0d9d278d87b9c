"""``--dry-run`` prints the commands the run makes, in order (issue 38).

Each operation's steps are written once (``operations/*``: ``_steps``); this proves it from
the outside, on the fake cluster, through the real kubectl: for every operation and variant,
the kubectl processes the plan says the run starts (each command line, and each watch the
plan names in its ``# the adapter watches:`` comments, not the line that pastes in their
place) are the processes a kubectl wrapper sees the run start, argument for argument, in
order. The ReplicaSets' read that tells a wait which Pods are the Deployment's runs only
when a Pod not placed yet would change the verdict: no plan lists it, and it is the one
process left out.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cluster, spec

WATCHED = re.compile(r"^# (?:the adapter watches|and at once): (kubectl .*)$")
BY_HAND = "# (judging each event"
# kubectl's own verbosity is left out of what a plan shows (``transcript.quiet``).
VERBOSITY = re.compile(r"^-v=\d+$")


def _normal(argv: list[str]) -> list[str]:
    """``kubectl [connection flags] -n NS ARGS``, kubectl's -v=N left out."""
    rest = argv[argv.index("-n") :]
    return [arg for arg in rest if not VERBOSITY.match(arg)]


def planned(plan: dict[str, Any]) -> list[list[str]]:
    """The kubectl processes a plan says the run starts, in order."""
    made: list[list[str]] = []
    delimiter: str | None = None
    by_hand = False
    for line in "\n".join(plan["commands"]).splitlines():
        if delimiter is not None:
            delimiter = None if line == delimiter else delimiter
            continue
        watched = WATCHED.match(line)
        if watched is not None:
            made.append(_normal(shlex.split(watched.group(1), comments=True)))
            continue
        if line.startswith(BY_HAND):
            by_hand = True  # the next command pastes in place of the watches: not run
            continue
        if not line.strip() or line.startswith("#"):
            continue
        argv = shlex.split(line, comments=True)
        if argv[-1].startswith("<<"):
            delimiter = argv.pop()[2:]
        if by_hand:
            by_hand = False
            continue
        if argv[-2:] == ["||", "true"]:  # a read whose 404 the run takes for "absent"
            argv = argv[:-2]
        made.append(_normal(argv))
    return made


class Wrapper:
    """A kubectl that logs each process's argv, then runs the real one."""

    def __init__(self, tmp_path: Path) -> None:
        real = shutil.which("kubectl")
        assert real is not None
        self.log = tmp_path / "calls.log"
        self.path = tmp_path / "kubectl"
        self.path.write_text(
            f"#!/bin/sh\nprintf '%s\\037' \"$@\" >> {shlex.quote(str(self.log))}\n"
            f'echo >> {shlex.quote(str(self.log))}\nexec {shlex.quote(real)} "$@"\n'
        )
        self.path.chmod(0o755)

    def made(self, cluster: Cluster, *args: str, stdin: Any = None) -> tuple[int, Any]:
        """Run the adapter: its exit code and output, and the processes it started."""
        self.log.write_text("")
        result = cluster.adapter(*args, stdin=stdin, flags=["--kubectl", str(self.path)])
        started = []
        for line in self.log.read_text().splitlines():
            argv = _normal(["kubectl", *line.rstrip("\x1f").split("\x1f")])
            rest = argv[4:] if argv[2] == "--request-timeout" else argv[2:]
            if rest[:2] == ["get", "replicasets"]:
                continue  # the owners' read, only when a verdict depends on it
            started.append(argv)
        return result.code, _watches_in_plan_order(started)


def _watches_in_plan_order(started: list[list[str]]) -> list[list[str]]:
    """A wait's two watches start together: the Deployment's first, as a plan lists them."""
    out = list(started)
    for i in range(len(out) - 1):
        if "--watch" in out[i] and "--watch" in out[i + 1] and "pods" in out[i][2:4]:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _whole_wait(commands: list[list[str]]) -> list[list[str]]:
    """A wait's ``--timeout`` left out: a plan shows the whole ``--timeout``, the run what
    was left of it when the wait began."""
    return [[a for a in c if not a.startswith("--timeout=")] for c in commands]


@pytest.fixture
def wrapper(tmp_path: Path) -> Wrapper:
    return Wrapper(tmp_path)


def _same(cluster: Cluster, wrapper: Wrapper, *args: str, stdin: Any = None) -> int:
    """The plan of ``args``, then its run: the same processes, in order. The run's code."""
    dry = cluster.adapter("--dry-run", *args, stdin=stdin)
    assert dry.code == 0, (args, dry.doc, dry.stderr[-1500:])
    if cluster.fake is not None:
        cluster.fake.clear_requests()
    code, made = wrapper.made(cluster, *args, stdin=stdin)
    assert _whole_wait(planned(dry.doc)) == _whole_wait(made), (args, dry.doc["commands"])
    return code


def test_every_operation_runs_its_plan(cluster: Cluster, wrapper: Wrapper) -> None:
    if cluster.fake is None:
        pytest.skip("a real cluster's waits may take more slices than a plan shows")
    name, cid = cluster.workload("plans")
    pid = f"{cluster.namespace}/{name}"
    lifecycle: list[tuple[list[str], Any]] = [
        (["create", "--spec", "-"], spec(name, cid)),
        (["status", pid], None),
        (["network", pid], None),
        (["describe", pid], None),
        (["list"], None),
        (["start", pid], None),  # running already: the patch shows it
        (["stop", pid], None),
        (["stop", pid], None),  # at 0 already
        (["stop", pid, "--container-id", cid], None),  # the Pods watched by its identity
        (["reconfigure", pid, "--spec", "-"], spec(name, cid, cpus=0.2)),  # stopped: no wait
        (["start", pid, "--container-id", cid], None),
        (["reconfigure", pid, "--spec", "-"], spec(name, cid, cpus=0.3)),
        (["reconfigure", pid, "--spec", "-", "--rollback-on-failure"], spec(name, cid)),
        (["delete", pid], None),
    ]
    for args, stdin in lifecycle:
        assert _same(cluster, wrapper, *args, stdin=stdin) == 0, args
    assert cluster.deployment(name) is None


def test_a_missing_workload_runs_its_plan(cluster: Cluster, wrapper: Wrapper) -> None:
    """What the run of a missing workload's operation starts before it fails (a write's
    watches, then its patch that answers 404) is what its plan says."""
    if cluster.fake is None:
        pytest.skip("a real cluster's waits may take more slices than a plan shows")
    name, _ = cluster.workload("absent")
    pid = f"{cluster.namespace}/{name}"
    for args in (["start", pid], ["stop", pid], ["status", pid], ["delete", pid]):
        code = _same(cluster, wrapper, *args)
        assert code in (0, 3), args  # NotFound (start, stop), or answered (status, delete)
