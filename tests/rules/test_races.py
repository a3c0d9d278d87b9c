"""The race verdicts (kubectl_adapter/rules/races.py), table-driven over realistic Deployments."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.contract import errors
from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.rules.races import (
    changed_under_apply,
    not_deleted,
    not_running,
    precondition,
    stop_interrupted,
)
from tests.k8s_objects import deployment

PID = ProviderId("testns", "web-1")
UID = "uid-deploy-web-1"


def test_precondition_is_the_reads_uid_and_resource_version() -> None:
    assert precondition(deployment()) == {"uid": UID, "resourceVersion": "1001"}


@pytest.mark.parametrize("field", ["uid", "resourceVersion"])
def test_precondition_without_the_reads_identity_is_internal_error(field: str) -> None:
    """It used to raise KeyError (a traceback): a Deployment the API server never prints."""
    read = deployment()
    del read["metadata"][field]
    with pytest.raises(errors.InternalError) as info:
        precondition(read)
    assert info.value.details == {"problem": f"output.metadata.{field} is missing"}
    assert f"without metadata.{field}" in info.value.message


@pytest.mark.parametrize(
    ("found", "status", "expected"),
    [
        (deployment(), "running", None),
        (None, "missing", errors.NotFound),
        (deployment(deleting=True), "offline", errors.NotFound),
        (deployment(uid="uid-other"), "running", errors.Conflict),
        (deployment(replicas=0, available=None), "offline", errors.Conflict),
        (deployment(available=None), "failed", errors.RolloutFailed),
        (deployment(available=None), "creating", errors.RolloutFailed),
    ],
)
def test_not_running(found: dict[str, Any] | None, status: str, expected: type | None) -> None:
    verdict = not_running(PID, found, UID, status, "why", "start")
    assert (type(verdict) if verdict else None) is expected


def test_not_running_without_a_known_uid_accepts_any_deployment() -> None:
    assert not_running(PID, deployment(uid="uid-x"), None, "running", "", "create") is None


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (deployment(replicas=0), None),
        (None, None),  # deleted: its pods go too
        (deployment(replicas=0, deleting=True), None),
        (deployment(replicas=1), errors.Conflict),
        (deployment(replicas=0, uid="uid-other"), errors.Conflict),
    ],
)
def test_stop_interrupted(found: dict[str, Any] | None, expected: type | None) -> None:
    verdict = stop_interrupted(PID, found, UID)
    assert (type(verdict) if verdict else None) is expected


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (None, None),
        (deployment(uid="uid-other"), errors.Conflict),
        (deployment(deleting=True), errors.Conflict),
        (deployment(), errors.Unavailable),
    ],
)
def test_not_deleted(found: dict[str, Any] | None, expected: type | None) -> None:
    verdict = not_deleted(PID, found, UID)
    assert (type(verdict) if verdict else None) is expected


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (deployment(), None),  # only the resourceVersion moved: apply again
        (None, errors.NotFound),
        (deployment(deleting=True), errors.NotFound),
        (deployment(uid="uid-other"), errors.Conflict),
    ],
)
def test_changed_under_apply(found: dict[str, Any] | None, expected: type | None) -> None:
    verdict = changed_under_apply(PID, found, UID)
    assert (type(verdict) if verdict else None) is expected
