"""A rollback named as what it is (pure): ``reconfigure --rollback-on-failure`` marks the
Deployment after its ``kubectl rollout undo``, so drift can say "rolled back" rather than
"changed by kubectl", and never advise the reconfigure that re-applies the failed spec
without saying so.

The mark (annotation ``org.mieweb.opensource-server.rolled-back``) records the revision that
failed and the revision the rollback made. It holds while the Deployment is still at that
revision: the next rollout (Manager's reconfigure, a hand edit) makes it stale, and it is
then ignored (a reconfigure does not remove it: the apply leaves annotations it does not set).
"""

from __future__ import annotations

import json
from typing import Any

from ..contract.naming import ROLLBACK_ANNOTATION

REVISION = "deployment.kubernetes.io/revision"
BY = "--rollback-on-failure"


def revision_of(deployment: dict[str, Any] | None) -> str | None:
    annotations = ((deployment or {}).get("metadata") or {}).get("annotations") or {}
    value = annotations.get(REVISION)
    return str(value) if value else None


def mark(failed_revision: str | None, revision: str | None, at: str) -> str:
    """The annotation's value."""
    document = {"by": BY, "failedRevision": failed_revision, "revision": revision, "at": at}
    return json.dumps(document, separators=(",", ":"), sort_keys=True)


def rollback_of(deployment: dict[str, Any] | None) -> dict[str, Any] | None:
    """The rollback that made the Deployment's current revision, or None (no mark, a stale
    one, or one that is not the adapter's shape)."""
    annotations = ((deployment or {}).get("metadata") or {}).get("annotations") or {}
    try:
        found = json.loads(annotations.get(ROLLBACK_ANNOTATION) or "null")
    except (TypeError, ValueError):
        return None
    if not isinstance(found, dict) or found.get("revision") is None:
        return None
    if str(found.get("revision")) != revision_of(deployment):
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
