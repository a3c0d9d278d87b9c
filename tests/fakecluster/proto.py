"""Just enough protobuf decoding for `kubectl auth can-i` (SelfSubject*Review requests).

Wire layout (k8s.io/api generated.proto): a `k8s\\0` magic, then runtime.Unknown
{1: typeMeta{1: apiVersion, 2: kind}, 2: raw}. SelfSubjectAccessReview{2: spec{
1: resourceAttributes{1 namespace, 2 verb, 3 group, 4 version, 5 resource, 6 subresource,
7 name}, 2: nonResourceAttributes{1 path, 2 verb}}}; SelfSubjectRulesReview{2: spec{1 namespace}}.
"""

from __future__ import annotations

from typing import Any

MAGIC = b"k8s\x00"


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def fields(buf: bytes) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {}
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, i = _varint(buf, i)
        elif wt == 2:
            ln, i = _varint(buf, i)
            val, i = buf[i : i + ln], i + ln
        elif wt == 1:
            val, i = buf[i : i + 8], i + 8
        elif wt == 5:
            val, i = buf[i : i + 4], i + 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        out.setdefault(num, []).append(val)
    return out


def _str(f: dict[int, list[Any]], n: int) -> str:
    v = f.get(n)
    return v[0].decode() if v else ""


def _sub(f: dict[int, list[Any]], n: int) -> dict[int, list[Any]]:
    v = f.get(n)
    return fields(v[0]) if v else {}


def decode_review(body: bytes) -> dict[str, Any]:
    if not body.startswith(MAGIC):
        raise ValueError("not a kubernetes protobuf message")
    unknown = fields(body[len(MAGIC) :])
    tm = _sub(unknown, 1)
    kind, api_version = _str(tm, 2), _str(tm, 1)
    raw = fields(unknown.get(2, [b""])[0])
    spec = _sub(raw, 2)
    obj: dict[str, Any] = {"kind": kind, "apiVersion": api_version, "metadata": {}}
    if kind == "SelfSubjectRulesReview":
        obj["spec"] = {"namespace": _str(spec, 1)}
        return obj
    out: dict[str, Any] = {}
    if 1 in spec:
        ra = _sub(spec, 1)
        names = ("namespace", "verb", "group", "version", "resource", "subresource", "name")
        out["resourceAttributes"] = {k: _str(ra, i + 1) for i, k in enumerate(names)}
    if 2 in spec:
        na = _sub(spec, 2)
        out["nonResourceAttributes"] = {"path": _str(na, 1), "verb": _str(na, 2)}
    obj["spec"] = out
    return obj
