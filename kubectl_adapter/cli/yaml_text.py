"""``-o yaml``: the adapter's JSON documents written as block-style YAML.

The documents are plain JSON data (objects, arrays, strings, numbers, booleans, null), so a
small emitter does, and ``-o yaml`` costs no import of a YAML library. A string is written
plain only when every YAML 1.1 and 1.2 reader must read it back as that same string (so not
``no``, ``1:20``, ``0x1F``, ``=`` or ``a: b``); a multi-line one as a literal block when that
keeps it exact; anything else double-quoted with escapes. A character a terminal would act
on, or that the stream's ``encoding`` cannot carry (``terminal_text.is_shown``), is only ever
written as an escape inside double quotes, so ``-o yaml`` stays valid YAML, reads back to the
exact value, and passes ``terminal_text.shown`` unchanged. ``tests/cli/test_yaml_text.py``
reads the output back with PyYAML for generated documents of every shape.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .terminal_text import is_shown

__all__ = ["dump"]

# Words some YAML reader takes for a boolean or null (1.1 and 1.2, any case).
_RESERVED = frozenset(["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"])
# Plain: printable ASCII without '#', not starting with an indicator, a digit or a sign.
_PLAIN = re.compile(r"[A-Za-z_/(][\x20-\x22\x24-\x7e]*")
# YAML's limit on an implicit key is 1024 characters; longer ones are written explicitly.
_SIMPLE_KEY_LIMIT = 1000
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def dump(document: Any, *, encoding: str | None = None) -> str:
    """``document`` as a YAML document ending in a newline, for a stream in ``encoding``
    (None: UTF-8)."""
    if isinstance(document, dict | list) and document:
        return "\n".join(_block(document, 0, encoding)) + "\n"
    head, tail = _inline(document, 2, encoding)
    return "\n".join([head.lstrip(), *tail]) + "\n"


def _block(value: dict[str, Any] | list[Any], indent: int, enc: str | None) -> list[str]:
    """A non-empty mapping or sequence, one entry per line at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"YAML keys must be strings, not {type(key).__name__}")
            name = _string(key, enc) if "\n" not in key else _quoted(key, enc)
            if len(name) > _SIMPLE_KEY_LIMIT:
                lines.extend(_explicit_entry(name, item, indent, enc))
            elif isinstance(item, dict) and item:
                lines.append(f"{pad}{name}:")
                lines.extend(_block(item, indent + 2, enc))
            elif isinstance(item, list) and item:
                lines.append(f"{pad}{name}:")  # kubectl's style: "- " under the key
                lines.extend(_block(item, indent, enc))
            else:
                head, tail = _inline(item, indent + 2, enc)
                lines.append(f"{pad}{name}:{head}")
                lines.extend(tail)
        return lines
    for item in value:
        if isinstance(item, dict | list) and item:
            nested = _block(item, indent + 2, enc)
            lines.append(f"{pad}- {nested[0][indent + 2 :]}")
            lines.extend(nested[1:])
        else:
            head, tail = _inline(item, indent + 2, enc)
            lines.append(f"{pad}-{head}")
            lines.extend(tail)
    return lines


def _explicit_entry(name: str, item: Any, indent: int, enc: str | None) -> list[str]:
    """``? key`` / ``: value``: YAML allows a plain ``key:`` only up to 1024 characters."""
    pad = " " * indent
    lines = [f"{pad}? {name}"]
    if isinstance(item, dict | list) and item:
        lines.append(f"{pad}:")
        lines.extend(_block(item, indent + 2, enc))
    else:
        head, tail = _inline(item, indent + 2, enc)
        lines.append(f"{pad}:{head}")
        lines.extend(tail)
    return lines


def _inline(value: Any, indent: int, enc: str | None) -> tuple[str, list[str]]:
    """What follows ``key:`` or ``-`` (with its leading space), and any literal block lines."""
    if isinstance(value, str):
        block = _literal(value, indent, enc)
        if block is not None:
            return block
        return " " + _string(value, enc), []
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


def _string(text: str, enc: str | None) -> str:
    """Plain when it reads back unchanged in every YAML reader, else double-quoted."""
    if (
        _PLAIN.fullmatch(text)
        and text.lower() not in _RESERVED
        and not text.endswith((" ", ":"))
        and ": " not in text
    ):
        return text
    return _quoted(text, enc)


def _quoted(text: str, enc: str | None) -> str:
    if text.isascii() and text.isprintable():  # the common case: nothing but " and \
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    out = ['"']
    for char in text:
        # Written as itself only when printable for YAML (``is_shown``'s characters all
        # are) and safe on the terminal in ``enc``: NEL, U+2028/9, the BOM, bidi controls
        # and the C0/C1 controls are escaped.
        if char not in '"\\' and is_shown(char, enc):
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


def _literal(text: str, indent: int, enc: str | None) -> tuple[str, list[str]] | None:
    """A multi-line string as ``|`` (one final newline) or ``|-`` (none), when exact."""
    if "\n" not in text or text.startswith(("\n", " ")) or text.endswith("\n\n"):
        return None
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    # Each line kept exactly: printable characters only (a tab or CR would need an
    # escape), and no trailing space.
    if any(line.endswith(" ") or not all(is_shown(c, enc) for c in line) for line in lines):
        return None
    pad = " " * indent
    return (" |" if text.endswith("\n") else " |-"), [
        f"{pad}{line}" if line else "" for line in lines
    ]
