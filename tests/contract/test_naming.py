"""Provider IDs, label values, DNS labels and selectors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kubectl_adapter.contract.errors import InvalidInput, InvalidProviderId
from kubectl_adapter.contract.naming import (
    CONTAINER_ID_LABEL,
    LABEL_PREFIX,
    MANAGED_LABEL,
    NAME_LABEL,
    NODE_ID_LABEL,
    ProviderId,
    deployment_selector,
    identity_labels,
    is_dns1123_label,
    is_label_value,
    name_selector,
    parse_provider_id,
    selector_string,
    spec_names,
    workload_labels,
)

# The rules, restated independently (Kubernetes' own regular expressions, with \Z).
DNS1123 = re.compile(r"\A[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
LABEL_VALUE = re.compile(r"\A(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")

SELECTOR_42 = f"{CONTAINER_ID_LABEL}=42,{MANAGED_LABEL}=true"


def test_label_names() -> None:
    assert LABEL_PREFIX == "org.mieweb.opensource-server"
    assert MANAGED_LABEL == "org.mieweb.opensource-server.managed"
    assert NODE_ID_LABEL == "org.mieweb.opensource-server.node-id"
    assert CONTAINER_ID_LABEL == "org.mieweb.opensource-server.container-id"
    assert NAME_LABEL == "org.mieweb.opensource-server.name"


# ------------------------------------------------------------------------------- provider IDs
@pytest.mark.parametrize(
    ("value", "namespace", "name"),
    [
        ("ns/web-1", "ns", "web-1"),
        ("default/a", "default", "a"),
        ("0/1", "0", "1"),
        ("a" * 63 + "/" + "b" * 63, "a" * 63, "b" * 63),
    ],
)
def test_provider_id_accepted(value: str, namespace: str, name: str) -> None:
    pid = parse_provider_id(value)
    assert pid == ProviderId(namespace, name)
    assert (pid.namespace, pid.name) == (namespace, name)
    assert str(pid) == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "x",
        "/",
        "/x",
        "x/",
        "a/b/c",
        "ns//web",
        "NS/Name",
        "ns/Web",
        "Ns/web",
        "ns /web",
        "ns/ web",
        "ns/web 1",
        " ns/web",
        "..",
        "ns/..",
        "../web",
        "ns/.",
        "ns/web.1",
        "ns/web_1",
        "ns/-web",
        "ns/web-",
        "ns/web-1\n",
        "ns\n/web-1",
        "ns/" + "a" * 64,
        "a" * 64 + "/web",
        "ns/wéb",
        "ns\\web",
    ],
)
def test_provider_id_rejected(value: str) -> None:
    with pytest.raises(InvalidProviderId) as info:
        parse_provider_id(value)
    error = info.value
    assert isinstance(error, InvalidInput)
    assert error.exit_code == 2
    assert error.type == "InvalidProviderId"
    assert repr(value) in error.message
    assert error.details["providerId"] == value


def test_provider_id_names_the_bad_part_and_the_rule() -> None:
    with pytest.raises(InvalidProviderId, match="name 'Web' must be a DNS-1123 label") as info:
        parse_provider_id("ns/Web")
    assert info.value.details["field"] == "name"
    with pytest.raises(InvalidProviderId, match="namespace 'NS' must be a DNS-1123 label"):
        parse_provider_id("NS/web")
    with pytest.raises(InvalidProviderId, match="must be exactly 'namespace/name'"):
        parse_provider_id("a/b/c")


@given(st.text(max_size=140))
@example("ns/web-1\n")
def test_provider_id_matches_the_rule(value: str) -> None:
    parts = value.split("/")
    valid = len(parts) == 2 and all(len(p) <= 63 and DNS1123.match(p) for p in parts)
    if valid:
        assert str(parse_provider_id(value)) == value
    else:
        with pytest.raises(InvalidProviderId):
            parse_provider_id(value)


# ------------------------------------------------------------------------------- predicates
@given(st.one_of(st.text(max_size=70), st.from_regex(DNS1123), st.from_regex(LABEL_VALUE)))
@example("a" * 63)
@example("a" * 64)
@example("web-1\n")
@example("")
def test_dns1123_label(value: str) -> None:
    assert is_dns1123_label(value) == (len(value) <= 63 and bool(DNS1123.match(value)))


@given(st.one_of(st.text(max_size=70), st.from_regex(LABEL_VALUE), st.from_regex(DNS1123)))
@example("x" * 63)
@example("x" * 64)
@example("42\n")
@example("")
@example("a.b_c-D")
def test_label_value(value: str) -> None:
    expected = 0 < len(value) <= 63 and bool(LABEL_VALUE.match(value))
    assert is_label_value(value) == expected


@pytest.mark.parametrize(
    ("value", "dns", "label"),
    [
        ("web-1", True, True),
        ("Web-1", False, True),
        ("web_1", False, True),
        ("web.1", False, True),
        ("1", True, True),
        ("-a", False, False),
        ("a-", False, False),
        ("_a", False, False),
        ("a_", False, False),
        ("", False, False),
        ("a\n", False, False),
        ("a b", False, False),
        ("é", False, False),
    ],
)
def test_predicates_table(value: str, dns: bool, label: bool) -> None:
    assert is_dns1123_label(value) is dns
    assert is_label_value(value) is label


def test_every_dns_label_is_a_label_value() -> None:
    """A hostname could always be used as an ID label too (sanity of the two rules)."""
    for value in ("a", "0", "web-1", "a" * 63):
        assert is_dns1123_label(value) and is_label_value(value)


# ------------------------------------------------------------------------ labels and selectors
def test_identity_and_workload_labels() -> None:
    assert identity_labels("42") == {MANAGED_LABEL: "true", CONTAINER_ID_LABEL: "42"}
    assert workload_labels("42", "7", "web-1") == {
        MANAGED_LABEL: "true",
        NODE_ID_LABEL: "7",
        CONTAINER_ID_LABEL: "42",
        NAME_LABEL: "web-1",
    }
    # The selector is a subset of the labels, without the node (a node may be re-assigned)
    # and without the name (Deployments applied before the name label keep their selector).
    assert identity_labels("42").items() <= workload_labels("42", "7", "web-1").items()
    assert NAME_LABEL not in identity_labels("42")


def test_name_selector() -> None:
    assert name_selector("web-1") == f"{MANAGED_LABEL}=true,{NAME_LABEL}=web-1"


@given(st.from_regex(DNS1123, fullmatch=True).filter(lambda name: len(name) <= 63))
def test_every_deployment_name_is_a_label_value(name: str) -> None:
    """The name label holds the Deployment name: every name the spec allows is a label value
    (Kubernetes' own rule, restated above), so no apply can be refused for it."""
    assert is_dns1123_label(name)
    assert LABEL_VALUE.fullmatch(name) and is_label_value(name)


def test_selector_string_is_sorted() -> None:
    assert selector_string({"b": "2", "a": "1"}) == "a=1,b=2"
    assert selector_string(identity_labels("42")) == SELECTOR_42
    assert selector_string({}) == ""


@pytest.mark.parametrize(
    ("deployment", "selector"),
    [
        ({"spec": {"selector": {"matchLabels": identity_labels("42")}}}, SELECTOR_42),
        # matchLabels wins over metadata labels: it is what the Deployment really selects.
        (
            {
                "metadata": {"labels": workload_labels("99", "7", "web-1")},
                "spec": {"selector": {"matchLabels": {"app": "x", "tier": "web"}}},
            },
            "app=x,tier=web",
        ),
        ({"spec": {"selector": {"matchLabels": {"n": 1}}}}, "n=1"),
        # No matchLabels: fall back to the identity labels carried on the Deployment.
        ({"metadata": {"labels": workload_labels("42", "7", "web-1")}}, SELECTOR_42),
        ({"metadata": {"labels": workload_labels("42", "7", "web-1")}, "spec": None}, SELECTOR_42),
        (
            {
                "metadata": {"labels": workload_labels("42", "7", "web-1")},
                "spec": {"selector": None},
            },
            SELECTOR_42,
        ),
        (
            {
                "metadata": {"labels": workload_labels("42", "7", "web-1")},
                "spec": {"selector": {"matchLabels": {}}},
            },
            SELECTOR_42,
        ),
        ({}, f"{CONTAINER_ID_LABEL}=,{MANAGED_LABEL}=true"),
        ({"metadata": None, "spec": None}, f"{CONTAINER_ID_LABEL}=,{MANAGED_LABEL}=true"),
    ],
)
def test_deployment_selector(deployment: dict[str, Any], selector: str) -> None:
    assert deployment_selector(deployment) == selector


# What a spec's containerId and hostname may be in its JSON: names, near-names, other types.
_ID_LIKE = st.one_of(
    st.from_regex(r"[A-Za-z0-9][-A-Za-z0-9_.]{0,64}", fullmatch=True),
    st.from_regex(r"[a-z0-9][-a-z0-9]{0,64}", fullmatch=True),
    st.text(max_size=8),
    st.integers(min_value=-(10**64), max_value=10**64),
    st.sampled_from([10**63 - 1, 10**63, -1, 0, True, False, None, 1.0, 42.5, [], {}]),
)


@given(container_id=_ID_LIKE, hostname=_ID_LIKE, other=st.booleans())
@example(container_id=42, hostname="web-1", other=False)
@example(container_id=0, hostname="web-1", other=False)
@example(container_id=True, hostname="web-1", other=False)
@example(container_id=10**63 - 1, hostname="web-1", other=False)
@example(container_id="42", hostname="Web_1", other=False)
def test_spec_names_are_the_validated_spec_s_or_none(
    container_id: Any, hostname: Any, other: bool
) -> None:
    """create's reads open ahead on these names: for a spec the rules accept they are its
    names exactly (its read and watches are taken, not started twice), and whatever the
    document holds, a name given is a valid one (nothing unvalidated reaches an argv)."""
    from kubectl_adapter.contract.spec import parse_spec

    document = {
        "containerId": container_id,
        "nodeId": "7",
        "hostname": hostname,
        "image": "nginx:latest" if not other else "",
        "cpus": 1,
        "memoryMb": 64,
    }
    names = spec_names(document)
    if names is not None:
        assert is_label_value(names.container_id) and is_dns1123_label(names.hostname)
    try:
        spec = parse_spec(document)
    except InvalidInput:
        return
    assert names == (spec.container_id, spec.hostname)


@pytest.mark.parametrize("document", [None, [], "spec", 42, {}, {"hostname": "web-1"}])
def test_spec_names_of_a_document_without_both_names_is_none(document: Any) -> None:
    assert spec_names(document) is None
