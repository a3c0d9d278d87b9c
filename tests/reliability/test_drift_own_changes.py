"""A change the adapter made itself is never drift, whatever field manager the API server
records for it; a change by anyone else still is, with who made it.

The fault run: after ``reconfigure --rollback-on-failure`` rolled back a failed rollout,
``status`` reported drift "image changed … by kubectl" (the undo's field manager). Pure cases
over managedFields shaped as the API server writes them, for any manager name the undo may
be recorded under, then the whole story through the real kubectl on the fake API server.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kubectl_adapter.contract.naming import ROLLBACK_ANNOTATION
from kubectl_adapter.rules.drift import drift, rollback_fields
from kubectl_adapter.rules.managed_fields import applied_at
from kubectl_adapter.rules.rollback_mark import mark
from tests.e2e.conftest import Cluster, spec
from tests.rules.test_drift import OURS, entry, env_item, main, main_path, without, workload

IMAGE = main_path("f:image")
COMMAND = main_path("f:command")


def rolled_back(manager: str) -> dict[str, Any]:
    """Manager applied nginx:2 with a command and env KEY=new (the failed spec); the undo
    (recorded under ``manager``) put back nginx:1, no command and KEY=value."""
    dep = workload(
        entry(manager, "Update", IMAGE, env_item("KEY", "f:value")),
        command=True,
    )
    for path in (IMAGE, env_item("KEY", "f:value")):
        without(dep, OURS, path)
    main(dep)["image"] = "nginx:1"
    main(dep)["env"] = [{"name": "KEY", "value": "value"}]
    main(dep).pop("command", None)
    return dep


def marked(dep: dict[str, Any]) -> dict[str, Any]:
    """What reconfigure's ``_mark`` writes after the rollback's wait ended on ``dep``."""
    value = mark("2", "3", "2026-11-30T00:05:00Z", rollback_fields(dep), applied_at(dep))
    dep["metadata"]["annotations"][ROLLBACK_ANNOTATION] = value
    return dep


MANAGERS = ["kubectl-rollout", "kubectl", "kubectl-client-side-apply", "kubectl-edit", "x"]


@pytest.mark.parametrize("manager", MANAGERS)
def test_the_adapters_rollback_is_no_drift_whatever_manager_recorded_it(manager: str) -> None:
    dep = rolled_back(manager)
    before = drift(dep)
    assert {c.what for c in before.changes} == {"image", "env", "command"}  # unmarked: drift
    found = drift(marked(dep))
    assert (found.state, found.changes) == ("in-sync", ())
    assert found.document()["summary"] == ""
    assert found.rollback is not None and found.rollback["revision"] == "3"
    secret = json.loads(dep["metadata"]["annotations"][ROLLBACK_ANNOTATION])
    assert "value" not in json.dumps(secret["fields"])  # fingerprints, never env values


@pytest.mark.parametrize("manager", MANAGERS)
def test_a_change_by_anyone_else_after_the_rollback_is_drift_with_who(manager: str) -> None:
    dep = marked(rolled_back(manager))
    # a label added by hand: reported, by kubectl-label; the rollback's fields still not
    labelled = copy.deepcopy(dep)
    labelled["metadata"]["managedFields"].append(
        entry("kubectl-label", "Update", ("f:metadata", "f:labels", "f:team"))
    )
    labelled["metadata"]["labels"]["team"] = "ops"
    (change,) = drift(labelled).changes
    assert (change.what, change.name, change.by) == ("labels", "team", ("kubectl-label",))
    # the image set again by hand (a new value): reported, by who set it
    edited = copy.deepcopy(dep)
    edited["metadata"]["managedFields"].append(entry("kubectl-set", "Update", IMAGE))
    main(edited)["image"] = "nginx:3"
    changes = {c.what: c for c in drift(edited).changes}
    assert set(changes) == {"image"} and "kubectl-set" in changes["image"].by
    assert changes["image"].value == "nginx:3"
    # a command added by hand after the rollback removed Manager's
    commanded = copy.deepcopy(dep)
    commanded["metadata"]["managedFields"].append(entry("kubectl-edit", "Update", COMMAND))
    main(commanded)["command"] = ["sleep", "1"]
    assert [c.what for c in drift(commanded).changes] == ["command"]


def test_manager_applying_again_makes_the_mark_stale() -> None:
    dep = marked(rolled_back("kubectl-rollout"))
    for found in dep["metadata"]["managedFields"]:
        if found["manager"] == OURS:
            found["time"] = "2026-11-30T01:00:00Z"  # a later apply (of the same failed spec)
    assert drift(dep).rollback is None
    assert {c.what for c in drift(dep).changes} == {"image", "env", "command"}


def test_a_mark_in_another_shape_claims_nothing() -> None:
    dep = rolled_back("kubectl-rollout")
    for junk in ("{", "[]", '{"revision": "3"}', json.dumps({"revision": "3", "fields": 7})):
        dep["metadata"]["annotations"][ROLLBACK_ANNOTATION] = junk
        assert {c.what for c in drift(dep).changes} == {"image", "env", "command"}


# -------------------------------------------------------------- through the real kubectl
BAD_IMAGE = "registry.invalid/does-not-exist:1"


def test_after_a_rollback_status_says_in_sync_and_names_later_changes(cluster: Cluster) -> None:
    """create → reconfigure to an image that cannot be pulled, with --rollback-on-failure →
    status (in sync: the undo is the adapter's) → stop and start (the adapter's scale) →
    a hand ``kubectl set env`` (drift, by kubectl-set, and nothing about the image)."""
    cluster.require_fake()
    name, cid = cluster.workload("ownrb")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created
    pid = created.doc["providerId"]
    failed = cluster.adapter(
        "reconfigure", pid, "--spec", "-", "--rollback-on-failure",
        stdin=spec(name, cid, image=BAD_IMAGE), flags=["--timeout", "30"],
    )  # fmt: skip
    assert failed.code != 0 and failed.doc["error"]["details"]["rollback"]["succeeded"], failed
    assert failed.doc["error"]["details"]["rollback"]["marked"] is True, failed
    status = cluster.adapter("status", pid)
    assert status.code == 0, status
    assert status.doc["drift"]["state"] == "in-sync", status.doc["drift"]
    assert status.doc["drift"]["changes"] == [] and status.doc["image"] == "nginx:latest"
    for verb in ("stop", "start"):
        assert cluster.adapter(verb, pid).code == 0
    assert cluster.adapter("status", pid).doc["drift"]["state"] == "in-sync"
    cluster.kubectl("set", "env", f"deployment/{name}", "-c", "main", "HAND=1")
    drift_now = cluster.adapter("status", pid).doc["drift"]
    assert drift_now["state"] == "drifted", drift_now
    assert [(c["what"], c["name"], c["by"]) for c in drift_now["changes"]] == [
        ("env", "HAND", ["kubectl-set"])
    ], drift_now
    assert "image" not in drift_now["summary"], drift_now
