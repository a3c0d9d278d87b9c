"""docs/schema/: up to date, valid Draft 2020-12, and true to what the adapter accepts and prints.

The spec schema is a description: the adapter validates with ``parse_spec`` (plain Python).
``test_spec_schema_agrees_with_parse_spec`` checks that the two accept the same documents
everywhere except where a JSON Schema cannot state the rule exactly. Those places are kept out
of the property and each is pinned by an example in ``test_documented_differences`` (the same
list is in ``docs/schema/README.md``):

- ``cpus`` with more than 3 decimals (``multipleOf: 0.001`` misfires on binary doubles);
- ``containerId``/``nodeId`` written as a number with a zero fraction (``42.0``), an
  integer to JSON Schema but not to the adapter;
- noncharacters beyond the BMP (``U+1FFFE``...) and lone surrogates in ``image``, ``env``
  values or ``entrypoint``;
- ``entrypoint`` strings a shell cannot split (unbalanced quotes, trailing backslash);
- ``env`` numbers beyond the double range (``1e400``).

All other limits are in the schema, upper bounds included (``image`` length, ``memoryMb``,
``cpus``, the 63-digit integer IDs), and the property crosses them.

Patterns are matched as ECMA-262 defines them (``$`` is the end of the string). The
``jsonschema`` package uses Python's ``re``, whose ``$`` also matches before a final newline;
``ecma_validator`` restores the standard meaning, and ``test_python_re_caveat`` shows the
difference the README warns about.
"""

from __future__ import annotations

import functools
import json
import math
import re
import shlex
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from kubectl_adapter.cli import app as cli
from kubectl_adapter.contract import schemas, spec_rules
from kubectl_adapter.contract.errors import ALL_ERRORS, InvalidInput
from kubectl_adapter.contract.models import (
    Capabilities,
    CheckResult,
    DeleteResult,
    DryRunPlan,
    ErrorOutput,
    NetworkInfo,
    NodeInfo,
    NodeList,
    Permission,
    SnapshotList,
)
from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.contract.spec import parse_spec
from kubectl_adapter.contract.statuses import Status
from kubectl_adapter.contract.storable_text import unstorable_characters
from kubectl_adapter.rules.snapshots import build_snapshots, placeholder_snapshot
from tests.k8s_objects import deployment, pod, replicaset

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "docs" / "schema"
REGENERATE = "run `.venv/bin/python -m kubectl_adapter.contract.schemas` from the repository root"


# -------------------------------------------------------------------------------- validators
@functools.cache
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` with ECMA-262's ``$`` (end of input): each of ours ends with one ``$``."""
    assert pattern.endswith("$") and pattern.count("$") == 1, pattern
    return re.compile(pattern[:-1] + r"\Z")


def _ecma_pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


EcmaValidator = jsonschema.validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})


def load(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    return schema


@functools.cache
def ecma_validator(name: str) -> Any:
    return EcmaValidator(load(name))


def assert_valid(name: str, document: Any) -> None:
    errors = sorted(ecma_validator(name).iter_errors(document), key=str)
    assert not errors, f"{name}: " + "; ".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors
    )


# -------------------------------------------------------------------------- (a) up to date
def test_schema_files_are_up_to_date() -> None:
    expected = schemas.generate()
    on_disk = {p.name for p in SCHEMA_DIR.iterdir()} if SCHEMA_DIR.is_dir() else set()
    stale = sorted(
        name
        for name, text in expected.items()
        if not (SCHEMA_DIR / name).is_file()
        or (SCHEMA_DIR / name).read_text(encoding="utf-8") != text
    )
    extra = sorted(on_disk - set(expected))
    assert not stale, f"docs/schema/ is out of date ({', '.join(stale)}): {REGENERATE}"
    assert not extra, f"docs/schema/ has files the generator does not write: {extra}"


ALL_SCHEMAS = [schemas.SPEC_FILE, *schemas.SCHEMAS]


def test_schema_files_are_formatted() -> None:
    for name in ALL_SCHEMAS:
        text = (SCHEMA_DIR / name).read_text(encoding="utf-8")
        assert (
            text
            == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )
        assert text.endswith("}\n")


@pytest.mark.parametrize("name", sorted(ALL_SCHEMAS))
def test_each_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = load(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_readme_names_every_schema_and_difference() -> None:
    readme = (SCHEMA_DIR / "README.md").read_text(encoding="utf-8")
    for name in ALL_SCHEMAS:
        assert f"[`{name}`]({name})" in readme
    for text in schemas.SPEC_DIFFERENCES.values():
        assert text in readme


def test_main_writes_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert schemas.main([str(tmp_path / "out")]) == 0
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(schemas.generate())
    assert len(capsys.readouterr().out.splitlines()) == len(written)
    assert schemas.main(["a", "b"]) == 2


# ---------------------------------------------------- (b) spec.json <=> parse_spec, property
def accepts(data: Any) -> bool:
    try:
        parse_spec(data)
    except InvalidInput:
        return False
    return True


BASE: dict[str, Any] = json.loads((ROOT / "examples" / "nginx.json").read_text(encoding="utf-8"))

# Every character spec.py treats specially, and some it must not (U+FEFF, U+0080, U+180E).
SPECIAL = (
    "\x01\x08\t\n\x0b\x0c\r\x1b\x1c\x1f \x7f\x80\x85\xa0\u1680\u180e\u2000\u200a\u200b"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# No lone surrogates and no astral noncharacters (documented difference).
safe_chars = st.characters(exclude_categories=["Cs"]).filter(lambda c: not _astral_nonchar(c))
texts = st.text(st.one_of(safe_chars, st.sampled_from(SPECIAL)), max_size=12)


def spoiled(valid: st.SearchStrategy[str], chars: str) -> st.SearchStrategy[str]:
    """A valid text with one character put in front, at the end, inside, or made too long."""
    return st.tuples(valid, st.sampled_from(chars), st.integers(0, 3)).map(
        lambda t: [t[1] + t[0], t[0] + t[1], t[0][:1] + t[1] + t[0][1:], t[0] * 70][t[2]]
    )


# Edge cases per field: each is checked in test_spec_schema_agrees_on_every_edge, and drawn by
# the property too. MISSING: the field is left out.
MISSING = object()
EDGES: dict[str, list[Any]] = {
    "containerId": [
        *["", "0", "a", "x" * 63, "x" * 64, "-1", "a\n", "\na", "a.", "_a", "a_b.C-d", "1e3"],
        *[0, 1, -1, 10**63 - 1, 10**63, -(10**63), 2**63, 4.2, 0.1, -0.5],
        *[True, False, None, ["42"], {"id": 1}, MISSING],
    ],
    "hostname": [
        *["", "a", "0", "a" * 63, "a" * 64, "web-1\n", "-web", "web-", "Web", "web_1", "web.1"],
        *[1, 1.5, None, True, ["a"], MISSING],
    ],
    "image": [
        *["", "x" * 4096, "x" * 4097, "é" * 4096, "é" * 4097, "nginx\n", "nginx:latest"],
        *[f"a{char}b" for char in SPECIAL + "\x00"],
        *[None, 5, True, ["nginx"], MISSING],
    ],
    "cpus": [
        *[1, 2, 0.5, 0.001, 12.345, 1.0, 0, 0.0, -0.0, -0.001, -1, 1e30, -1e30],
        *[10**400, -(10**400)],  # JSON cannot carry 4,300 digits or more: json.loads refuses
        spec_rules.MAX_CPUS_INTEGER,
        spec_rules.MAX_CPUS_INTEGER + 1,
        float(spec_rules.MAX_CPUS_INTEGER - 1),  # 9223372036854774.0, the largest double allowed
        float(spec_rules.MAX_CPUS_INTEGER + 1),
        *["1", "0.5", True, False, None, [1], MISSING],
    ],
    "memoryMb": [
        *[1, 0, -1, 512.0, 1.5, 1e300, float("inf"), 2**63],
        spec_rules.MAX_MEMORY_MB,
        spec_rules.MAX_MEMORY_MB + 1,
        float(spec_rules.MAX_MEMORY_MB),
        *["1024", True, False, None, [1], MISSING],
    ],
    "env": [
        *[None, {}, {"_": ""}, {"a1": "x", "Z_9": 1, "B": True, "F": 1.5}, MISSING],
        *[{key: "x"} for key in ["", "1A", "9", "A-B", "A.B", "A B", "A\n", "É", "ǅ", "A\x00"]],
        *[{"A": value} for value in [None, [], {}, ["x"], {"a": 1}, -0.0, 1e21, 2**60]],
        *[[], "A=1", 1, True, [["A", "1"]]],
    ],
    "entrypoint": [
        *[None, "", "   ", [], [""], "nginx", ["sh", "-c", "x"], "sh -c 'a b'", MISSING],
        *[["sh", 1], ["sh", None], [[]], 5, 1.5, True, {"cmd": "x"}],
    ],
}
EDGES["nodeId"] = EDGES["containerId"]


def field(
    name: str, valid: st.SearchStrategy[Any], *near_misses: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    """Valid values, near misses and the field's edge cases."""
    return st.one_of(valid, *near_misses, st.sampled_from(EDGES[name]))


label_texts = st.from_regex(r"\A[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\Z")
ids = field(
    "containerId",
    st.one_of(label_texts, st.integers(0, 10**20)),
    spoiled(label_texts, "-_. /\n\té:xÅ"),
    st.integers(-(10**6), -1),
    # Integral floats (42.0) are a documented difference: every float here has a fraction.
    st.integers(-(10**6), 10**6).map(lambda i: i + 0.25),
)
dns_texts = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
hostnames = field("hostname", dns_texts, spoiled(dns_texts, "-_.A Z\n\t/é"))
image_chars = st.characters(exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"]).filter(
    lambda c: not _astral_nonchar(c)
)
image_texts = st.text(image_chars, min_size=1, max_size=30)
images = field("image", image_texts, spoiled(image_texts, SPECIAL + "\x00"))
# cpus: at most 3 decimals (more is a documented difference); across every bound.
cpus = field(
    "cpus",
    st.integers(1, 10**8).map(lambda m: m // 1000 if m % 1000 == 0 else m / 1000),
    st.integers(-(10**6), 0).map(lambda m: m // 1000 if m % 1000 == 0 else m / 1000),
    st.integers(-(10**4), 10**20),
)
memory = field(
    "memoryMb",
    st.integers(1, 10**9),
    st.integers(-(10**6), 0),
    st.floats(-10.0, 1e15, allow_nan=False),  # integral floats (512.0) are integers to both
)
env_keys = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,8}\Z")
env_values = st.one_of(
    texts,
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
)
env_dicts = st.dictionaries(env_keys, env_values, max_size=3)
bad_env_keys = spoiled(env_keys, "-. \n=é$\x00")
bad_env_values = st.sampled_from([None, [], {}, ["x"], {"a": 1}])
envs = field(
    "env",
    env_dicts,
    st.tuples(env_dicts, bad_env_keys, env_values).map(lambda t: {**t[0], t[1]: t[2]}),
    st.tuples(env_dicts, env_keys, bad_env_values).map(lambda t: {**t[0], t[1]: t[2]}),
)
arguments = st.lists(texts, max_size=4)
entrypoints = field(
    "entrypoint",
    st.one_of(arguments, arguments.map(shlex.join)),  # strings a shell can split
    st.lists(st.one_of(texts, st.integers(), st.none(), st.just([])), min_size=1, max_size=3),
)
FIELDS = {
    "containerId": ids,
    "nodeId": ids,
    "hostname": hostnames,
    "image": images,
    "cpus": cpus,
    "memoryMb": memory,
    "env": envs,
    "entrypoint": entrypoints,
}
UNKNOWN = ["container_id", "memory_mb", "Image", "replicas", "extra", ""]


@st.composite
def candidate_specs(draw: st.DrawFn) -> Any:
    """The example spec with one field (often), or a few, changed, dropped or added."""
    if draw(st.integers(0, 49)) == 0:
        return draw(st.sampled_from([None, [], "spec", 42, [BASE]]))
    data = dict(BASE)
    names = sorted(FIELDS)
    changed = draw(
        st.one_of(
            st.sampled_from(names).map(lambda name: [name]),
            st.lists(st.sampled_from(names), max_size=3, unique=True),
        )
    )
    for name in changed:
        value = draw(FIELDS[name])
        if value is MISSING or draw(st.integers(0, 19)) == 0:
            data.pop(name, None)
        else:
            data[name] = value
    if draw(st.integers(0, 14)) == 0:
        data[draw(st.sampled_from(UNKNOWN))] = draw(st.sampled_from(["x", 1, None]))
    return data


@given(data=candidate_specs())
@example(data=BASE)
@example(data={**BASE, "containerId": 10**63 - 1, "nodeId": 0})
@example(data={**BASE, "containerId": 10**63})
@example(data={**BASE, "hostname": "web-1\n"})
@example(data={**BASE, "image": "nginx\n"})
@example(data={**BASE, "image": "ngi\ufeffnx"})
@example(data={**BASE, "image": "nginx\x85"})
@example(data={**BASE, "cpus": float(spec_rules.MAX_CPUS_INTEGER + 1)})
@example(data={**BASE, "memoryMb": 512.0})
@example(data={**BASE, "env": {"A\n": "x"}})
@example(data={**BASE, "env": None, "entrypoint": None})
# Every boundary of every field is a case of its own (the edge table below) and the known
# misses are examples above: the draws explore their combinations, 1,000 of them for half
# the 2,000's cost (6 CPU s of the suite's slowest in-process test).
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_spec_schema_agrees_with_parse_spec(data: Any) -> None:
    by_schema = ecma_validator("spec.json").is_valid(data)
    by_adapter = accepts(data)
    event("accepted" if by_adapter else "refused")
    assert by_schema == by_adapter, (
        f"spec.json {'accepts' if by_schema else 'rejects'}, parse_spec "
        f"{'accepts' if by_adapter else 'rejects'}: {_short(data)}"
    )


def _short(data: Any) -> str:
    try:
        text = repr(data)
    except ValueError:  # an int too long for str()
        return "<a spec with a huge integer>"
    return text if len(text) < 600 else text[:600] + "..."


def _edge_cases() -> list[Any]:
    return [
        pytest.param(
            name, value, id=f"{name}-{i}-{'missing' if value is MISSING else _short(value)[:24]}"
        )
        for name, values in EDGES.items()
        for i, value in enumerate(values)
    ]


@pytest.mark.parametrize(("name", "value"), _edge_cases())
def test_spec_schema_agrees_on_every_edge(name: str, value: Any) -> None:
    data = {k: v for k, v in BASE.items() if k != name}
    if value is not MISSING:
        data[name] = value
    assert ecma_validator("spec.json").is_valid(data) == accepts(data), _short(data)


@pytest.mark.parametrize("key", UNKNOWN)
def test_spec_schema_refuses_unknown_fields(key: str) -> None:
    data = {**BASE, key: "x"}
    assert not ecma_validator("spec.json").is_valid(data)
    assert not accepts(data)


# A JSON document for each entry of schemas.SPEC_DIFFERENCES: valid to spec.json, refused.
DIFFERENCE_EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "cpus-decimals": [{"cpus": 0.0005}, {"cpus": 1e-300}, {"cpus": 1.0001}],
    "integral-float-id": [{"containerId": 42.0}, {"nodeId": 7.0}],
    "astral-noncharacter-or-lone-surrogate": [
        {"env": {"A": "a\U0001fffeb"}},
        {"entrypoint": ["\U0010ffff"]},
        {"entrypoint": "a\U000efffe"},
        {"image": "nginx\U0001ffff"},
        {"image": "nginx\ud800"},
        {"env": {"A": "\udc00"}},
        {"entrypoint": ["\ud800"]},
    ],
    "entrypoint-shell": [
        {"entrypoint": "sh -c 'unbalanced"},
        {"entrypoint": 'sh -c "unbalanced'},
        {"entrypoint": "trailing\\"},
    ],
    "env-number-range": [{"env": {"A": 10**400}}, {"env": {"A": json.loads("1e400")}}],
}


def test_documented_differences() -> None:
    assert set(DIFFERENCE_EXAMPLES) == set(schemas.SPEC_DIFFERENCES)
    for key, changes in DIFFERENCE_EXAMPLES.items():
        for change in changes:
            data = {**BASE, **change}
            assert ecma_validator("spec.json").is_valid(data), (key, change)
            assert not accepts(data), (key, change)


def test_python_re_caveat() -> None:
    """What the README warns about: Python's ``$`` lets a final newline through."""
    data = {**BASE, "hostname": "web-1\n"}
    assert Draft202012Validator(load("spec.json")).is_valid(data)
    assert not ecma_validator("spec.json").is_valid(data)
    assert not accepts(data)


def test_image_pattern_is_exactly_the_adapters_character_rule() -> None:
    """The image class lists the characters spec.py refuses: str.isspace(), C0, DEL, C1 and
    the BMP noncharacters (astral ones and surrogates are the documented difference)."""
    pattern = re.compile(spec_rules.IMAGE_PATTERN[1:-2].replace("^", "", 1))  # the [...] class
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF or _astral_nonchar(chr(code)):
            continue
        char = chr(code)
        refused = char.isspace() or bool(unstorable_characters(char))
        assert bool(pattern.fullmatch(char)) is refused, hex(code)


def test_text_pattern_is_exactly_the_storable_text_rule() -> None:
    pattern = re.compile(spec_rules.TEXT_PATTERN[1:-2].replace("^", "", 1))  # the [...] class
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF or _astral_nonchar(chr(code)):
            continue
        assert bool(pattern.fullmatch(chr(code))) is bool(unstorable_characters(chr(code)))


def test_upper_bounds_are_the_adapters() -> None:
    spec = load("spec.json")["properties"]
    assert accepts({**BASE, "cpus": spec["cpus"]["maximum"]})
    assert not accepts({**BASE, "cpus": spec["cpus"]["maximum"] + 1})
    assert Decimal(spec["cpus"]["maximum"]) < Decimal(2**63 - 1) / 1000
    assert math.nextafter(float(spec["cpus"]["maximum"]), math.inf) > (2**63 - 1) / 1000
    assert accepts({**BASE, "memoryMb": spec["memoryMb"]["maximum"]})
    assert not accepts({**BASE, "memoryMb": spec["memoryMb"]["maximum"] + 1})
    assert accepts({**BASE, "image": "x" * spec["image"]["maxLength"]})
    assert not accepts({**BASE, "image": "x" * (spec["image"]["maxLength"] + 1)})


# ------------------------------------------------------------------ (c) examples are valid
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def test_there_are_examples() -> None:
    assert EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_are_valid_specs(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert_valid("spec.json", data)
    Draft202012Validator(load("spec.json")).validate(data)  # the stock validator too
    parse_spec(data)


# ----------------------------------------------------------- (d) outputs match their schemas
def _snapshots() -> list[Any]:
    running = deployment("web-1", env={"KEY": "value"})
    rs = replicaset(running)
    stopped = deployment("web-2", container_id="43", replicas=0, available=None)
    built = build_snapshots([running, stopped], [rs], [pod(rs)])
    missing = placeholder_snapshot(ProviderId("testns", "gone"), Status.MISSING, "not found")
    unknown = placeholder_snapshot(ProviderId("testns", "web-1"), Status.UNKNOWN, "timeout")
    return [*built, missing, unknown]


def test_snapshots_match_snapshot_json() -> None:
    snapshots = _snapshots()
    assert {s.status for s in snapshots} >= {Status.RUNNING, Status.MISSING, Status.UNKNOWN}
    assert any(s.pod_ip for s in snapshots) and any(s.cpus for s in snapshots)
    for snapshot in snapshots:
        assert_valid("snapshot.json", snapshot.to_json())
    assert_valid("snapshot-list.json", SnapshotList(items=snapshots).to_json())
    assert_valid("snapshot-list.json", {"items": []})


OUTPUTS: list[tuple[str, Any]] = [
    (
        "network.json",
        NetworkInfo(provider_id="testns/web-1", pod_ip="10.244.0.5", ipv4_address="10.244.0.5"),
    ),
    ("network.json", NetworkInfo(provider_id="testns/web-1", pod_ip=None, ipv4_address=None)),
    ("delete.json", DeleteResult(provider_id="testns/web-1", deleted=True, already_missing=False)),
    ("delete.json", DeleteResult(provider_id="testns/gone", deleted=False, already_missing=True)),
    ("capabilities.json", Capabilities()),
    (
        "check.json",
        CheckResult(
            ok=False,
            kubectl="/usr/bin/kubectl",
            client_version="v1.32.0",
            server_version=None,
            context="kind-kind",
            namespace="manager",
            namespace_exists=True,
            permissions=[
                Permission(
                    verb="create",
                    group="apps",
                    resource="deployments",
                    allowed=True,
                    needed_for=["create"],
                ),
                Permission(
                    verb="update",
                    group="apps",
                    resource="deployments",
                    subresource="scale",
                    allowed=False,
                    reason="RBAC: denied",
                    needed_for=["start", "stop"],
                ),
            ],
            missing_permissions=["update deployments/scale (apps)"],
            capabilities=Capabilities(),
        ),
    ),
    (
        "nodes.json",
        NodeList(
            items=[
                NodeInfo(
                    name="kind-control-plane",
                    ready=True,
                    capacity={"cpu": "4", "memory": "8Gi"},
                    allocatable={"cpu": "4", "memory": "7Gi"},
                    kubelet_version="v1.32.0",
                    internal_ip="172.18.0.2",
                ),
                NodeInfo(name="n2", ready=False, capacity={}, allocatable={}),
            ]
        ),
    ),
    ("dry-run.json", DryRunPlan(commands=["kubectl apply -f -"], manifest="kind: Deployment\n")),
    ("dry-run.json", DryRunPlan(commands=["kubectl delete deployment web-1"])),
]


@pytest.mark.parametrize(
    ("name", "output"), OUTPUTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OUTPUTS)]
)
def test_outputs_match_their_schema(name: str, output: Any) -> None:
    assert_valid(name, output.to_json())


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: e.__name__)
def test_errors_match_error_json(error: type[Exception]) -> None:
    document = error("it failed", {"command": "kubectl get deployments", "exitCode": 1})
    assert_valid("error.json", document.to_json())  # type: ignore[attr-defined]
    assert ErrorOutput.model_validate(document.to_json())  # type: ignore[attr-defined]


def test_cli_outputs_match_their_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["capabilities"]) == 0
    assert_valid("capabilities.json", json.loads(capsys.readouterr().out))
    assert cli.main(["render", "--spec", str(ROOT / "missing.json"), "-n", "default"]) == 2
    assert_valid("error.json", json.loads(capsys.readouterr().out))


def test_output_schemas_are_not_vacuous() -> None:
    snapshot = _snapshots()[0].to_json()
    for broken in (
        {**snapshot, "unexpected": 1},
        {**snapshot, "status": "exploded"},
        {k: v for k, v in snapshot.items() if k != "providerId"},
        {**snapshot, "macAddress": "02:00:00:00:00:01"},
    ):
        assert not ecma_validator("snapshot.json").is_valid(broken)
    assert not ecma_validator("capabilities.json").is_valid({"stableMacAddress": "no"})
    assert not ecma_validator("error.json").is_valid({"error": {"type": "X"}})


def _astral_nonchar(char: str) -> bool:
    """U+1FFFE, U+1FFFF, ... U+10FFFF: refused by the adapter, beyond what a pattern says."""
    return ord(char) > 0xFFFF and ord(char) & 0xFFFE == 0xFFFE


def test_image_space_rule_is_whitespace_and_c0_controls() -> None:
    """The validator's first image check (its own message) is str.isspace(), C0 and DEL; the
    rest of the image pattern is the storable-text rule, reported with the code points."""
    space = re.compile(f"[{spec_rules.SPACE_OR_CONTROL}]")
    assert spec_rules.IMAGE_PATTERN.startswith(f"^[^{spec_rules.SPACE_OR_CONTROL}")
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        expected = char.isspace() or code < 32 or code == 127
        assert bool(space.fullmatch(char)) is expected, hex(code)
        problems = [] if expected else unstorable_characters(char)
        try:
            parse_spec({**BASE, "image": f"a{char}b"})
            message = ""
        except InvalidInput as exc:
            message = exc.message
        if expected:
            assert "whitespace or control characters" in message, hex(code)
        elif problems:
            assert f"U+{code:04X}" in message, hex(code)
        else:
            assert message == "", hex(code)


def test_descriptions_match_describe_json() -> None:
    """describe's documents (a failing workload with events, a missing one) fit the schema."""
    from datetime import UTC, datetime

    from kubectl_adapter.rules.description import description_document, placeholder_description
    from kubectl_adapter.rules.snapshots import placeholder_document
    from tests.k8s_objects import event

    dep = deployment(available=0)
    rs = replicaset(dep)
    crashing = pod(
        rs,
        ready=False,
        waiting=("CrashLoopBackOff", "back-off 10s"),
        restarts=2,
        last_terminated=("Error", 1),
    )
    events = [event("Pod", crashing["metadata"]["name"], "BackOff", "Back-off restarting")]
    now = datetime(2026, 11, 30, 0, 10, tzinfo=UTC)
    failing = description_document(dep, [rs], [crashing], events, now=now, events_error=None)
    assert failing["events"] and failing["pods"][0]["containers"][0]["lastExit"]
    assert_valid("describe.json", failing)
    missing = placeholder_description(
        placeholder_document(ProviderId("testns", "gone"), Status.MISSING, "does not exist")
    )
    assert_valid("describe.json", missing | {"eventsError": "Forbidden: events is forbidden"})
