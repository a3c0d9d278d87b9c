"""The kubectl arguments of every step an operation runs.

The real run and ``--dry-run`` take their commands from here, so a plan cannot drift from
what runs (``tests/operations/test_provider.py`` compares them). The runner adds the
connection flags.
"""

from __future__ import annotations

from ..contract.naming import FIELD_MANAGER
from .runner import wait_timeout_args

# kubectl drops metadata.managedFields from its output unless asked; drift (rules/drift.py)
# reads them from the same Deployment every read already returns.
SHOW_MANAGED_FIELDS = "--show-managed-fields"


def get_deployment(name: str) -> list[str]:
    """By name; a 404 is kubectl's NotFound error (never ``--ignore-not-found``'s silence,
    which a kubectl that prints nothing would imitate)."""
    return ["get", "deployment", name, "-o", "json", SHOW_MANAGED_FIELDS]


def owned(selector: str) -> list[str]:
    """ReplicaSets and Pods of one workload."""
    return ["get", "replicasets,pods", "-l", selector, "-o", "json"]


def workload(selector: str) -> list[str]:
    """The Deployment with its ReplicaSets and Pods."""
    return [
        "get",
        "deployments,replicasets,pods",
        "-l",
        selector,
        "-o",
        "json",
        SHOW_MANAGED_FIELDS,
    ]


def rollout_status(name: str, seconds: float) -> list[str]:
    """One slice of a rollout wait, as waits.wait_rollout runs it."""
    return ["rollout", "status", f"deployment/{name}", *wait_timeout_args(seconds)]


def pods_gone(selector: str, seconds: float) -> list[str]:
    """One slice of stop's wait for the pods to be deleted."""
    return ["wait", "--for=delete", "pod", "-l", selector, *wait_timeout_args(seconds)]


def delete_deployment(name: str, timeout: float) -> list[str]:
    return [
        "delete",
        "deployment",
        name,
        "--cascade=foreground",
        "--ignore-not-found",
        "--wait=true",
        *wait_timeout_args(timeout),
    ]


def apply() -> list[str]:
    return [
        "apply",
        "--server-side",
        f"--field-manager={FIELD_MANAGER}",
        "--force-conflicts",
        "-f",
        "-",
    ]


def scale(name: str, replicas: int) -> list[str]:
    # -v=6 makes kubectl log each response: if it is stuck retrying 409 Conflict (it
    # does so for 5 minutes) the process bound ends it and the log says it was a conflict.
    return ["scale", f"deployment/{name}", f"--replicas={replicas}", "-v=6"]


def apply_read_back() -> list[str]:
    """reconfigure's apply, printing the applied Deployment with its managedFields."""
    return [*apply(), "-o", "json", SHOW_MANAGED_FIELDS]


def restore(name: str, patch: str) -> list[str]:
    """reconfigure's take-back of fields another manager added, which server-side apply never
    removes (rules/restore.py builds the strategic merge patch; it carries no values)."""
    return [
        "patch",
        "deployment",
        name,
        "--type=strategic",
        f"--field-manager={FIELD_MANAGER}",
        "-p",
        patch,
        "-o",
        "json",
        SHOW_MANAGED_FIELDS,
    ]
