"""Label selectors (the API server's grammar, whole) and field selectors (the subset kubectl
produces)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]


class SelectorError(ValueError):
    pass


def _split(expr: str) -> list[str]:
    """Split on commas that are not inside parentheses (field selectors)."""
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


# ---------------------------------------------------------------------------- label selectors
# A port of k8s.io/apimachinery pkg/labels/selector.go (Lexer, Parser, NewRequirement) and
# pkg/util/validation/validation.go (IsQualifiedName, IsDNS1123Subdomain, IsValidLabelValue),
# token for token, so that the API server's answer to kubectl's ``-l`` is Kubernetes' own.
_QNAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_TOKENS = {")", ",", "!", "==", "=", ">", "in", "<", "!=", "notin", "("}
_SPECIAL = set("=!(),><")
_WHITESPACE = set(" \t\r\n")
_IDENT = "IDENT"
_END = "END"
_BINARY = "in, notin, =, ==, !=, gt, lt"
_QNAME_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_UNPARSABLE = "unable to parse requirement: "


def _lex(s: str) -> list[tuple[str, str]]:
    """``Lexer.Lex`` until EndOfStringToken (no NUL byte: an argv cannot carry one)."""
    items, pos = [], 0
    while True:
        while pos < len(s) and s[pos] in _WHITESPACE:
            pos += 1
        if pos >= len(s):
            items.append((_END, ""))
            return items
        if s[pos] in _SPECIAL:
            buf, last = "", None
            while pos < len(s) and s[pos] in _SPECIAL:
                buf += s[pos]
                if buf in _TOKENS:
                    last = buf
                    pos += 1
                elif last is not None:
                    break
                else:
                    pos += 1
            if last is None:
                raise SelectorError(
                    f"unable to parse requirement: error expected: keyword found '{buf}'"
                )
            items.append((last, last))
        else:
            start = pos
            while pos < len(s) and s[pos] not in _SPECIAL and s[pos] not in _WHITESPACE:
                pos += 1
            lit = s[start:pos]
            items.append((lit if lit in _TOKENS else _IDENT, lit))


def _qualified_name_errors(key: str) -> list[str]:
    parts = key.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.'"]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix.encode()) > 253:
                errs.append("prefix part must be no more than 253 characters")
            if not _DNS1123_SUBDOMAIN.fullmatch(prefix):
                errs.append(
                    "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
                    "alphanumeric characters, '-' or '.'"
                )
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part must be no more than 63 characters")
    if not _QNAME.fullmatch(name):
        errs.append("name part " + _QNAME_RULE)
    return errs


def _label_value_errors(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_VALUE.fullmatch(value):
        errs.append("a valid label must be an empty string or " + _QNAME_RULE)
    return errs


class _LabelParser:
    def __init__(self, selector: str) -> None:
        self.items = _lex(selector)
        self.position = 0

    def _look(self, values: bool) -> tuple[str, str]:
        tok, lit = self.items[self.position]
        return (_IDENT if values and tok in ("in", "notin") else tok), lit

    def _take(self, values: bool) -> tuple[str, str]:
        item = self._look(values)
        self.position += 1
        return item

    def parse(self) -> list[tuple[str, str, list[str]]]:
        reqs = []
        while True:
            tok, lit = self._look(True)
            if tok in (_IDENT, "!"):
                reqs.append(self._requirement())
                t, lit = self._take(True)
                if t == _END:
                    return reqs
                if t != ",":
                    raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
                t2, l2 = self._look(True)
                if t2 not in (_IDENT, "!"):
                    raise SelectorError(f"found '{l2}', expected: identifier after ','")
            elif tok == _END:
                return reqs
            else:
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def _requirement(self) -> tuple[str, str, list[str]]:
        op = ""
        tok, key = self._take(True)
        if tok == "!":
            op = "!"
            tok, key = self._take(True)
        if tok != _IDENT:
            raise SelectorError(f"unable to parse requirement: found '{key}', expected: identifier")
        if errs := _qualified_name_errors(key):
            raise SelectorError(
                f'unable to parse requirement: Invalid value: "{key}": {"; ".join(errs)}'
            )
        if self._look(True)[0] in (_END, ","):
            return key, op or "exists", []
        if op == "!":
            return key, op, []
        tok, lit = self._take(False)
        if tok not in ("in", "notin", "=", "==", "!=", ">", "<"):
            raise SelectorError(f"unable to parse requirement: found '{lit}', expected: {_BINARY}")
        vals = self._set() if tok in ("in", "notin") else self._exact()
        for v in vals:
            if errs := _label_value_errors(v):
                raise SelectorError(
                    _UNPARSABLE + f'values[0][{key}]: Invalid value: "{v}": {"; ".join(errs)}'
                )
        if tok in (">", "<"):
            v = vals[0]
            if not re.fullmatch(r"[+-]?[0-9]+", v) or not -(2**63) <= int(v) < 2**63:
                raise SelectorError(
                    _UNPARSABLE + f"values[0]: Invalid value: \"{v}\": for 'Gt', 'Lt' operators, "
                    "the value must be an integer"
                )
        return key, tok, vals

    def _exact(self) -> list[str]:
        if self._look(True)[0] in (_END, ","):
            return [""]
        tok, lit = self._take(True)
        if tok == _IDENT:
            return [lit]
        raise SelectorError(f"unable to parse requirement: found '{lit}', expected: identifier")

    def _set(self) -> list[str]:
        tok, lit = self._take(True)
        if tok != "(":
            raise SelectorError(f"unable to parse requirement: found '{lit}' expected: '('")
        tok, lit = self._look(True)
        if tok == ")":
            self._take(True)
            return [""]
        if tok not in (_IDENT, ","):
            raise SelectorError(
                f"unable to parse requirement: found '{lit}', expected: ',', ')' or identifier"
            )
        vals: list[str] = []
        while True:
            tok, lit = self._take(True)
            if tok == _IDENT:
                vals.append(lit)
                tok2, lit2 = self._look(True)
                if tok2 == ",":
                    continue
                if tok2 == ")":
                    break
                raise SelectorError(
                    f"unable to parse requirement: found '{lit2}', expected: ',' or ')'"
                )
            elif tok == ",":
                if not vals:
                    vals.append("")
                tok2, _ = self._look(True)
                if tok2 == ")":
                    vals.append("")
                    break
                if tok2 == ",":
                    self._take(True)
                    vals.append("")
            else:
                raise SelectorError(
                    f"unable to parse requirement: found '{lit}', expected: ',', or identifier"
                )
        self._take(True)
        return vals


def parse_label_selector(expr: str) -> list[tuple[str, str, list[str]]]:
    """``labels.Parse``: the requirements (key, operator, values), or SelectorError."""
    return _LabelParser(expr).parse()


def _matches(req: tuple[str, str, list[str]], labels: dict[str, str]) -> bool:
    key, op, vals = req
    if op in ("in", "=", "=="):
        return key in labels and labels[key] in vals
    if op in ("notin", "!="):
        return key not in labels or labels[key] not in vals
    if op == "exists":
        return key in labels
    if op == "!":
        return key not in labels
    try:
        have = int(labels[key]) if key in labels else None
    except ValueError:
        return False
    return have is not None and (have > int(vals[0]) if op == ">" else have < int(vals[0]))


def label_selector(expr: str | None) -> Callable[[dict[str, str]], bool]:
    reqs = parse_label_selector(expr or "")
    return lambda labels: all(_matches(r, labels) for r in reqs)


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
