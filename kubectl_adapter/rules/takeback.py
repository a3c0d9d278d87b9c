"""Which drift a reconfigure takes back (pure; over one change's kind and FieldsV1 path).

A reconfigure re-applies Manager's whole spec server-side with ``--force-conflicts``: that
takes back every field Manager applies (image, command, env values, resources, ownership
labels, its record annotation) and re-adds the ones removed. What Manager does not apply (a
sidecar, an extra env var, ``paused``, a strategy…) the apply leaves alone; one strategic
merge patch after it (``restore.restore_patch``) removes it, but only where a patch can name
the field: by field or by key in a list merged by key, never by value or index. The rest
stays, and each drift change says so (``DriftChange.reconfigure``).
"""

from __future__ import annotations

import json
from typing import Any

from ..contract.naming import CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL

Path = tuple[str, ...]

# Lists a strategic merge patch merges by key (the pod template's); ``k:`` items only here.
KEYED_LISTS = frozenset(
    {
        "containers",
        "initContainers",
        "ephemeralContainers",
        "env",
        "volumes",
        "volumeMounts",
        "ports",
        "imagePullSecrets",
        "hostAliases",
    }
)
# Kinds of change Manager never applies: only the patch can take them back.
_FOREIGN_KINDS = frozenset({"other", "paused", "replicas"})
# The Deployment's own labels that say whose it is: reconfigure checks them, never rewrites them.
IDENTITY_LABELS = frozenset({MANAGED_LABEL, NODE_ID_LABEL, CONTAINER_ID_LABEL})


def item_key(segment: str) -> dict[str, Any]:
    """The key fields of a ``k:`` segment; empty when it is not a JSON object."""
    try:
        found = json.loads(segment[2:])
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def addressable(path: Path) -> bool:
    """Fields (``f:``) and items by key (``k:`` right under a keyed list) only: nothing a
    strategic merge patch could misread (a value or an index, an item where no list is)."""
    for i, segment in enumerate(path):
        parent = path[i - 1][2:] if i else ""
        item = segment.startswith("k:")
        if item != (parent in KEYED_LISTS) or (item and not item_key(segment)):
            return False
        if not item and not segment.startswith("f:"):
            return False
    return path[-1][2:] not in KEYED_LISTS


def foreign(what: str, change: str) -> bool:
    """A change to what Manager does not apply (the apply leaves it where it is)."""
    return what in _FOREIGN_KINDS or change == "added"


def patch_removes(what: str, change: str, at: Path) -> bool:
    """A change only the patch after the apply takes back: foreign, under ``spec``, and
    addressable by field or key."""
    return foreign(what, change) and bool(at) and at[0] == "f:spec" and addressable(at)


# What a reconfigure does about one change (``DriftChange.reconfigure``).
RESTORES = "restores"
KEEPS = "keeps"
REFUSES = "refuses"


def by_reconfigure(what: str, change: str, at: Path, path: str, name: str | None) -> str:
    """What a reconfigure (with Manager's spec) does about this change: ``restores`` it (its
    apply, for what Manager applies, or the patch after it), ``keeps`` it (a patch cannot
    name it), or ``refuses`` to run at all (the Deployment's identity labels changed: which
    container and node it is for is the operator's to restore, ``ownership.check_identity``)."""
    if what == "labels" and path.startswith("metadata.labels.") and name in IDENTITY_LABELS:
        return REFUSES
    if not foreign(what, change):
        return RESTORES
    if at[:2] == ("f:metadata", "f:annotations"):
        return RESTORES  # only Manager's record annotation is tracked there: it applies it
    return RESTORES if patch_removes(what, change, at) else KEEPS
