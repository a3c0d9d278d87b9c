"""Bounded waits on kubectl, with the reason attached when they fail.

A wait watches the Deployment and its Pods at once (two ``kubectl get … --watch -o json``:
kubectl watches one kind per process) and judges what both have shown at every event
(``rules.wait_verdicts``), so it ends as soon as what it waits for has happened, and as soon
as it can no longer happen: the Deployment deleted, replaced, scaled the other way, or a Pod
that cannot start. A watch that breaks (a dropped connection, an API server restart, a
watch the server closes or expires) is started again: it lists the current state first, and
the verdicts judge states, not changes, so nothing they read is lost. Only an API server
unreachable for ``UNREACHABLE_SECONDS`` in a row is ``Unavailable``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from time import monotonic
from typing import Any

from ..contract.errors import AdapterError, RolloutFailed, Timeout, Unavailable
from ..contract.naming import ProviderId
from ..kubectl import commands, progress
from ..kubectl.runner import KubectlRunner
from ..kubectl.transcript import Wait
from ..rules import clock
from ..rules.pod_words import progress_note
from ..rules.wait_verdicts import Seen, Verdict

# What a wait leaves of ``--timeout`` for the reads that explain a wait that ran out (the
# workload and its Warning events) and for exiting, so the command ends within --timeout + 1 s.
EXPLAIN_RESERVE_SECONDS = 0.7

# A broken watch is started again at once, then after 0.5 s, 1 s, 2 s… (at most 2 s): an
# API server restart is over in seconds, and kubectl rollout status rides it out too.
RESUME_DELAYS = (0.0, 0.5, 1.0, 2.0)
# How long the API server may stay unreachable (every watch started again failing before it
# listed) before the wait says Unavailable; within the wait's own --timeout in any case.
UNREACHABLE_SECONDS = 10.0


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
        # The message leads with the failure (``diagnostics.explain``): said once.
        return RolloutFailed(f"rollout of {workload} cannot succeed: {message}", details)
    return Timeout(f"rollout not complete after {timeout:g}s: {message}", details)


# What both watches have shown -> the verdict (``rules.wait_verdicts``); raises when the
# wait can no longer succeed.
Judge = Callable[[Seen, datetime], Verdict]
# A suspected failure (the verdict's words): raises when a read confirms the wait cannot
# succeed, returns when it can (the failing Pod is not the newest ReplicaSet's).
Confirm = Callable[[str], None]


class _Watched:
    """What one run of the two watches has shown, judged at every event (``Watching``)."""

    DEPLOYMENT, PODS = 0, 1

    def __init__(self, judge: Judge, confirm: Confirm, checked: set[str]) -> None:
        self.judge = judge
        self.confirm = confirm
        self.checked = checked  # suspects a read cleared: not read again for the same reason
        self.deployment: dict[str, Any] | None = None
        self.pods: dict[str, dict[str, Any]] = {}
        self.listed = [False, False]
        self.wake: float | None = None
        self.counts = ""

    def document(self, index: int, document: Any) -> bool:
        event = commands.watched_objects(document)
        if event is None:
            return False  # ERROR (the watch expired: kubectl ends it, we start it again)
        kind, objects = event
        for obj in objects:
            self._seen(index, kind, obj)
        return self._judged()

    def _seen(self, index: int, kind: str, obj: dict[str, Any]) -> None:
        if index == self.DEPLOYMENT:
            self.deployment = None if kind == "DELETED" else obj
            self.counts = _counts(obj) if kind != "DELETED" else "the Deployment was deleted"
        else:
            name = str((obj.get("metadata") or {}).get("name", ""))
            if kind == "DELETED":
                self.pods.pop(name, None)
            else:
                self.pods[name] = obj
        if progress.listening():
            # The counts alone say "0 live" while a Pod runs through its grace period.
            pods = progress_note(list(self.pods.values()), clock.utc_now())
            progress.note("; ".join(part for part in (pods, self.counts) if part))

    def stderr_line(self, index: int, line: str) -> bool:
        if not commands.watch_listed(line) or self.listed[index]:
            return False
        self.listed[index] = True
        return self._judged()

    def wake_at(self) -> float | None:
        return self.wake

    def woken(self) -> bool:
        self.wake = None
        return self._judged()

    @property
    def working(self) -> bool:
        return all(self.listed)

    def _judged(self) -> bool:
        seen = Seen(self.deployment, self.listed[0], list(self.pods.values()), self.listed[1])
        verdict = self.judge(seen, clock.utc_now())
        # Just after the grace ends, so that the verdict then finds it over.
        self.wake = None if verdict.wake_in is None else monotonic() + verdict.wake_in + 0.5
        if verdict.suspect is not None and verdict.suspect[0] not in self.checked:
            key, words = verdict.suspect
            self.checked.add(key)
            try:
                self.confirm(words)
            except Unavailable:
                self.checked.discard(key)  # not confirmed either way: the next event asks again
        return verdict.done


def watch_workload(
    runner: KubectlRunner,
    pid: ProviderId,
    watches: list[list[str]],
    timeout: float,
    judge: Judge,
    confirm: Confirm,
    on_timeout: Callable[[], AdapterError],
    *,
    awaited: str,
    by_hand: list[str],
) -> dict[str, Any] | None:
    """Watch the Deployment and its Pods (``watches``: the two commands, in that order) until
    ``judge`` says the wait is over; return the Deployment's last state.

    ``awaited`` names the wait for a progress display; ``by_hand`` is the kubectl command
    that waits for the same end state, which the ``-v`` log gives an operator to paste in
    place of the watches (``transcript``)."""
    with progress.awaiting(awaited, timeout):
        deadline = monotonic() + timeout
        checked: set[str] = set()
        first = True
        failed_in_a_row = 0  # watches started again that broke before they listed
        unreachable_since: float | None = None
        failure: AdapterError | None = None
        while True:
            left = deadline - monotonic()
            if left <= 0.5:
                raise failure or on_timeout()
            watched = _Watched(judge, confirm, checked)
            wait = Wait(timeout, first, tuple(by_hand))
            first = False
            end = runner.watch_together(
                watches, watched, namespace=pid.namespace, seconds=left, wait=wait
            )
            if end.decided:
                return watched.deployment
            if end.decided is False:
                raise on_timeout()
            failure = end.failure
            if failure is not None and not isinstance(failure, Unavailable):
                raise failure  # refused, misconfigured: starting again cannot help
            now = monotonic()
            if watched.working:  # it got through: a watch ended, not the API server
                failed_in_a_row, unreachable_since = 0, None
            else:
                failed_in_a_row += 1
                if failure is not None and unreachable_since is None:
                    unreachable_since = now
                elif (
                    failure is not None and now - (unreachable_since or now) >= UNREACHABLE_SECONDS
                ):
                    raise failure
            pause = RESUME_DELAYS[min(failed_in_a_row, len(RESUME_DELAYS) - 1)]
            time.sleep(max(0.0, min(pause, deadline - now - 0.5)))


def _counts(deployment: dict[str, Any]) -> str:
    """The Deployment's replica counts, for a progress display."""
    status = deployment.get("status") or {}
    wanted = (deployment.get("spec") or {}).get("replicas", 1)
    counts = ", ".join(
        f"{status.get(key) or 0} {word}"
        for key, word in (("replicas", "live"), ("updatedReplicas", "updated"))
    )
    return f"{counts}, {status.get('availableReplicas') or 0} of {wanted} available"
