"""Env values and entrypoints: the spec accepts exactly the text the API server can store,
and reports every offending field at once.

The server reads kubectl's apply body as YAML. kubectl writes it as Go JSON: only C0
controls, quote, backslash, U+2028/U+2029 (and <, >, &) are escaped, so DEL, C1 controls and
noncharacters arrive raw, where YAML refuses them or (U+0085) folds them into a space.
``wire_round_trip`` models that path with PyYAML, whose reader has go-yaml's rules.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.spec import parse_spec
from kubectl_adapter.contract.storable_text import unstorable_characters
from kubectl_adapter.rules.render import render_manifest
from tests.k8s_expansion import every_name, expand

BASE: dict[str, Any] = {"containerId": "42", "nodeId": "7", "hostname": "web-1",
                        "image": "nginx:latest", "cpus": 1, "memoryMb": 64}  # fmt: skip
REFUSED = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1f", "\x7f", "\x80",
           "\x85", "\x9f", "\ud800", "\udfff", "\ufdd0", "\ufdef", "\ufffe", "\uffff",
           "\U0001fffe", "\U0010ffff"]  # fmt: skip
KEPT = ["\t", "\n", "\r", " ", "\xa0", "\u2028", "\u2029", "\ufeff", "\ufffd", "\U0010fffd",
        "😀", "é", "\\", '"', "'", "#", ": ", "- "]  # fmt: skip


def go_json(value: Any) -> str:
    """JSON as kubectl (Go's encoding/json) writes it: raw non-ASCII, HTML-escaped."""
    text = json.dumps(value, ensure_ascii=False)
    for raw, escaped in (("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("<", "\\u003c"),
                         (">", "\\u003e"), ("&", "\\u0026")):  # fmt: skip
        text = text.replace(raw, escaped)
    return text


def wire_round_trip(text: str) -> bool:
    """Whether ``text`` survives kubectl's JSON body read back as YAML by the server."""
    try:
        return bool(yaml.safe_load(go_json({"v": text})) == {"v": text})
    except (yaml.YAMLError, UnicodeEncodeError):
        return False


def accepts(text: str) -> bool:
    try:
        parse_spec({**BASE, "env": {"A": text}, "entrypoint": [text]})
    except InvalidInput:
        return False
    return True


@pytest.mark.parametrize("char", REFUSED, ids=lambda c: f"U+{ord(c):04X}")
def test_unstorable_character_is_refused_naming_each_field(char: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_spec({**BASE, "env": {"A": f"x{char}y", "B": "ok"}, "entrypoint": ["sh", char]})
    fields = [v["field"] for v in info.value.details["violations"]]
    assert fields == ["env.A", "entrypoint[1]"]
    assert f"U+{ord(char):04X}" in info.value.message
    assert info.value.exit_code == 2


@pytest.mark.parametrize("char", KEPT, ids=lambda c: "+".join(f"U+{ord(x):04X}" for x in c))
def test_storable_character_is_kept(char: str) -> None:
    assert accepts(f"x{char}y")
    assert wire_round_trip(f"x{char}y")


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=40))
@example(text="\x7f")
@example(text="a\x85b")
@example(text="\ufffe")
@example(text="\uffff")
def test_anything_the_wire_cannot_carry_is_refused(text: str) -> None:
    if not wire_round_trip(text):
        assert not accepts(text)


@settings(max_examples=300, deadline=None)
@given(
    env=st.dictionaries(
        st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,8}\Z"), st.text(max_size=30), max_size=5
    ),
    entrypoint=st.lists(st.text(max_size=20), max_size=4),
)
@example(env={"A": "$\xa0"}, entrypoint=["$(A)", "$$"])  # doubled on render, back on expansion
def test_anything_accepted_renders_and_travels_unchanged(
    env: dict[str, str], entrypoint: list[str]
) -> None:
    """Render escapes each ``$`` Kubernetes would read (docs/reconfiguration.md): what travels
    is the escaped text, what the container gets (both kubelets' expansion, every variable
    defined) is the text sent."""
    try:
        spec = parse_spec({**BASE, "env": env, "entrypoint": entrypoint})
    except InvalidInput as exc:
        bad = [t for t in [*env.values(), *entrypoint] if unstorable_characters(t)]
        assert bad, exc.message  # refused only for a character the API cannot store
        return
    container = yaml.safe_load(render_manifest(spec, "testns"))["spec"]["template"]["spec"][
        "containers"
    ][0]
    rendered_env = {item["name"]: item["value"] for item in container.get("env", [])}
    for bytewise in (True, False):
        seen = {k: expand(v, every_name, bytewise=bytewise) for k, v in rendered_env.items()}
        assert seen == env
        command = container.get("command", [])
        assert [expand(w, every_name, bytewise=bytewise) for w in command] == entrypoint
    for text in [*env.values(), *entrypoint]:
        assert wire_round_trip(text), text


@settings(max_examples=200, deadline=None)
@given(
    bad=st.dictionaries(
        st.from_regex(r"\A[A-Z]{1,6}\Z"),
        st.tuples(st.text(max_size=5), st.sampled_from(REFUSED), st.text(max_size=5)).map("".join),
        min_size=1,
        max_size=6,
    ),
    good=st.dictionaries(st.from_regex(r"\A[a-z]{1,6}\Z"), st.from_regex(r"\A[a-z ]*\Z")),
)
def test_every_bad_env_entry_is_reported(bad: dict[str, str], good: dict[str, str]) -> None:
    # Before the fix only the first bad entry was reported.
    with pytest.raises(InvalidInput) as info:
        parse_spec({**BASE, "env": {**good, **bad}})
    violations = info.value.details["violations"]
    assert sorted(v["field"] for v in violations) == sorted(f"env.{key}" for key in bad)
    assert len(info.value.details["problems"]) == len(bad)


def test_bad_keys_values_and_other_fields_are_all_reported() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_spec({**BASE, "cpus": 0, "env": {"1A": "x", "B": None, "C": "\x7f", "D": "ok"},
                    "entrypoint": ["ok", "\x00", "\uffff"]})  # fmt: skip
    assert [v["field"] for v in info.value.details["violations"]] == [
        "cpus", "env", "env.B", "env.C", "entrypoint[1]", "entrypoint[2]",
    ]  # fmt: skip
