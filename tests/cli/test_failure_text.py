"""``failure_text``: a failure for a person in at most five lines no wider than the screen."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.cli.failure_text import MAX_LINES, cut, failure_lines

ROLLOUT = {
    "error": {
        "type": "RolloutFailed",
        "message": "rollout of manager/bad-img cannot succeed: pod bad-img-7dd9f8d85c-5hlxr "
        "container main: ErrImagePull: failed to pull | deployment bad-img: 0/1 available",
        "details": {"deployment": "bad-img", "failing": ["..."]},
    }
}


def lines(document: dict[str, Any], command: str = "create", width: int | None = 80) -> list[str]:
    return failure_lines(
        document, command=command, target="manager/bad-img", prog="kubectl-adapter", width=width
    )


def test_a_failed_create_says_what_was_kept_and_what_to_paste() -> None:
    assert lines(ROLLOUT) == [
        "Error (RolloutFailed): rollout of manager/bad-img cannot succeed: pod",
        "bad-img-7dd9f8d85c-5hlxr container main: ErrImagePull: failed to pull",
        "deployment manager/bad-img was created and is kept; the whole error: -o yaml",
        "kubectl-adapter status manager/bad-img   # what it is now",
        "kubectl-adapter delete manager/bad-img   # remove it",
    ]


@pytest.mark.parametrize(
    ("details", "left"),
    [
        ({"applied": False}, "nothing was changed in the cluster"),
        ({"writeSent": False}, "nothing was changed in the cluster"),
        ({"writeSent": True, "writeAnswer": None}, "may have been created (the answer was lost)"),
    ],
)
def test_what_was_left_follows_the_write_markers(details: dict[str, Any], left: str) -> None:
    document = {"error": {"type": "Timeout", "message": "timed out", "details": details}}
    assert any(left in line for line in lines(document, width=None))


def test_a_refused_input_is_its_headline_and_nothing_more() -> None:
    document = {"error": {"type": "InvalidInput", "message": "bad flag", "details": {}}}
    assert lines(document) == ["Error (InvalidInput): bad flag"]


def test_an_interrupted_create_is_kept_with_the_commands_to_read_it() -> None:
    document = {"error": {"type": "Interrupted", "message": "interrupted by SIGINT",
                          "details": {"signal": "SIGINT"}}}  # fmt: skip
    shown = lines(document)
    assert "deployment manager/bad-img may have been created and is kept" in shown[1]
    assert shown[2].startswith("kubectl-adapter status manager/bad-img")


@given(
    st.text(min_size=1, max_size=400),
    st.sampled_from(["create", "stop", "status", "delete"]),
    st.sampled_from(["RolloutFailed", "Timeout", "NotFound", "Interrupted", "Conflict"]),
    st.integers(20, 200),
)
def test_never_more_than_five_lines_nor_wider_than_the_screen(
    message: str, command: str, kind: str, width: int
) -> None:
    document = {"error": {"type": kind, "message": message, "details": {"x": 1}}}
    shown = lines(document, command, width)
    assert 1 <= len(shown) <= MAX_LINES
    assert all(len(line) <= width and "\n" not in line for line in shown)


def test_cut_ends_with_an_ellipsis_only_when_it_cut() -> None:
    assert cut("abcdef", 4) == "abc\u2026"
    assert cut("abc", 4) == "abc"
    assert cut("abcdef", None) == "abcdef"
