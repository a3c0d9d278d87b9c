"""One kubectl call, decided before its process starts: what it is, its bound, what may stop it.

As ``subprocess.run`` takes everything about a run before it starts, a ``Call`` holds all
the runner decided: the argv, the kind (a read, a write, a wait), how long the process may
live, whether that bound is what was left of ``--deadline``, and whether its ``-v`` log
paces it. ``process`` runs it and ``outcome`` judges what came back; neither asks back.

Bounds: a read (``get``, ``version``, ``config``) lives at most ``--request-timeout`` plus a
grace, a write ``--call-timeout``, a wait the bound it was given (``process_bound``: its own
``--timeout`` plus a grace to say why). A kubectl whose ``-v`` log shows its requests is
paced too (``Pacing``): a read (``-v=6``) is stopped when one request waits that grace
longer than ``--request-timeout`` for an answer, a write (``-v=7``) likewise until its change
has left (``pace``), and a read so paced has no bound of its own but ``--call-timeout``.
Every bound is at most what is left of the command's deadline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from .bounds import READ_GRACE_SECONDS, seconds_arg
from .config import ClusterConfig

# Extra time a waiting kubectl gets beyond its own --timeout before we kill it: it must be
# allowed to report its own timeout (with its own words) before we call it a hang.
WAIT_GRACE_SECONDS = 15.0

# kubectl verbs that only read: bounded by the request timeout (plus READ_GRACE_SECONDS),
# not by the much longer --call-timeout. ``config view`` reads only the kubeconfig, yet the
# Cloud SDK dispatcher build may run the exec credential plugin for it (to ask the server's
# version): a hanging plugin must cost a read's bound, not --call-timeout.
READ_VERBS = frozenset({"get", "version", "config"})

# kubectl's -v levels that log each answered request (6) and each write as it leaves (7).
ANSWERS_LOGGED = 6
WRITES_LOGGED = 7

_VERBOSITY = re.compile(r"^--?v(?:=|$)(\d*)")

Kind = Literal["read", "write", "wait"]


class Pacing(NamedTuple):
    """A kubectl bounded per request by its ``-v`` log: it may go ``idle`` seconds without an
    answer while stopping it loses nothing (a read always; a ``write`` until its change has
    left)."""

    idle: float
    write: bool


class Call(NamedTuple):
    """One kubectl run as decided: ``bound`` is how long its process may live (``cut``: that
    is what was left of ``--deadline``; ``spent``: nothing was, it must not start). A
    ``read`` on its default bound gets one more run if kubectl spent that bound on discovery
    and left the cache written (a cold cache). ``absent``: its 404 means "absent" to the
    caller (the log says so). ``stream``: stdout lines go to the progress display as they
    come. ``raw``: stdout is kept as bytes. ``changes``: it may change the workload (not a
    ``get``, not a permission review), so its failure says whether its change was sent.
    ``config``: the node it runs against (its failure names the kubeconfig). ``guarded``:
    the provider ID a patch with ownership tests is about (its 422 is a failed test).
    ``harmless``: a write verb its caller declared to change nothing (a permission review
    before a write): its failure says ``writeSent: false``, its message the same as a read's.
    A NamedTuple,
    immutable: ``dataclasses`` would import ``inspect`` on every command's start-up
    (architecture.md)."""

    argv: tuple[str, ...]
    kind: Kind
    bound: float
    pacing: Pacing | None = None
    stdin: str | None = None
    cut: bool = False
    spent: bool = False
    deadline: float | None = None
    absent: bool = False
    stream: bool = False
    raw: bool = False
    changes: bool = False
    config: ClusterConfig | None = None
    guarded: str | None = None
    harmless: bool = False

    @property
    def shown(self) -> str:
        """The command as an operator would type it (``transcript.display``)."""
        from .transcript import display

        return display(self.argv)


def decide(
    config: ClusterConfig,
    argv: Sequence[str],
    args: Sequence[str],
    *,
    remaining: float | None,
    timeout: float | None = None,
    stdin: str | None = None,
    absent: bool = False,
    stream: bool = False,
    raw: bool = False,
    changes: bool | None = None,
    guarded: str | None = None,
    watch: bool = False,
) -> Call:
    """The ``Call`` for ``argv`` (``args`` as the caller gave them, without the connection
    flags): ``timeout`` makes it a wait with that bound; ``remaining``: what is left of the
    command's deadline (``None``: none). ``changes``: False for a call whose verb writes
    what changes no workload (a permission review); ``watch``: one of a wait's watches,
    judged by its events, not paced by its log. Every time limit of a call is decided
    here (its bound, its cut by ``--deadline``, its pacing), and nowhere else."""
    writes = not is_read(args) if changes is None else changes
    kind: Kind = "wait" if timeout is not None else "read" if is_read(args) else "write"
    bound = timeout if timeout is not None else default_bound(config, args)
    cut = remaining is not None and remaining < bound
    if cut:
        assert remaining is not None
        bound = remaining
    return Call(
        argv=tuple(argv),
        kind=kind,
        bound=bound,
        pacing=None if watch else pacing(config, args, writes),
        stdin=stdin,
        cut=cut,
        spent=remaining is not None and remaining <= 0,
        deadline=config.deadline,
        absent=absent,
        stream=stream,
        raw=raw,
        changes=writes,
        config=config,
        guarded=guarded,
        harmless=not writes and not is_read(args),
    )


def again(call: Call, remaining: float | None) -> Call | None:
    """The same call once more (a read whose bound went on discovery with a cold cache),
    bounded by what is left of the deadline; None when nothing is."""
    if remaining is not None and remaining <= 0:
        return None
    return call._replace(bound=call.bound if remaining is None else min(call.bound, remaining))


def default_bound(config: ClusterConfig, args: Sequence[str]) -> float:
    """The process bound of a non-wait call: reads get their request timeout plus grace,
    unless their log shows each request (then that bound is per request: ``pacing``)."""
    if is_read(args) and verbosity(list(args)) < ANSWERS_LOGGED:
        return min(config.call_timeout, config.request_timeout + READ_GRACE_SECONDS)
    return config.call_timeout


def pacing(config: ClusterConfig, args: Sequence[str], writes: bool | None = None) -> Pacing | None:
    """How a kubectl whose ``-v`` log shows its requests is bounded per request: a read
    (``-v=6``) for as long as it runs, a write (``-v=7``) until its change has left. Each
    gets what a read gets for one request (``--request-timeout`` + grace) to hear an
    answer; against an API that accepts connections and never answers, a write then
    learns it as fast as a read instead of after kubectl's discovery retries (55 s)."""
    level = verbosity(list(args))
    read = not writes if writes is not None else is_read(args)
    if level < ANSWERS_LOGGED or (not read and level < WRITES_LOGGED):
        return None
    return Pacing(config.request_timeout + READ_GRACE_SECONDS, write=not read)


def verbosity(args: list[str] | tuple[str, ...]) -> int:
    """kubectl's ``-v=N`` among ``args`` (the last one wins, as in kubectl); 0 without."""
    level = 0
    for arg in args:
        found = _VERBOSITY.match(str(arg))
        if found and found[1]:
            level = int(found[1])
    return level


def is_read(args: Sequence[str]) -> bool:
    return bool(args) and str(args[0]) in READ_VERBS


def wait_timeout_args(seconds: float) -> list[str]:
    """``--timeout=Ns`` for kubectl's own waits."""
    return [f"--timeout={seconds_arg(seconds)}"]


def process_bound(wait_seconds: float) -> float:
    """How long a waiting kubectl may live: its own timeout plus grace to say why."""
    return wait_seconds + WAIT_GRACE_SECONDS
