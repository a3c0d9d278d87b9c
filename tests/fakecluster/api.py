"""Request semantics: routing, verbs, CRUD, patches, server-side apply, scale, reviews.

HTTP plumbing (TLS, connections, watch streaming, faults) lives in server.py; this module
turns a parsed request into a (code, body, headers) response or raises ApiError.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import yaml

from . import openapi, resources
from .controller import Controller, NotFoundError
from .defaults import apply_defaults
from .patch import PatchError, json_patch, merge_patch, strategic_merge_patch
from .proto import decode_object, decode_review
from .rbac import Attributes, Authorizer, UserInfo
from .resources import ResourceInfo
from .schema import unknown_fields
from .selectors import SelectorError, object_filter, selector_string
from .ssa import ApplyConflict
from .status import (
    ApiError,
    Target,
    already_exists,
    bad_request,
    conflict_modified,
    conflict_uid_mismatch,
    invalid,
    not_found,
    status,
    success,
)
from .store import Store
from .timeutil import now_rfc3339

VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0",
    "gitCommit": "70d3cc986aa8221cd1dfb1121852688902d3bf53",
    "gitTreeState": "clean",
    "buildDate": "2024-12-11T17:59:15Z",
    "goVersion": "go1.23.3",
    "compiler": "gc",
    "platform": "linux/amd64",
}
_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_STATUS_ON_MAIN_IGNORED = frozenset({"deployments", "replicasets", "pods", "namespaces", "nodes"})

Response = tuple[int, Any, dict[str, str]]


@dataclass
class Route:
    """A parsed request path."""

    path: str
    info: ResourceInfo | None = None
    namespace: str = ""
    name: str = ""
    subresource: str = ""
    group: str = ""
    version: str = ""
    unknown_resource: str = ""

    @property
    def is_resource(self) -> bool:
        return self.info is not None or bool(self.unknown_resource)


def parse_route(path: str) -> Route:
    segs = [s for s in path.split("/") if s]
    if segs[:1] == ["api"]:
        group, rest = "", segs[1:]
    elif segs[:1] == ["apis"] and len(segs) >= 2:
        group, rest = segs[1], segs[2:]
    else:
        return Route(path)
    if len(rest) < 2:
        return Route(path, group=group, version=rest[0] if rest else "")
    version, rest = rest[0], rest[1:]
    ns = ""
    if rest[0] == "namespaces" and len(rest) >= 3:
        cand = resources.BY_GVR.get((group, version, rest[2]))
        if cand is not None and cand.namespaced:
            ns, rest = rest[1], rest[2:]
    info = resources.BY_GVR.get((group, version, rest[0]))
    route = Route(path, info, ns, group=group, version=version)
    if info is None:
        route.unknown_resource = rest[0]
    if len(rest) > 1:
        route.name = rest[1]
    if len(rest) > 2:
        route.subresource = rest[2]
    return route


def authz_namespace(route: Route) -> str:
    """The namespace a request is authorized in, as the API server's RequestInfo decides it.

    `/api/v1/namespaces/NAME[/SUBRESOURCE]` addresses the cluster-scoped Namespace NAME, yet
    its request namespace is NAME: a Role in NAME granting `get namespaces` lets a user read
    their own namespace (and a 403 says `in the namespace "NAME"`). The collection
    `/api/v1/namespaces` is cluster-scoped.
    """
    if route.info is not None and route.info.resource == "namespaces":
        return route.name
    return route.namespace if (route.info is None or route.info.namespaced) else ""


def verb_for(method: str, route: Route, query: dict[str, str]) -> str:
    if not route.is_resource:
        return method.lower()
    if method == "GET":
        if query.get("watch") in ("true", "1"):
            return "watch"
        return "get" if route.name else "list"
    if method == "DELETE":
        return "delete" if route.name else "deletecollection"
    return {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method, method.lower())


def default_manager(query: dict[str, str], user_agent: str) -> str:
    if query.get("fieldManager"):
        return query["fieldManager"]
    return (user_agent.split("/", 1)[0] or "unknown")[:128]


@dataclass
class Request:
    method: str
    route: Route
    query: dict[str, str]
    body: bytes
    content_type: str
    user: UserInfo
    user_agent: str = ""
    verb: str = ""
    target: Target = field(default_factory=Target)


# Mints a bearer token for (namespace, service account name, lifetime in seconds).
TokenIssuer = Callable[[str, str, int], str]

# The audience a TokenRequest gets when it names none (the API server's --api-audiences).
DEFAULT_AUDIENCE = "https://kubernetes.default.svc.cluster.local"


class Api:
    def __init__(
        self,
        store: Store,
        controller: Controller,
        authorizer: Authorizer,
        issue_token: TokenIssuer | None = None,
    ) -> None:
        self.store = store
        self.controller = controller
        self.authorizer = authorizer
        self.issue_token = issue_token

    # -- non-resource ------------------------------------------------------
    def nonresource(self, path: str, accept: str) -> Response:
        if path in ("/version", "/version/"):
            return 200, VERSION, {}
        if path in ("/healthz", "/livez", "/readyz"):
            return 200, b"ok", {"Content-Type": "text/plain; charset=utf-8"}
        aggregated = "as=APIGroupDiscoveryList" in accept
        if path == "/api":
            if aggregated:
                return 200, resources.aggregated_api(), {"Content-Type": resources.AGGREGATED_CT}
            return 200, resources.legacy_api_versions(), {}
        if path == "/apis":
            if aggregated:
                return 200, resources.aggregated_apis(), {"Content-Type": resources.AGGREGATED_CT}
            return 200, resources.legacy_group_list(), {}
        if path == "/openapi/v2":
            doc, ctype = openapi.v2_document(accept)
            return 200, doc, {"Content-Type": ctype}
        if path == "/openapi/v3":
            return 200, openapi.root(), {}
        if path.startswith("/openapi/v3/"):
            doc = openapi.document(path[len("/openapi/v3/") :])
            if doc is not None:
                return 200, doc, {}
        segs = [s for s in path.split("/") if s]
        if len(segs) == 2 and segs[0] == "apis":
            grp = resources.legacy_group(segs[1])
            if grp:
                return 200, grp, {}
        if len(segs) == 2 and segs == ["api", "v1"]:
            return 200, resources.legacy_resource_list("", "v1"), {}
        if len(segs) == 3 and segs[0] == "apis":
            rl = resources.legacy_resource_list(segs[1], segs[2])
            if rl:
                return 200, rl, {}
        raise ApiError(not_found(Target()))

    # -- authorization -----------------------------------------------------
    def attributes(self, req: Request) -> Attributes:
        r = req.route
        if not r.is_resource:
            return Attributes(req.verb, path=r.path)
        return Attributes(
            req.verb,
            r.info.resource if r.info else r.unknown_resource,
            r.group,
            authz_namespace(r),
            r.name if (r.info is None or r.info.resource != "namespaces" or r.name) else "",
            r.subresource,
        )

    # -- resource dispatch -------------------------------------------------
    def handle(self, req: Request) -> Response:
        r = req.route
        if r.info is None:
            raise ApiError(not_found(Target()))
        info = r.info
        if info.namespaced is False and r.namespace:
            raise ApiError(not_found(Target()))
        if info.group == "authorization.k8s.io":
            if req.method != "POST" or r.name:
                raise ApiError(
                    status(405, "the server does not allow this method on the requested resource")
                )
            return self._review(req)
        if r.subresource == "token" and info.resource == "serviceaccounts":
            if req.method != "POST":
                raise ApiError(
                    status(405, "the server does not allow this method on the requested resource")
                )
            return self._token_request(req)
        if r.subresource and r.subresource not in ("scale", "status"):
            raise ApiError(not_found(Target()))
        if r.subresource == "scale" and info.resource not in ("deployments", "replicasets"):
            raise ApiError(not_found(Target()))
        m = req.method
        if m == "GET" and r.name:
            return self._get(req)
        if m == "GET":
            return self._list(req)
        if m == "POST" and not r.name:
            return self._create(req)
        if m == "PUT" and r.name:
            return self._update(req)
        if m == "PATCH" and r.name:
            return self._patch(req)
        if m == "DELETE" and r.name:
            return self._delete(req)
        if m == "DELETE":
            return self._delete_collection(req)
        raise ApiError(
            status(405, "the server does not allow this method on the requested resource")
        )

    # -- helpers -----------------------------------------------------------
    def _target(self, req: Request, name: str | None = None) -> Target:
        r = req.route
        assert r.info is not None
        return Target(r.info.resource, r.info.group, r.name if name is None else name, r.namespace)

    def _require_namespace(self, ns: str) -> None:
        if ns and self.store.raw("namespaces", "", ns) is None:
            raise ApiError(
                status(404, f'namespaces "{ns}" not found', {"name": ns, "kind": "namespaces"})
            )

    def _load_body(self, req: Request) -> Any:
        if not req.body:
            raise ApiError(bad_request("the body of the request was in an unknown format"))
        if req.content_type.startswith("application/vnd.kubernetes.protobuf"):
            # kubectl's typed clients (create namespace, create token, ...) send protobuf.
            try:
                return decode_object(req.body)
            except (ValueError, IndexError) as e:
                raise ApiError(bad_request(f"unable to decode protobuf body: {e}")) from e
        try:
            if "yaml" in req.content_type:
                return yaml.safe_load(req.body)
            return json.loads(req.body)
        except (ValueError, yaml.YAMLError) as e:
            raise ApiError(bad_request(f"error decoding body: {e}")) from e

    def _existing(self, req: Request) -> dict[str, Any]:
        r = req.route
        assert r.info is not None
        obj = self.store.get(r.info.resource, r.namespace, r.name)
        if obj is None:
            raise ApiError(not_found(self._target(req)))
        return obj

    def _scale_view(self, obj: dict[str, Any]) -> dict[str, Any]:
        md = obj["metadata"]
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": {
                "name": md["name"],
                "namespace": md["namespace"],
                "uid": md["uid"],
                "resourceVersion": md["resourceVersion"],
                "creationTimestamp": md["creationTimestamp"],
            },
            "spec": {"replicas": int(obj["spec"].get("replicas", 0))},
            "status": {
                "replicas": int((obj.get("status") or {}).get("replicas", 0)),
                "selector": selector_string(obj["spec"].get("selector")),
            },
        }

    def _check_body_identity(self, req: Request, obj: Any) -> None:
        r = req.route
        assert r.info is not None
        if not isinstance(obj, dict):
            raise ApiError(bad_request("the body of the request was in an unknown format"))
        md = obj.setdefault("metadata", {})
        if not isinstance(md, dict):
            raise ApiError(bad_request("metadata must be an object"))
        if r.info.namespaced:
            if md.get("namespace") and md["namespace"] != r.namespace:
                raise ApiError(
                    bad_request(
                        "the namespace of the provided object does not match the namespace "
                        "sent on the request"
                    )
                )
            md["namespace"] = r.namespace
        if r.name and md.get("name") and md["name"] != r.name and not r.subresource:
            raise ApiError(bad_request("the name of the object does not match the name on the URL"))
        if r.name:
            md.setdefault("name", r.name)
        obj["apiVersion"] = r.info.group_version
        obj["kind"] = r.info.kind

    def _strict(self, req: Request, obj: dict[str, Any], *, apply: bool) -> list[str]:
        """Unknown fields: 400 for Strict, warnings for Warn."""
        mode = req.query.get("fieldValidation", "Strict" if apply else "")
        assert req.route.info is not None
        unknown = unknown_fields(req.route.info.kind, obj)
        if not unknown or mode in ("", "Ignore"):
            return []
        if mode == "Strict":
            if apply:
                raise ApiError(bad_request(f"{unknown[0]}: field not declared in schema"))
            names = ", ".join(f'unknown field "{u.lstrip(".")}"' for u in unknown)
            raise ApiError(bad_request(f"strict decoding error: {names}"))
        return [f'unknown field "{u.lstrip(".")}"' for u in unknown]

    def _validate(self, req: Request, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        info = req.route.info
        assert info is not None
        name = obj["metadata"].get("name", "")
        causes: list[tuple[str, str, str]] = []
        if not _NAME_RE.match(name) or len(name) > 253:
            causes.append(
                (
                    "FieldValueInvalid",
                    "metadata.name",
                    f'Invalid value: "{name}": a lowercase RFC 1123 subdomain must consist '
                    "of lower "
                    "case alphanumeric characters, '-' or '.', and must start and end with an "
                    "alphanumeric character (e.g. 'example.com', regex used for validation is "
                    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                )
            )
        if info.resource in ("deployments", "replicasets"):
            spec = obj.get("spec") or {}
            replicas = spec.get("replicas")
            if isinstance(replicas, int) and replicas < 0:
                causes.append(
                    (
                        "FieldValueInvalid",
                        "spec.replicas",
                        f"Invalid value: {replicas}: must be greater than or equal to 0",
                    )
                )
            sel = spec.get("selector")
            labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
            if not sel:
                causes.append(("FieldValueRequired", "spec.selector", "Required value"))
            elif any(labels.get(k) != v for k, v in (sel.get("matchLabels") or {}).items()):
                causes.append(
                    (
                        "FieldValueInvalid",
                        "spec.template.metadata.labels",
                        f"Invalid value: map[string]string{{{_gomap(labels)}}}: "
                        "`selector` does not "
                        "match template `labels`",
                    )
                )
            if old is not None and sel and old["spec"].get("selector") != sel:
                causes.append(
                    (
                        "FieldValueInvalid",
                        "spec.selector",
                        f"Invalid value: {json.dumps(sel)}: field is immutable",
                    )
                )
            containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
            if not containers:
                causes.append(
                    ("FieldValueRequired", "spec.template.spec.containers", "Required value")
                )
            for i, c in enumerate(containers):
                if not c.get("image"):
                    causes.append(
                        (
                            "FieldValueRequired",
                            f"spec.template.spec.containers[{i}].image",
                            "Required value",
                        )
                    )
                if not c.get("name"):
                    causes.append(
                        (
                            "FieldValueRequired",
                            f"spec.template.spec.containers[{i}].name",
                            "Required value",
                        )
                    )
        if causes:
            raise ApiError(invalid(info.kind, info.group, name, causes))

    def _finish_write(
        self, info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> None:
        """Apply defaults and keep fields a main-resource write may not change."""
        if old is not None:
            if info.resource in _STATUS_ON_MAIN_IGNORED and "status" in old:
                obj["status"] = copy.deepcopy(old["status"])
            for k in (
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generateName",
            ):
                if k in old["metadata"]:
                    obj["metadata"][k] = old["metadata"][k]
                else:
                    obj["metadata"].pop(k, None)
        else:
            obj.pop("status", None) if info.resource in ("deployments", "replicasets") else None
        for k in ("managedFields",):
            obj["metadata"].pop(k, None)
        apply_defaults(info.resource, obj)

    # -- verbs -------------------------------------------------------------
    def _get(self, req: Request) -> Response:
        obj = self._existing(req)
        if req.route.subresource == "scale":
            return 200, self._scale_view(obj), {}
        return 200, obj, {}

    def list_filter(self, req: Request) -> Any:
        try:
            return object_filter(req.query.get("labelSelector"), req.query.get("fieldSelector"))
        except SelectorError as e:
            raise ApiError(bad_request(str(e))) from e

    def _list(self, req: Request) -> Response:
        r = req.route
        assert r.info is not None
        pred = self.list_filter(req)
        # Pages as kubectl asks for them (``limit=500``, then ``continue``): the token holds the
        # first page's resourceVersion and the key (namespace/name, the store's order) of the
        # last item sent, opaque to kubectl, which only sends it back. Every page says the first
        # page's resourceVersion, as an API server's pages of one list do: kubectl watches from
        # it only when all its pages agree (otherwise it watches from "", and the watch replays
        # every object). Continuing after a key, not an offset, keeps a write between two
        # pages from repeating or skipping an item that was there all along. Only the page's
        # objects are copied, under the store's lock (as an API server reads one page from
        # etcd): a list in small pages does not cost a copy of every object per page.
        limit = int(req.query.get("limit") or 0)
        token = req.query.get("continue") or ""
        after_key: tuple[str, str] | None = None
        if token:
            first_rv, _, after = token.partition(":")
            after_ns, slash, after_name = after.partition("/")
            if not first_rv.isdigit() or not slash:
                raise ApiError(bad_request(f"invalid continue token: {token!r}"))
            after_key = (after_ns, after_name)
        with self.store.lock:
            found = [
                o
                for o in self.store.raw_list(r.info.resource, r.namespace or None)
                if (after_key is None or _key(o) > after_key) and pred(o)
            ]
            rv = first_rv if token else str(self.store.rv)
            metadata: dict[str, Any] = {"resourceVersion": rv}
            if 0 < limit < len(found):
                last = found[limit - 1]["metadata"]
                metadata["continue"] = f"{rv}:{last.get('namespace', '')}/{last['name']}"
                metadata["remainingItemCount"] = len(found) - limit
                found = found[:limit]
            items = [_strip_type(copy.deepcopy(o)) for o in found]
        return (
            200,
            {
                "kind": f"{r.info.kind}List",
                "apiVersion": r.info.group_version,
                "metadata": metadata,
                "items": items,
            },
            {},
        )

    def _create(self, req: Request) -> Response:
        r = req.route
        info = r.info
        assert info is not None
        obj = self._load_body(req)
        self._check_body_identity(req, obj)
        md = obj["metadata"]
        if not md.get("name") and md.get("generateName"):
            import secrets

            md["name"] = md["generateName"] + "".join(
                secrets.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)
            )
        warnings = self._strict(req, obj, apply=False)
        self._require_namespace(r.namespace)
        self._validate(req, obj, None)
        self._finish_write(info, obj, None)
        if req.query.get("dryRun"):
            return 201, obj, _warn(warnings)
        with self.store.lock:
            if self.store.raw(info.resource, r.namespace, md["name"]) is not None:
                raise ApiError(already_exists(self._target(req, md["name"])))
            created = self.store.create(
                info.resource, obj, manager=default_manager(req.query, req.user_agent)
            )
        return 201, created, _warn(warnings)

    def _update(self, req: Request) -> Response:
        r = req.route
        info = r.info
        assert info is not None
        body = self._load_body(req)
        with self.store.lock:
            old = self._existing(req)
            rv = (
                (body.get("metadata") or {}).get("resourceVersion")
                if isinstance(body, dict)
                else None
            )
            if rv and rv != old["metadata"]["resourceVersion"]:
                raise ApiError(conflict_modified(self._target(req)))
            if r.subresource == "scale":
                return self._write_scale(req, old, body)
            if r.subresource == "status":
                new = copy.deepcopy(old)
                new["status"] = body.get("status", {})
                return (
                    200,
                    self.store.replace(
                        info.resource,
                        new,
                        manager=default_manager(req.query, req.user_agent),
                        subresource="status",
                    ),
                    {},
                )
            self._check_body_identity(req, body)
            warnings = self._strict(req, body, apply=False)
            self._finish_write(info, body, old)
            self._validate(req, body, old)
            new = self.store.replace(
                info.resource, body, manager=default_manager(req.query, req.user_agent)
            )
        return 200, new, _warn(warnings)

    def _write_scale(self, req: Request, obj: dict[str, Any], scale: Any) -> Response:
        info = req.route.info
        assert info is not None
        replicas = ((scale or {}).get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or replicas < 0:
            raise ApiError(
                invalid(
                    "Scale",
                    "autoscaling",
                    obj["metadata"]["name"],
                    [
                        (
                            "FieldValueInvalid",
                            "spec.replicas",
                            f"Invalid value: {replicas}: must be greater than or equal to 0",
                        )
                    ],
                )
            )
        obj["spec"]["replicas"] = replicas
        new = self.store.replace(
            info.resource,
            obj,
            manager=default_manager(req.query, req.user_agent),
            subresource="scale",
        )
        return 200, self._scale_view(new), {}

    def _patch(self, req: Request) -> Response:
        r = req.route
        info = r.info
        assert info is not None
        ct = req.content_type.split(";")[0].strip()
        if ct == "application/apply-patch+yaml":
            return self._apply(req)
        body = self._load_body(req)
        fn = {
            "application/merge-patch+json": merge_patch,
            "application/json-patch+json": json_patch,
            "application/strategic-merge-patch+json": strategic_merge_patch,
        }.get(ct)
        if fn is None:
            raise ApiError(
                status(
                    415,
                    "the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json, "
                    "application/apply-patch+yaml, application/strategic-merge-patch+json",
                )
            )
        with self.store.lock:
            old = self._existing(req)
            # A resourceVersion in the patch is kept by the merge, and the update that follows
            # checks it like any other: a stale one is the optimistic-lock 409.
            want_rv = ((body.get("metadata") or {}) if isinstance(body, dict) else {}).get(
                "resourceVersion"
            )
            if want_rv and str(want_rv) != old["metadata"]["resourceVersion"]:
                raise ApiError(conflict_modified(self._target(req)))
            # A uid in the patch must be the object's own: the uid is immutable (422).
            want_uid = ((body.get("metadata") or {}) if isinstance(body, dict) else {}).get("uid")
            if want_uid and want_uid != old["metadata"].get("uid"):
                raise ApiError(
                    invalid(
                        info.kind,
                        info.group,
                        old["metadata"]["name"],
                        [
                            (
                                "FieldValueInvalid",
                                "metadata.uid",
                                f'Invalid value: "{want_uid}": field is immutable',
                            )
                        ],
                    )
                )
            base = self._scale_view(old) if r.subresource == "scale" else old
            try:
                patched = fn(base, body)
            except (PatchError, KeyError, TypeError, ValueError) as e:
                raise ApiError(
                    status(422 if ct == "application/json-patch+json" else 400, str(e))
                ) from e
            if r.subresource == "scale":
                return self._write_scale(req, old, patched)
            mgr = default_manager(req.query, req.user_agent)
            if r.subresource == "status":
                new = copy.deepcopy(old)
                new["status"] = patched.get("status", {})
                return (
                    200,
                    self.store.replace(info.resource, new, manager=mgr, subresource="status"),
                    {},
                )
            self._check_body_identity(req, patched)
            warnings = self._strict(req, patched, apply=False)
            self._finish_write(info, patched, old)
            self._validate(req, patched, old)
            new = self.store.replace(info.resource, patched, manager=mgr)
        return 200, new, _warn(warnings)

    def _apply(self, req: Request) -> Response:
        r = req.route
        info = r.info
        assert info is not None
        if r.subresource:
            raise ApiError(status(415, "apply is not supported on subresources by this fake"))
        manager = req.query.get("fieldManager")
        if not manager:
            raise ApiError(
                bad_request(
                    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                    "is required for apply patch"
                )
            )
        applied = self._load_body(req)
        if not isinstance(applied, dict):
            raise ApiError(bad_request("the body of the request was in an unknown format"))
        want_kind = (applied.get("apiVersion"), applied.get("kind"))
        if want_kind != (info.group_version, info.kind):
            raise ApiError(
                bad_request(
                    f"the API version in the data ({applied.get('apiVersion')}) does not match the "
                    f"expected API version ({info.group_version})"
                )
            )
        warnings = self._strict(req, applied, apply=True)
        self._check_body_identity(req, applied)
        md = applied["metadata"]
        # Preconditions, as the API server honours them on apply: a uid names the object to
        # update (no object -> 409 uid mismatch, never a create; another object -> 422 uid
        # immutable) and a resourceVersion is the optimistic lock of an update (mismatch ->
        # 409). A resourceVersion alone does not stop a create (the object has none to compare).
        want_uid = md.get("uid") or None
        want_rv = md.get("resourceVersion") or None
        for k in (
            "resourceVersion",
            "managedFields",
            "uid",
            "creationTimestamp",
            "generation",
            "selfLink",
        ):
            md.pop(k, None)
        if info.resource in ("deployments", "replicasets"):
            applied.pop("status", None)
        force = req.query.get("force") in ("true", "1")
        self._require_namespace(r.namespace)
        with self.store.lock:
            live = self.store.get(info.resource, r.namespace, r.name)
            own = (
                copy.deepcopy(self.store.ownership(info.resource, r.namespace, r.name))
                if live
                else None
            )
            from .ssa import Ownership

            own = own or Ownership()
            if live is None and want_uid:
                # Found on a real API server: without `create` permission this is a 403.
                self._authorize_create_on_apply(req)
                raise ApiError(conflict_uid_mismatch(self._target(req), str(want_uid)))
            try:
                merged = own.apply(
                    live,
                    applied,
                    manager,
                    force=force,
                    api_version=info.group_version,
                    now=now_rfc3339(),
                )
            except ApplyConflict as e:
                raise ApiError(e.status()) from e
            if live is not None:
                if want_rv and str(want_rv) != live["metadata"]["resourceVersion"]:
                    raise ApiError(conflict_modified(self._target(req)))
                if want_uid and want_uid != live["metadata"].get("uid"):
                    raise ApiError(
                        invalid(
                            info.kind,
                            info.group,
                            r.name,
                            [
                                (
                                    "FieldValueInvalid",
                                    "metadata.uid",
                                    f'Invalid value: "{want_uid}": field is immutable',
                                )
                            ],
                        )
                    )
            self._finish_write(info, merged, live)
            self._validate(req, merged, live)
            if live is None:
                self._authorize_create_on_apply(req)
            if req.query.get("dryRun"):
                return (200 if live else 201), merged, _warn(warnings)
            if live is None:
                return 201, self.store.create(info.resource, merged, ownership=own), _warn(warnings)
            self.store.set_ownership(info.resource, r.namespace, r.name, own)
            return 200, self.store.replace(info.resource, merged), _warn(warnings)

    def _authorize_create_on_apply(self, req: Request) -> None:
        """An apply PATCH that creates the object is authorized as `create` too (the API
        server's patch handler wraps createValidation in `withAuthorization` with the create
        attributes). Its 403 carries the authorizer's reason, empty for an RBAC denial."""
        r = req.route
        assert r.info is not None
        attrs = Attributes("create", r.info.resource, r.group, r.namespace, r.name)
        if not self.authorizer.authorize(req.user, attrs).allowed:
            t = self._target(req)
            raise ApiError(status(403, f'{t.qualified} "{t.name}" is forbidden: ', t.details()))

    def _delete_options(self, req: Request) -> tuple[str | None, int | None]:
        opts: dict[str, Any] = {}
        if req.body:
            try:
                opts = json.loads(req.body) or {}
            except ValueError as e:
                raise ApiError(bad_request(f"error decoding body: {e}")) from e
        prop = opts.get("propagationPolicy") or req.query.get("propagationPolicy")
        if opts.get("orphanDependents") is True or req.query.get("orphanDependents") == "true":
            prop = "Orphan"
        grace = opts.get("gracePeriodSeconds", req.query.get("gracePeriodSeconds"))
        if prop not in (None, "Orphan", "Background", "Foreground"):
            raise ApiError(
                invalid(
                    "DeleteOptions",
                    "",
                    "",
                    [
                        (
                            "FieldValueNotSupported",
                            "propagationPolicy",
                            f'Unsupported value: "{prop}"',
                        )
                    ],
                )
            )
        return prop, int(grace) if grace is not None else None

    def _delete(self, req: Request) -> Response:
        r = req.route
        info = r.info
        assert info is not None
        prop, grace = self._delete_options(req)
        if info.resource in ("deployments", "replicasets") and prop is None:
            prop = "Background"
        try:
            with self.store.lock:
                obj, exists = self.controller.delete(
                    info.resource, r.namespace, r.name, propagation=prop, grace=grace
                )
                if info.resource == "namespaces" and not exists:
                    self._purge_namespace(r.name)
        except NotFoundError as e:
            raise ApiError(not_found(self._target(req))) from e
        if exists or info.resource in ("pods", "namespaces"):
            return 200, obj, {}
        return 200, success(r.name, info.group, info.resource, obj["metadata"]["uid"]), {}

    def _purge_namespace(self, ns: str) -> None:
        for info in resources.RESOURCES:
            if info.namespaced:
                for o in self.store.list(info.resource, ns):
                    self.store.remove(info.resource, ns, o["metadata"]["name"])

    def _delete_collection(self, req: Request) -> Response:
        r = req.route
        info = r.info
        assert info is not None
        prop, grace = self._delete_options(req)
        pred = self.list_filter(req)
        out = []
        with self.store.lock:
            for o in self.store.list(info.resource, r.namespace or None):
                if pred(o):
                    md = o["metadata"]
                    obj, _ = self.controller.delete(
                        info.resource,
                        md.get("namespace", ""),
                        md["name"],
                        propagation=prop,
                        grace=grace,
                    )
                    out.append(_strip_type(obj))
            rv = str(self.store.rv)
        return (
            200,
            {
                "kind": f"{info.kind}List",
                "apiVersion": info.group_version,
                "metadata": {"resourceVersion": rv},
                "items": out,
            },
            {},
        )

    # -- service account tokens --------------------------------------------
    def _token_request(self, req: Request) -> Response:
        """`kubectl create token SA`: a bearer token that authenticates as the account."""
        r = req.route
        if self.store.get("serviceaccounts", r.namespace, r.name) is None:
            raise ApiError(not_found(self._target(req)))
        body = self._load_body(req)
        if not isinstance(body, dict) or body.get("kind", "TokenRequest") != "TokenRequest":
            raise ApiError(bad_request("expected a TokenRequest"))
        spec = body.get("spec") or {}
        seconds = int(spec.get("expirationSeconds") or 3600)
        if seconds < 600:
            raise ApiError(
                invalid(
                    "TokenRequest",
                    "authentication.k8s.io",
                    r.name,
                    [
                        (
                            "FieldValueInvalid",
                            "spec.expirationSeconds",
                            f"Invalid value: {seconds}: may not specify a duration less than "
                            "10 minutes",
                        )
                    ],
                )
            )
        if self.issue_token is None:
            raise ApiError(status(500, "this fake has no token issuer"))
        token = self.issue_token(r.namespace, r.name, seconds)
        now = datetime.now(UTC).replace(microsecond=0)
        expires = (now + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (
            201,
            {
                "kind": "TokenRequest",
                "apiVersion": "authentication.k8s.io/v1",
                "metadata": {
                    "name": r.name,
                    "namespace": r.namespace,
                    "creationTimestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                },
                "spec": {
                    "audiences": list(spec.get("audiences") or [DEFAULT_AUDIENCE]),
                    "expirationSeconds": seconds,
                    "boundObjectRef": spec.get("boundObjectRef"),
                },
                "status": {"token": token, "expirationTimestamp": expires},
            },
            {},
        )

    # -- authorization reviews ---------------------------------------------
    def _review(self, req: Request) -> Response:
        info = req.route.info
        assert info is not None
        if req.content_type.startswith("application/vnd.kubernetes.protobuf"):
            try:
                obj = decode_review(req.body)
            except (ValueError, IndexError) as e:
                raise ApiError(bad_request(f"unable to decode protobuf body: {e}")) from e
        else:
            obj = self._load_body(req)
        if not isinstance(obj, dict) or obj.get("kind") != info.kind:
            raise ApiError(bad_request(f"expected a {info.kind}"))
        spec = obj.get("spec") or {}
        out = {
            "kind": info.kind,
            "apiVersion": info.group_version,
            "metadata": {"creationTimestamp": None},
            "spec": _drop_empty(spec),
        }
        if info.kind == "SelfSubjectRulesReview":
            res, non = self.authorizer.rules_for(req.user, str(spec.get("namespace", "")))
            out["status"] = {"resourceRules": res, "nonResourceRules": non, "incomplete": False}
            return 201, out, {}
        ra = spec.get("resourceAttributes")
        na = spec.get("nonResourceAttributes")
        if ra:
            attrs = Attributes(
                str(ra.get("verb", "")),
                str(ra.get("resource", "")),
                str(ra.get("group", "")),
                str(ra.get("namespace", "")),
                str(ra.get("name", "")),
                str(ra.get("subresource", "")),
            )
        elif na:
            attrs = Attributes(str(na.get("verb", "")), path=str(na.get("path", "")))
        else:
            raise ApiError(
                invalid(
                    info.kind,
                    info.group,
                    "",
                    [
                        (
                            "FieldValueRequired",
                            "spec.resourceAttributes",
                            "Required value: exactly one of nonResourceAttributes or "
                            "resourceAttributes must be specified",
                        )
                    ],
                )
            )
        decision = self.authorizer.authorize(req.user, attrs)
        st: dict[str, Any] = {"allowed": decision.allowed}
        if decision.reason:
            st["reason"] = decision.reason
        out["status"] = st
        return 201, out, {}


def _gomap(labels: dict[str, str]) -> str:
    return ", ".join(f'"{k}":"{v}"' for k, v in sorted(labels.items()))


def _drop_empty(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _drop_empty(v) for k, v in d.items() if v not in ("", None, {}, [])}
    return d


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    """An object's place in the store's order (``store.raw_list``)."""
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def _strip_type(obj: dict[str, Any]) -> dict[str, Any]:
    obj.pop("apiVersion", None)
    obj.pop("kind", None)
    return obj


def _warn(warnings: list[str]) -> dict[str, str]:
    if not warnings:
        return {}
    return {"Warning": ", ".join(f'299 - "{w}"' for w in warnings)}
