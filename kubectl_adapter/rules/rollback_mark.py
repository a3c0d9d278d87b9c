"""A rollback named as what it is (pure): ``reconfigure --rollback-on-failure`` marks the
Deployment after its ``kubectl rollout undo``, so drift can say "rolled back" rather than
"changed by kubectl", and never advise the reconfigure that re-applies the failed spec
without saying so.

The mark (annotation ``org.mieweb.opensource-server.rolled-back``) records the revision that
failed, the revision the rollback made, and the fields the rollback put in place: for each
change drift would report right after it, the change's path and a fingerprint of the value
the rollback left there (``drift.rollback_fields``; a hash, never the value: env values may
be secrets), and when Manager had last applied (the API server's time in its managedFields
entry, so no clock of this machine is compared with the server's). A field still holding
that value is the adapter's own doing, whatever field manager the API server recorded for
the undo (``kubectl-rollout``, ``kubectl``…): never drift. A field someone changed since
holds another value and is drift again, with who changed it. The mark holds until Manager
applies again (its Apply entry's time is no longer the one recorded): a reconfigure does not
remove it (the apply leaves annotations it does not set), it makes it stale.
"""

from __future__ import annotations

import json
from typing import Any

from ..contract.naming import ROLLBACK_ANNOTATION
from .managed_fields import applied_at

REVISION = "deployment.kubernetes.io/revision"
BY = "--rollback-on-failure"


def revision_of(deployment: dict[str, Any] | None) -> str | None:
    annotations = ((deployment or {}).get("metadata") or {}).get("annotations") or {}
    value = annotations.get(REVISION)
    return str(value) if value else None


def mark(
    failed_revision: str | None,
    revision: str | None,
    at: str,
    fields: dict[str, str],
    applied: str | None,
) -> str:
    """The annotation's value; ``fields``: path -> fingerprint of what the rollback left;
    ``applied``: the time of Manager's apply the rollback undid."""
    document = {
        "by": BY,
        "failedRevision": failed_revision,
        "revision": revision,
        "at": at,
        "fields": fields,
        "applied": applied,
    }
    return json.dumps(document, separators=(",", ":"), sort_keys=True)


def _found(deployment: dict[str, Any] | None) -> dict[str, Any] | None:
    """The adapter's mark while it holds: Manager has not applied since."""
    annotations = ((deployment or {}).get("metadata") or {}).get("annotations") or {}
    try:
        found = json.loads(annotations.get(ROLLBACK_ANNOTATION) or "null")
    except (TypeError, ValueError):
        return None
    if not isinstance(found, dict) or found.get("revision") is None:
        return None
    if found.get("applied") != applied_at(deployment or {}):
        return None
    return found


def rolled_back_fields(deployment: dict[str, Any] | None) -> dict[str, str]:
    """The fields the adapter's rollback put in place (path -> fingerprint), while its mark
    holds."""
    fields = (_found(deployment) or {}).get("fields")
    if not isinstance(fields, dict):
        return {}
    return {str(path): str(print_) for path, print_ in fields.items()}


def rollback_of(deployment: dict[str, Any] | None) -> dict[str, Any] | None:
    """The rollback the adapter made since Manager last applied, or None (no mark, a stale
    one, or one that is not the adapter's shape)."""
    found = _found(deployment)
    if found is None:
        return None
    return {
        "by": BY,
        "failedRevision": _text(found.get("failedRevision")),
        "revision": str(found["revision"]),
        "at": _text(found.get("at")),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def words(rollback: dict[str, Any]) -> str:
    """``rolled back by --rollback-on-failure at T: revision 2 failed; revision 3 is the one
    before it``."""
    failed = rollback.get("failedRevision")
    at = f" at {rollback['at']}" if rollback.get("at") else ""
    lost = f"revision {failed} (the spec Manager last applied) failed" if failed else "it failed"
    now = rollback["revision"]
    return f"rolled back by {BY}{at}: {lost}; revision {now} runs the template before it"
