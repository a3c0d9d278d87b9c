"""``targets``: a name that names nothing, told to a person (the namespace when it is what is
missing); which answers name nothing."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from kubectl_adapter.cli.targets import missing_error, names_nothing
from kubectl_adapter.contract.errors import Forbidden
from kubectl_adapter.contract.naming import ProviderId


class Ran(NamedTuple):
    stdout: str


class Runner:
    """Answers ``kubectl get namespace NS --ignore-not-found -o name`` as the API would."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.calls: list[list[str]] = []

    def run(self, args: list[str], **_: Any) -> Ran:
        self.calls.append(list(args))
        if isinstance(self.answer, Exception):
            raise self.answer
        return Ran(self.answer)


def test_a_missing_deployment_in_a_namespace_that_exists() -> None:
    runner = Runner("namespace/manager\n")
    error = missing_error(runner, ProviderId("manager", "nope"), "delete")  # type: ignore[arg-type]
    assert error.message == (
        'deployments.apps "nope" not found in namespace manager: nothing was deleted'
    )
    assert error.details["missing"] == "deployment" and error.exit_code == 3
    assert runner.calls == [["get", "namespace", "manager", "--ignore-not-found", "-o", "name"]]


def test_a_missing_namespace_is_named_as_the_namespace() -> None:
    error = missing_error(Runner(""), ProviderId("nosuch", "web-1"), "stop")  # type: ignore[arg-type]
    assert error.message.startswith('namespaces "nosuch" not found')
    assert error.details == {
        "providerId": "nosuch/web-1",
        "namespace": "nosuch",
        "missing": "namespace",
    }


def test_a_namespace_that_cannot_be_read_leaves_the_deployments_words() -> None:
    error = missing_error(Runner(Forbidden("no")), ProviderId("ns", "x"), "status")  # type: ignore[arg-type]
    assert error.message == 'deployments.apps "x" not found in namespace ns'


@pytest.mark.parametrize(
    ("command", "document", "nothing"),
    [
        ("status", {"status": "missing"}, True),
        ("status", {"status": "running"}, False),
        ("describe", {"snapshot": {"status": "missing"}}, True),
        ("delete", {"alreadyMissing": True}, True),
        ("delete", {"alreadyMissing": False}, False),
        ("status", {"dryRun": True, "commands": []}, False),
    ],
)
def test_which_answers_name_nothing(command: str, document: Any, nothing: bool) -> None:
    assert names_nothing(command, document) is nothing
