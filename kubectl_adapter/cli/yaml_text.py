"""``-o yaml``: the adapter's JSON documents written as block-style YAML.

The documents are plain JSON data (objects, arrays, strings, numbers, booleans, null), so a
small emitter does, and ``-o yaml`` costs no import of a YAML library. A string is written
plain only when every YAML 1.1 and 1.2 reader must read it back as that same string (so not
``no``, ``1:20``, ``0x1F``, ``=`` or ``a: b``); a multi-line one as a literal block when that
keeps it exact; anything else double-quoted with escapes. ``tests/cli/test_yaml_text.py`` reads
the output back with PyYAML for generated documents of every shape.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["dump"]

# Words some YAML reader takes for a boolean or null (1.1 and 1.2, any case).
_RESERVED = frozenset(["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"])
# Plain: printable ASCII without '#', not starting with an indicator, a digit or a sign.
_PLAIN = re.compile(r"[A-Za-z_/(][\x20-\x22\x24-\x7e]*")
# YAML's limit on an implicit key is 1024 characters; longer ones are written explicitly.
_SIMPLE_KEY_LIMIT = 1000
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def dump(document: Any) -> str:
    """``document`` as a YAML document ending in a newline."""
    if isinstance(document, dict | list) and document:
        return "\n".join(_block(document, 0)) + "\n"
    head, tail = _inline(document, 2)
    return "\n".join([head.lstrip(), *tail]) + "\n"


def _block(value: dict[str, Any] | list[Any], indent: int) -> list[str]:
    """A non-empty mapping or sequence, one entry per line at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"YAML keys must be strings, not {type(key).__name__}")
            name = _string(key) if "\n" not in key else _quoted(key)
            if len(name) > _SIMPLE_KEY_LIMIT:
                lines.extend(_explicit_entry(name, item, indent))
            elif isinstance(item, dict) and item:
                lines.append(f"{pad}{name}:")
                lines.extend(_block(item, indent + 2))
            elif isinstance(item, list) and item:
                lines.append(f"{pad}{name}:")  # kubectl's style: "- " under the key
                lines.extend(_block(item, indent))
            else:
                head, tail = _inline(item, indent + 2)
                lines.append(f"{pad}{name}:{head}")
                lines.extend(tail)
        return lines
    for item in value:
        if isinstance(item, dict | list) and item:
            nested = _block(item, indent + 2)
            lines.append(f"{pad}- {nested[0][indent + 2 :]}")
            lines.extend(nested[1:])
        else:
            head, tail = _inline(item, indent + 2)
            lines.append(f"{pad}-{head}")
            lines.extend(tail)
    return lines


def _explicit_entry(name: str, item: Any, indent: int) -> list[str]:
    """``? key`` / ``: value``: YAML allows a plain ``key:`` only up to 1024 characters."""
    pad = " " * indent
    lines = [f"{pad}? {name}"]
    if isinstance(item, dict | list) and item:
        lines.append(f"{pad}:")
        lines.extend(_block(item, indent + 2))
    else:
        head, tail = _inline(item, indent + 2)
        lines.append(f"{pad}:{head}")
        lines.extend(tail)
    return lines


def _inline(value: Any, indent: int) -> tuple[str, list[str]]:
    """What follows ``key:`` or ``-`` (with its leading space), and any literal block lines."""
    if isinstance(value, str):
        block = _literal(value, indent)
        if block is not None:
            return block
        return " " + _string(value), []
    return " " + _scalar(value), []


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        # YAML 1.1 wants a dot in a float ("1e+300" would read back as a string).
        if "." not in text:
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}.0e{exponent}" if exponent else f"{mantissa}.0"
        return text
    if isinstance(value, dict):
        if value:
            raise TypeError("a non-empty mapping is written as a block")
        return "{}"
    if isinstance(value, list):
        if value:
            raise TypeError("a non-empty sequence is written as a block")
        return "[]"
    raise TypeError(f"not JSON data: {type(value).__name__}")


def _string(text: str) -> str:
    """Plain when it reads back unchanged in every YAML reader, else double-quoted."""
    if (
        _PLAIN.fullmatch(text)
        and text.lower() not in _RESERVED
        and not text.endswith((" ", ":"))
        and ": " not in text
    ):
        return text
    return _quoted(text)


def _printable(char: str) -> bool:
    """YAML's printable characters, less NEL, the line and paragraph separators (line
    breaks to a YAML reader) and the byte order mark. (A regular expression over these
    ranges costs milliseconds to compile at every start.)"""
    code = ord(char)
    if code < 0xA0:
        return 0x20 <= code <= 0x7E
    if code <= 0xD7FF:
        return code not in (0x2028, 0x2029)
    return (0xE000 <= code <= 0xFFFD and code != 0xFEFF) or 0x10000 <= code <= 0x10FFFF


def _quoted(text: str) -> str:
    if text.isascii() and text.isprintable():  # the common case: nothing but " and \
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    out = ['"']
    for char in text:
        if char not in '"\\' and _printable(char):
            out.append(char)
            continue
        escape = _ESCAPES.get(char)
        if escape is None:
            code = ord(char)
            if code < 0x100:
                escape = f"\\x{code:02x}"
            elif code < 0x10000:
                escape = f"\\u{code:04x}"
            else:
                escape = f"\\U{code:08x}"
        out.append(escape)
    out.append('"')
    return "".join(out)


def _literal(text: str, indent: int) -> tuple[str, list[str]] | None:
    """A multi-line string as ``|`` (one final newline) or ``|-`` (none), when exact."""
    if "\n" not in text or text.startswith(("\n", " ")) or text.endswith("\n\n"):
        return None
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    # Each line kept exactly: printable characters only (a tab or CR would need an
    # escape), and no trailing space.
    if any(line.endswith(" ") or not all(map(_printable, line)) for line in lines):
        return None
    pad = " " * indent
    return (" |" if text.endswith("\n") else " |-"), [
        f"{pad}{line}" if line else "" for line in lines
    ]
