"""Did a failed write's change reach the API server? What its ``-v=7`` log says.

A write kubectl that fails without the API server's refusal of its change (the connection cut
after its request left, its answer lost, a 5xx, killed at its bound) may have made that change:
a ``stop`` that reads "API server unreachable" may have stopped the workload. At ``-v=7``
kubectl logs each request as it leaves (``PATCH https://…``) and each answer (``Response
Status: 200 OK in 7 milliseconds``; ``Response Status:  in 2001 milliseconds`` when none came),
in order, so the log tells a change never sent from one sent whose answer was lost. The
error then says which, in ``details.writeSent`` and in its message.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import urlsplit

from ..contract.errors import AdapterError, Timeout, Unavailable

_REQUEST = re.compile(r"round_trippers\.go:\d+\] ([A-Z]+) (https?://\S+)$")
_ANSWER = re.compile(r"round_trippers\.go:\d+\] Response Status: (\d{3})?")
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# What an error means for a change never sent, when the error alone cannot tell.
_AMBIGUOUS = (Unavailable, Timeout)


class WriteLog(NamedTuple):
    """What a kubectl's log says of its requests: ``logged``: it shows any; ``write``: the
    last change sent (``PATCH /apis/…``), None if none left; ``answer``: the HTTP status that
    change got, None if none came."""

    logged: bool
    write: str | None
    answer: int | None


def read_log(stderr: str) -> WriteLog:
    logged = False
    write: str | None = None
    answer: int | None = None
    awaiting = False  # the last request sent was the write, not answered yet
    for line in stderr.splitlines():
        request = _REQUEST.search(line)
        if request is not None:
            logged = True
            awaiting = request[1] in _WRITES
            if awaiting:
                write, answer = f"{request[1]} {urlsplit(request[2]).path}", None
            continue
        answered = _ANSWER.search(line)
        if answered is not None and awaiting:
            awaiting = False
            answer = int(answered[1]) if answered[1] else None
    return WriteLog(logged, write, answer)


def said(error: AdapterError, stderr: str) -> AdapterError:
    """``error`` of a write kubectl, saying whether its change may have been made.

    Sent and not refused (no answer, or a 5xx: the server may have stored it before it
    failed; a 2xx: made, the failure came after): ``writeSent: true`` and the message says
    so. Sent and refused (4xx): the error is that refusal, left as it is. Never sent, for an
    error that does not tell by itself (Unavailable, Timeout): ``writeSent: false``. A log that
    shows no request (no ``-v=7``, a wrapper hiding it) proves nothing: left as it is.
    """
    log = read_log(stderr)
    if not log.logged or "writeSent" in error.details:
        return error
    if log.write is None:
        if not isinstance(error, _AMBIGUOUS):
            return error
        details = {**error.details, "writeSent": False}
        return type(error)(f"{error.message} (nothing was changed: kubectl had not sent its "
                           "change)", details)  # fmt: skip
    if log.answer is not None and 400 <= log.answer < 500:
        return error
    details = {**error.details, "writeSent": True, "writeRequest": log.write,
               "writeAnswer": log.answer}  # fmt: skip
    if log.answer is not None and log.answer < 400:
        note = f"its change was made ({log.write} answered {log.answer}) before this failure"
    else:
        lost = "its answer lost" if log.answer is None else f"answered {log.answer}"
        note = (
            f"its change may have been made ({log.write} was sent, {lost}): run the same "
            "command again (it converges), or read status"
        )
    return type(error)(f"{error.message}; {note}", details)
