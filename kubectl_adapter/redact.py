"""Remove credentials from any text before it is raised, logged or printed.

kubectl itself masks tokens, but its stderr can still carry a kubeconfig fragment, a
``--token`` argument or a server's echo of a header; we never trust that it did.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "[REDACTED]"

# While redacting, every mask (old or new) is this character, which no value pattern
# accepts: a mask is never masked again, so ``redact`` is idempotent (errors redact text
# that ``classify`` already redacted).
_HIDDEN = "\x00"

# Keys whose value is a credential, in kubeconfig YAML, JSON, flags and query strings.
_SECRET_KEYS = (
    r"token|id-token|refresh-token|access-token|password|passwd|secret"
    r"|client-key-data|client-certificate-data|certificate-authority-data"
)
_SECRET_KEY = re.compile(rf"(?i)(?:{_SECRET_KEYS}|authorization)$")
# A value: a whole quoted string (it may hold spaces), else one unquoted word.
_VALUE = r"(?:\"(?:[^\"\\\n\x00]|\\.)*\"|'[^'\n\x00]*'|[^\s\"',}\]\x00]+)"

# (pattern, replacement): group 1, when a pattern has it, is the key that stays readable.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # PEM blocks (client keys, certificates) in full.
    (
        re.compile(r"-----BEGIN [A-Z0-9 ]+-----.*?(?:-----END [A-Z0-9 ]+-----|\Z)", re.S),
        _HIDDEN,
    ),
    # Authorization headers, in text ("Authorization: Bearer x") or JSON/Go maps
    # ("Authorization": ["Bearer x"]): the whole credential, scheme and all.
    (
        re.compile(
            r"(?i)(authorization[\"']?[ \t]*[:=][ \t]*\[?[ \t]*[\"']?)"
            r"(?:(?:bearer|basic|token)[ \t]+)?[^\s\"',\[\]\x00]+"
        ),
        rf"\g<1>{_HIDDEN}",
    ),
    # Bearer/Basic credentials on their own. Case-sensitive on purpose: ordinary text
    # ("x509: invalid basic constraints", "bearer token file") must survive.
    (
        re.compile(r"\b(Bearer|BEARER|bearer|Basic|BASIC)[ \t]+[A-Za-z0-9._~+/=-]{8,}"),
        rf"\1 {_HIDDEN}",
    ),
    # Flags: --token=x, --token x, --password=x, --client-key-data=x ...
    (
        re.compile(
            r"(?i)(--?(?:token|password|client-key|client-certificate)(?:-data)?(?:=|[ \t]+))"
            r"[^\s\"',\x00]+"
        ),
        rf"\g<1>{_HIDDEN}",
    ),
    # Key/value: token: x (kubeconfig YAML), "token": "x" (JSON), token=x (query string).
    (
        re.compile(rf"(?i)([\"']?(?:{_SECRET_KEYS})[\"']?[ \t]*[:=][ \t]*){_VALUE}"),
        rf"\g<1>{_HIDDEN}",
    ),
    # Passwords in URLs: https://user:password@host.
    (re.compile(r"(://[^/\s:@]+:)[^/\s@\x00]+(?=@)"), rf"\g<1>{_HIDDEN}"),
    # JSON Web Tokens wherever they appear (ServiceAccount tokens are JWTs).
    (re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"), _HIDDEN),
)

_known_secrets: set[str] = set()


def register_secret(value: str) -> None:
    """Mask this exact value everywhere from now on (e.g. a token read from a kubeconfig)."""
    if len(value) >= 6:
        _known_secrets.add(value)


_KUBECONFIG_SECRET = re.compile(
    r"^[ \t-]*(?:token|id-token|refresh-token|access-token|password|client-key-data"
    r"|client-certificate-data)[ \t]*:[ \t]*[\"']?([^\s\"']+)",
    re.M,
)


def register_kubeconfig_secrets(paths: list[str]) -> None:
    """Register the credential values written in these kubeconfig files.

    The patterns catch ``token: x`` and bearer headers; a bare token that an error message
    repeats without its key (a plugin's output, a URL) is caught only by its exact value.
    Unreadable files are skipped: kubectl itself reports a missing kubeconfig.
    """
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(1 << 20)
        except OSError:
            continue
        for match in _KUBECONFIG_SECRET.finditer(text):
            register_secret(match.group(1))


def redact(text: str) -> str:
    """Return ``text`` with every credential we can recognise replaced by ``[REDACTED]``."""
    if not text:
        return text
    text = text.replace(MASK, _HIDDEN)
    # Longest first: a secret that is a prefix of another must not leave the other's tail.
    for secret in sorted(_known_secrets, key=len, reverse=True):
        text = text.replace(secret, _HIDDEN)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text.replace(_HIDDEN, MASK)


def redact_value(value: Any) -> Any:
    """Redact every string inside a JSON-like value; a credential-named key hides its value."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            k: MASK
            if isinstance(k, str) and _SECRET_KEY.search(k) and isinstance(v, str | bytes)
            else redact_value(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
