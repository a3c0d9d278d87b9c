"""`Status` bodies shaped like the real API server's.

See data/reference/status-bodies-injected.json for the captured originals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


class ApiError(Exception):
    """Raised by handlers; the server turns it into a Status response."""

    def __init__(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(body.get("message", ""))
        self.body = body
        self.headers = headers or {}

    @property
    def code(self) -> int:
        return int(self.body["code"])


def status(
    code: int, message: str, details: dict[str, Any] | None = None, reason: str | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": REASONS.get(code, "") if reason is None else reason,
        "code": code,
    }
    if details is not None:
        body["details"] = details
    return body


def success(name: str, group: str, kind: str, uid: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name, "kind": kind, "uid": uid}
    if group:
        details["group"] = group
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }


@dataclass(frozen=True)
class Target:
    """What a request addressed: enough to phrase errors the way the API server does."""

    resource: str = ""
    group: str = ""
    name: str = ""
    namespace: str = ""
    subresource: str = ""
    verb: str = ""
    user: str = ""
    path: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def details(self, *, with_name: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.name and with_name:
            d["name"] = self.name
        if self.group:
            d["group"] = self.group
        d["kind"] = self.resource
        return d


def unauthorized() -> dict[str, Any]:
    return status(401, "Unauthorized")


def not_found(t: Target) -> dict[str, Any]:
    if not t.resource:
        return status(404, "the server could not find the requested resource", {})
    if not t.name:
        return status(404, "the server could not find the requested resource", {})
    return status(404, f'{t.qualified} "{t.name}" not found', t.details())


def already_exists(t: Target) -> dict[str, Any]:
    return status(409, f'{t.qualified} "{t.name}" already exists', t.details(), "AlreadyExists")


def conflict_modified(t: Target) -> dict[str, Any]:
    what = f'{t.qualified} "{t.name}"' if t.name else t.qualified
    msg = (
        f"Operation cannot be fulfilled on {what}: the object has been "
        "modified; please apply your changes to the latest version and try again"
    )
    return status(409, msg, t.details())


def conflict_uid_mismatch(t: Target, uid: str) -> dict[str, Any]:
    """An apply carrying metadata.uid for an object that does not exist (the patch handler's
    check: a UID means "update this object", never "create")."""
    msg = (
        f'Operation cannot be fulfilled on {t.qualified} "{t.name}": uid mismatch: the provided '
        f"object specified uid {uid}, and no existing object was found"
    )
    return status(409, msg, t.details())


def forbidden_text(t: Target) -> str:
    if not t.resource:
        return f'forbidden: User "{t.user}" cannot {t.verb} path "{t.path}"'
    res = f"{t.resource}/{t.subresource}" if t.subresource else t.resource
    prefix = f'{t.qualified} "{t.name}"' if t.name else t.qualified
    where = f'in the namespace "{t.namespace}"' if t.namespace else "at the cluster scope"
    return (
        f'{prefix} is forbidden: User "{t.user}" cannot {t.verb} resource "{res}" '
        f'in API group "{t.group}" {where}'
    )


def forbidden(t: Target) -> dict[str, Any]:
    return status(403, forbidden_text(t), t.details() if t.resource else {})


def bad_request(message: str) -> dict[str, Any]:
    return status(400, message)


def invalid(kind: str, group: str, name: str, causes: list[tuple[str, str, str]]) -> dict[str, Any]:
    """causes: (reason, field, message)."""
    qual = f"{kind}.{group}" if group else kind
    text = "; ".join(f"{f}: {m}" for _, f, m in causes)
    if len(causes) > 1:
        text = "[" + ", ".join(f"{f}: {m}" for _, f, m in causes) + "]"
    return status(
        422,
        f'{qual} "{name}" is invalid: {text}',
        {
            "name": name,
            "group": group,
            "kind": kind,
            "causes": [{"reason": r, "message": m, "field": f} for r, f, m in causes],
        },
    )


def injected(
    code: int, t: Target, *, apply: bool, retry_after: int | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The Status an injected failure answers with, phrased for the request it hits."""
    headers: dict[str, str] = {}
    if code == 401:
        return unauthorized(), headers
    if code == 403:
        return forbidden(t), headers
    if code == 404:
        return not_found(t), headers
    if code == 409:
        if apply:
            from .ssa import ApplyConflict, Conflict

            av = f"{t.group}/v1" if t.group else "v1"
            return ApplyConflict(
                [Conflict("kubectl-client-side-apply", ("f:spec", "f:replicas"))], av
            ).status(), headers
        return conflict_modified(t), headers
    if code == 422:
        if t.subresource == "scale":
            return invalid(
                "Scale",
                "autoscaling",
                t.name,
                [
                    (
                        "FieldValueInvalid",
                        "spec.replicas",
                        "Invalid value: -1: must be greater than or equal to 0",
                    )
                ],
            ), headers
        kind = t.resource[:-1].capitalize() if t.resource != "deployments" else "Deployment"
        return invalid(
            kind,
            t.group,
            t.name,
            [("FieldValueRequired", "spec.template.spec.containers[0].image", "Required value")],
        ), headers
    if code == 429:
        details: dict[str, Any] | None = None
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
            details = {"retryAfterSeconds": retry_after}
        return status(429, "Too many requests, please try again later.", details), headers
    if code == 500:
        return status(
            500,
            "Internal error occurred: etcdserver: request timed out",
            {"causes": [{"message": "etcdserver: request timed out"}]},
        ), headers
    if code == 410:
        # The storage layer's words for a read at a resourceVersion it no longer keeps.
        return status(410, "too old resource version: 1000 (1042)"), headers
    if code == 503:
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        return status(503, "the server is currently unable to handle the request"), headers
    return status(code, f"injected failure {code}"), headers
