"""The line format of ``list --watch`` and ``status --watch`` on a pipe: one WatchEvent per
line (``docs/schema/watch-event.json``), kept apart from ``models`` (the one-shot outputs).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from .models import Output, Snapshot, field

__all__ = ["WatchEvent"]


class WatchEvent(Output):
    """One line of a watch's feed: a workload that appeared, changed or went, or ``SYNCED``
    once the lines so far give every workload as the cluster now shows it."""

    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {"snapshot": (Snapshot, False)}
    type: Literal["ADDED", "MODIFIED", "DELETED", "SYNCED"] = field(
        metadata={
            "description": "ADDED: new to the feed (the first list, a new workload); MODIFIED: "
            "its snapshot changed; DELETED: it is gone (the snapshot says missing); SYNCED: "
            "every workload given so far is as the cluster shows it (after the first list "
            "and after a broken watch's new list)"
        }
    )
    snapshot: Snapshot | None = field(
        default=None, metadata={"description": "the workload now; null for SYNCED"}
    )
