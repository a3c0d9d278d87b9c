"""``pace``: what kubectl's -v=6 and -v=7 lines say about its requests (lines as kubectl 1.32
printed them against the fake API server)."""

from __future__ import annotations

import pytest

from kubectl_adapter.kubectl.pace import Pace, verbosity

V6_ANSWER = (
    "I1201 20:24:59.456099   27091 round_trippers.go:560] GET https://127.0.0.1:42887/api"
    "?timeout=2s 200 OK in 0 milliseconds\n"
)
V6_TIMED_OUT = (
    "I1130 01:51:25.202410   21725 round_trippers.go:560] GET https://127.0.0.1:56615/api"
    "?timeout=32s  in 10001 milliseconds\n"
)
V7_GET = "I1201 20:24:59.003961   27027 round_trippers.go:470] GET https://127.0.0.1:37735/api?timeout=2s\n"
V7_ANSWER = (
    "I1201 20:24:59.004587   27027 round_trippers.go:581] Response Status: 200 OK in 0 "
    "milliseconds\n"
)
V7_NO_ANSWER = (
    "I1201 20:24:56.032467   26604 round_trippers.go:581] Response Status:  in 2001 milliseconds\n"
)
V7_PATCH = (
    "I1201 20:24:59.008833   27027 round_trippers.go:470] PATCH https://127.0.0.1:37735/apis/"
    "apps/v1/namespaces/default/deployments/x?fieldManager=kubectl-patch&timeout=2s\n"
)


@pytest.mark.parametrize(
    ("lines", "answered"),
    [
        ([V6_ANSWER], 1),
        ([V6_ANSWER, V6_ANSWER], 2),
        ([V6_TIMED_OUT], 0),
        ([V7_GET, V7_ANSWER], 1),
        ([V7_GET, V7_NO_ANSWER], 0),
        (["I1201 20:24:54.025797   26604 loader.go:402] Config loaded from file:  k\n"], 0),
    ],
)
def test_answers_are_counted_and_only_answers(lines: list[str], answered: int) -> None:
    pace = Pace(15, write=False, started=0.0)
    for line in lines:
        pace.feed(line.encode())
    assert pace.answered == answered
    assert (pace.last > 0.0) is bool(answered)


def test_a_line_split_across_reads_counts_once_complete() -> None:
    pace = Pace(15, write=False, started=0.0)
    half = len(V6_ANSWER) // 2
    pace.feed(V6_ANSWER[:half].encode())
    assert pace.answered == 0
    pace.feed(V6_ANSWER[half:].encode())
    assert pace.answered == 1


def test_a_write_is_stoppable_until_its_request_leaves() -> None:
    pace = Pace(15, write=True, started=0.0)
    for line in (V7_GET, V7_ANSWER, V7_GET, V7_ANSWER):
        pace.feed(line.encode())
    assert pace.stoppable and pace.idle_deadline() is not None
    pace.feed(V7_PATCH.encode())
    assert not pace.stoppable and pace.idle_deadline() is None


def test_a_read_is_always_stoppable() -> None:
    pace = Pace(15, write=False, started=0.0)
    pace.feed(V7_PATCH.encode())  # never seen on a read, and no reason to stop bounding it
    assert pace.stoppable


@pytest.mark.parametrize(
    ("args", "level"),
    [
        (["get", "pods"], 0),
        (["get", "pods", "-v=6"], 6),
        (["patch", "x", "-v=6", "--v=7"], 7),
        (["get", "-v"], 0),
        (["get", "--vmodule=x=2"], 0),
    ],
)
def test_verbosity(args: list[str], level: int) -> None:
    assert verbosity(args) == level
