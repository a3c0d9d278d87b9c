"""``call.decide``: what a kubectl call is, its bound and what may stop it, before it starts."""

from __future__ import annotations

import pytest

from kubectl_adapter.kubectl.bounds import READ_GRACE_SECONDS
from kubectl_adapter.kubectl.call import Pacing, decide
from kubectl_adapter.kubectl.config import ClusterConfig

CONFIG = ClusterConfig(request_timeout=10, call_timeout=60, deadline=None)
READ_BOUND = 10 + READ_GRACE_SECONDS
IDLE = 10 + READ_GRACE_SECONDS


@pytest.mark.parametrize(
    ("args", "timeout", "kind", "bound", "pacing"),
    [
        (["get", "deployment", "x"], None, "read", READ_BOUND, None),
        (["config", "view"], None, "read", READ_BOUND, None),
        # a read whose -v=6 log shows each request: bounded per request, not by its size
        (["get", "pods", "-v=6"], None, "read", 60, Pacing(IDLE, write=False)),
        (["patch", "deployment", "x"], None, "write", 60, None),
        (["patch", "deployment", "x", "-v=6"], None, "write", 60, None),
        # a write whose -v=7 log shows each request leave: stoppable until its change has
        (["patch", "deployment", "x", "-v=7"], None, "write", 60, Pacing(IDLE, write=True)),
        (["delete", "deployment", "x", "--wait", "-v=7"], 75, "wait", 75,
         Pacing(IDLE, write=True)),
        (["get", "pods", "--watch", "-v=6"], 300, "wait", 300, Pacing(IDLE, write=False)),
    ],
)  # fmt: skip
def test_kind_bound_and_pacing(
    args: list[str], timeout: float | None, kind: str, bound: float, pacing: Pacing | None
) -> None:
    call = decide(CONFIG, ["kubectl", *args], args, remaining=None, timeout=timeout)
    assert (call.kind, call.bound, call.pacing) == (kind, bound, pacing)
    assert not call.cut and not call.spent
    assert call.argv == ("kubectl", *args)


def test_a_read_is_bounded_by_the_call_timeout_when_that_is_shorter() -> None:
    config = CONFIG._replace(call_timeout=4)
    assert decide(config, ["kubectl", "get", "x"], ["get", "x"], remaining=None).bound == 4


@pytest.mark.parametrize(
    ("remaining", "bound", "cut", "spent"),
    [(100.0, 60, False, False), (30.0, 30.0, True, False), (0.0, 0.0, True, True),
     (-1.0, -1.0, True, True)],
)  # fmt: skip
def test_the_deadline_cuts_the_bound(
    remaining: float, bound: float, cut: bool, spent: bool
) -> None:
    config = CONFIG._replace(deadline=120.0)
    call = decide(config, ["kubectl", "patch", "x"], ["patch", "x"], remaining=remaining)
    assert (call.bound, call.cut, call.spent, call.deadline) == (bound, cut, spent, 120.0)


def test_shown_is_the_command_as_typed() -> None:
    call = decide(CONFIG, ["/usr/bin/kubectl", "get", "x"], ["get", "x"], remaining=None)
    assert call.shown == "kubectl get x"
