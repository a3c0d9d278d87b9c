"""``pace``: what kubectl's -v=6 and -v=7 lines say about its requests (lines as kubectl 1.32
printed them against the fake API server)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from kubectl_adapter.kubectl.call import verbosity
from kubectl_adapter.kubectl.pace import Pace
from kubectl_adapter.kubectl.process import _stop_if_still_stoppable, kill_group

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


# -- freezing a write to read its log to the end (real processes) ------------------------------

GET_ANSWERED = (
    "echo 'I1201 20:24:59.003961 1 round_trippers.go:470] GET https://127.0.0.1:1/api' >&2\n"
    "echo 'I1201 20:24:59.004587 1 round_trippers.go:581] Response Status: 200 OK in 0 "
    "milliseconds' >&2\n"
)
PATCH_SENT = (
    "echo 'I1201 20:24:59.008833 1 round_trippers.go:470] PATCH https://127.0.0.1:1/apis/apps/"
    "v1/namespaces/default/deployments/x' >&2\n"
)


@pytest.mark.parametrize("sent", [False, True], ids=["in-discovery", "patch-logged"])
def test_a_write_is_killed_only_if_its_log_shows_no_write_once_frozen(
    tmp_path: Path, sent: bool
) -> None:
    """The idle bound fires while the PATCH line sits unread in the pipe: freezing kubectl
    and reading its log to the end finds it, and kubectl goes on (SIGCONT)."""
    body = (
        GET_ANSWERED
        + (PATCH_SENT if sent else "")
        + "echo written > done\nsleep 2\necho resumed > resumed\nexec sleep 30\n"
    )
    kubectl = tmp_path / "kubectl"
    kubectl.write_text("#!/bin/sh\n" + body)
    kubectl.chmod(0o755)
    proc = subprocess.Popen(
        [str(kubectl)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not (tmp_path / "done").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proc.stderr is not None
        pace = Pace(0.1, write=True, started=0.0)  # nothing read yet: the bound is long past
        sink: list[bytes] = []
        stopped = _stop_if_still_stoppable(proc, pace, proc.stderr.fileno(), sink)
        assert stopped is not sent
        assert pace.record.write_sent is sent
        # Frozen for the kill, or going on: only a kubectl let go on gets to write "resumed".
        # Its sleep is 2 s: a kubectl let go on writes "resumed" after it (waited for as long as
        # a loaded machine needs: the loop ends when it appears); a frozen one never does.
        deadline = time.monotonic() + (60 if sent else 3)
        while not (tmp_path / "resumed").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (tmp_path / "resumed").exists() is sent
    finally:
        kill_group(proc)
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_a_write_whose_log_shows_no_request_is_never_stoppable() -> None:
    """A wrapper that hides kubectl's log, or a kubectl whose -v=7 says otherwise: nothing
    proves its write has not left, so it keeps the bound of any write."""
    pace = Pace(15, write=True, started=0.0)
    pace.feed(b"I1201 20:24:54.025797   26604 loader.go:402] Config loaded from file:  k\n")
    assert not pace.stoppable and pace.idle_deadline() is None
