"""``-o yaml``'s emitter: whatever JSON data it writes, a YAML reader reads back the same."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.cli.yaml_text import dump

# JSON data as the adapter prints it: any text, including controls, quotes, line breaks,
# YAML's own indicators and words, and characters beyond the BMP.
TRICKY = st.sampled_from(
    [
        "",
        " ",
        "no",
        "No",
        "y",
        "off",
        "null",
        "~",
        "=",
        "<<",
        "1:20",
        "0x1F",
        "1_000",
        "2001-12-14",
        ".5",
        "1e3",
        ".inf",
        "- x",
        "a: b",
        "a #b",
        "x:",
        "#x",
        "%x",
        "@x",
        "!x",
        "&x",
        "*x",
        "|x",
        ">x",
        "'x'",
        '"x"',
        "[x]",
        "{x}",
        "---",
        "...",
        "a\nb",
        "a\nb\n",
        "a\n\nb\n\n",
        "\nx",
        " x\ny",
        "x \ny",
        "x\n y",
        "\t",
        "a\tb",
        "a\rb",
        "\x85",
        "\u2028",
        "\ufeff",
        "\x00\x07\x1b\x7f\x9f",
        "😀",
        "\ud800",
        "kubectl -n ns rollout status deployment/web-1 --timeout=10s  # first slice",
    ]
)
TEXT = st.one_of(TRICKY, st.text(), st.text(alphabet=st.characters(codec="utf-8")))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    TEXT,
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)
    ),
    max_leaves=25,
)


def load(text: str) -> Any:
    return yaml.safe_load(text)


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS)
def test_any_json_document_reads_back_the_same(document: Any) -> None:
    assert load(dump(document)) == document


@given(TEXT)
def test_any_string_reads_back_the_same_as_value_and_as_key(text: str) -> None:
    assert load(dump({"k": text, text: [text]})) == {"k": text, text: [text]}


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ({"a": 1}, "a: 1\n"),
        ({"status": "running"}, "status: running\n"),
        ({"providerId": "manager/web-1"}, "providerId: manager/web-1\n"),
        ({"message": "deployment does not exist"}, "message: deployment does not exist\n"),
        ({"image": "nginx:latest"}, "image: nginx:latest\n"),
        ({"v": "no"}, 'v: "no"\n'),
        ({"v": "42"}, 'v: "42"\n'),
        ({"v": "a: b"}, 'v: "a: b"\n'),
        ({"v": None, "w": True, "x": 0.5, "z": []}, "v: null\nw: true\nx: 0.5\nz: []\n"),
        ({"y": "n"}, '"y": "n"\n'),
        ({"v": 1e300}, "v: 1.0e+300\n"),
        ({"v": {}}, "v: {}\n"),
        ({"items": [{"a": 1, "b": 2}, {"a": 3}]}, "items:\n- a: 1\n  b: 2\n- a: 3\n"),
        ({"m": {"k": ["x", ["w"]]}}, "m:\n  k:\n  - x\n  - - w\n"),
        ({"manifest": "a: 1\nb: 2\n"}, "manifest: |\n  a: 1\n  b: 2\n"),
        ({"text": "a\n\nb"}, "text: |-\n  a\n\n  b\n"),
        ({"v": "tab\there"}, 'v: "tab\\there"\n'),
    ],
)
def test_layout(value: Any, written: str) -> None:
    assert dump(value) == written
    assert load(written) == value


def test_a_dry_run_manifest_is_a_literal_block_that_pastes() -> None:
    manifest = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "web-1"\n'
    text = dump({"dryRun": True, "commands": ["kubectl apply -f -"], "manifest": manifest})
    assert "manifest: |\n  apiVersion: apps/v1\n  kind: Deployment\n" in text
    assert load(text)["manifest"] == manifest


def test_special_floats() -> None:
    assert dump({"a": math.inf, "b": -math.inf}) == "a: .inf\nb: -.inf\n"
    assert math.isnan(load(dump({"c": math.nan}))["c"])


def test_a_top_level_scalar_or_empty_document() -> None:
    for value in ("x", "a\nb\n", 3, None, [], {}):
        assert load(dump(value)) == value


def test_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        dump({"a": object()})
    with pytest.raises(TypeError):
        dump({1: "a"})


def test_a_key_longer_than_yaml_allows_for_a_plain_key() -> None:
    long = "k" * 2000
    for value in ("v", {"a": 1}, [1, 2], "a\nb\n", []):
        assert load(dump({long: value, "next": 1})) == {long: value, "next": 1}
