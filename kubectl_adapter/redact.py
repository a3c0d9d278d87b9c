"""Remove credentials from any text before it is raised, logged or printed.

kubectl itself masks tokens, but its stderr can still carry a kubeconfig fragment, a
``--token`` argument or a server's echo of a header; we never trust that it did.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "[REDACTED]"

_PATTERNS: tuple[re.Pattern[str], ...] = (
    # PEM blocks (client keys, certificates) in full.
    re.compile(r"-----BEGIN [A-Z0-9 ]+-----.*?(-----END [A-Z0-9 ]+-----|\Z)", re.S),
    # Authorization headers and bearer/basic credentials.
    re.compile(r"(?i)(authorization\s*[:=]\s*)(bearer|basic)?\s*[^\s\"',]+"),
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}"),
    # kubeconfig / flag style secrets: token: x, --token=x, password: x, client-key-data: x ...
    re.compile(
        r"(?i)(--?(?:token|password|client-key|client-certificate)(?:-data)?[= ]\s*)[^\s\"',]+"
    ),
    re.compile(
        r"(?i)([\"']?(?:token|id-token|refresh-token|access-token|password|passwd|secret"
        r"|client-key-data|client-certificate-data|certificate-authority-data)[\"']?"
        r"\s*[:=]\s*)[\"']?[^\s\"',}]+[\"']?"
    ),
    # JSON Web Tokens wherever they appear (ServiceAccount tokens are JWTs).
    re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
)

_known_secrets: set[str] = set()


def register_secret(value: str) -> None:
    """Mask this exact value everywhere from now on (e.g. a token read from a kubeconfig)."""
    if len(value) >= 6:
        _known_secrets.add(value)


def redact(text: str) -> str:
    """Return ``text`` with every credential we can recognise replaced by ``[REDACTED]``."""
    if not text:
        return text
    for secret in _known_secrets:
        text = text.replace(secret, MASK)
    for pattern in _PATTERNS:
        text = pattern.sub(_mask_match, text)
    return text


def _mask_match(match: re.Match[str]) -> str:
    # Keep the key (group 1) so the reader still sees *what* was removed.
    if match.re.groups >= 1 and match.group(1) and not match.group(0).startswith("-----BEGIN"):
        return match.group(1) + MASK
    return MASK


def redact_value(value: Any) -> Any:
    """Redact every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
