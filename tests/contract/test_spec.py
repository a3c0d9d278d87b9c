"""The spec contract: every rule accepted and rejected, with messages naming field and rule."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.spec import ContainerSpec, load_spec, parse_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nginx.json"

BASE: dict[str, Any] = {
    "containerId": "42",
    "nodeId": "7",
    "hostname": "web-1",
    "image": "nginx:latest",
    "cpus": 1,
    "memoryMb": 1024,
    "env": {"KEY": "value"},
    "entrypoint": "nginx -g 'daemon off;'",
}

LABEL_RULE = "must be a Kubernetes label value"
DNS_RULE = "must be a DNS-1123 label"
MISSING = object()
SAME = object()


def case_id(value: Any) -> str:
    """Short, printable test ids (a 5000-digit int cannot even be str()-ed)."""
    if value is MISSING:
        return "<missing>"
    if value is SAME:  # the default repr carries an address: ids must be stable across runs
        return "<same>"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return "<huge int>"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def spec_with(field: str, value: Any) -> dict[str, Any]:
    data = dict(BASE)
    if value is MISSING:
        del data[field]
    else:
        data[field] = value
    return data


def rejected(data: Any) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        parse_spec(data)
    assert info.value.exit_code == 2
    assert info.value.type == "InvalidInput"
    return info.value


def test_example_parses_to_the_contract_values() -> None:
    spec = load_spec(str(EXAMPLE))
    assert spec == parse_spec(BASE)
    assert spec.container_id == "42"
    assert spec.node_id == "7"
    assert spec.hostname == "web-1"
    assert spec.image == "nginx:latest"
    assert spec.cpus == Decimal(1)
    assert spec.memory_mb == 1024
    assert spec.env == {"KEY": "value"}
    assert spec.entrypoint == ("nginx", "-g", "daemon off;")


# ---------------------------------------------------------------- accepted: (field, input, parsed)
ACCEPTED = [
    ("containerId", "42", "42"),
    ("containerId", 42, "42"),
    ("containerId", 0, "0"),
    ("containerId", "a", "a"),
    ("containerId", "A-b_c.D", "A-b_c.D"),
    ("containerId", "x" * 63, "x" * 63),
    ("nodeId", 7, "7"),
    ("nodeId", "node_1.eu-west", "node_1.eu-west"),
    ("hostname", "a", "a"),
    ("hostname", "web-1", "web-1"),
    ("hostname", "123", "123"),
    ("hostname", "a" * 63, "a" * 63),
    ("image", "nginx", "nginx"),
    ("image", "registry.example.com:5000/team/app@sha256:" + "a" * 64, SAME),
    ("image", "ghcr.io/org/app:1.2.3-rc.1", SAME),
    ("image", "localhost/app", SAME),
    ("cpus", 1, Decimal("1")),
    ("cpus", 0.5, Decimal("0.5")),
    ("cpus", 2, Decimal("2")),
    ("cpus", 0.001, Decimal("0.001")),
    ("cpus", 0.1, Decimal("0.1")),
    ("cpus", 1.0, Decimal("1")),
    ("cpus", 12.345, Decimal("12.345")),
    ("memoryMb", 1024, 1024),
    ("memoryMb", 1, 1),
    ("memoryMb", 512.0, 512),
    ("env", {}, {}),
    ("env", None, {}),
    ("env", MISSING, {}),
    ("env", {"_": "x", "a1": "", "Z_9": "y"}, {"_": "x", "a1": "", "Z_9": "y"}),
    ("env", {"N": 3}, {"N": "3"}),
    ("env", {"N": -3}, {"N": "-3"}),
    ("env", {"N": 1.5}, {"N": "1.5"}),
    ("env", {"N": 1.0}, {"N": "1"}),
    ("env", {"N": -0.0}, {"N": "0"}),
    ("env", {"N": 1e21}, {"N": "1e+21"}),
    ("env", {"N": 1e20}, {"N": "100000000000000000000"}),
    ("env", {"N": 1e-7}, {"N": "1e-7"}),
    ("env", {"N": 0.000001}, {"N": "0.000001"}),
    ("env", {"N": 1.5e-10}, {"N": "1.5e-10"}),
    ("env", {"N": 2**60}, {"N": "1152921504606847000"}),  # a double in JavaScript
    ("env", {"T": True, "F": False}, {"F": "false", "T": "true"}),
    ("env", {"S": "a\nb: c", "U": "é😀"}, {"S": "a\nb: c", "U": "é😀"}),
    ("entrypoint", "nginx -g 'daemon off;'", ("nginx", "-g", "daemon off;")),
    ("entrypoint", 'sh -c "echo \\"hi\\""', ("sh", "-c", 'echo "hi"')),
    ("entrypoint", ["sh", "-c", "echo $HOME"], ("sh", "-c", "echo $HOME")),
    ("entrypoint", ["", "a b"], ("", "a b")),
    ("entrypoint", None, None),
    ("entrypoint", MISSING, None),
    ("entrypoint", "", None),
    ("entrypoint", "   ", None),
    ("entrypoint", [], None),
]

FIELD_ATTRS = {
    "containerId": "container_id",
    "nodeId": "node_id",
    "memoryMb": "memory_mb",
}


@pytest.mark.parametrize(("field", "value", "parsed"), ACCEPTED, ids=case_id)
def test_accepted(field: str, value: Any, parsed: Any) -> None:
    spec = parse_spec(spec_with(field, value))
    got = getattr(spec, FIELD_ATTRS.get(field, field))
    assert got == (value if parsed is SAME else parsed)
    if field == "env":
        assert list(got) == sorted(got), "env is kept in sorted key order"


def test_env_sorted_by_key() -> None:
    spec = parse_spec(spec_with("env", {"b": "2", "A": "1", "_z": "3", "a": "0"}))
    assert list(spec.env) == ["A", "_z", "a", "b"]


# ------------------------------------------------- rejected: (field, input, text in the message)
REJECTED = [
    ("containerId", MISSING, "containerId: required"),
    ("containerId", True, "containerId: must be a string or an integer"),
    ("containerId", False, "containerId: must be a string or an integer"),
    ("containerId", 4.2, "containerId: must be a string or an integer"),
    ("containerId", None, "containerId: must be a string or an integer"),
    ("containerId", ["42"], "containerId: must be a string or an integer"),
    ("containerId", "", f"containerId: {LABEL_RULE}"),
    ("containerId", -1, f"containerId: {LABEL_RULE}"),
    ("containerId", "x" * 64, f"containerId: {LABEL_RULE}"),
    ("containerId", 10**63, f"containerId: {LABEL_RULE}"),
    ("containerId", 10**5000, f"containerId: {LABEL_RULE}"),
    ("containerId", "-42", f"containerId: {LABEL_RULE}"),
    ("containerId", "42.", f"containerId: {LABEL_RULE}"),
    ("containerId", "a b", f"containerId: {LABEL_RULE}"),
    ("containerId", "a/b", f"containerId: {LABEL_RULE}"),
    ("containerId", "42\n", f"containerId: {LABEL_RULE}"),
    ("containerId", "é", f"containerId: {LABEL_RULE}"),
    ("nodeId", MISSING, "nodeId: required"),
    ("nodeId", True, "nodeId: must be a string or an integer"),
    ("nodeId", "_7", f"nodeId: {LABEL_RULE}"),
    ("nodeId", "7\n", f"nodeId: {LABEL_RULE}"),
    ("hostname", MISSING, "hostname: required"),
    ("hostname", 1, "hostname: must be a string"),
    ("hostname", "", f"hostname: {DNS_RULE}"),
    ("hostname", "Web-1", f"hostname: {DNS_RULE}"),
    ("hostname", "web_1", f"hostname: {DNS_RULE}"),
    ("hostname", "web.1", f"hostname: {DNS_RULE}"),
    ("hostname", "-web", f"hostname: {DNS_RULE}"),
    ("hostname", "web-", f"hostname: {DNS_RULE}"),
    ("hostname", "a" * 64, f"hostname: {DNS_RULE}"),
    ("hostname", "web-1\n", f"hostname: {DNS_RULE}"),
    ("hostname", " web", f"hostname: {DNS_RULE}"),
    ("image", MISSING, "image: required"),
    ("image", "", "image: must be a non-empty OCI image reference"),
    ("image", None, "image: must be a non-empty OCI image reference"),
    ("image", 5, "image: must be a non-empty OCI image reference"),
    ("image", "nginx latest", "image: must not contain whitespace"),
    ("image", " nginx", "image: must not contain whitespace"),
    ("image", "nginx\n", "image: must not contain whitespace"),
    ("image", "nginx\t", "image: must not contain whitespace"),
    ("image", "ngi\x00nx", "image: must not contain whitespace or control characters"),
    ("image", "nginx\u2028", "image: must not contain whitespace"),
    ("image", "nginx\ud800", "image: must not contain U+D800"),
    ("image", "nginx\x80", "image: must not contain U+0080"),
    ("image", "nginx\ufffe", "image: must not contain U+FFFE"),
    ("image", "x" * 4097, "image: must be at most 4096 characters"),
    ("cpus", MISSING, "cpus: required"),
    ("cpus", 0, "cpus: must be a number greater than 0"),
    ("cpus", 0.0, "cpus: must be a number greater than 0"),
    ("cpus", -1, "cpus: must be a number greater than 0"),
    ("cpus", -0.5, "cpus: must be a number greater than 0"),
    ("cpus", -(10**5000), "cpus: must be a number greater than 0"),
    ("cpus", 0.0005, "cpus: must have at most 3 decimals"),
    ("cpus", 1.0001, "cpus: must have at most 3 decimals"),
    ("cpus", 1e-300, "cpus: must have at most 3 decimals"),
    ("cpus", "abc", "cpus: must be a number greater than 0"),
    ("cpus", "1", "cpus: must be a number greater than 0"),
    ("cpus", "0.5", "cpus: must be a number greater than 0"),
    ("cpus", True, "cpus: must be a number greater than 0"),
    ("cpus", None, "cpus: must be a number greater than 0"),
    ("cpus", [1], "cpus: must be a number greater than 0"),
    ("cpus", float("nan"), "cpus: must be a number greater than 0"),
    ("cpus", float("inf"), "cpus: must be a number greater than 0"),
    ("cpus", float("-inf"), "cpus: must be a number greater than 0"),
    ("cpus", Decimal("NaN"), "cpus: must be a number greater than 0"),
    ("cpus", 1e30, "cpus: must be at most"),
    ("cpus", 10**5000, "cpus: must be at most"),
    ("cpus", 2**63, "cpus: must be at most"),
    ("memoryMb", MISSING, "memoryMb: required"),
    ("memoryMb", 0, "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", -1, "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", 1.5, "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", "1024", "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", True, "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", None, "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", float("nan"), "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", float("inf"), "memoryMb: must be an integer number of MiB greater than 0"),
    ("memoryMb", 2**43, "memoryMb: must be at most"),
    ("env", [], "env: must be an object of NAME: value"),
    ("env", "A=1", "env: must be an object of NAME: value"),
    ("env", {"A": None}, "env: value of A must be a string, number or boolean, not null"),
    ("env", {"A": {}}, "env: value of A must be a string, number or boolean, not an object"),
    ("env", {"A": ["x"]}, "env: value of A must be a string, number or boolean, not an array"),
    ("env", {"A": float("nan")}, "env: value of A must be a finite number"),
    ("env", {"A": float("inf")}, "env: value of A must be a finite number"),
    ("env", {"A": 10**400}, "env: value of A must be a finite number"),
    ("env", {"A": "a\x00b"}, "env: value of A must not contain U+0000 (control characters"),
    ("env", {"A": "\udc00"}, "env: value of A must not contain U+DC00"),
    ("env", {"A": "\x7f"}, "env: value of A must not contain U+007F"),
    ("env", {"A": "\x85"}, "env: value of A must not contain U+0085"),
    ("env", {"A": "\x9f"}, "env: value of A must not contain U+009F"),
    ("env", {"A": "\ufffe"}, "env: value of A must not contain U+FFFE"),
    ("env", {"A": "\uffff"}, "env: value of A must not contain U+FFFF"),
    ("env", {"A": "\ufdd0"}, "env: value of A must not contain U+FDD0"),
    ("env", {"A": "\U0010ffff"}, "env: value of A must not contain U+10FFFF"),
    ("env", {"A": "\x1b[31m"}, "env: value of A must not contain U+001B"),
    ("env", {"": "x"}, "env: key '' must match ^[A-Za-z_][A-Za-z0-9_]*$"),
    ("env", {"1A": "x"}, "env: key '1A' must match"),
    ("env", {"A-B": "x"}, "env: key 'A-B' must match"),
    ("env", {"A.B": "x"}, "env: key 'A.B' must match"),
    ("env", {"A B": "x"}, "env: key 'A B' must match"),
    ("env", {"A\n": "x"}, "env: key 'A\\n' must match"),
    ("env", {"É": "x"}, "env: key 'É' must match"),
    ("env", {1: "x", "B": "y"}, "env: key 1 must match"),  # Python callers only
    ("entrypoint", "sh -c 'unbalanced", "entrypoint: cannot be split like a shell command"),
    ("entrypoint", 'sh -c "unbalanced', "entrypoint: cannot be split like a shell command"),
    ("entrypoint", "trailing\\", "entrypoint: cannot be split like a shell command"),
    ("entrypoint", ["sh", 1], "entrypoint: must be a string, a list of strings, or null"),
    ("entrypoint", ["sh", None], "entrypoint: must be a string, a list of strings, or null"),
    ("entrypoint", 5, "entrypoint: must be a string, a list of strings, or null"),
    ("entrypoint", {"cmd": "x"}, "entrypoint: must be a string, a list of strings, or null"),
    ("entrypoint", ["a\x00b"], "entrypoint: [0] must not contain U+0000"),
    ("entrypoint", "a\x00b", "entrypoint: must not contain U+0000"),
    ("entrypoint", ["\ud800"], "entrypoint: [0] must not contain U+D800"),
    ("entrypoint", ["sh", "\x7f"], "entrypoint: [1] must not contain U+007F"),
    ("entrypoint", "echo \x85", "entrypoint: must not contain U+0085"),
]


@pytest.mark.parametrize(("field", "value", "message"), REJECTED, ids=case_id)
def test_rejected(field: str, value: Any, message: str) -> None:
    error = rejected(spec_with(field, value))
    assert message in error.message
    assert any(problem.startswith(f"{field}: ") for problem in error.details["problems"])


@pytest.mark.parametrize("field", ["containerID", "replicas", "container_id", "memory_mb", "Image"])
def test_unknown_field_rejected(field: str) -> None:
    error = rejected({**BASE, field: "x"})
    assert f"{field}: unknown field" in error.message


def test_python_names_are_not_json_names() -> None:
    """The snake_case Python spelling must not stand in for the contract's JSON name."""
    data = {k: v for k, v in BASE.items() if k != "containerId"} | {"container_id": "42"}
    error = rejected(data)
    assert "container_id: unknown field" in error.message
    assert "containerId: required" in error.message


def test_every_problem_is_reported_at_once() -> None:
    error = rejected({**BASE, "hostname": "Web", "cpus": 0, "extra": 1})
    problems = error.details["problems"]
    assert len(problems) == 3
    assert {p.split(":")[0] for p in problems} == {"hostname", "cpus", "extra"}


@pytest.mark.parametrize("data", [None, [], "spec", 42, [BASE]])
def test_spec_must_be_an_object(data: Any) -> None:
    assert rejected(data).message == "spec must be a JSON object"


def test_spec_is_frozen() -> None:
    spec = parse_spec(BASE)
    with pytest.raises(AttributeError):
        spec.hostname = "other"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        spec.replicas = 1  # type: ignore[attr-defined]  # slots: no stray attributes either


def test_model_round_trips_through_its_json_names() -> None:
    spec = parse_spec(BASE)
    dumped = json.loads(json.dumps(spec.to_json()))
    assert dumped["cpus"] == 1
    assert isinstance(dumped["cpus"], int)
    assert parse_spec(dumped) == spec
    assert set(dumped) == set(BASE)
    half = parse_spec({**BASE, "cpus": 0.5})
    assert half.to_json()["cpus"] == 0.5
    assert isinstance(parse_spec(spec.to_json()), ContainerSpec)
    assert ContainerSpec(**spec._asdict()) == spec


# ------------------------------------------------------------------------------------- load_spec
def test_load_spec_from_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({**BASE, "env": {"É": 1}}), encoding="utf-8")
    with pytest.raises(InvalidInput, match="key 'É' must match"):
        load_spec(str(path))
    path.write_text(json.dumps(BASE), encoding="utf-8")
    assert load_spec(str(path)) == parse_spec(BASE)


def test_load_spec_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(BASE)))
    assert load_spec("-") == parse_spec(BASE)


@pytest.mark.parametrize(
    "text",
    ids=case_id,
    argvalues=[
        "",
        "{",
        "{'containerId': '42'}",
        '{"cpus": NaN}',
        '{"cpus": Infinity}',
        '{"cpus": -Infinity}',
        '{"containerId": ' + "9" * 5000 + "}",  # beyond Python's int-string limit
    ],
)
def test_load_spec_bad_json_from_stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    with pytest.raises(InvalidInput, match="spec '-' is not valid JSON") as info:
        load_spec("-")
    assert info.value.exit_code == 2


def test_load_spec_bad_json_from_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text('{"containerId": "42",}', encoding="utf-8")
    with pytest.raises(InvalidInput, match="is not valid JSON"):
        load_spec(str(path))


def test_load_spec_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_bytes(b'{"hostname": "\xff"}')
    with pytest.raises(InvalidInput, match="is not UTF-8"):
        load_spec(str(path))


def test_load_spec_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cannot read spec") as info:
        load_spec(str(tmp_path / "absent.json"))
    assert info.value.exit_code == 2


def test_load_spec_valid_json_but_not_an_object(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("[1, 2]"))
    with pytest.raises(InvalidInput, match="spec must be a JSON object"):
        load_spec("-")
