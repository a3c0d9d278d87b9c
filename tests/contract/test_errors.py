"""The error hierarchy is the CLI's JSON contract: names, types and exit codes never drift."""

from __future__ import annotations

import inspect
import json
import re

import pytest

import kubectl_adapter
from kubectl_adapter.contract import errors
from kubectl_adapter.contract.errors import ALL_ERRORS, AdapterError

# The contract Manager relies on (README / errors.py docstring). Changing a row is a breaking
# change of the CLI's interface, so it is spelled out here rather than derived from the code.
CONTRACT = {
    "InternalError": 1,
    "InvalidInput": 2,
    "InvalidProviderId": 2,
    "NotFound": 3,
    "Unauthorized": 4,
    "Forbidden": 5,
    "Conflict": 6,
    "Timeout": 7,
    "Unavailable": 8,
    "ConfigurationError": 9,
    "RolloutFailed": 10,
    "OutputFailed": 11,
    "Interrupted": 130,
}


def defined_errors() -> dict[str, type[AdapterError]]:
    """Every AdapterError subclass defined in errors.py itself."""
    return {
        name: obj
        for name, obj in vars(errors).items()
        if inspect.isclass(obj)
        and issubclass(obj, AdapterError)
        and obj.__module__ == errors.__name__
    }


def test_all_is_complete_and_exact() -> None:
    assert sorted(errors.__all__) == sorted(defined_errors())
    assert len(errors.__all__) == len(set(errors.__all__))


def test_all_errors_lists_every_raisable_error_once() -> None:
    raisable = {cls for name, cls in defined_errors().items() if name != "AdapterError"}
    assert set(ALL_ERRORS) == raisable
    assert len(ALL_ERRORS) == len(raisable)
    assert AdapterError not in ALL_ERRORS


def test_package_re_exports_every_error() -> None:
    for name in errors.__all__:
        assert name in kubectl_adapter.__all__
        assert getattr(kubectl_adapter, name) is getattr(errors, name)


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: e.__name__)
def test_type_and_exit_code_match_the_contract(error: type[AdapterError]) -> None:
    assert error.type == error.__name__
    assert error.exit_code == CONTRACT[error.type]
    # A class attribute, not inherited by accident from a parent.
    assert "type" in vars(error)
    assert "exit_code" in vars(error)


def test_contract_covers_exactly_the_errors() -> None:
    assert set(CONTRACT) == {e.type for e in ALL_ERRORS}


def test_types_are_unique() -> None:
    types = [e.type for e in ALL_ERRORS]
    assert len(types) == len(set(types))


def test_exit_codes_are_unique_except_the_provider_id_refinement() -> None:
    by_code: dict[int, list[str]] = {}
    for e in ALL_ERRORS:
        by_code.setdefault(e.exit_code, []).append(e.type)
    shared = {code: sorted(names) for code, names in by_code.items() if len(names) > 1}
    assert shared == {2: ["InvalidInput", "InvalidProviderId"]}
    assert issubclass(errors.InvalidProviderId, errors.InvalidInput)
    # Never a shell/signal code, except the one error that reports a signal (128 + SIGINT).
    assert all(0 < code < 126 for code, names in by_code.items() if names != ["Interrupted"])
    assert errors.Interrupted.exit_code == 128 + 2


def test_docstring_table_agrees_with_the_code() -> None:
    doc = errors.__doc__ or ""
    table = dict(re.findall(r"── (\w+)\s+exit (\d+)", doc))
    assert {name: int(code) for name, code in table.items()} == CONTRACT


def test_base_error_defaults() -> None:
    assert AdapterError.type == "AdapterError"
    assert AdapterError.exit_code == 1
    error = errors.NotFound("deployment testns/web-1 not found")
    assert str(error) == error.message == "deployment testns/web-1 not found"
    assert error.details == {}
    assert isinstance(error, Exception)


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: e.__name__)
def test_to_json_is_the_documented_document(error: type[AdapterError]) -> None:
    document = error("it failed", {"command": "kubectl get pods", "exitCode": 1}).to_json()
    assert document == {
        "error": {
            "type": error.type,
            "message": "it failed",
            "details": {"command": "kubectl get pods", "exitCode": 1},
        }
    }
    assert json.loads(json.dumps(document)) == document


def test_message_and_details_are_redacted_when_built() -> None:
    error = errors.Unauthorized(
        "token: abcdef123456 rejected",
        {"stderr": "Authorization: Bearer abcdef123456", "nested": [{"password": "hunter2222"}]},
    )
    text = json.dumps(error.to_json()) + str(error)
    assert "abcdef123456" not in text
    assert "hunter2222" not in text
    assert "[REDACTED]" in error.message


def test_details_are_copied_not_aliased() -> None:
    details = {"command": "kubectl get pods"}
    error = errors.InternalError("x", details)
    error.details["extra"] = 1
    assert details == {"command": "kubectl get pods"}
