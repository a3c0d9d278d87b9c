"""JSON merge patch (RFC 7386), JSON patch (RFC 6902) and a strategic-merge-patch subset."""

from __future__ import annotations

import copy
from typing import Any

from .ssa import ASSOC_KEYS, item_key


class PatchError(ValueError):
    pass


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _unescape(tok: str) -> str:
    return tok.replace("~1", "/").replace("~0", "~")


def _parent(doc: Any, pointer: str) -> tuple[Any, str]:
    if not pointer.startswith("/"):
        raise PatchError(f"invalid JSON pointer {pointer!r}")
    toks = [_unescape(t) for t in pointer.split("/")[1:]]
    cur = doc
    for t in toks[:-1]:
        try:
            cur = cur[int(t)] if isinstance(cur, list) else cur[t]
        except (KeyError, IndexError, ValueError) as e:
            raise PatchError(f"path {pointer!r} not found") from e
    return cur, toks[-1]


def _get(doc: Any, pointer: str) -> Any:
    parent, last = _parent(doc, pointer)
    try:
        return parent[int(last)] if isinstance(parent, list) else parent[last]
    except (KeyError, IndexError, ValueError) as e:
        raise PatchError(f"path {pointer!r} not found") from e


def _remove(doc: Any, pointer: str) -> Any:
    parent, last = _parent(doc, pointer)
    try:
        return parent.pop(int(last)) if isinstance(parent, list) else parent.pop(last)
    except (KeyError, IndexError, ValueError) as e:
        raise PatchError(f"unable to remove nonexistent key: {last}") from e


def _add(doc: Any, pointer: str, value: Any, *, replace: bool) -> Any:
    if pointer == "":
        return copy.deepcopy(value)
    parent, last = _parent(doc, pointer)
    if isinstance(parent, list):
        if replace:
            parent[int(last)] = copy.deepcopy(value)
        elif last == "-":
            parent.append(copy.deepcopy(value))
        else:
            parent.insert(int(last), copy.deepcopy(value))
    elif isinstance(parent, dict):
        if replace and last not in parent:
            raise PatchError(f"replace operation does not apply: doc is missing key: {pointer}")
        parent[last] = copy.deepcopy(value)
    else:
        raise PatchError(f"path {pointer!r} not found")
    return doc


def json_patch(target: Any, ops: Any) -> Any:
    if not isinstance(ops, list):
        raise PatchError("json patch must be a list")
    doc = copy.deepcopy(target)
    for op in ops:
        kind, path = op.get("op"), op.get("path", "")
        if kind == "add":
            doc = _add(doc, path, op.get("value"), replace=False)
        elif kind == "replace":
            doc = _add(doc, path, op.get("value"), replace=True)
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "test":
            if _get(doc, path) != op.get("value"):
                raise PatchError(f"testing value {path} failed")
        elif kind in ("move", "copy"):
            val = _get(doc, op["from"])
            if kind == "move":
                _remove(doc, op["from"])
            doc = _add(doc, path, copy.deepcopy(val), replace=False)
        else:
            raise PatchError(f"unexpected kind: {kind}")
    return doc


def strategic_merge_patch(target: Any, patch: Any, name: str | None = None) -> Any:
    """Strategic merge: associative lists (see ssa.ASSOC_KEYS) merge by key; directives
    `$patch: delete|replace` are honoured, `$setElementOrder`/`$retainKeys` are ignored."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if v is None:
            out.pop(k, None)
        elif k in ASSOC_KEYS and isinstance(v, list) and isinstance(out.get(k), list):
            out[k] = _merge_list(out[k], v, k)
        elif isinstance(v, dict):
            out[k] = strategic_merge_patch(out.get(k), v, k)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _merge_list(live: list[Any], patch: list[Any], name: str) -> list[Any]:
    out = copy.deepcopy(live)
    for item in patch:
        if not isinstance(item, dict):
            return copy.deepcopy(patch)
        key = item_key(name, item)
        idx = next(
            (i for i, x in enumerate(out) if isinstance(x, dict) and item_key(name, x) == key),
            None,
        )
        if item.get("$patch") == "delete":
            if idx is not None:
                out.pop(idx)
        elif idx is None:
            out.append({k: v for k, v in item.items() if not k.startswith("$")})
        else:
            out[idx] = strategic_merge_patch(out[idx], item)
    return out
