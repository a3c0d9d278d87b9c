"""What reconfigure must take back by hand: fields another manager added, which server-side
apply never removes (pure; over the Deployment the apply returned).

``kubectl apply --server-side --force-conflicts`` takes back every field Manager applies
(image, command, env values, resources, labels) and re-adds the ones removed. A field Manager
does not apply (a sidecar container, an extra env var, a command where Manager sets none, an
extra resource, ``paused``, a strategy) stays: apply only removes fields its own manager set
before. So after the apply, everything drift still reports is foreign, and one strategic merge
patch removes it (``$patch: delete`` for a container or env var by name, ``null`` for a field)
and puts ``replicas`` back to 1. The patch names fields, never values; it carries the applied
Deployment's uid, so it never touches a replacement of the same name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .drift import Change, Drift, Path
from .takeback import item_key, patch_removes

Document = dict[str, Any]
Tree = dict[str, Any]
LEAF: Tree = {}


def _restorable(change: Change) -> bool:
    """A change only the patch can take back (the apply takes back what Manager sets)."""
    return patch_removes(change.what, change.change, change.at)


def _insert(tree: Tree, path: Path) -> None:
    node = tree
    for i, segment in enumerate(path):
        if segment in node and node[segment] is LEAF:
            return  # a whole item or field above it already goes
        if i == len(path) - 1:
            node[segment] = LEAF
        else:
            node = node.setdefault(segment, {})


def _convert(tree: Tree) -> Document:
    out: Document = {}
    for segment, child in tree.items():
        name = segment[2:]
        if child is LEAF:
            out[name] = None
        elif all(key.startswith("k:") for key in child):
            out[name] = [_item(key, sub) for key, sub in child.items()]
        else:
            out[name] = _convert(child)
    return out


def _item(segment: str, child: Tree) -> Document:
    item: Document = dict(item_key(segment))
    if child is LEAF:
        item["$patch"] = "delete"
    else:
        item.update(_convert(child))
    return item


def restore_patch(applied: Document, found: Drift) -> Document | None:
    """The strategic merge patch that removes what ``found`` (the drift of ``applied``, the
    Deployment as the apply returned it) still reports, or None when nothing is left."""
    changes = [change for change in found.changes if _restorable(change)]
    if not changes:
        return None
    tree: Tree = {}
    for change in sorted(changes, key=lambda c: len(c.at)):
        if change.what != "replicas":
            _insert(tree, change.at)
    patch = _convert(tree)
    if any(change.what == "replicas" for change in changes):
        patch.setdefault("spec", {})["replicas"] = 1
    uid = (applied.get("metadata") or {}).get("uid")
    if uid:
        # Only this Deployment: a replacement of the same name refuses the patch (422, the
        # uid is immutable), and a deleted one is a 404 (a patch never creates). Not the
        # resourceVersion: the controller writes status right after the apply.
        patch["metadata"] = {"uid": uid}
    return patch


def taken_back(before: Drift, left: Iterable[tuple[str, str]]) -> list[Document]:
    """The changes reconfigure took back: reported before it, not ``left`` (what, path) after."""
    still = set(left)
    return [c.document() for c in before.changes if (c.what, c.path) not in still]
