"""``classify`` and ``requests_log``: a failed call's error says whether a change of the
workload may have been made, from the ``-v`` log kubectl 1.32 writes (lines as it printed
them against the fake API server), and a permission review's POST is no such change."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.contract.errors import (
    AdapterError,
    Conflict,
    NotFound,
    Timeout,
    Unavailable,
)
from kubectl_adapter.kubectl.call import Call, Pacing
from kubectl_adapter.kubectl.classify import _written, classify, stopped_unanswered
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.process import Ended
from kubectl_adapter.kubectl.requests_log import read
from kubectl_adapter.kubectl.watches import Unanswered

WRITE = Call(("kubectl", "patch"), "write", 10.0, changes=True)


def said(error: AdapterError, stderr: str) -> AdapterError:
    return _written(WRITE, error, read(stderr))


def read_log(stderr: str) -> tuple[bool, str | None, int | None]:
    record = read(stderr)
    return record.logged, record.write, record.write_answer


URL = "https://127.0.0.1:41867/apis/apps/v1/namespaces/default/deployments/web-1"
PATH = "/apis/apps/v1/namespaces/default/deployments/web-1"


def klog(source: str, message: str) -> str:
    """One line of kubectl's log, as it writes it (time and pid do not matter here)."""
    return f"I1202 05:14:35.432531   10596 {source}] {message}\n"


HEADERS = (
    klog("round_trippers.go:476", "Request Headers:")
    + klog("round_trippers.go:480", "    Content-Type: application/json-patch+json")
    + klog("round_trippers.go:480", "    Authorization: Bearer <masked>")
)
CONFIG = klog("loader.go:402", "Config loaded from file:  /tmp/kubeconfig")


def answered(code: str) -> str:
    return klog("round_trippers.go:581", f"Response Status: {code} in 3 milliseconds")


GET = klog("round_trippers.go:470", f"GET {URL}?timeout=2s") + HEADERS + answered("200 OK")
PATCH = klog("round_trippers.go:470", f"PATCH {URL}?fieldManager=kubectl-patch&timeout=2s")
PATCH += HEADERS
LOST = klog("round_trippers.go:581", "Response Status:  in 2001 milliseconds")
UNREACHABLE = "Unable to connect to the server: context deadline exceeded\n"
DELETE = PATCH.replace("PATCH", "DELETE")


def unavailable() -> Unavailable:
    details = {"command": "kubectl patch …", "reason": "API server unreachable"}
    return Unavailable("Unable to connect to the server: context deadline exceeded", details)


@pytest.mark.parametrize(
    ("stderr", "logged", "write", "answer"),
    [
        ("", False, None, None),
        (UNREACHABLE, False, None, None),  # no -v=7 (a wrapper hiding it): proves nothing
        (CONFIG + GET + UNREACHABLE, True, None, None),
        (CONFIG + GET + PATCH + LOST + UNREACHABLE, True, f"PATCH {PATH}", None),
        (CONFIG + GET + PATCH + UNREACHABLE, True, f"PATCH {PATH}", None),  # killed waiting
        (CONFIG + PATCH + answered("200 OK"), True, f"PATCH {PATH}", 200),
        (CONFIG + PATCH + answered("503 Service Unavailable"), True, f"PATCH {PATH}", 503),
        (CONFIG + PATCH + answered("422 Unprocessable Entity"), True, f"PATCH {PATH}", 422),
        # delete: its DELETE answered, then the wait's GETs: the write's answer is kept
        (CONFIG + DELETE + answered("200 OK") + GET + LOST, True, f"DELETE {PATH}", 200),
    ],
)
def test_the_log_says_what_left_and_what_came_back(
    stderr: str, logged: bool, write: str | None, answer: int | None
) -> None:
    assert tuple(read_log(stderr)) == (logged, write, answer)


def test_a_lost_answer_says_the_change_may_have_been_made() -> None:
    error = said(unavailable(), CONFIG + GET + PATCH + LOST + UNREACHABLE)
    assert isinstance(error, Unavailable)
    assert error.details["writeSent"] is True
    assert error.details["writeRequest"] == f"PATCH {PATH}"
    assert error.details["writeAnswer"] is None
    assert error.details["reason"] == "API server unreachable"  # the rest is kept
    assert error.message.startswith("Unable to connect to the server: context deadline exceeded; ")
    assert "may have been made" in error.message and "run the same command again" in error.message


def test_a_5xx_after_the_change_left_may_have_made_it() -> None:
    error = said(unavailable(), CONFIG + PATCH + answered("504 Gateway Timeout"))
    assert error.details["writeSent"] is True and error.details["writeAnswer"] == 504
    assert "may have been made" in error.message and "answered 504" in error.message


def test_a_change_made_before_the_failure_says_so() -> None:
    error = said(Timeout("kubectl did not finish in time", {}), CONFIG + PATCH + answered("200 OK"))
    assert error.details["writeSent"] is True and error.details["writeAnswer"] == 200
    assert "its change was made" in error.message


@pytest.mark.parametrize("error", [unavailable(), Timeout("kubectl did not finish", {})])
def test_a_change_never_sent_says_nothing_was_changed(error: AdapterError) -> None:
    found = said(error, CONFIG + GET + UNREACHABLE)
    assert type(found) is type(error)
    assert found.details["writeSent"] is False
    assert "nothing was changed" in found.message


@pytest.mark.parametrize(
    ("error", "stderr"),
    [
        # The API server refused the change itself: the error is that refusal.
        (Conflict("the object has been modified", {}), CONFIG + PATCH + answered("409 Conflict")),
        (NotFound("not found", {}), CONFIG + GET.replace("200 OK", "404 Not Found")),
        # No request in the log: nothing is known.
        (unavailable(), UNREACHABLE),
        # Already said (the runner's own "stopped before its change left").
        (Timeout("no answer", {"writeSent": False}), CONFIG + PATCH + LOST),
    ],
)
def test_left_as_it_is(error: AdapterError, stderr: str) -> None:
    assert said(error, stderr) is error


REVIEWS = "https://127.0.0.1:41867/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
REVIEW = klog("round_trippers.go:470", f"POST {REVIEWS}?timeout=1s") + HEADERS


@pytest.mark.parametrize("answer", [answered("503 Service Unavailable"), LOST, ""])
def test_a_permission_review_is_no_change(answer: str) -> None:
    """Its POST asks a question: a 503, a lost answer or none at all is no "may have"."""
    record = read(CONFIG + GET + REVIEW + answer)
    assert record.logged and not record.write_sent
    error = said(unavailable(), CONFIG + GET + REVIEW + answer)
    assert error.details["writeSent"] is False, error.details


def test_a_write_answered_at_v6_is_sent() -> None:
    done = klog("round_trippers.go:560", f"PATCH {URL}?timeout=2s 503 Service Unavailable in 3 ms")
    record = read(done)
    assert (record.logged, record.write, record.write_answer) == (False, f"PATCH {PATH}", 503)
    assert record.codes == (503,)


def test_the_review_call_says_nothing_of_a_change() -> None:
    """A call that changes nothing (a review) is typed as a read meeting the same fault."""
    review = Call(("kubectl", "create", "-f", "-"), "write", 10.0, changes=False)
    stderr = (
        CONFIG
        + REVIEW
        + answered("503 Service Unavailable")
        + ('Error from server (ServiceUnavailable): error when creating "STDIN": busy\n')
    )
    error = classify(review, Ended(1, "", stderr), read(stderr))
    assert isinstance(error, Unavailable)
    assert error.message == "Error from server (ServiceUnavailable): busy"
    assert "writeSent" not in error.details


# -- an API that answers nothing: one error, whichever call meets it (issue 38) ---------------

CONFIG_OF = ClusterConfig(request_timeout=3)
SILENT = (
    "I1202 05:14:35.432531   10596 round_trippers.go:560] GET " + URL + "?timeout=3s  in 3001 ms\n"
)


def _call(kind: str, args: tuple[str, ...], **fields: Any) -> Call:
    return Call(("kubectl", *args), kind, 8.0, config=CONFIG_OF, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "ended"),
    [
        # a read killed at its bound (one request's), nothing logged
        (_call("read", ("get", "deployment", "x")), Ended(None, "", "")),
        # a paced read stopped unanswered by its pace
        (_call("read", ("get", "pods", "-v=6"), pacing=Pacing(8.0, write=False)),
         Ended(None, "", SILENT, unanswered=True)),
        # a review giving up on its own request timeout at discovery
        (_call("write", ("create", "-f", "-"), harmless=True),
         Ended(1, "", 'error: unable to recognize "STDIN": Get "https://h:6443/api?timeout=3s": '
                      "context deadline exceeded\n")),
        # check's version, the same at its first contact
        (_call("read", ("version", "-o", "json")),
         Ended(1, "", "Unable to connect to the server: net/http: request canceled "
                      "(Client.Timeout exceeded while awaiting headers)\n")),
    ],
)  # fmt: skip
def test_no_answer_is_one_error_whichever_call_meets_it(call: Call, ended: Ended) -> None:
    error = classify(call, ended, read(ended.stderr))
    assert isinstance(error, Timeout), error
    assert (
        error.message
        == f"the API server did not answer kubectl in time (--request-timeout 3s): {call.shown}"
    )
    assert error.details["reason"] == "no answer from the API server"
    assert error.details.get("writeSent") in (None, False)


def test_watches_stopped_unanswered_before_a_write_are_that_error_too() -> None:
    """A wait's watches before its write, stopped by their pace (``watches.Unanswered``):
    the same error as a read stopped so, naming the watch that went unanswered."""
    watches = [
        _call("wait", ("get", "deployments", "--watch", "-v=6")),
        _call("wait", ("get", "pods", "--watch", "-v=6")),
    ]
    error = stopped_unanswered(watches[1], Unanswered(1, 8.0, ["", SILENT]))
    assert isinstance(error, Timeout), error
    assert error.message == (
        f"the API server did not answer kubectl in time (--request-timeout 3s): {watches[1].shown}"
    )
    assert error.details["reason"] == "no answer from the API server"
    assert (error.details["idleSeconds"], error.details["answered"]) == (8.0, 0)


def test_a_request_timeout_after_answers_is_unavailable() -> None:
    """The API answered discovery, then not the resource: not the first contact."""
    stderr = (
        'error: no objects passed to scale Get "https://h:6443/apis/apps/v1/namespaces/n/'
        'deployments/x?timeout=3s": context deadline exceeded\n'
    )
    error = classify(_call("write", ("scale", "deployment/x")), Ended(1, "", stderr), read(stderr))
    assert isinstance(error, Unavailable), error
