"""The one reader of kubectl's own log: its ``-v`` request lines and its klog headers.

At ``-v=6`` kubectl logs one line per answered request (``GET https://… 200 OK in 7
milliseconds``); at ``-v=7`` one line as each request leaves (``PATCH https://…``) and one per
answer (``Response Status: 200 OK in 7 milliseconds``; ``Response Status:  in 2001
milliseconds`` when none came). ``Reader`` reads them as they come (a running kubectl's
pace) or all at once (``read``), and gives one record (``Requests``): what was sent, what was
answered, and whether a request that can change a workload left. Everything that asks what
kubectl's log says (pacing, the classification, a watch's "listed" line, the transcript's
and the error's klog filter) asks here.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# klog's header (``E1130 01:41:10.384773 14350 memcache.go:265] ``).
KLOG_LINE = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ \S+:\d+\] ")
KLOG_START = re.compile(r"^[IWEF]\d{4} ")

# -v=7: a request as it leaves (the URL ends the line). -v=6: a request with its answer
# (``GET URL 200 OK in 7 milliseconds``; no code when it timed out). -v=7: an answer.
_SENT = re.compile(r"round_trippers\.go:\d+\] ([A-Z]+) (https?://\S+)$")
_DONE = re.compile(r"round_trippers\.go:\d+\] ([A-Z]+) (https?://\S+) +(?:(\d{3})\b|in \d)")
_STATUS = re.compile(r"round_trippers\.go:\d+\] Response Status: (\d{3})?")
_WATCH_ANSWERED = re.compile(r"round_trippers\.go:\d+\] GET \S*[?&]watch=true\S* 200 OK")

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# POSTs that change nothing: a question to the API server (may I? who am I?).
_QUESTIONS = re.compile(
    r"^/apis/(?:authorization|authentication)\.k8s\.io/v1(?:beta1)?/"
    r"(?:namespaces/[^/]+/)?(?:self|local)?(?:subjectaccessreviews|subjectrulesreviews|"
    r"selfsubjectreviews|tokenreviews)$"
)


def changes_workload(method: str, path: str) -> bool:
    """A request that can change the cluster's workloads: a write, not a review's question."""
    return method in CHANGING and not _QUESTIONS.match(path)


class Requests(NamedTuple):
    """What a kubectl's log says of its requests. ``logged``: it shows requests as they leave
    (``-v=7``; without, or behind a wrapper that hides them, no request left is proven
    unsent); ``answered``: how many got an
    HTTP status; ``codes``: those statuses in order; ``write``: the last request that can
    change a workload (``PATCH /apis/…``), None if none left; ``write_answer``: the status it
    got, None if none came."""

    logged: bool = False
    answered: int = 0
    codes: tuple[int, ...] = ()
    write: str | None = None
    write_answer: int | None = None

    @property
    def write_sent(self) -> bool:
        return self.write is not None


class Reader:
    """kubectl's stderr fed as it comes; ``record`` is what it says so far."""

    def __init__(self) -> None:
        self._partial = ""
        self._awaiting = False  # the last request sent changes a workload, not answered yet
        self.record = Requests()

    def feed(self, chunk: bytes | str) -> int:
        """Read the complete lines of ``chunk``; how many answers they carry."""
        text = chunk.decode("utf-8", "replace") if isinstance(chunk, bytes) else chunk
        lines = self._partial + text
        complete, _, self._partial = lines.rpartition("\n")
        before = self.record.answered
        for line in complete.splitlines():
            self._line(line)
        return self.record.answered - before

    def end(self) -> Requests:
        """The record once kubectl has ended (its last line read too)."""
        if self._partial:
            rest, self._partial = self._partial, ""
            self._line(rest)
        return self.record

    def _line(self, line: str) -> None:
        record = self.record
        if "round_trippers" not in line:
            return
        sent = _SENT.search(line)
        if sent is not None:
            method, path = sent[1], _path(sent[2])
            self._awaiting = changes_workload(method, path)
            if self._awaiting:
                record = record._replace(write=f"{method} {path}", write_answer=None)
            self.record = record._replace(logged=True)
            return
        done = _DONE.search(line)
        if done is not None:  # -v=6: the request and its answer on one line
            method, path = done[1], _path(done[2])
            code = int(done[3]) if done[3] else None
            if changes_workload(method, path):
                record = record._replace(write=f"{method} {path}", write_answer=code)
            self.record = _answered(record, code)
            return
        status = _STATUS.search(line)
        if status is not None:
            code = int(status[1]) if status[1] else None
            if self._awaiting:
                self._awaiting = False
                record = record._replace(write_answer=code)
            self.record = _answered(record, code)


def _answered(record: Requests, code: int | None) -> Requests:
    # A request that timed out (``in 10001 milliseconds``, no code) is no answer: retries
    # against a silent API must not count as progress.
    if code is None:
        return record
    return record._replace(answered=record.answered + 1, codes=(*record.codes, code))


def read(stderr: str) -> Requests:
    """The record of a kubectl's whole stderr."""
    reader = Reader()
    reader.feed(stderr)
    return reader.end()


# A waiting kubectl whose watch cannot list any more: kubectl logs the refusal as a klog line
# and retries until its --timeout, which can never end well.
_WATCH_REFUSED = re.compile(
    r"reflector\.go:\d+\] .*failed to list [^:]+: "
    r"(?P<refusal>Unauthorized|.* is forbidden: .*|forbidden.*)$",
    re.M,
)


def watch_refused(stderr: str) -> str | None:
    """The refusal (401/403) a waiting kubectl logged for its watch's list, if any."""
    found = _WATCH_REFUSED.search(stderr.rstrip())
    return found["refusal"] if found is not None else None


def watch_listed(stderr_line: str) -> bool:
    """kubectl's ``-v=6`` line for a watch request answered: everything its list found has
    been printed before it."""
    return bool(_WATCH_ANSWERED.search(stderr_line))


def _path(url: str) -> str:
    """A logged request's path. urllib.parse (with ipaddress, ~2 ms) is imported by the
    first request a ``-v`` log shows, not by every call's end: most reads log none."""
    from urllib.parse import urlsplit

    return urlsplit(url).path
