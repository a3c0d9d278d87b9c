"""``--sort-by PATH``: refused where kubectl refuses it, ordered as kubectl orders it.

The reference is kubectl's own source: k8s.io/kubectl ``pkg/cmd/get/sorter.go``
(``RelaxedJSONPathExpression``: ``^\\{\\.?([^{}]+)\\}$|^\\.?([^{}]+)$``, else "unexpected path
string…"; ``SortObjects``: "couldn't find any field with path %q in the list of objects" when
no object has the field, missing keys allowed; ``RuntimeSort.Less``: an object lacking the
field is less than any other, a null less than a value, two quantities compared as
quantities) and client-go ``util/jsonpath/parser.go`` (``parseArray``: "unterminated array",
"invalid array index"; ``parseQuote``: "unterminated quoted string"; ``parseInsideAction``:
"unrecognized character in action").
"""

from __future__ import annotations

import itertools
import json
import random
import string
import subprocess
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli.sort_paths import MISSING, path_key
from kubectl_adapter.cli.sorting import check_sort_by, sort_items
from kubectl_adapter.contract.errors import InvalidInput
from tests.e2e.conftest import Cluster, spec

MALFORMED = {
    "{.metadata.name": "unexpected path string",  # the case
    ".metadata.name}": "unexpected path string",
    "{{.a}}": "unexpected path string",
    ".a[0": "unterminated array",
    ".a[x]": "invalid array index x",
    ".a['b": "unterminated array",
    ".a 'b": "unterminated quoted string",
    ".a,b": "unrecognized character in action",
    ".a]": "unrecognized character in action",
    ".a!b": None,  # '!' is part of a field name: valid, names nothing
}


@pytest.mark.parametrize(("path", "words"), [(p, w) for p, w in MALFORMED.items() if w])
def test_a_malformed_path_is_a_usage_error_before_any_call(
    path: str, words: str, capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    """No kubectl runs (nothing is registered with the fake subprocess): exit 2 at once."""
    code = cli.main(["-n", "testns", "list", "--sort-by", path])
    document = json.loads(capsys.readouterr().out)
    assert code == 2 and document["error"]["type"] == "InvalidInput"
    assert words in document["error"]["message"], document


def test_a_path_naming_no_field_in_any_item_is_refused_with_kubectls_words() -> None:
    key = check_sort_by("list", ".spec.nosuchfield")
    assert key is not None
    items = {"items": [{"providerId": "ns/a"}, {"providerId": "ns/b", "spec": None}]}
    with pytest.raises(InvalidInput) as refused:
        sort_items(items, key)
    assert refused.value.message == (
        'couldn\'t find any field with path "{.spec.nosuchfield}" in the list of objects'
    )
    assert sort_items({"items": []}, key) == {"items": []}  # no object: kubectl says nothing


# ----------------------------------------------------------------- paths, property-tested
FIELD = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=6)


@st.composite
def paths(draw: Any) -> tuple[str, list[Any]]:
    """A path of fields, indexes and wildcards in one of kubectl's four relaxed spellings
    (``.a.b``, ``a.b``, ``{.a.b}``, ``{a.b}``), and the steps it means."""
    first = draw(FIELD)
    steps: list[Any] = [first]
    text = first
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["field", "bracket", "index", "wildcard"]))
        if kind == "index":
            index = draw(st.integers(-3, 3))
            steps.append(index)
            text += f"[{index}]"
        elif kind == "wildcard":
            steps.append("*")
            text += draw(st.sampled_from(["[*]", ".*"]))
        else:
            name = draw(FIELD)
            steps.append(name)
            text += f"['{name}']" if kind == "bracket" else f".{name}"
    spelling = draw(st.sampled_from(["{.%s}", ".%s", "{%s}", "%s"]))
    return spelling % text, steps


def _reference(value: Any, steps: list[Any]) -> Any:
    """The first value the steps reach (missing keys allowed), written out plainly."""
    found = [value]
    for step in steps:
        nxt: list[Any] = []
        for here in found:
            if step == "*":
                nxt += [here[k] for k in sorted(here)] if isinstance(here, dict) else []
                nxt += here if isinstance(here, list) else []
            elif isinstance(step, int):
                if isinstance(here, list) and -len(here) <= step < len(here):
                    nxt.append(here[step])
            elif isinstance(here, dict) and step in here:
                nxt.append(here[step])
        found = nxt
    return found[0] if found else MISSING


JSON = st.recursive(
    st.none() | st.integers(-5, 5) | st.sampled_from(["a", "b", "10", "9", "1Gi", "1000Mi"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(FIELD, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400)
@given(paths(), JSON)
def test_a_path_reads_what_its_steps_reach(path: tuple[str, list[Any]], document: Any) -> None:
    text, steps = path
    key = path_key(text)
    assert key(document) == _reference(document, steps) or (
        key(document) is MISSING and _reference(document, steps) is MISSING
    )


@settings(max_examples=600)
@given(st.text(string.printable, max_size=14))
def test_any_text_is_a_path_or_a_usage_error(text: str) -> None:
    """Never a crash, never a silent 'sorted nothing': a key or InvalidInput."""
    try:
        key = check_sort_by("list", text)
    except InvalidInput as refused:
        assert refused.exit_code == 2
        return
    assert key is not None


VALUES = st.one_of(
    st.just(MISSING),
    st.none(),
    st.integers(-3, 3),
    st.sampled_from(["web-9", "web-10", "1Gi", "1000Mi", "512Mi", "b", "a"]),
)


@settings(max_examples=400)
@given(st.lists(VALUES, min_size=1, max_size=8), st.randoms())
def test_rows_sort_as_kubectls_less(values: list[Any], rnd: random.Random) -> None:
    """Lacking the field first, then null, then values in kubectl's order; ties keep the
    order they came in; refused only when no row has the field."""
    items = [
        {"providerId": f"ns/w{i}", **({} if v is MISSING else {"x": v})}
        for i, v in enumerate(values)
    ]
    rnd.shuffle(items)
    key = path_key(".x")
    if all(v is MISSING for v in values):
        with pytest.raises(InvalidInput, match="couldn't find any field with path"):
            sort_items({"items": items}, key)
        return
    given_order = [item["providerId"] for item in items]
    ordered = [key(item) for item in sort_items({"items": items}, key)["items"]]
    ranks = [_rank(v) for v in ordered]
    assert ranks == sorted(ranks)
    for a, b in itertools.pairwise(ordered):
        if _rank(a) == _rank(b) == 2 and isinstance(a, int) and isinstance(b, int):
            assert a <= b
    numbers = [v for v in ordered if isinstance(v, str) and v[0].isdigit()]
    assert numbers == sorted(numbers, key=_bytes)  # quantities by value: 512Mi < 1000Mi < 1Gi
    assert given_order  # ties: a stable sort over the order given


def _rank(value: Any) -> int:
    return 0 if value is MISSING else 1 if value is None else 2


def _bytes(text: str) -> int:
    return int(text[:-2]) * (1024**3 if text.endswith("Gi") else 1024**2)


def test_kubectls_order_lacking_and_null_first() -> None:
    items = [
        {"providerId": "ns/a", "x": "web-10"},
        {"providerId": "ns/b"},
        {"providerId": "ns/c", "x": None},
        {"providerId": "ns/d", "x": "web-9"},
    ]
    key = path_key("{.x}")
    ordered = sort_items({"items": items}, key)["items"]
    assert [i["providerId"] for i in ordered] == ["ns/b", "ns/c", "ns/d", "ns/a"]
    with pytest.raises(InvalidInput, match="unsortable"):
        sort_items({"items": [{"x": {"a": 1}}, {"x": 2}]}, key)


# -------------------------------------------------------------- through the real kubectl
def _kubectl(cluster: Cluster, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", *cluster._conn_flags(), "--cache-dir", cluster._cache_dir(),
         "-n", cluster.namespace, *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_adapter_refuses_and_orders_as_kubectl_does(cluster: Cluster) -> None:
    """Two workloads, one drifted (its drift lists a change; the other's lists none): kubectl
    and the adapter refuse the same malformed paths and a path naming nothing with the same
    words, and a path only the drifted one has sorts the other first, as kubectl sorts."""
    cluster.require_fake()
    names = []
    for prefix in ("sortb", "sorta"):
        name, cid = cluster.workload(prefix)
        created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
        assert created.code == 0, created
        names.append(name)
    cluster.kubectl("set", "image", f"deployment/{names[1]}", "main=nginx:1.27")
    for path, words in MALFORMED.items():
        plain = _kubectl(cluster, "get", "deployments", "--sort-by", path, "-o", "name")
        adapter = cluster.adapter("list", "--sort-by", path)
        if words is None:  # valid, naming nothing: both say so
            assert "couldn't find any field" in plain.stderr, plain.stderr
            assert "couldn't find any field" in adapter.doc["error"]["message"], adapter
            continue
        assert plain.returncode != 0, (path, plain.stdout)
        assert adapter.code == 2 and adapter.error_type == "InvalidInput", (path, adapter)
        # kubectl's words where they are about the path's text
        assert words.split()[0] in plain.stderr, (path, plain.stderr)
    plain = _kubectl(cluster, "get", "deployments", "--sort-by", ".spec.nosuchfield")
    adapter = cluster.adapter("list", "--sort-by", ".spec.nosuchfield")
    kubectls = 'couldn\'t find any field with path "{.spec.nosuchfield}" in the list of objects'
    assert kubectls in plain.stderr, plain.stderr
    assert adapter.code == 2 and adapter.doc["error"]["message"] == kubectls, adapter
    listed = cluster.adapter("list", "--sort-by", ".drift.changes[0].what")
    assert listed.code == 0, listed
    order = [item["name"] for item in listed.doc["items"] if item["name"] in names]
    assert order == [names[0], names[1]]  # the one lacking the field first
    listed = cluster.adapter("list", "--sort-by", "{.drift.changes[*].what}")
    assert [i["name"] for i in listed.doc["items"] if i["name"] in names] == order
