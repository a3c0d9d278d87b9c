"""The rendered Deployment: golden file, exact shape and values for any input, strict schema.

``UPDATE_GOLDEN=1 pytest tests/rules/test_render.py`` rewrites ``tests/golden/nginx.yaml``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kubectl_adapter.cli import app as cli
from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.naming import is_dns1123_label, is_label_value
from kubectl_adapter.contract.spec import ContainerSpec, load_spec, parse_spec
from kubectl_adapter.contract.storable_text import unstorable_characters
from kubectl_adapter.rules.render import literal, render_manifest, yaml_tojson
from tests.k8s_expansion import Lookup, every_name, expand, no_name

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "nginx.json"
GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "nginx.yaml"
KUBERNETES_VERSION = "1.32"

MANAGED = "org.mieweb.opensource-server.managed"
NODE = "org.mieweb.opensource-server.node-id"
CONTAINER = "org.mieweb.opensource-server.container-id"
NAME = "org.mieweb.opensource-server.name"


# ------------------------------------------------------------------------------------- golden
def test_golden_manifest() -> None:
    rendered = render_manifest(load_spec(str(EXAMPLE)), "default")
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(rendered, encoding="utf-8", newline="\n")
    expected = GOLDEN.read_text(encoding="utf-8") if GOLDEN.exists() else ""
    if rendered != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                rendered.splitlines(keepends=True),
                fromfile=str(GOLDEN.relative_to(ROOT)),
                tofile="rendered",
            )
        )
        pytest.fail(
            f"rendered manifest differs from the golden file (UPDATE_GOLDEN=1 to accept):\n{diff}"
        )


def test_golden_is_valid_for_kubernetes() -> None:
    document = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    kubernetes_validate.validate(document, desired_version=KUBERNETES_VERSION, strict=True)
    assert "replicas" not in document["spec"]


def test_cli_render_prints_the_golden_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["render", "--spec", str(EXAMPLE), "-n", "default"]) == 0
    assert capsys.readouterr().out == GOLDEN.read_text(encoding="utf-8")


def test_template_keeps_the_replicas_comment() -> None:
    template = (ROOT / "templates" / "deployment.yaml.j2").read_text(encoding="utf-8")
    assert "spec.replicas is deliberately NOT rendered" in template
    # Every interpolation is piped through tojson: no raw value can reach the YAML.
    for expression in re.findall(r"\{\{(.*?)\}\}", template.split("-#}", 1)[1]):
        assert expression.strip().endswith("| tojson"), expression


# ----------------------------------------------------------------------------------- strategies
def _text(min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[str]:
    # The spec refuses what the API server cannot store (control characters but tab, LF and
    # CR, surrogates, noncharacters: storable_text.unstorable_characters); the rest is fair game.
    characters = st.characters(exclude_categories=["Cs"]).filter(
        lambda c: not unstorable_characters(c)
    )
    return st.text(characters, min_size=min_size, max_size=max_size)


TRICKY = [
    "",
    "a\nb: c",
    '"',
    "'",
    "\\",
    "\\u0041",
    "\\ud83d\\ude00",
    "{{ x }}",
    "{% raw %}",
    "{# c #}",
    "on",
    "off",
    "yes",
    "no",
    "y",
    "null",
    "Null",
    "~",
    "0777",
    "0x1F",
    "1e3",
    ".inf",
    "- x",
    "#",
    "a # b",
    "&a",
    "*a",
    "!!python/object:os.system",
    "!!binary aGk=",
    "? x",
    ": x",
    "---",
    "...",
    "|",
    ">",
    "%YAML 1.2",
    "@x",
    "`x`",
    "[1, 2]",
    "{a: 1}",
    " leading and trailing ",
    "\t\r\n",
    "\u2028\u2029\ufeff\ufffd\xa0",
    "é ñ 中文 Ω",
    "😀 \U0010fffd \U00010000",
    "<script>&amp;</script>",
    # Kubernetes' expansion (env values, command, args): each must reach the container as is.
    "$",
    "$$",
    "$(X)",
    "$$(X)",
    "$(",
    ")",
    "$(X",
    "a$",
    "$HOME/$USER",
    "costs $$(5)",
    "$(HOME_DIR)/x",
    "$é $😀",
    "$$$(X)$$$",
]
# Text made mostly of what Kubernetes' expansion reads.
dollar_texts = st.text(st.sampled_from("$$$(()) XAé_\n"), max_size=30)

env_keys = st.text(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=1
).flatmap(
    lambda first: st.text(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_", max_size=20
    ).map(lambda rest: first + rest)
)
long_text = st.tuples(_text(min_size=1, max_size=4), st.integers(500, 5000)).map(
    lambda pair: pair[0] * pair[1]
)
env_texts = st.one_of(st.sampled_from(TRICKY), _text(), long_text, dollar_texts)
env_values = st.one_of(
    env_texts,
    st.booleans(),
    st.integers(-(2**53) + 1, 2**53 - 1),
)
entrypoint_lists = st.lists(env_texts, max_size=6)
entrypoints = st.one_of(
    st.none(),
    entrypoint_lists,
    entrypoint_lists.map(shlex.join),  # a shell string, split back by the spec
)
image_chars = st.characters(exclude_categories=["Cc", "Cs", "Zs", "Zl", "Zp"]).filter(
    lambda c: not unstorable_characters(c)
)
images = st.one_of(
    st.sampled_from(["nginx", "nginx:latest", "ghcr.io/a/b@sha256:" + "0" * 64, "a{{b}}:on"]),
    st.text(image_chars, min_size=1, max_size=200).filter(
        lambda s: not any(c.isspace() for c in s)
    ),
)
label_values = st.one_of(
    st.from_regex(r"\A[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\Z"),
    st.integers(0, 10**20),
    st.sampled_from(["0", "true", "null", "on", "0777", "1e3", "1.5", "x" * 63]),
)
dns_labels = st.one_of(
    st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z"),
    st.sampled_from(["on", "off", "yes", "null", "true", "0777", "1e3", "a" * 63]),
)
millicores = st.integers(1, 10**9)
memory = st.integers(1, (2**63 - 1) // 2**20)


def cpus_value(m: int) -> int | float:
    """A JSON number with at most three decimals, as Manager would send it."""
    return m // 1000 if m % 1000 == 0 else m / 1000


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {
        "containerId": draw(label_values),
        "nodeId": draw(label_values),
        "hostname": draw(dns_labels),
        "image": draw(images),
        "cpus": cpus_value(draw(millicores)),
        "memoryMb": draw(memory),
    }
    env = draw(st.none() | st.dictionaries(env_keys, env_values, max_size=8))
    if env is not None or draw(st.booleans()):
        data["env"] = env
    entrypoint = draw(entrypoints)
    if entrypoint is not None or draw(st.booleans()):
        data["entrypoint"] = entrypoint
    return data


# ----------------------------------------------------------------------------------- expectation
def env_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


APPLIED = "org.mieweb.opensource-server.applied"


def expected_document(data: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The Deployment, built directly from the contract (not from the code under test)."""
    container_id, node_id = str(data["containerId"]), str(data["nodeId"])
    # The name label is on the Deployment and its Pod template, never in the selector.
    labels = {MANAGED: "true", NODE: node_id, CONTAINER: container_id, NAME: data["hostname"]}
    entrypoint = data.get("entrypoint")
    command = shlex.split(entrypoint) if isinstance(entrypoint, str) else entrypoint
    env = data.get("env") or {}
    m = round(data["cpus"] * 1000)
    resources = {"cpu": f"{m}m", "memory": f"{data['memoryMb']}Mi"}
    # Requests are a quarter of the limits, rounded down, never below 1m / 1Mi.
    requests = {"cpu": f"{max(1, m // 4)}m", "memory": f"{max(1, data['memoryMb'] // 4)}Mi"}
    container: dict[str, Any] = {"name": "main", "image": data["image"]}
    if command:
        container["command"] = list(command)
    if env:
        container["env"] = [{"name": k, "value": env_string(env[k])} for k in sorted(env)]
    container["resources"] = {"requests": requests, "limits": dict(resources)}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": data["hostname"],
            "namespace": namespace,
            "labels": labels,
            # What drift detection compares with: names and a flag, never env values or the
            # command; the CPU and memory quantities as sent (compared by value).
            "annotations": {
                APPLIED: json.dumps(
                    {
                        "command": bool(command),
                        "env": sorted(env),
                        "resources": {
                            "limits.cpu": resources["cpu"],
                            "limits.memory": resources["memory"],
                            "requests.cpu": requests["cpu"],
                            "requests.memory": requests["memory"],
                        },
                    },
                    separators=(",", ":"),
                )
            },
        },
        "spec": {
            "selector": {"matchLabels": {MANAGED: "true", CONTAINER: container_id}},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"hostname": data["hostname"], "containers": [container]},
            },
        },
    }


def as_the_container_sees_it(document: dict[str, Any], lookup: Lookup) -> dict[str, Any]:
    """The document with Kubernetes' expansion applied where the kubelet applies it."""
    seen = json.loads(json.dumps(document))
    for container in seen["spec"]["template"]["spec"]["containers"]:
        for item in container.get("env") or []:
            item["value"] = expand(item["value"], lookup)
        for key in ("command", "args"):
            if key in container:
                container[key] = [expand(part, lookup) for part in container[key]]
    return seen


def assert_same(actual: Any, expected: Any) -> None:
    """Equal, and equal in key order too (env order is part of the contract)."""
    assert actual == expected
    assert json.dumps(actual) == json.dumps(expected)


BASE = json.loads(EXAMPLE.read_text(encoding="utf-8"))


@given(data=specs(), namespace=dns_labels)
@example(data={**BASE, "env": {t: "x" for t in ["B", "A", "_", "a"]}}, namespace="default")
@example(data={**BASE, "env": {f"K{i}": t for i, t in enumerate(TRICKY)}}, namespace="on")
@example(data={**BASE, "entrypoint": TRICKY}, namespace="null")
@example(data={**BASE, "entrypoint": shlex.join(TRICKY), "image": "a{{b}}:on"}, namespace="y")
@example(data={**BASE, "hostname": "0777", "containerId": "1e3", "nodeId": 7}, namespace="yes")
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_render_yields_exactly_the_intended_document(data: dict[str, Any], namespace: str) -> None:
    manifest = render_manifest(parse_spec(data), namespace)
    assert manifest.isascii(), "the manifest is pure ASCII, whatever the input"
    assert manifest.endswith("\n") and not manifest.endswith("\n\n")
    document = yaml.safe_load(manifest)
    # What the container gets is exactly Manager's values, whichever variables are defined.
    for lookup in (every_name, no_name):
        assert_same(as_the_container_sees_it(document, lookup), expected_document(data, namespace))
    assert "replicas" not in document["spec"]


@given(data=specs(), namespace=dns_labels)
@example(data={**BASE, "env": {f"K{i}": t for i, t in enumerate(TRICKY)}}, namespace="default")
@example(data={**BASE, "entrypoint": TRICKY}, namespace="default")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_render_passes_strict_kubernetes_validation(data: dict[str, Any], namespace: str) -> None:
    document = yaml.safe_load(render_manifest(parse_spec(data), namespace))
    kubernetes_validate.validate(document, desired_version=KUBERNETES_VERSION, strict=True)


def test_strict_validation_would_catch_a_shape_error() -> None:
    """The validator is not vacuous: an unknown field fails it."""
    document = yaml.safe_load(render_manifest(load_spec(str(EXAMPLE)), "default"))
    document["spec"]["template"]["spec"]["containers"][0]["entrypoint"] = ["x"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(document, desired_version=KUBERNETES_VERSION, strict=True)


# ------------------------------------------- literal: Kubernetes' expansion gives the value back
@settings(deadline=None)
@given(
    value=st.one_of(dollar_texts, _text(), st.sampled_from(TRICKY)),
    defined=st.booleans(),
    bytewise=st.booleans(),
)
@example(value="$(HOME_DIR)/x", defined=True, bytewise=True)
@example(value="costs $$(5)", defined=False, bytewise=True)
@example(value="$é", defined=False, bytewise=True)
def test_kubernetes_expansion_of_literal_gives_the_value_back(
    value: str, defined: bool, bytewise: bool
) -> None:
    """Older kubelets (bytewise) and newer ones alike give back exactly the value."""
    lookup = every_name if defined else no_name
    assert expand(literal(value), lookup, bytewise=bytewise) == value


def test_the_oracle_tells_the_two_kubelets_apart() -> None:
    assert expand("$é", no_name, bytewise=True) != "$é"
    assert expand("$é", no_name, bytewise=False) == "$é"
    assert expand("$(A)$$(A)$(", every_name, bytewise=False) == "<A>$(A)$("


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        ("$", "$"),
        ("a$", "a$"),
        ("$$", "$$$"),
        ("$(X)", "$$(X)"),
        ("$$(X)", "$$$$(X)"),
        ("$(", "$$("),
        (")", ")"),
        ("$(X", "$$(X"),
        ("$HOME/$USER", "$HOME/$USER"),
        ("costs $$(5)", "costs $$$$(5)"),
        ("$é", "$$é"),
        ("no dollar", "no dollar"),
    ],
)
def test_literal_doubles_only_the_dollars_kubernetes_reads(value: str, rendered: str) -> None:
    assert literal(value) == rendered


READ_BY_KUBERNETES = re.compile(r"\$(?:[$(]|[^\x00-\x7f])")


@settings(deadline=None)
@given(value=st.one_of(dollar_texts, _text()).filter(lambda v: not READ_BY_KUBERNETES.search(v)))
@example(value="$HOME/${USER} a$ $")
def test_a_value_with_no_dollar_kubernetes_reads_renders_as_it_always_did(value: str) -> None:
    """A Deployment rendered before the escaping re-applies unchanged (no rollout) unless one
    of its values holds ``$$``, ``$(`` or ``$`` before a non-ASCII character: the values
    Kubernetes may have been changing."""
    assert literal(value) == value
    assert expand(value, every_name) == value


def test_the_manifest_escapes_env_values_and_the_command() -> None:
    spec = parse_spec(
        {
            **BASE,
            "env": {"A": "$(HOME_DIR)/x", "B": "costs $$(5)", "C": "$HOME"},
            "entrypoint": ["sh", "-c", "echo $(date) $HOME $$"],
        }
    )
    container = yaml.safe_load(render_manifest(spec, "default"))["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert container["env"] == [
        {"name": "A", "value": "$$(HOME_DIR)/x"},
        {"name": "B", "value": "costs $$$$(5)"},
        {"name": "C", "value": "$HOME"},
    ]
    assert container["command"] == ["sh", "-c", "echo $$(date) $HOME $$$"]


# ------------------------------------------------------------------ tojson: the one escape rule
@given(value=st.one_of(_text(), st.lists(_text(), max_size=4)))
@example(value="\\ud83d\\ude00")
@example(value="\\\\ud83d\\ude00")
@example(value="😀\\😀\\\\😀")
def test_tojson_reads_back_as_yaml(value: str | list[str]) -> None:
    encoded = yaml_tojson(value)
    assert encoded.isascii()
    assert yaml.safe_load(f"key: {encoded}\n") == {"key": value}


def test_tojson_is_json_below_the_astral_planes() -> None:
    value = "a\"b\\c\n\té<>&'"
    assert json.loads(yaml_tojson(value)) == value
    assert yaml_tojson("😀") == '"\\U0001F600"'


# ------------------------------------------------------ invalid input never reaches the template
@given(hostname=st.text(max_size=70).filter(lambda s: not is_dns1123_label(s)))
@example(hostname="web-1\n")
@example(hostname="Web-1")
@example(hostname="a" * 64)
def test_invalid_hostnames_are_rejected_before_rendering(hostname: str) -> None:
    with pytest.raises(InvalidInput, match="hostname: must be a DNS-1123 label"):
        parse_spec({**BASE, "hostname": hostname})


@given(
    field=st.sampled_from(["containerId", "nodeId"]),
    value=st.text(max_size=70).filter(lambda s: not is_label_value(s)),
)
@example(field="containerId", value="42\n")
@example(field="nodeId", value="")
def test_invalid_ids_are_rejected_before_rendering(field: str, value: str) -> None:
    with pytest.raises(InvalidInput, match=f"{field}: must be a Kubernetes label value"):
        parse_spec({**BASE, field: value})


@given(namespace=st.text(max_size=70).filter(lambda s: not is_dns1123_label(s)))
@example(namespace="default\n")
def test_invalid_namespace_is_refused_by_render(namespace: str) -> None:
    spec = load_spec(str(EXAMPLE))
    with pytest.raises(InvalidInput, match="must be a DNS-1123 label"):
        render_manifest(spec, namespace)


def test_cli_render_never_renders_an_invalid_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def must_not_render(spec: ContainerSpec, namespace: str) -> str:
        raise AssertionError("an invalid spec reached render_manifest")

    # cli's render calls render.render_manifest (no provider); create goes through create.
    # create first: importing it binds render.render_manifest, which must not be the stub
    # yet, or the stub would outlive this test.
    monkeypatch.setattr("kubectl_adapter.operations.create.render_manifest", must_not_render)
    monkeypatch.setattr("kubectl_adapter.rules.render.render_manifest", must_not_render)
    path = tmp_path / "spec.json"
    for bad in ({"hostname": "Web_1"}, {"containerId": "a b"}, {"nodeId": True}):
        path.write_text(json.dumps({**BASE, **bad}), encoding="utf-8")
        assert cli.main(["render", "--spec", str(path), "-n", "default"]) == 2
        error = json.loads(capsys.readouterr().out)["error"]
        assert error["type"] == "InvalidInput"
        assert next(iter(bad)) in error["message"]
