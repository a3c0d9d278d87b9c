"""Just enough protobuf decoding for what kubectl's typed clients POST: `kubectl auth can-i`
(SelfSubject*Review), `kubectl create namespace|serviceaccount|secret` and `kubectl create
token` (TokenRequest).

Wire layout (k8s.io/api generated.proto): a `k8s\\0` magic, then runtime.Unknown
{1: typeMeta{1: apiVersion, 2: kind}, 2: raw}. SelfSubjectAccessReview{2: spec{
1: resourceAttributes{1 namespace, 2 verb, 3 group, 4 version, 5 resource, 6 subresource,
7 name}, 2: nonResourceAttributes{1 path, 2 verb}}}; SelfSubjectRulesReview{2: spec{1 namespace}}.
Objects (``decode_object``): ObjectMeta{1 name, 2 generateName, 3 namespace, 11 labels,
12 annotations (map entries {1 key, 2 value})}; Namespace{1 metadata, 2 spec{1 finalizers}};
ServiceAccount{1 metadata, 4 automountServiceAccountToken}; Secret{1 metadata, 2 data,
3 type, 4 stringData, 5 immutable}; TokenRequest{1 metadata, 2 spec{1 audiences,
3 boundObjectRef{1 kind, 2 apiVersion, 3 name, 4 uid}, 4 expirationSeconds}}.
"""

from __future__ import annotations

import base64
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


def _strings(f: dict[int, list[Any]], n: int) -> list[str]:
    return [v.decode() for v in f.get(n, [])]


def _map(f: dict[int, list[Any]], n: int, *, binary: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in f.get(n, []):
        kv = fields(entry)
        value = kv.get(2, [b""])[0]
        out[_str(kv, 1)] = base64.b64encode(value).decode() if binary else value.decode()
    return out


def _meta(f: dict[int, list[Any]]) -> dict[str, Any]:
    md: dict[str, Any] = {}
    for key, n in (("name", 1), ("generateName", 2), ("namespace", 3)):
        if f.get(n):
            md[key] = _str(f, n)
    for key, n in (("labels", 11), ("annotations", 12)):
        if f.get(n):
            md[key] = _map(f, n)
    return md


def decode_object(body: bytes) -> dict[str, Any]:
    """A Namespace, ServiceAccount, Secret or TokenRequest in kubectl's protobuf envelope,
    as the JSON object it stands for (fields this fake does not model are dropped)."""
    if not body.startswith(MAGIC):
        raise ValueError("not a kubernetes protobuf message")
    unknown = fields(body[len(MAGIC) :])
    tm = _sub(unknown, 1)
    kind, api_version = _str(tm, 2), _str(tm, 1)
    raw = fields(unknown.get(2, [b""])[0])
    obj: dict[str, Any] = {"kind": kind, "apiVersion": api_version, "metadata": _meta(_sub(raw, 1))}
    if kind == "Namespace":
        finalizers = _strings(_sub(raw, 2), 1)
        if finalizers:
            obj["spec"] = {"finalizers": finalizers}
    elif kind == "ServiceAccount":
        if raw.get(4):
            obj["automountServiceAccountToken"] = bool(raw[4][0])
    elif kind == "Secret":
        if raw.get(2):
            obj["data"] = _map(raw, 2, binary=True)
        if raw.get(3):
            obj["type"] = _str(raw, 3)
        if raw.get(4):
            obj["stringData"] = _map(raw, 4)
        if raw.get(5):
            obj["immutable"] = bool(raw[5][0])
    elif kind == "TokenRequest":
        spec = _sub(raw, 2)
        out: dict[str, Any] = {"audiences": _strings(spec, 1)}
        if spec.get(4):
            out["expirationSeconds"] = int(spec[4][0])
        if spec.get(3):
            ref = _sub(spec, 3)
            names = ("kind", "apiVersion", "name", "uid")
            out["boundObjectRef"] = {k: _str(ref, i + 1) for i, k in enumerate(names)}
        obj["spec"] = out
    else:
        raise ValueError(f"this fake cannot decode a protobuf {kind or 'object'}")
    return obj
