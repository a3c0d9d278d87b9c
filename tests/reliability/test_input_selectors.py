"""``-l``: the adapter takes exactly the label selectors Kubernetes takes, and says which rule a
refused one breaks.

The reference is Kubernetes' own source:
- k8s.io/apimachinery ``pkg/labels/selector.go``: ``Lexer``, ``Parser.parse``,
  ``parseRequirement``, ``parseValues``/``parseIdentifiersList`` and ``NewRequirement`` (the
  operators ``=``, ``==``, ``!=``, ``in``, ``notin``, ``>``, ``<``, existence and ``!``;
  ``>``/``<`` take one int64);
- k8s.io/apimachinery ``pkg/util/validation/validation.go``: ``IsQualifiedName`` (a key is
  ``[prefix/]name``; the prefix a DNS-1123 subdomain of at most ``DNS1123SubdomainMaxLength``
  = 253 characters matching ``[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*``;
  the name at most ``qualifiedNameMaxLength`` = 63 characters matching
  ``([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]``) and ``IsValidLabelValue`` (the same as a name,
  or empty).

The rules are restated here as generators, independently of both implementations: the
adapter's check (``contract/selectors.py``) and the fake API server's port of ``labels.Parse``
(``tests/fakecluster/selectors.py``), which answers the real kubectl's ``-l`` in the end-to-end
sample below.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.selectors import check_selector, selector_problem
from tests.e2e.conftest import Cluster
from tests.fakecluster.selectors import SelectorError, parse_label_selector

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits


def _dns_label(draw: Any, most: int) -> str:
    size = draw(st.integers(1, max(1, most)))
    if size == 1:
        return str(draw(st.sampled_from(LOWER_ALNUM)))
    inner = draw(st.text(LOWER_ALNUM + "-", min_size=size - 2, max_size=size - 2))
    return f"{draw(st.sampled_from(LOWER_ALNUM))}{inner}{draw(st.sampled_from(LOWER_ALNUM))}"


@st.composite
def subdomains(draw: Any, longest: int = 253) -> str:
    """``IsDNS1123Subdomain``: dot-joined DNS labels, at most ``longest`` characters."""
    target = draw(st.integers(1, longest))
    labels = [_dns_label(draw, min(target, 63))]
    while len(".".join(labels)) + 2 <= target and draw(st.booleans()):
        labels.append(_dns_label(draw, min(63, target - len(".".join(labels)) - 1)))
    return ".".join(labels)


@st.composite
def names(draw: Any, shortest: int = 1, longest: int = 63) -> str:
    """The name part of a qualified name (and a non-empty label value)."""
    size = draw(st.integers(shortest, longest))
    if size == 1:
        return str(draw(st.sampled_from(ALNUM)))
    inner = draw(st.text(ALNUM + "-_.", min_size=size - 2, max_size=size - 2))
    return f"{draw(st.sampled_from(ALNUM))}{inner}{draw(st.sampled_from(ALNUM))}"


@st.composite
def keys(draw: Any) -> str:
    prefix = draw(st.one_of(st.just(""), subdomains().map(lambda p: p + "/")))
    return f"{prefix}{draw(names())}"


values = st.one_of(st.just(""), names())


@st.composite
def requirements(draw: Any) -> str:
    key = draw(keys())
    form = draw(st.sampled_from(["exists", "!", "=", "==", "!=", "in", "notin", ">", "<"]))
    if form == "exists":
        return key
    if form == "!":
        return f"!{key}"
    if form in {">", "<"}:
        return f"{key}{form}{draw(st.integers(0, 2**63 - 1))}"
    if form in {"in", "notin"}:
        listed = draw(st.lists(names(), min_size=1, max_size=3))
        return f"{key} {form} ({','.join(listed)})"
    return f"{key}{form}{draw(values)}"


# ------------------------------------------------------------------------------ what it takes
@settings(max_examples=300)
@given(st.lists(requirements(), min_size=1, max_size=4))
def test_every_selector_kubernetes_takes_is_taken(reqs: list[str]) -> None:
    text = ",".join(reqs)
    assert check_selector(text) == text
    parse_label_selector(text)  # the fake's labels.Parse agrees: the generator is the rules


@pytest.mark.parametrize(
    "text",
    [
        "x in (foo,,baz),y,z notin ()",  # selector.go's own example
        "a in (,,,)",  # parseIdentifiersList's empty values
        "a in (,b)",
        "a in (b,)",
        "in in (in),notin notin (notin)",  # keywords are identifiers where a key/value belongs
        "a in(b)",
        "  a = b ,\t! c ",
        "a=,b!=,c==",
        f"{'p' * 253}/n",  # the longest prefix
        f"{'a' * 63}.{'b' * 63}.{'c' * 63}.{'d' * 61}/{'n' * 63}={'v' * 63}",
        "a>9223372036854775807,b<0",
    ],
)
def test_edges_kubernetes_takes(text: str) -> None:
    assert check_selector(text) == text
    parse_label_selector(text)


# ------------------------------------------------------------------ what it refuses, and why
@st.composite
def broken_keys(draw: Any) -> tuple[str, str]:
    """A key breaking one rule of ``IsQualifiedName``, and the words naming that rule."""
    name = draw(names())
    rule = draw(st.sampled_from(["prefix>253", "name>63", "prefix", "name", "slashes", "empty"]))
    if rule == "prefix>253":
        prefix = draw(subdomains(longest=253))
        prefix = (prefix + "." + "p" * 253)[: draw(st.integers(254, 400))].rstrip(".-") + "z"
        return f"{prefix}/{name}", "over 253"
    if rule == "name>63":
        return draw(names(shortest=64, longest=200)), "over 63"
    if rule == "prefix":
        bad = draw(st.sampled_from(["A", "_", "-a", "a-", "a..b", ".a", "a_b", "é"]))
        return f"{bad}/{name}", "not a DNS subdomain"
    if rule == "name":
        bad = draw(st.sampled_from(["-a", "a-", "_a", "a.", ".", "a:b", "a*b", "a@"]))
        return bad, "is not letters, digits"
    if rule == "slashes":
        return f"a/b/{name}", "more than one '/'"
    return draw(st.sampled_from([("/" + name, "prefix before '/' is empty"), ("a/", "empty")]))


@settings(max_examples=300)
@given(broken_keys(), st.sampled_from(["{k}", "!{k}", "{k}=v", "{k} in (v)", "{k}>1"]))
def test_a_key_breaking_a_rule_is_refused_naming_it(broken: tuple[str, str], form: str) -> None:
    key, rule = broken
    text = "ok=1," + form.format(k=key)
    with pytest.raises(InvalidInput) as refused:
        check_selector(text)
    assert rule in str(refused.value), refused.value
    with pytest.raises(SelectorError):
        parse_label_selector(text)


@settings(max_examples=200)
@given(
    st.one_of(
        names(shortest=64, longest=120).map(lambda v: (v, "over 63")),
        st.sampled_from(["-v", "v-", "_v", "v.", "v:w", "v/w", "ü"]).map(
            lambda v: (v, "is not letters, digits")
        ),
    ),
    st.sampled_from(["k={v}", "k!={v}", "k in (a,{v})", "k notin ({v})"]),
)
def test_a_value_breaking_a_rule_is_refused_naming_it(broken: tuple[str, str], form: str) -> None:
    value, rule = broken
    with pytest.raises(InvalidInput) as refused:
        check_selector(form.format(v=value))
    assert rule in str(refused.value) and "value of 'k'" in str(refused.value)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("a,", "nothing after ','"),
        (",a", "found ','"),
        ("a b", "found 'b' after key 'a' (operators:"),
        ("!a=b", "found '=' where ',' or the end belongs"),
        ("a=b=c", "found '='"),
        ("a in b", "take a set in parentheses"),
        ("a in (b", "not closed"),
        ("a in (b c)", "found 'c' in the set"),
        ("a in (,,)", "found ')' in the set"),  # parseIdentifiersList, as written
        ("a in (b,,)", "found ')' in the set"),
        ("a>1.5", "take an integer"),
        ("a<", "take an integer"),
        ("a>9223372036854775808", "take an integer"),
        ("!!a", "'!' is not followed by a key"),
        ("a=(b)", "where the value of 'a' belongs"),
    ],
)
def test_grammar_errors_name_the_rule(text: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_selector(text)
    assert rule in str(refused.value)
    with pytest.raises(SelectorError):
        parse_label_selector(text)


# ------------------------------------------ the adapter's check and labels.Parse agree on all
SELECTOR_ALPHABET = "ab/.-_9=!(),<> \tinot"


def _parses(text: str) -> bool:
    try:
        parse_label_selector(text)
    except SelectorError:
        return False
    return True


@settings(max_examples=1500)
@given(
    st.one_of(
        st.text(SELECTOR_ALPHABET, max_size=16),
        st.lists(
            st.sampled_from(
                [
                    "a",
                    "b/c",
                    "in",
                    "notin",
                    "=",
                    "==",
                    "!=",
                    "!",
                    "(",
                    ")",
                    ",",
                    ">",
                    "<",
                    " ",
                    "1",
                    "",
                    "-",
                ]
            ),
            max_size=9,
        ).map("".join),
    )
)
@example("a in (,,)")
@example("a in (,,,)")
def test_the_check_is_labels_parse(text: str) -> None:
    """Any text at all: refused by the adapter exactly when the port of ``labels.Parse``
    refuses it."""
    assert (selector_problem(text) is None) == _parses(text), text


# ------------------------------------------------------------- through the real kubectl
SAMPLE = [
    "team=ops",
    f"{'p' * 253}/n=v",
    f"{'p' * 254}/n=v",  # the case: accepted and sent before
    "a in (,,,)",
    "a in (,,)",
    "x>3",
    "x>3.5",
    f"{'n' * 64}",
    "Team.Name_1!=-x",
    "a,",
]


@pytest.mark.parametrize("text", SAMPLE)
def test_kubectl_and_the_adapter_agree(cluster: Cluster, text: str) -> None:
    """kubectl sends ``-l`` unread; the fake answers it as ``labels.Parse`` does (BadRequest),
    and the adapter refuses before any call exactly what that answer refuses."""
    cluster.require_fake()
    import subprocess

    plain = subprocess.run(
        [
            "kubectl",
            *cluster._conn_flags(),
            "--cache-dir",
            cluster._cache_dir(),
            "-n",
            cluster.namespace,
            "get",
            "deployments",
            "-l",
            text,
            "-o",
            "name",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    adapter = cluster.adapter("list", "-l", text)
    if plain.returncode == 0:
        assert adapter.code == 0, adapter
    else:
        assert "BadRequest" in plain.stderr and "label selector" in plain.stderr, plain.stderr
        assert adapter.code == 2 and adapter.error_type == "InvalidInput", adapter
        assert adapter.doc["error"]["details"]["selector"] == text
