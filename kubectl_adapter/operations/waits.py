"""Bounded waits on kubectl, with the reason attached when they fail.

A wait is the Deployment's watch (``kubectl get deployments … --watch -o json``), each event
judged as it comes, so a wait that can no longer succeed ends at once. The watch never shows
a pod stuck in ImagePullBackOff or CrashLoopBackOff, so it runs in slices; between slices
one read looks for failures that will not heal, and the wait ends early with RolloutFailed
when it finds one. An Unschedulable Pod still in its grace is not such a failure: the next
slice ends when the grace does, and the read after it decides.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any

from ..contract.errors import AdapterError, RolloutFailed, Timeout
from ..contract.naming import ProviderId
from ..kubectl import commands, progress
from ..kubectl.runner import KubectlRunner
from ..kubectl.transcript import Wait

SLICE_SECONDS = 10.0

# What a wait leaves of ``--timeout`` for the reads that explain a wait that ran out (the
# workload and its Warning events) and for exiting, so the command ends within --timeout + 1 s.
EXPLAIN_RESERVE_SECONDS = 0.7


def wait_budget(timeout: float, started: float | None) -> float:
    """A wait's share of ``--timeout``, counted from the command's start (``started``, a
    ``monotonic()`` value): what is left, less the explaining reserve. Without a start (a
    library call) the wait has all of it."""
    if started is None:
        return timeout
    return max(1.0, timeout - (monotonic() - started) - EXPLAIN_RESERVE_SECONDS)


Explainer = Callable[[], tuple[str, dict[str, Any]]]


def timed_out(explain: Explainer, timeout: float, workload: str) -> AdapterError:
    """A watched wait whose bound is spent. A Pod failing by then (crash loop, pull error,
    no Pod can be created) is RolloutFailed: retrying the same spec fails again. Otherwise a
    Timeout: the Pod was still starting, or started and never became ready."""
    message, details = explain()
    failing = details.get("failing") or []
    if failing:
        return RolloutFailed(
            f"rollout of {workload} cannot succeed: {failing[0]} | {message}", details
        )
    return Timeout(f"rollout not complete after {timeout:g}s: {message}", details)


# One event of the Deployment's watch: ("ADDED"/"MODIFIED"/"DELETED", the object or None
# when deleted) -> True when the wait is over; raises when it can no longer succeed.
Judge = Callable[[str, dict[str, Any] | None], bool]
# Between two watch slices: a read that looks where the watch cannot (Pods); returns the
# length of the next slice, raises when the wait cannot succeed.
Between = Callable[[], float]


def watch_deployment(
    runner: KubectlRunner,
    pid: ProviderId,
    owner: dict[str, str],
    timeout: float,
    judge: Judge,
    between: Between,
    on_timeout: Callable[[], AdapterError],
    *,
    awaited: str,
    by_hand: list[str],
    slice_seconds: float = SLICE_SECONDS,
) -> dict[str, Any] | None:
    """Watch the Deployment (one kubectl per slice) until ``judge`` says the wait is over;
    return its last state (None: deleted). Every change is judged as it happens, so a wait
    that can no longer succeed (deleted, replaced, scaled the other way, paused) ends at
    once, not at ``--timeout``.

    ``awaited`` names the wait for a progress display; ``by_hand`` is the kubectl command
    that waits for the same end state, which the ``-v`` log gives an operator to paste in
    place of the watch (``transcript``)."""
    with progress.awaiting(awaited, timeout):
        return _watch(
            runner, pid, owner, timeout, judge, between, on_timeout, by_hand, slice_seconds
        )


def _watch(
    runner: KubectlRunner,
    pid: ProviderId,
    owner: dict[str, str],
    timeout: float,
    judge: Judge,
    between: Between,
    on_timeout: Callable[[], AdapterError],
    by_hand: list[str],
    slice_seconds: float,
) -> dict[str, Any] | None:
    deadline = monotonic() + timeout
    last: list[dict[str, Any] | None] = [None]

    def on_event(document: Any) -> bool:
        kind = document.get("type") if isinstance(document, dict) else None
        obj = document.get("object") if isinstance(document, dict) else None
        if kind not in ("ADDED", "MODIFIED", "DELETED") or not isinstance(obj, dict):
            return False  # ERROR (a watch expired) or a bookmark: the next slice re-lists
        last[0] = None if kind == "DELETED" else obj
        progress.note(_counts(obj) if kind != "DELETED" else "the Deployment was deleted")
        return judge(str(kind), last[0])

    next_slice = slice_seconds
    first = True
    while True:
        step = max(1.0, min(deadline - monotonic(), next_slice))
        args = commands.watch_deployment(pid.name, owner)
        wait = Wait(timeout, first, slice_seconds, tuple(by_hand))
        if runner.watch(args, on_event, namespace=pid.namespace, seconds=step, wait=wait):
            return last[0]
        first = False
        if monotonic() >= deadline - 0.5:
            raise on_timeout()
        next_slice = min(slice_seconds, between())


def _counts(deployment: dict[str, Any]) -> str:
    """The Deployment's replica counts, for a progress display."""
    status = deployment.get("status") or {}
    wanted = (deployment.get("spec") or {}).get("replicas", 1)
    counts = ", ".join(
        f"{status.get(key) or 0} {word}"
        for key, word in (("replicas", "live"), ("updatedReplicas", "updated"))
    )
    return f"{counts}, {status.get('availableReplicas') or 0} of {wanted} available"
