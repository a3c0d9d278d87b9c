"""A write whose answer is lost says its change may have been made (issue 30).

The fake carries each write out and then loses its answer, the API gone silent after it
(``black_hole_after``): what a client sees when the connection dies after its request left.
Every writing operation (create's and reconfigure's apply, start's and stop's patch,
delete's DELETE) then says, in ``details.writeSent`` and in its message, that its change may
have been made; the change is there; and the same command run again converges. A change
never sent (the API refusing connections) says ``writeSent: false``, nothing changed.

The real CLI and the real kubectl against the fake API server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.contract.naming import selector_string
from tests.fakecluster import FakeCluster

from .helpers import timed_cli

# A lost answer costs kubectl one --request-timeout, whatever --timeout says: a --timeout the
# reads before the write cannot use up, however loaded the machine (with --timeout 3 a stop
# under load was cut by its 3.5 s deadline before its PATCH left: no writeSent to read).
BOUNDS = ["--request-timeout", "2", "--timeout", "120"]


def _delete_bounds(setup_seconds: float) -> list[str]:
    """delete's DELETE runs without --request-timeout (kubectl then waits for the Deployment
    to go), so a lost answer ends at the command's deadline, --timeout + 0.5 s: long enough
    for its reads and its DELETE to leave, measured on this machine now (three times this
    test's own create), short enough not to sleep for nothing."""
    return ["--request-timeout", "2", "--timeout", f"{max(4.0, 3 * setup_seconds):.1f}"]


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    with FakeCluster(
        tmp_path_factory.mktemp("lost") / "fake", pod_ready_delay=0.2, termination_delay=0.1
    ) as cluster:
        yield cluster


def _spec(name: str, **changes: Any) -> str:
    return json.dumps({"containerId": name, "nodeId": "7", "hostname": name,
                       "image": "nginx:latest", "cpus": 0.1, "memoryMb": 64} | changes)  # fmt: skip


def _deployment(fake: FakeCluster, name: str) -> dict[str, Any] | None:
    return fake.get("deployments", "default", name)


def _memory(fake: FakeCluster, name: str) -> str:
    found = _deployment(fake, name)
    assert found is not None
    return str(found["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"])


def _replicas(fake: FakeCluster, name: str) -> int:
    found = _deployment(fake, name)
    assert found is not None
    return int(found["spec"]["replicas"])


def _scaled_to_zero(fake: FakeCluster, name: str) -> None:
    found = _deployment(fake, name)
    assert found is not None
    found["spec"]["replicas"] = 0
    fake.create_object(found, replace=True)
    pods = selector_string(found["spec"]["selector"]["matchLabels"])
    fake.wait_for(lambda: not fake.list("pods", "default", label_selector=pods))


# operation: (method of its write, its arguments, stdin, state before, the change made, and
# the answer of the run again that converges)
Case = tuple[str, list[str], Callable[[str], str | None], str,
             Callable[[FakeCluster, str], bool], Callable[[dict[str, Any]], bool]]  # fmt: skip
CASES: dict[str, Case] = {
    "create": ("PATCH", ["create", "--spec", "-"], _spec, "absent",
               lambda fake, name: _deployment(fake, name) is not None,
               lambda doc: doc["status"] == "running"),
    "start": ("PATCH", ["start", "default/NAME"], lambda name: None, "stopped",
              lambda fake, name: _replicas(fake, name) == 1,
              lambda doc: doc["status"] == "running"),
    "stop": ("PATCH", ["stop", "default/NAME"], lambda name: None, "running",
             lambda fake, name: _replicas(fake, name) == 0,
             lambda doc: doc["status"] == "offline"),
    "reconfigure": ("PATCH", ["reconfigure", "default/NAME", "--spec", "-"],
                    lambda name: _spec(name, memoryMb=96), "running",
                    lambda fake, name: _memory(fake, name) == "96Mi",
                    lambda doc: doc["status"] == "running" and doc["memoryMb"] == 96),
    "delete": ("DELETE", ["delete", "default/NAME"], lambda name: None, "running",
               lambda fake, name: (_deployment(fake, name) or {}).get("metadata", {})
               .get("deletionTimestamp") is not None or _deployment(fake, name) is None,
               lambda doc: doc["alreadyMissing"] or doc["deleted"]),
}  # fmt: skip


def _prepared(fake: FakeCluster, tmp: Path, name: str, state: str) -> float:
    """The workload in ``state``; the seconds its create took (0 when there is none)."""
    if state == "absent":
        return 0.0
    created = timed_cli(fake, tmp / "setup", *BOUNDS, "create", "--spec", "-", stdin=_spec(name))
    assert created["code"] == 0, created
    if state == "stopped":
        _scaled_to_zero(fake, name)
    return float(created["seconds"])


@pytest.mark.parametrize("operation", list(CASES))
def test_a_lost_answer_says_the_change_may_have_been_made_and_a_rerun_converges(
    fake: FakeCluster, tmp_path: Path, operation: str
) -> None:
    method, args, stdin, state, changed, converged = CASES[operation]
    name = f"lost-{operation}"
    setup_seconds = _prepared(fake, tmp_path, name, state)
    argv = [arg.replace("NAME", name) for arg in args]
    bounds = _delete_bounds(setup_seconds) if operation == "delete" else BOUNDS
    fake.black_hole_after(method, rf"/deployments/{name}$")
    try:
        result = timed_cli(fake, tmp_path / "run", *bounds, *argv, stdin=stdin(name))
    finally:
        fake.clear_faults()  # the API answers again
    error = result["doc"].get("error")
    assert error is not None and error["type"] in ("Unavailable", "Timeout"), result
    assert error["details"]["writeSent"] is True, error
    assert error["details"]["writeRequest"].startswith(f"{method} /apis/apps/v1/"), error
    assert error["details"]["writeAnswer"] is None, error
    assert "its change may have been made" in error["message"], error
    assert "run the same command again" in error["message"], error
    assert changed(fake, name), f"{operation}: the fake did not carry the change out"
    again = timed_cli(fake, tmp_path / "again", *BOUNDS, *argv, stdin=stdin(name))
    assert again["code"] == 0, again
    assert converged(again["doc"]), again


def test_a_change_never_sent_says_nothing_was_changed(fake: FakeCluster, tmp_path: Path) -> None:
    name = "lost-never"
    _prepared(fake, tmp_path, name, "running")
    fake.down()
    try:
        result = timed_cli(fake, tmp_path / "run", *BOUNDS, "stop", f"default/{name}")
    finally:
        fake.up()
    error = result["doc"]["error"]
    assert error["type"] == "Unavailable", result
    assert error["details"]["writeSent"] is False, error
    # Its first calls, its wait's watches started before the patch, change nothing: worded
    # as any call meeting a refused connection (issue 38: one fault, one message).
    assert "may have been made" not in error["message"], error
    assert _replicas(fake, name) == 1
