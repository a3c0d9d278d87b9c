"""When a running kubectl may be stopped for want of an answer: the pacing policy over what
its ``-v`` log says (``requests_log``, the one reader of that log). ``process`` feeds each
stderr chunk to ``Pace.feed`` and asks ``idle_deadline`` (when may it stop kubectl?) and
``stoppable`` (would stopping it now lose a change?); ``Pace`` never reaches back.

A read's bound can then follow its requests, not the size of its answer (a list of 5,000
workloads is ~30 pages of 500, each quick), and a write can be stopped while it is still in
discovery, before a request that changes the workload has left (an API that accepts
connections and never answers cost 55 s of discovery retries). A permission review's POST
changes nothing: it does not make kubectl unstoppable.
"""

from __future__ import annotations

from time import monotonic

from .requests_log import Reader, Requests


class Pace:
    """A kubectl's requests as its stderr shows them: when one was last answered, and
    whether a write has left. ``idle``: how long kubectl may go without an answer while
    it can still be stopped (a read, always; a write, until its write request is sent)."""

    def __init__(self, idle: float, *, write: bool, started: float | None = None) -> None:
        self.idle = idle
        self.write = write
        self.last = monotonic() if started is None else started
        self.reader = Reader()

    def feed(self, chunk: bytes) -> None:
        if self.reader.feed(chunk):
            self.last = monotonic()

    @property
    def record(self) -> Requests:
        return self.reader.record

    @property
    def answered(self) -> int:
        return self.reader.record.answered

    @property
    def stoppable(self) -> bool:
        """Killing kubectl now loses no change: a read, or a write not yet sent. A write
        only once its log has shown a request leave: a kubectl (or a wrapper) whose log
        shows none proves nothing about its write, and is bounded as before."""
        if not self.write:
            return True
        record = self.reader.record
        return record.logged and not record.write_sent

    def idle_deadline(self) -> float | None:
        """When kubectl is stopped unless an answer comes first (None: never for want of one)."""
        return self.last + self.idle if self.stoppable else None
