"""Why the kubelet cannot start a container, in its own words: a malformed image reference
(InvalidImageName), an image that cannot be pulled (ErrImagePull), an env var from a
ConfigMap or Secret that is not there (CreateContainerConfigError)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# The reference grammar of github.com/distribution/reference (what the kubelet parses).
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
# A host is a domain name or an IPv6 address in brackets (``[::1]:5000/app:1``), as
# distribution/reference's ``host`` allows; either may carry a port.
_HOST = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[a-fA-F0-9:]+\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_PATH_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(
    rf"(?:{_DOMAIN}/)?{_PATH_PART}(?:/{_PATH_PART})*(?::{_TAG})?(?:@{_DIGEST})?"
)
# A knob's CreateContainerConfigError names a ConfigMap: the fake serves none, so it is missing.
KNOB_CONFIG_MAP = "fake-config"


def invalid_image_message(image: str) -> str | None:
    """The waiting message of InvalidImageName for ``image``, or None when it parses."""
    if _REFERENCE.fullmatch(image):
        return None
    why = (
        "invalid reference format: repository name must be lowercase"
        if image and _REFERENCE.fullmatch(image.lower())
        else "invalid reference format"
    )
    return (
        f'Failed to apply default image tag "{image}": couldn\'t parse image name "{image}": {why}'
    )


def pull_reason(image: str) -> str:
    return (
        f'failed to pull and unpack image "{image}": failed to resolve reference "{image}": '
        f"{image}: not found"
    )


def pull_message(image: str) -> str:
    return f'Failed to pull image "{image}": rpc error: code = NotFound desc = {pull_reason(image)}'


Lookup = Callable[[str, str, str], "dict[str, Any] | None"]  # (resource, namespace, name)

_REFS = (("configMapKeyRef", "configmaps", "ConfigMap"), ("secretKeyRef", "secrets", "Secret"))
_FROM = (("configMapRef", "configmaps"), ("secretRef", "secrets"))


def _keys(obj: dict[str, Any]) -> set[str]:
    return (
        set(obj.get("data") or {})
        | set(obj.get("stringData") or {})
        | set(obj.get("binaryData") or {})
    )


def _missing(resource: str, name: str) -> str:
    return f'{"configmap" if resource == "configmaps" else "secret"} "{name}" not found'


def config_error(container: dict[str, Any], namespace: str, lookup: Lookup) -> str | None:
    """The kubelet's CreateContainerConfigError message for ``container``, or None.

    A required (not ``optional``) ``env[].valueFrom`` key of a ConfigMap or Secret that does
    not exist, or lacks the key, and a required ``envFrom`` source that does not exist."""
    for env in container.get("env") or []:
        source = (env or {}).get("valueFrom") or {}
        for field, resource, kind in _REFS:
            ref = source.get(field)
            if not ref or ref.get("optional"):
                continue
            name, key = str(ref.get("name", "")), str(ref.get("key", ""))
            obj = lookup(resource, namespace, name)
            if obj is None:
                return _missing(resource, name)
            if key not in _keys(obj):
                return f"couldn't find key {key} in {kind} {namespace}/{name}"
    for source in container.get("envFrom") or []:
        for field, resource in _FROM:
            ref = (source or {}).get(field)
            if ref and not ref.get("optional"):
                name = str(ref.get("name", ""))
                if lookup(resource, namespace, name) is None:
                    return _missing(resource, name)
    return None
