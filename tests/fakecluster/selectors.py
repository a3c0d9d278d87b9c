"""Label and field selectors (the subset of the API server's syntax kubectl produces)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]

_SET_RE = re.compile(r"^\s*([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


class SelectorError(ValueError):
    pass


def _split(expr: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _label_req(req: str) -> Callable[[dict[str, str]], bool]:
    m = _SET_RE.match(req)
    if m:
        key, op, vals = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
        if op == "in":
            return lambda labels: labels.get(key) in vals
        return lambda labels: labels.get(key) not in vals
    for op in ("!=", "==", "="):
        if op in req:
            key, val = (s.strip() for s in req.split(op, 1))
            if op == "!=":
                return lambda labels: labels.get(key) != val
            return lambda labels: labels.get(key) == val
    if req.startswith("!"):
        key = req[1:].strip()
        return lambda labels: key not in labels
    if re.fullmatch(r"[A-Za-z0-9._/-]+", req):
        return lambda labels: req in labels
    raise SelectorError(f"unable to parse requirement: {req!r}")


def label_selector(expr: str | None) -> Callable[[dict[str, str]], bool]:
    reqs = [_label_req(r) for r in _split(expr or "")]
    return lambda labels: all(r(labels) for r in reqs)


def match_labels_selector(selector: dict[str, Any] | None) -> Callable[[dict[str, str]], bool]:
    """A metav1.LabelSelector (matchLabels + matchExpressions)."""
    selector = selector or {}
    ml = selector.get("matchLabels") or {}
    exprs = selector.get("matchExpressions") or []

    def pred(labels: dict[str, str]) -> bool:
        if any(labels.get(k) != v for k, v in ml.items()):
            return False
        for e in exprs:
            key, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
            if op == "In" and labels.get(key) not in vals:
                return False
            if op == "NotIn" and labels.get(key) in vals:
                return False
            if op == "Exists" and key not in labels:
                return False
            if op == "DoesNotExist" and key in labels:
                return False
        return True

    return pred


def selector_string(selector: dict[str, Any] | None) -> str:
    ml = (selector or {}).get("matchLabels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(ml.items()))


def _field_value(obj: dict[str, Any], path: str) -> str:
    cur: Any = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def field_selector(expr: str | None) -> Predicate:
    reqs: list[Predicate] = []
    for req in _split(expr or ""):
        for op in ("!=", "==", "="):
            if op in req:
                path, val = (s.strip() for s in req.split(op, 1))
                if op == "!=":
                    reqs.append(lambda o, p=path, v=val: _field_value(o, p) != v)
                else:
                    reqs.append(lambda o, p=path, v=val: _field_value(o, p) == v)
                break
        else:
            raise SelectorError(f"invalid field selector: {req!r}")
    return lambda obj: all(r(obj) for r in reqs)


def object_filter(label_expr: str | None, field_expr: str | None) -> Predicate:
    lab = label_selector(label_expr)
    fld = field_selector(field_expr)
    return lambda obj: lab(obj.get("metadata", {}).get("labels") or {}) and fld(obj)
