"""What a running kubectl's ``-v`` log says about its requests, read as it runs: the one
interface between the process reader and the pacing policy. ``process`` feeds each stderr
chunk to ``Pace.feed`` and asks ``idle_deadline`` (when may it stop kubectl?) and
``stoppable`` (would stopping it now lose a change?); ``Pace`` never reaches back.

At ``-v=6`` kubectl logs one line per answered request (``GET https://… 200 OK in 7
milliseconds``); at ``-v=7`` one line as each request leaves (``PATCH https://…``) and one per
answer (``Response Status: 200 OK in 7 milliseconds``). A read's bound can then follow its
requests, not the size of its answer (a list of 5,000 workloads is ~30 pages of 500, each
quick), and a write can be stopped while it is still in discovery, before its PATCH, POST,
PUT or DELETE has left (an API that accepts connections and never answers cost 55 s of
discovery retries).
"""

from __future__ import annotations

import re
from time import monotonic

# An answer with a status code; a request that timed out (``in 10001 milliseconds`` with no
# code) is no progress, or retries against a silent API would count as progress forever.
_ANSWERED = re.compile(r"round_trippers\.go:\d+\] (?:[A-Z]+ \S+|Response Status:) \d{3}\b", re.M)
# -v=7: each request, logged as it is sent (the URL ends the line); and those that change
# something.
_REQUEST_SENT = re.compile(r"round_trippers\.go:\d+\] [A-Z]+ https?://\S+$", re.M)
_WRITE_SENT = re.compile(r"round_trippers\.go:\d+\] (?:POST|PUT|PATCH|DELETE) https?://", re.M)


class Pace:
    """A kubectl's requests as its stderr shows them: when one was last answered, and
    whether a write has left. ``idle``: how long kubectl may go without an answer while
    it can still be stopped (a read, always; a write, until its write request is sent)."""

    def __init__(self, idle: float, *, write: bool, started: float | None = None) -> None:
        self.idle = idle
        self.write = write
        self.last = monotonic() if started is None else started
        self.answered = 0
        self.requests_logged = False
        self.write_sent = False
        self._partial = b""

    def feed(self, chunk: bytes) -> None:
        lines = self._partial + chunk
        complete, _, self._partial = lines.rpartition(b"\n")
        if not complete:
            return
        text = complete.decode("utf-8", "replace")
        if self.write and _REQUEST_SENT.search(text):
            self.requests_logged = True
        if self.write and _WRITE_SENT.search(text):
            self.write_sent = True
        answers = len(_ANSWERED.findall(text))
        if answers:
            self.answered += answers
            self.last = monotonic()

    @property
    def stoppable(self) -> bool:
        """Killing kubectl now loses no change: a read, or a write not yet sent. A write
        only once its log has shown a request leave: a kubectl (or a wrapper) whose log
        shows none proves nothing about its write, and is bounded as before."""
        if not self.write:
            return True
        return self.requests_logged and not self.write_sent

    def idle_deadline(self) -> float | None:
        """When kubectl is stopped unless an answer comes first (None: never for want of one)."""
        return self.last + self.idle if self.stoppable else None
