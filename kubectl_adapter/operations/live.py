"""``list --watch`` and ``status --watch``: a live feed of snapshots, one per change.

Three kubectl watch the Deployments, ReplicaSets and Pods from the start, by the feed's
whole selector: their first lists are ``list``'s read (each object listed once), and the API
server answering their watch requests proves, before the first line, that the feed may watch
what it will watch for hours. Once all three have listed, who is at rest is judged. A
workload's Pods and ReplicaSets are watched only while it is in motion (``rules.settled``): a
settled workload (running or offline, nothing rolling out or terminating) leaves that state
only through its Deployment's own status, so at rest the feed is one kubectl. Once a
Deployment says it moves, its Pods and ReplicaSets are watched by its name label (the names
of every workload in motion in one selector, the whole selector past ``NAMED_AT_MOST``),
until it and its Pods are at rest again. Snapshots are rebuilt with ``list``'s rules
(``rules.snapshots``) and given only when they differ from the last one given; ``SYNCED``
once every watch running has listed (the first time, and after a broken watch's new list).
Whatever fails before the first line is said by ``list``'s own read, run then: the feed
fails as ``list`` fails, with the same document (lists that found nothing: ``list``'s look
at the namespace).

A watch that breaks is started again (at once, then 0.5, 1, 2 s apart while it fails): it
lists first, and what it lists is compared with what the feed knows, so a change made
meanwhile is given once and nothing unchanged is repeated. A watch cannot tell a quiet
cluster from an API server that stopped answering, so after ``QUIET`` request timeouts with
no word from any watch the feed asks the API server once (``commands.feed_probe``: one
Deployment by name, bounded as ``list``'s read). An API server that has answered nothing
for ``UNREACHABLE`` request timeouts (30 s at the default 10 s) ends the feed with the
error ``list`` gives: its own read, run then, says how the API server fails (Unavailable,
Timeout), so the feed ends typed and worded as ``list`` would. A refusal ends it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any, NoReturn

from ..contract.errors import AdapterError, Timeout, Unavailable
from ..contract.naming import NAME_LABEL, ProviderId
from ..contract.statuses import Status
from ..kubectl import commands
from ..kubectl.feed_streams import ENDED, LISTED, Event, FeedStreams
from ..kubectl.runner import KubectlRunner
from ..rules.settled import deployment_at_rest, settled
from ..rules.snapshots import placeholder_document
from .feed_objects import DEPLOYMENTS, PODS, REPLICASETS, Objects, uid_of
from .listing import list_objects, require_namespace
from .resume import RESUME_DELAYS  # the waits' policy: one for every broken watch

__all__ = ["QUIET", "UNREACHABLE", "Feed", "watch_snapshots"]

Document = dict[str, Any]
# (event, snapshot document): "ADDED" | "MODIFIED" | "DELETED", or ("SYNCED", None).
Feed = Callable[[str, Document | None], None]

KINDS = ("deployments", "replicasets", "pods")
# In request timeouts (--request-timeout, 10 s by default): silence before the feed asks the
# API server whether it still answers, and how long it may answer nothing before the feed
# ends (an API server restart is over in seconds).
QUIET = 2.0
UNREACHABLE = 3.0
# One run of a watch lasts at most this long; then it is started again (a relist).
RUN_SECONDS = 3600.0
# Workload names in one selector of the Pods' and ReplicaSets' watches; beyond, they watch
# the feed's whole selector (a URL stays short; a mass rollout needs every Pod anyway).
NAMED_AT_MOST = 100
TRANSIENT = (Unavailable, Timeout)
# What the probe reads when the feed knows no workload (absent: it answers 404 at once).
PROBED_NAME = "kubectl-adapter-probe"


class _Feed:
    """One feed: its objects, what it gave, which workloads move, its watches' state."""

    def __init__(
        self,
        runner: KubectlRunner,
        streams: FeedStreams,
        feed: Feed,
        namespace: str | None,
        selector: str,
        all_namespaces: bool,
        only: ProviderId | None,
        read: Callable[[], object],
        look: Callable[[], object],
    ) -> None:
        self.runner, self.streams, self.feed, self.read = runner, streams, feed, read
        self.look = look  # list's look at the namespace, when the first lists found nothing
        self.namespace, self.selector, self.all_namespaces = namespace, selector, all_namespaces
        self.only = only
        self.objects = Objects()
        self.given: dict[str, Document] = {}  # provider ID -> the snapshot last given
        self.pids: dict[str, str] = {}  # Deployment uid -> provider ID
        self.moving: set[str] = set()  # Deployment uids whose Pods and ReplicaSets count
        self.covered: set[str] = set()  # ... that the running Pods/RS watches pick
        self.everyone = True  # ... those watches pick the whole selector (the first lists)
        self.listed = {kind: False for kind in KINDS}
        self.relisted: dict[str, set[str]] = {kind: set() for kind in KINDS}
        self.owe_sync = True
        self.synced = False  # the first SYNCED was given: every change is given as it comes
        self.first = True  # the three watches' first lists are still to come
        self.judged: dict[str, Document] = {}  # snapshots built to judge the first list
        self.restart_at: dict[str, float] = {}
        self.failed: dict[str, int] = {kind: 0 for kind in KINDS}
        timeout = runner.config.request_timeout
        self.quiet, self.unreachable = QUIET * timeout, UNREACHABLE * timeout
        self.alive = monotonic()  # the API server's last word
        self.probe_at = self.alive + self.quiet

    # -- the watches --------------------------------------------------------------------------

    def start(self, kind: str, *, first: bool = True) -> None:
        selector = self.selector
        if kind != "deployments" and not self.everyone:
            names = {self._name(uid) for uid in self.covered}
            if "" not in names and len(names) <= NAMED_AT_MOST:
                selector = commands.named_within(selector, sorted(names))
        args = commands.watch_kind(kind, selector, all_namespaces=self.all_namespaces)
        self.streams.start(kind, args, namespace=self.namespace, seconds=RUN_SECONDS, first=first)
        self.listed[kind] = False
        self.relisted[kind] = set()

    def _name(self, uid: str) -> str:
        """The name label its Pods and ReplicaSets carry (their template's), or "" when they
        carry none (a workload applied before the label existed: then the whole selector)."""
        deployment = self.objects.kinds[DEPLOYMENTS].get(uid) or {}
        template = (deployment.get("spec") or {}).get("template") or {}
        return str(((template.get("metadata") or {}).get("labels") or {}).get(NAME_LABEL) or "")

    def watched(self) -> set[str]:
        """The Deployments whose Pods and ReplicaSets the running watches pick."""
        return set(self.objects.kinds[DEPLOYMENTS]) if self.everyone else self.covered

    def retarget(self) -> None:
        """Watch the Pods and ReplicaSets of exactly the workloads in motion: none, once
        every workload is at rest; started again when one starts to move. (The first lists'
        watches of every workload run on until none moves.)"""
        if self.first:
            return
        self.moving &= set(self.objects.kinds[DEPLOYMENTS])
        if not self.moving:
            if self.covered or self.everyone or self.streams.running("pods"):
                self.covered, self.everyone = set(), False
                for kind in ("replicasets", "pods"):
                    self.streams.stop(kind)
                    self.restart_at.pop(kind, None)
                    self.listed[kind] = False
            return
        if self.everyone or self.moving <= self.covered:
            return
        self.covered = set(self.moving)
        for kind in ("replicasets", "pods"):
            self.restart_at.pop(kind, None)
            self.start(kind)

    # -- what the watches say -----------------------------------------------------------------

    def handle(self, event: Event) -> None:
        kind, index = event.key, KINDS.index(event.key)
        if event.what == ENDED:
            self._ended(kind, event.failure)
            return
        self.alive = monotonic()
        self.failed[kind] = 0
        if event.what == LISTED:
            self.listed[kind] = True
            self._listed(kind, index)
            return
        touched: set[str] = set()
        for obj in event.objects:
            if not self.listed[kind]:
                self.relisted[kind].add(uid_of(obj))
            touched |= self.objects.seen(index, event.kind, obj)
        if self.synced:
            for uid in sorted(touched):
                self._give(uid)
        for uid in touched:  # built before this event: no longer what the cluster shows
            self.judged.pop(uid, None)

    def _listed(self, kind: str, index: int) -> None:
        """A watch's list is complete: what it no longer shows went while it was not
        watching; the first time, the feed is whole once all three watches have listed."""
        shown = self.relisted[kind]
        if kind == "deployments":
            for uid in sorted(set(self.objects.kinds[DEPLOYMENTS]) - shown):
                self.objects.seen(DEPLOYMENTS, "DELETED", self.objects.kinds[DEPLOYMENTS][uid])
        else:
            kept_rs = shown if index == REPLICASETS else set(self.objects.kinds[REPLICASETS])
            kept_pods = shown if index == PODS else set(self.objects.kinds[PODS])
            for uid in sorted(self.watched()):
                self.objects.forget_children(uid, kept_rs, kept_pods)
        if self.first:
            if not all(self.listed.values()):
                return
            self.first = False  # all three have listed: who is at rest
            self._first_judged()
        self.retarget()
        if self.owe_sync and self.whole():
            self._sync()
        elif self.synced and kind != "deployments":
            for uid in sorted(self.watched()):
                self._give(uid)

    def _first_judged(self) -> None:
        """All three watches have listed: a workload is at rest when its Deployment and its
        Pods say so. Lists that found nothing: does the namespace exist (``list``'s look)?"""
        if not any(self.objects.kinds):
            try:
                self.look()
            except AdapterError as failure:
                self.before_first_line(failure)
        for uid, deployment in self.objects.kinds[DEPLOYMENTS].items():
            if not deployment_at_rest(deployment):
                self.moving.add(uid)
                continue
            document = self.objects.snapshot(uid)
            assert document is not None
            self.judged[uid] = document  # the first SYNCED gives it: built once
            if not settled(deployment, self.objects.owned_pods(uid), str(document["status"])):
                self.moving.add(uid)

    def whole(self) -> bool:
        """Every watch running has listed (the feed knows the cluster as it is now)."""
        return (
            all(self.listed[kind] for kind in KINDS if self.streams.running(kind))
            and (self.listed["deployments"])
        )

    def _ended(self, kind: str, failure: AdapterError | None) -> None:
        """A watch ended: the server closed it, or it failed. Started again after a pause;
        a refusal, or an API server silent for too long, ends the feed."""
        if failure is not None and not self.synced:
            self.before_first_line(failure)
        if failure is not None and not isinstance(failure, TRANSIENT):
            raise failure
        if failure is not None and monotonic() - self.alive >= self.unreachable:
            self.verdict()
        self.failed[kind] += 1
        delay = RESUME_DELAYS[min(self.failed[kind] - 1, len(RESUME_DELAYS) - 1)]
        self.restart_at[kind] = monotonic() + (delay if failure is not None else 0.0)
        self.listed[kind] = False
        self.owe_sync = True

    def restart_due(self) -> None:
        now = monotonic()
        for kind, at in sorted(self.restart_at.items()):
            if at <= now:
                del self.restart_at[kind]
                if kind == "deployments" or self.covered or self.everyone:
                    self.start(kind, first=False)

    def probe(self) -> None:
        """After a silence: does the API server still answer? (A failure that is not the
        API server's silence ends the feed; so does a silence past ``unreachable``.)"""
        now = monotonic()
        if now < self.probe_at:
            return
        if not self.synced:  # no first line yet: list's own read is the look, and says why
            self.verdict()
            return
        namespace, name = self.namespace or "default", PROBED_NAME
        for deployment in self.objects.kinds[DEPLOYMENTS].values():
            meta = deployment.get("metadata") or {}
            namespace, name = str(meta.get("namespace") or namespace), str(meta.get("name"))
            break
        try:
            self.runner.run(commands.feed_probe(name), namespace=namespace)
        except TRANSIENT:
            if monotonic() - self.alive >= self.unreachable:
                self.verdict()
                return
            self.probe_at = monotonic() + RESUME_DELAYS[-1]
            return
        except AdapterError:
            pass  # refused, not found: it answered (a watch meets a lasting refusal itself)
        self.alive = monotonic()
        self.probe_at = self.alive + self.quiet

    def before_first_line(self, failure: AdapterError) -> NoReturn:
        """A failure before the first line: ``list``'s own read says it as ``list`` would
        (the same document); should that read pass, the failure stands."""
        self.read()
        raise failure

    def verdict(self) -> None:
        """The API server has said nothing for too long: ``list``'s own read says how it
        fails, so the feed ends with the error ``list`` gives now (type, message and all).
        Should it answer after all, the feed goes on."""
        self.read()
        self.alive = monotonic()
        self.probe_at = self.alive + self.quiet

    def wake_in(self) -> float:
        now = monotonic()
        self.probe_at = max(self.probe_at, self.alive + self.quiet)
        return max(0.0, min([self.probe_at, *self.restart_at.values()]) - now)

    # -- what the feed says -------------------------------------------------------------------

    def _give(self, uid: str) -> None:
        document = self.judged.pop(uid, None) or self.objects.snapshot(uid)
        if document is None:
            self.moving.discard(uid)
            pid = self.pids.pop(uid, None)
            if pid is not None:
                self._gone(pid)
            return
        self._judge(uid, str(document["status"]))
        pid = str(document["providerId"])
        self.pids[uid] = pid
        before = self.given.get(pid)
        if before == document:
            return
        self.given[pid] = document
        self.feed("ADDED" if before is None or before["status"] == "missing" else "MODIFIED",
                  document)  # fmt: skip

    def _judge(self, uid: str, status: str) -> None:
        """In motion or at rest: the Deployment alone says it moves; it is at rest again only
        when its Pods, watched and listed, agree."""
        deployment = self.objects.kinds[DEPLOYMENTS][uid]
        if uid not in self.moving:
            if not deployment_at_rest(deployment) or status not in ("running", "offline"):
                self.moving.add(uid)
            return
        listed = self.listed["replicasets"] and self.listed["pods"] and uid in self.watched()
        if listed and settled(deployment, self.objects.owned_pods(uid), status):
            self.moving.discard(uid)

    def _gone(self, pid: str) -> None:
        before = self.given.get(pid)
        if before is None or before["status"] == "missing":
            return
        namespace, _, name = pid.partition("/")
        gone = placeholder_document(
            ProviderId(namespace, name), Status.MISSING, "deployment does not exist"
        )
        if self.only is None:
            del self.given[pid]
        else:
            self.given[pid] = gone
        self.feed("DELETED", gone)

    def _sync(self) -> None:
        """Every watch has listed: what the cluster shows now, against what was given."""
        self.owe_sync, self.synced = False, True
        for uid in sorted(set(self.objects.kinds[DEPLOYMENTS]) | set(self.pids)):
            self._give(uid)  # one gone while unwatched: DELETED
        self.judged.clear()
        shown = set(self.pids.values())
        for pid in sorted(set(self.given) - shown):
            self._gone(pid)
        if self.only is not None and str(self.only) not in self.given:
            missing = placeholder_document(self.only, Status.MISSING, "deployment does not exist")
            self.given[str(self.only)] = missing
            self.feed("ADDED", missing)
        self.feed("SYNCED", None)


def watch_snapshots(
    runner: KubectlRunner,
    namespace: str | None,
    feed: Feed,
    *,
    node_id: str | None = None,
    selector: str | None = None,
    all_namespaces: bool = False,
    only: ProviderId | None = None,
) -> None:
    """Feed every change of the workloads ``node_id`` and ``selector`` pick (``list -w``),
    or of ``only`` (``status -w``: given as missing while it does not exist), until
    interrupted (a signal), a refusal, or an API server silent for ``UNREACHABLE`` request
    timeouts: those raise, with ``list``'s error before the first line."""
    if only is not None:
        node_id, selector = None, f"{NAME_LABEL}={only.name}"
    whole = commands.workloads_selector(node_id, selector)
    streams = FeedStreams(runner)

    def read() -> object:
        return list_objects(
            runner, namespace or "", node_id, selector, all_namespaces=all_namespaces,
            namespace_must_exist=only is None,
        )  # fmt: skip

    def look() -> None:
        if only is None and not all_namespaces:
            require_namespace(runner, namespace or "")

    try:
        state = _Feed(runner, streams, feed, namespace, whole, all_namespaces, only, read, look)
        for kind in KINDS:
            state.start(kind)
        while True:
            for event in streams.events(state.wake_in()):
                if streams.current(event):
                    state.handle(event)
            state.retarget()
            state.restart_due()
            state.probe()
    finally:
        streams.close()
