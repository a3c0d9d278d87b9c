"""Remove credentials from any text before it is raised, logged or printed.

kubectl itself masks tokens, but its stderr can still carry a kubeconfig fragment, a
``--token`` argument or a server's echo of a header; we never trust that it did.
"""

from __future__ import annotations

import json
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
    r"|client-certificate-data|client-secret)[ \t]*:[ \t]*[\"']?([^\s\"']+)",
    re.M,
)

# -- exec credential plugins ---------------------------------------------------------------
# A plugin gets its secrets through ``exec.env`` values and ``exec.args``, and whatever it
# prints on stderr reaches kubectl's stderr (and so ``details.stderr``). Its env values are
# all registered (a value that is not secret is merely masked too); of its args, the one
# after a secret-named flag, a ``--flag=value`` of one, and a ``key=value`` with such a key.
_SECRET_WORD = r"token|password|passwd|secret|credential|api-?key|private-?key|auth"
_SECRET_FLAG = re.compile(rf"(?i)^--?[\w.-]*(?:{_SECRET_WORD})[\w.-]*$")
_SECRET_ASSIGNMENT = re.compile(rf"(?i)^-{{0,2}}[\w.-]*(?:{_SECRET_WORD})[\w.-]*=(.+)$")
_EXEC_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?:-[ \t]+)?[\"']?exec[\"']?[ \t]*:[ \t]*(?P<rest>.*)$"
)
# One YAML scalar: double-quoted, single-quoted or plain (up to a comment, ``,`` or ``]}``).
_SCALAR = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\n]|'')*'|[^\s,\[\]{}#\"'][^,\]}\n#]*"
_ENV_VALUE = re.compile(rf"(?:^|[\s{{,])[\"']?value[\"']?[ \t]*:[ \t]*({_SCALAR})", re.M)
_ARGS_FLOW = re.compile(r"(?:^|[\s{,])[\"']?args[\"']?[ \t]*:[ \t]*\[([^\]]*)\]", re.M)
_ARGS_BLOCK = re.compile(r"^([ \t]*)[\"']?args[\"']?[ \t]*:[ \t]*$", re.M)
_FLOW_ITEM = re.compile(_SCALAR)


def _scalar(text: str) -> str:
    """The value of one YAML scalar as written in a kubeconfig (quotes removed)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            return text[1:-1]
        return value if isinstance(value, str) else text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def _exec_blocks(text: str) -> list[str]:
    """The text of every ``exec:`` mapping in kubeconfig YAML (block or flow style)."""
    lines = text.splitlines()
    blocks = []
    for index, line in enumerate(lines):
        match = _EXEC_LINE.match(line)
        if match is None:
            continue
        if match["rest"].strip():
            blocks.append(match["rest"])  # flow style: exec: {command: x, env: [...]}
            continue
        indent = len(match["indent"].expandtabs())
        body = []
        for following in lines[index + 1 :]:
            stripped = following.strip()
            if stripped and len(following) - len(following.lstrip()) <= indent:
                break
            body.append(following)
        blocks.append("\n".join(body))
    return blocks


def _exec_args(block: str) -> list[str]:
    args: list[str] = []
    for flow in _ARGS_FLOW.finditer(block):
        args += [_scalar(item) for item in _FLOW_ITEM.findall(flow.group(1))]
    lines = block.splitlines()
    for head in _ARGS_BLOCK.finditer(block):
        start = block.count("\n", 0, head.start()) + 1
        indent = len(head.group(1).expandtabs())
        for line in lines[start:]:
            item = re.match(r"^([ \t]*)-[ \t]+(.*)$", line)
            if item is None or len(item.group(1).expandtabs()) < indent:
                break
            args.append(_scalar(item.group(2)))
    return args


def _secret_args(args: list[str]) -> list[str]:
    found = []
    for index, arg in enumerate(args):
        assignment = _SECRET_ASSIGNMENT.match(arg)
        if assignment:
            found.append(assignment.group(1))
        elif _SECRET_FLAG.match(arg) and index + 1 < len(args):
            found.append(args[index + 1])
    return found


def _exec_json(value: Any) -> list[dict[str, Any]]:
    """Every ``exec`` mapping in a JSON kubeconfig."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "exec" and isinstance(item, dict):
                found.append(item)
            else:
                found += _exec_json(item)
    elif isinstance(value, list):
        for item in value:
            found += _exec_json(item)
    return found


def exec_plugin_secrets(text: str) -> list[str]:
    """The secrets a kubeconfig hands its exec credential plugins: env values, secret args."""
    secrets: list[str] = []
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError:
            document = None
        for plugin in _exec_json(document):
            env = plugin.get("env") or []
            secrets += [
                str(e["value"]) for e in env if isinstance(e, dict) and e.get("value") is not None
            ]
            args = plugin.get("args") or []
            secrets += _secret_args([str(a) for a in args] if isinstance(args, list) else [])
        if document is not None:
            return secrets
    for block in _exec_blocks(text):
        secrets += [_scalar(match.group(1)) for match in _ENV_VALUE.finditer(block)]
        secrets += _secret_args(_exec_args(block))
    return secrets


def register_kubeconfig_secrets(paths: list[str]) -> None:
    """Register the credential values written in these kubeconfig files.

    The patterns catch ``token: x`` and bearer headers; a bare token that an error message
    repeats without its key (a plugin's output, a URL) is caught only by its exact value.
    Exec plugin env values and secret-looking args are registered the same way.
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
        for secret in exec_plugin_secrets(text):
            register_secret(secret)


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
