"""The kubectl releases the adapter can use: the flags' table and the skew policy."""

from __future__ import annotations

import inspect

import pytest

from kubectl_adapter.contract.kubectl_support import (
    FLAG_RELEASES,
    OLDEST_KUBECTL,
    kubectl_problems,
    release,
    supported_range,
)
from kubectl_adapter.kubectl import commands, runner


def test_every_late_flag_is_one_the_adapter_passes() -> None:
    """The table names flags the argv builders really pass: a flag dropped from them must
    leave it (or the oldest kubectl would be demanded for nothing)."""
    source = inspect.getsource(commands) + inspect.getsource(runner)
    for flag in FLAG_RELEASES:
        assert flag.split("=")[0] in source, flag
    assert OLDEST_KUBECTL == (1, 21)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ({"gitVersion": "v1.32.4-dispatcher", "major": "1", "minor": "32+"}, (1, 32)),
        ({"major": "1", "minor": "27+"}, (1, 27)),
        ({"gitVersion": "v1.16.15"}, (1, 16)),
        ({"gitVersion": "weird", "major": "", "minor": ""}, None),
        ("v1.32", None),
        (None, None),
    ],
)
def test_release(version: object, expected: tuple[int, int] | None) -> None:
    assert release(version) == expected


def v(minor: int) -> dict[str, str]:
    return {"gitVersion": f"v1.{minor}.0"}


@pytest.mark.parametrize(
    ("client", "server", "problems"),
    [
        (32, 32, []),
        (31, 32, []),
        (33, 32, []),
        (21, 22, []),
        (30, 32, ["skew"]),
        (34, 32, ["skew"]),
        (20, 21, ["older"]),
        (16, 32, ["older", "skew"]),
    ],
)
def test_kubectl_problems(client: int, server: int, problems: list[str]) -> None:
    found = kubectl_problems(v(client), v(server))
    assert len(found) == len(problems), found
    for text, kind in zip(found, problems, strict=True):
        assert ("older than v1.21" if kind == "older" else "version skew") in text


def test_without_a_client_version() -> None:
    assert kubectl_problems({}, v(32)) == ["kubectl did not say its version (clientVersion)"]


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        ((1, 32), "v1.31 to v1.33"),
        ((1, 21), "v1.21 to v1.22"),
        (None, "v1.21 or newer, within 1 minor version of the API server"),
    ],
)
def test_supported_range(server: tuple[int, int] | None, expected: str) -> None:
    assert supported_range(server) == expected


def test_no_kubectl_can_drive_a_server_too_old() -> None:
    assert supported_range((1, 18)).startswith("none: the adapter needs kubectl v1.21")
