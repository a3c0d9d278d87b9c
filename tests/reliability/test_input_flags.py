"""Every time flag is checked while parsing, before any kubectl call: finite, > 0 and at
most a day. ``--timeout inf`` used to crash with OverflowError after ``stop`` had scaled to 0.
A flag takes a number of seconds or a Go duration (issue 41; the grammar is
tests/cli/test_durations.py's)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli import dispatch
from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.naming import is_dns1123_label
from kubectl_adapter.kubectl.bounds import MAX_SECONDS, default_deadline
from tests.cli.test_durations import go_reference

# A bare number of seconds, as these flags always took one: a decimal literal.
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

NGINX = Path(__file__).resolve().parents[2] / "examples" / "nginx.json"
FLAGS = ["--timeout", "--request-timeout", "--call-timeout", "--deadline"]
BAD_TEXTS = ["inf", "-inf", "Infinity", "nan", "NaN", "1e300", "1e309", "0", "-0", "-1", "0.0",
             "86400.5", "1e5", "abc", "", "0x10", "1 s", " ", "1e-400", "1_0", " 5",
             "24h1s"]  # fmt: skip


def parse(flag: str, value: str) -> float:
    args = cli.build_parser().parse_args([f"{flag}={value}", "status", "ns/web-1"])
    return float(getattr(args, flag[2:].replace("-", "_")))


def accepted(value: float) -> bool:
    return math.isfinite(value) and 0 < value <= MAX_SECONDS


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("text", BAD_TEXTS)
def test_bad_value_is_invalid_input_while_parsing(flag: str, text: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse(flag, text)
    assert flag in info.value.message
    assert info.value.exit_code == 2


@settings(max_examples=300, deadline=None)
@given(flag=st.sampled_from(FLAGS), value=st.floats(allow_nan=True, allow_infinity=True))
def test_any_float_is_accepted_exactly_when_in_range(flag: str, value: float) -> None:
    if accepted(value):
        assert parse(flag, repr(value)) == value
    else:
        with pytest.raises(InvalidInput):
            parse(flag, repr(value))


@settings(max_examples=100, deadline=None)
@given(flag=st.sampled_from(FLAGS), text=st.text(max_size=12))
def test_any_text_is_a_valid_number_or_invalid_input(flag: str, text: str) -> None:
    assume(text != "--")  # argparse's own end-of-options marker, never a value
    go = go_reference(text)
    if DECIMAL.fullmatch(text):
        number = float(text)
    elif go is not None:
        number = float(go)
    else:
        number = math.nan
    if text.startswith("-") or not accepted(number):
        with pytest.raises(InvalidInput):
            parse(flag, text)
    else:
        assert parse(flag, text) == number


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("text", ["inf", "1e300", "nan"])
def test_stop_with_a_bad_flag_runs_no_kubectl(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, flag: str, text: str
) -> None:
    # Before the fix `stop --timeout inf` scaled to 0, then crashed building the wait.
    code = cli.main(["-n", "testns", flag, text, "stop", "testns/web-1"])
    document = json.loads(capsys.readouterr().out)
    assert code == 2
    assert document["error"]["type"] == "InvalidInput"
    assert not fp.calls


def test_default_deadline_per_command_kind() -> None:
    for read in ("status", "describe", "list", "network", "check", "nodes", "render"):
        assert default_deadline(read, timeout=300, call_timeout=60) == 60
    for write in ("create", "start", "stop", "delete", "reconfigure"):
        assert default_deadline(write, timeout=300, call_timeout=60) == 300.5
        assert default_deadline(write, timeout=3, call_timeout=60) == 3.5  # not 123
    assert default_deadline("reconfigure", timeout=300, call_timeout=60, rollback=True) == 600.5


# -- -n/--namespace: a name like every other input, refused before any kubectl call ---------------

BAD_NAMESPACES = ["../x", "a/b", "Team-A", "-x", "x-", "", "a" * 64, "ns\n", "ns x", "ns.dotted"]
NAMESPACE_COMMANDS = [
    ["list"],
    ["check"],
    ["nodes"],
    ["status", "testns/web-1"],
    ["stop", "testns/web-1"],
    ["render", "--spec", str(NGINX)],
    ["create", "--spec", str(NGINX)],
]


@pytest.mark.parametrize("namespace", BAD_NAMESPACES)
@pytest.mark.parametrize("command", NAMESPACE_COMMANDS, ids=lambda c: c[0])
def test_a_namespace_flag_that_is_no_name_runs_no_kubectl(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, namespace: str, command: list[str]
) -> None:
    """`-n ../x list` used to reach kubectl ("invalid namespace"), and `render` rendered it."""
    code = cli.main([f"--namespace={namespace}", *command])
    document = json.loads(capsys.readouterr().out)
    assert (code, document["error"]["type"]) == (2, "InvalidInput"), document
    assert document["error"]["details"] == {"field": "namespace", "namespace": namespace}
    assert not fp.calls


@settings(max_examples=200, deadline=None)
@given(namespace=st.text(max_size=70))
def test_any_namespace_flag_is_a_dns_label_or_invalid_input(namespace: str) -> None:
    assume(not namespace.startswith("-"))  # argparse would read it as an option
    args = cli.build_parser().parse_args(["-n", namespace, "list"])
    if is_dns1123_label(namespace):
        dispatch.check_identity_flags(args)
    else:
        with pytest.raises(InvalidInput):
            dispatch.check_identity_flags(args)
