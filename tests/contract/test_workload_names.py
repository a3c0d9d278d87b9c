"""``contract.workload_names``: every form kubectl takes for one Deployment, and the
contradictions it refuses, property-tested over names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.contract.errors import InvalidProviderId
from kubectl_adapter.contract.naming import ProviderId, is_dns1123_label
from kubectl_adapter.contract.workload_names import Named, is_deployment_type, named, resolved

labels = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z").filter(is_dns1123_label)
# kubectl 1.32 (checked against it by tests/e2e/test_names.py): the resource in any letter
# case for deployment(s), the short name lowercase only, with nothing, .apps or .v1.apps.
plural = st.sampled_from(["deployment", "deployments"]).flatmap(
    lambda word: st.tuples(*(st.sampled_from([c, c.upper()]) for c in word)).map("".join)
)
resource = st.one_of(plural, st.just("deploy"))
types = st.tuples(resource, st.sampled_from(["", ".apps", ".v1.apps"])).map("".join)
ALIASES = ("deploy", "deployment", "deployments")


def kubectl_reads_as_deployment(word: str) -> bool:
    """The same rule, written as kubectl's resolution is: ``RESOURCE[.VERSION].GROUP``."""
    match = re.fullmatch(r"([A-Za-z]+)(?:\.(v1))?(?:\.(apps))?", word)
    if match is None or (match.group(2) and not match.group(3)):
        return False
    name = match.group(1)
    return name == "deploy" or name.lower() in ("deployment", "deployments")


@given(types, labels, st.one_of(st.none(), labels), labels)
def test_type_slash_name_is_that_deployment_in_the_namespace_given(
    kind: str, name: str, flag: str | None, context: str
) -> None:
    [found] = named([f"{kind}/{name}"], flag)
    assert found == Named(None, name, f"{kind}/{name}")
    assert resolved(found, flag or context) == ProviderId(flag or context, name)


@given(labels, st.one_of(st.none(), labels), labels)
def test_a_bare_name_takes_n_or_the_contexts_namespace(
    name: str, flag: str | None, context: str
) -> None:
    [found] = named([name], flag)
    assert resolved(found, flag or context) == ProviderId(flag or context, name)


@given(types, st.lists(labels, min_size=1, max_size=4))
def test_type_then_names_is_kubectls_separate_type_form(kind: str, names: list[str]) -> None:
    found = named([kind, *names])
    assert [(f.namespace, f.name) for f in found] == [(None, n) for n in names]


@given(labels.filter(lambda ns: ns not in ALIASES), labels)
def test_a_provider_id_carries_its_namespace_and_agrees_with_the_same_n(
    namespace: str, name: str
) -> None:
    for flag in (None, namespace):
        [found] = named([f"{namespace}/{name}"], flag)
        assert resolved(found, "ignored") == ProviderId(namespace, name)


@given(labels.filter(lambda ns: ns not in ALIASES), labels, labels)
def test_n_contradicting_a_provider_id_is_refused_as_kubectl_does(
    namespace: str, other: str, name: str
) -> None:
    if other == namespace:
        return
    with pytest.raises(InvalidProviderId, match="does not match"):
        named([f"{namespace}/{name}"], other)
    # --provider-ids: Manager's stored identity keeps its own namespace
    [found] = named([f"{namespace}/{name}"], other, as_ids=True)
    assert resolved(found, other) == ProviderId(namespace, name)


@given(st.sampled_from(ALIASES), labels, st.one_of(st.none(), labels))
def test_an_alias_that_is_also_a_namespace_name_is_the_type(
    alias: str, name: str, flag: str | None
) -> None:
    [found] = named([f"{alias}/{name}"], flag)
    assert found.namespace is None  # the type: -n's or the context's namespace
    [as_id] = named([f"{alias}/{name}"], flag, as_ids=True)
    assert resolved(as_id, "x") == ProviderId(alias, name)  # --provider-ids: the namespace


@given(st.text(alphabet="deployDEPLOYmnts.av1xAPS", min_size=1, max_size=20))
def test_what_is_a_deployment_type_is_kubectls_rule(word: str) -> None:
    assert is_deployment_type(word) == kubectl_reads_as_deployment(word)


@pytest.mark.parametrize(
    "words",
    [
        ["deploy", "deploy/web-1"],  # kubectl: no need to give the type separately
        ["a/b/c"],
        ["/web-1"],
        ["deployment/"],
        ["Deploy/web-1"],  # the short name is lowercase only: then a namespace, invalid
        ["deployment.extensions/web-1"],
        ["deployment.apps.v1/web-1"],
        ["deployment/Web-1"],
        ["web_1"],
        [],
    ],
)
def test_what_kubectl_refuses_is_refused_before_any_call(words: list[str]) -> None:
    with pytest.raises(InvalidProviderId):
        named(words, "manager")


def test_provider_ids_mode_reads_only_namespace_slash_name() -> None:
    with pytest.raises(InvalidProviderId, match="exactly 'namespace/name'"):
        named(["web-1"], None, as_ids=True)
    assert named(["deployment/web-1"], None, as_ids=True) == [
        Named("deployment", "web-1", "deployment/web-1")
    ]
