"""Minimal OpenAPI v3 documents: enough for kubectl's `fieldValidation` support check."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .resources import RESOURCES, ResourceInfo

_QUERY_PARAMS = ("dryRun", "fieldManager", "fieldValidation", "force", "pretty")


def _params(names: tuple[str, ...]) -> list[dict[str, Any]]:
    types = {"force": "boolean"}
    return [
        {"name": n, "in": "query", "schema": {"type": types.get(n, "string"), "uniqueItems": True}}
        for n in names
    ]


def _op(r: ResourceInfo, action: str, content_types: tuple[str, ...]) -> dict[str, Any]:
    names = _QUERY_PARAMS if action == "patch" else tuple(p for p in _QUERY_PARAMS if p != "force")
    return {
        "operationId": f"{action}{r.kind}",
        "parameters": _params(names),
        "requestBody": {"content": {ct: {"schema": {"type": "object"}} for ct in content_types}},
        "responses": {"200": {"description": "OK"}, "201": {"description": "Created"}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
    }


_PATCH_CTS = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)


def gv_key(r: ResourceInfo) -> str:
    return f"api/{r.version}" if not r.group else f"apis/{r.group}/{r.version}"


def document(key: str) -> dict[str, Any] | None:
    """The OpenAPI v3 document for `api/v1` or `apis/<group>/<version>`."""
    paths: dict[str, Any] = {}
    for r in RESOURCES:
        if gv_key(r) != key:
            continue
        base = "/" + key + ("/namespaces/{namespace}" if r.namespaced else "")
        paths[f"{base}/{r.resource}"] = {"post": _op(r, "post", ("*/*",))}
        # Even create-only kinds get a PATCH operation: kubectl's query-param verifier only
        # looks at PATCH operations when deciding whether the server supports fieldValidation.
        paths[f"{base}/{r.resource}/{{name}}"] = {"patch": _op(r, "patch", _PATCH_CTS)}
    if not paths:
        return None
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": {}},
    }


def _hash(doc: dict[str, Any]) -> str:
    raw = json.dumps(doc, sort_keys=True).encode()
    return hashlib.sha512(raw).hexdigest()[:128].upper()


def root() -> dict[str, Any]:
    keys = dict.fromkeys(gv_key(r) for r in RESOURCES)
    paths: dict[str, Any] = {}
    for k in keys:
        doc = document(k)
        assert doc is not None
        paths[k] = {"serverRelativeURL": f"/openapi/v3/{k}?hash={_hash(doc)}"}
    return {"paths": paths}


V2_PROTOBUF_CT = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def _pb_str(field_no: int, value: bytes) -> bytes:
    return bytes([field_no << 3 | 2, len(value)]) + value


def v2_document(accept: str) -> tuple[bytes | dict[str, Any], str]:
    """An OpenAPI v2 document with no definitions: kubectl then skips client-side schema
    validation (needed for `kubectl create -f` of a `kind: List`, which is validated via v2)."""
    if "protobuf" in accept:
        info = _pb_str(1, b"Kubernetes") + _pb_str(2, b"v1.32.0")
        return _pb_str(1, b"2.0") + _pb_str(2, info) + bytes([8 << 3 | 2, 0]), V2_PROTOBUF_CT
    doc = {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.32.0"}, "paths": {}}
    return doc, "application/json"
