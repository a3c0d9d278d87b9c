"""The one wait: a description (``Wait``) and the one function that runs it (``await_``).

A wait watches the Deployment and its Pods at once (two ``kubectl get … --watch -o json``:
kubectl watches one kind per process) and judges what both have shown at every event
(``rules.wait_verdicts``), so it ends as soon as what it waits for has happened, and as soon
as it can no longer happen: the Deployment deleted, replaced, scaled the other way, or a Pod
that cannot start. The rollout wait (create, start, reconfigure) and the Pods-gone wait
(stop) are two ``Wait``s.

A write's watches start *before* it (``Write``): the API server answering their list and
watch proves the wait's permissions, at no process of its own, and they see the write's
effect from its first event. Once both have listed, the write runs; a refusal before that
ends the command with nothing written (``refused``), one after it says what was written
(``refused_after``). A watch that breaks after the write is started again
(``resume.Resumption``); before it, the watches are a read and its fault ends the command.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from time import monotonic
from typing import TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import AdapterError, Timeout, Unavailable
from ..kubectl import commands, progress
from ..kubectl.bounds import READ_GRACE_SECONDS
from ..kubectl.pace import Pace
from ..kubectl.runner import KubectlRunner
from ..kubectl.transcript import Wait as Shown
from ..kubectl.watches import Unanswered
from .resume import Resumption
from .write_first import Write, refused, refused_after

if TYPE_CHECKING:
    from datetime import datetime

    from ..rules.wait_verdicts import Seen, Verdict

# The rules that judge a wait's events are imported at its first event, once its watches
# have started: a command's first kubectl starts before them (tests/cli/test_startup.py).

Document = dict[str, Any]

# What a wait leaves of ``--timeout`` for the reads that explain a wait that ran out (the
# workload and its Warning events) and for exiting, so the command ends within --timeout + 1 s.
EXPLAIN_RESERVE_SECONDS = 0.7
# How long the API server may stay unreachable (every watch started again failing before it
# listed) before the wait says Unavailable; within the wait's own --timeout in any case.
UNREACHABLE_SECONDS = 10.0

# What both watches have shown -> the verdict (``rules.wait_verdicts``); raises when the
# wait can no longer succeed.
Judge = Callable[["Seen", "datetime"], "Verdict"]
# A suspected failure (the verdict's words): raises when a read confirms the wait cannot
# succeed, returns when it can (the failing Pod is not the newest ReplicaSet's).
Confirm = Callable[[str], None]
Explainer = Callable[[], tuple[str, dict[str, Any]]]


def _nothing_to_confirm(suspect: str) -> None:
    """A wait whose verdict suspects no failure (stop's)."""


class Wait(NamedTuple):
    """One wait, described once: the watches that see it (the Deployment's, then its Pods'),
    what ends it (``judge``), what confirms a failure it suspects, what a timeout says, and
    the command an operator pastes to wait the same way (``by_hand``). ``start``: the
    Deployment as the write left it (its answer), the first state judged."""

    awaited: str
    watches: list[list[str]]
    by_hand: list[str]
    judge: Judge
    on_timeout: Callable[[], AdapterError]
    confirm: Confirm = _nothing_to_confirm
    start: Document | None = None


def _over(seen: Seen, now: datetime) -> Verdict:
    from ..rules.wait_verdicts import DONE

    return DONE


def _not_timed(  # pragma: no cover - an ended wait never runs out of time
) -> AdapterError:
    raise AssertionError("an ended wait has no timeout")


# The wait a write that needs none ends on at once.
_OVER = Wait("", [], [], _over, _not_timed)


def wait_budget(timeout: float, started: float | None) -> float:
    """A wait's share of ``--timeout``, counted from the command's start (``started``, a
    ``monotonic()`` value): what is left, less the explaining reserve. Without a start (a
    library call) the wait has all of it."""
    if started is None:
        return timeout
    return max(1.0, timeout - (monotonic() - started) - EXPLAIN_RESERVE_SECONDS)


def await_(
    runner: KubectlRunner,
    namespace: str,
    budget: float,
    wait: Wait | None,
    write: Write | None = None,
    *,
    watches: list[list[str]] | None = None,
    by_hand: list[str] | None = None,
    awaited: str = "",
) -> Document | None:
    """Run one wait for at most ``budget`` seconds; return the Deployment's last state.

    With ``write``, ``wait`` is None: ``watches`` (and ``by_hand``, ``awaited``) start
    first, the write runs once both have listed, and its ``Wait`` goes on from there."""
    pending = write
    current = wait
    if current is not None:
        watches, by_hand, awaited = current.watches, current.by_hand, current.awaited
    assert watches is not None and by_hand is not None
    # Before the write, its watches are paced as a read is: an API server that answers
    # nothing for a read's bound is said with nothing written, not after the wait's whole
    # --timeout; one that answers (a 429, a 5xx kubectl retries) is left to kubectl.
    pace = Pace(runner.config.request_timeout + READ_GRACE_SECONDS, write=False)
    with contextlib.ExitStack() as shown_waiting:
        if pending is None:
            shown_waiting.enter_context(progress.awaiting(awaited, budget))
        deadline = monotonic() + budget
        checked: set[str] = set()
        resumption = Resumption(UNREACHABLE_SECONDS)
        first = True
        failure: AdapterError | None = None
        while True:
            left = deadline - monotonic()
            if left <= 0.5:
                if failure is None and pending is not None:
                    raise refused(_out_of_time(None, pending, budget), pending)
                if failure is None:
                    raise _out_of_time(current, pending, budget)
                raise refused(failure, pending) if pending is not None else failure
            watched = _Watched(current, pending, watches, checked, runner, namespace, budget)
            if pending is not None:  # the wait is shown once the write is made
                watched.on_written = lambda: shown_waiting.enter_context(
                    progress.awaiting(awaited, budget)
                )
            # Before a write, the command that waits by hand pastes below it: logged then.
            shown = Shown(budget, first, () if pending is not None else tuple(by_hand))
            first = False
            try:
                if pending is not None:
                    watched.pace = pace
                end = runner.watch_together(
                    watches, watched, namespace=namespace, seconds=left, wait=shown
                )
            except AdapterError as exc:
                said = _said(exc, write, pending is None or watched.wrote, watched.writing)
                if said is exc:
                    raise
                raise said from exc
            if watched.wait is not None and current is None:
                current, pending = watched.wait, None
                if watched.restart:  # the wait needs other watches than those that ran
                    watches, by_hand = current.watches, current.by_hand
                    continue
            if end.decided:
                return watched.deployment
            if end.decided is False:
                timeout = _out_of_time(current, pending, budget)
                raise refused(timeout, pending) if pending is not None else timeout
            failure = end.failure
            if failure is not None and pending is not None:
                # Before the write the watches are a read: the fault is said at once, as
                # a read meeting it says it; starting again is for a wait under way.
                raise refused(failure, pending)
            try:
                pause = resumption.pause(failure, watched.working)
            except AdapterError as exc:
                said = _said(exc, write, pending is None or watched.wrote, watched.writing)
                if said is exc:
                    raise
                raise said from exc
            time.sleep(max(0.0, min(pause, deadline - monotonic() - 0.5)))


def _said(error: AdapterError, write: Write | None, wrote: bool, writing: bool) -> AdapterError:
    """An error met while the watches ran, as the command says it: before the write, with
    nothing written; from the write itself, as it is; after it, saying what was written."""
    if write is None or (writing and not wrote):
        return error
    return refused_after(error, write) if wrote else refused(error, write)


def _out_of_time(wait: Wait | None, pending: Write | None, budget: float) -> AdapterError:
    if wait is not None:
        return wait.on_timeout()
    assert pending is not None
    return Timeout(
        f"{pending.verb} of {pending.provider_id}: the API server did not answer its wait's "
        f"watches within {budget:g}s",
        {},
    )


def _resource_version(obj: Document | None) -> int | None:
    value = ((obj or {}).get("metadata") or {}).get("resourceVersion")
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None  # opaque: every state shown is taken as it comes


class _Watched:
    """What one run of the two watches has shown, judged at every event once the write (if
    any) is made (``watches.Watching``)."""

    DEPLOYMENT, PODS = 0, 1

    def __init__(
        self,
        wait: Wait | None,
        write: Write | None,
        watches: list[list[str]],
        checked: set[str],
        runner: KubectlRunner,
        namespace: str,
        budget: float,
    ) -> None:
        self.runner, self.namespace, self.budget = runner, namespace, budget
        self.wait = wait
        self.write = write
        self.watches = watches
        self.checked = checked  # suspects a read cleared: not read again for the same reason
        self.deployment: Document | None = None
        # The Deployment of the name as the watch last showed it, whatever its labels
        # (create's watches it by name alone: the write's ``check`` reads it); and whether
        # the watch by Manager's label would show it (``commands.in_view``).
        self.named: Document | None = None
        self.in_view = False
        self.written: int | None = None  # the write's resourceVersion: older states are past
        self.shown: int | None = None  # the resourceVersion of the last Deployment event
        self.pods: dict[str, Document] = {}
        self.listed = [False, False]
        self.wake: float | None = None
        self.counts = ""
        self.on_written: Callable[[], object] = lambda: None
        self.pace: Pace | None = None  # before the write: the watches' answers, as a read's
        self.writing = False  # its check or write has started (their errors are said as is)
        self.wrote = False
        self.restart = False

    def document(self, index: int, document: Any) -> bool:
        event = commands.watched_objects(document)
        if event is None:
            return False  # ERROR (the watch expired: kubectl ends it, we start it again)
        kind, objects = event
        judged = not objects
        for obj in objects:
            seen: str | None = kind
            if index == self.DEPLOYMENT:
                self.named = None if kind == "DELETED" else obj
                seen = commands.in_view(kind, obj, self.in_view)
                self.in_view = seen is not None and seen != "DELETED"
            if seen is not None:
                self._seen(index, seen, obj)
                judged = True
        # What the label-selected watch would not have shown is not judged either.
        return self._judged() if judged else False

    def _seen(self, index: int, kind: str, obj: Document) -> None:
        if index == self.DEPLOYMENT:
            version = _resource_version(obj)
            older = version is not None and self.written is not None and version < self.written
            if kind != "DELETED" and older:
                return  # a state from before the write, read after its answer
            self.shown = version  # a deletion's too: the state after it is "gone"
            self.deployment = None if kind == "DELETED" else obj
            self.counts = _counts(obj) if kind != "DELETED" else "the Deployment was deleted"
        else:
            name = str((obj.get("metadata") or {}).get("name", ""))
            if kind == "DELETED":
                self.pods.pop(name, None)
            else:
                self.pods[name] = obj
        if progress.listening():
            from ..rules import clock
            from ..rules.pod_words import progress_note

            # The counts alone say "0 live" while a Pod runs through its grace period.
            pods = progress_note(list(self.pods.values()), clock.utc_now())
            progress.note("; ".join(part for part in (pods, self.counts) if part))

    def stderr_line(self, index: int, line: str) -> bool:
        if self.pace is not None and self.wait is None:
            self.pace.feed(f"{line}\n".encode())
        if not commands.watch_listed(line) or self.listed[index]:
            return False
        self.listed[index] = True
        return self._judged()

    def wake_at(self) -> float | None:
        silent = self._silent_by()
        if silent is not None:
            return silent if self.wake is None else min(self.wake, silent)
        return self.wake

    def _silent_by(self) -> float | None:
        """Before the write: when the watches will have gone a read's bound unanswered."""
        if self.wait is not None or self.pace is None:
            return None
        return self.pace.idle_deadline()

    def woken(self) -> bool:
        silent = self._silent_by()
        if silent is not None and monotonic() >= silent:
            assert self.pace is not None  # typed by the runner as a read stopped so is
            raise Unanswered(self.listed.index(False) if not self.working else 0, self.pace.idle)
        self.wake = None
        return self._judged()

    @property
    def working(self) -> bool:
        return all(self.listed)

    def _judged(self) -> bool:
        if self.wait is None:
            if not self.working or self.write is None:
                return False
            # Both watches answered: the Role grants the wait. Now the write, once what the
            # Deployment's watch listed passes its check (its refusal is said as it is).
            self.writing = True
            if self.write.check is not None:
                self.write.check(self.named)
            made = self.write.run()
            self.wrote = True
            self.on_written()
            if isinstance(made, dict):  # nothing to wait for: the write's answer is the end
                self.deployment, self.wait = made, _OVER
                return True
            assert isinstance(made, Wait), made
            self.runner.log_by_hand(made.by_hand, self.budget, self.namespace)
            self.wait = made
            if self.wait.start is not None:
                self.written = _resource_version(self.wait.start)
                shown, written = self.shown, self.written
                if shown is None or written is None or shown < written:
                    self.deployment = self.wait.start  # the watch has not shown it yet
            if self.wait.watches != self.watches:
                self.restart = True
                return True
        from ..rules import clock
        from ..rules.wait_verdicts import Seen

        seen = Seen(self.deployment, self.listed[0], list(self.pods.values()), self.listed[1])
        verdict = self.wait.judge(seen, clock.utc_now())
        # Just after the grace ends, so that the verdict then finds it over.
        self.wake = None if verdict.wake_in is None else monotonic() + verdict.wake_in + 0.5
        if verdict.suspect is not None and verdict.suspect[0] not in self.checked:
            key, words = verdict.suspect
            self.checked.add(key)
            try:
                self.wait.confirm(words)
            except Unavailable:
                self.checked.discard(key)  # not confirmed either way: the next event asks again
        return verdict.done


def _counts(deployment: Document) -> str:
    """The Deployment's replica counts, for a progress display."""
    status = deployment.get("status") or {}
    wanted = (deployment.get("spec") or {}).get("replicas", 1)
    counts = ", ".join(
        f"{status.get(key) or 0} {word}"
        for key, word in (("replicas", "live"), ("updatedReplicas", "updated"))
    )
    return f"{counts}, {status.get('availableReplicas') or 0} of {wanted} available"
