"""Kubernetes' expansion of ``$(VAR)`` and ``$$`` in a container's ``env[].value``, ``command``
and ``args``, as the kubelet does it: a test oracle for ``render.literal``.

Written from the documented rule (API reference, ``EnvVar.value`` and ``Container.command``:
"Variable references $(VAR_NAME) are expanded using the previously defined environment
variables in the container and any service environment variables. If a variable cannot be
resolved, the reference in the input string will be unchanged. Double $$ are reduced to a
single $, which allows for escaping the $(VAR_NAME) syntax") and the algorithm it names
(``third_party/forked/golang/expansion``), over the UTF-8 bytes as Go does. ``$`` followed by
any other character is copied with it: by older kubelets as ``string(nextByte)``, the byte read
as a Latin-1 rune, so ``$é`` comes out mangled (``bytewise=True``); by newer ones, which decode
the rune first, intact. A ``$`` at the very end stays; ``$(`` without a ``)`` stays.
"""

from __future__ import annotations

from collections.abc import Callable

Lookup = Callable[[str], str | None]


def expand(value: str, lookup: Lookup, *, bytewise: bool = True) -> str:
    """``value`` as the container sees it; ``lookup(name)``: a defined variable's value."""
    data = value.encode("utf-8", "surrogatepass")
    out = bytearray()
    checkpoint = cursor = 0
    while cursor < len(data):
        if data[cursor] == ord("$") and cursor + 1 < len(data):
            out += data[checkpoint:cursor]
            rest = data[cursor + 1 :]
            advance = 1
            if rest[0] == ord("$"):
                out += b"$"
            elif rest[0] == ord("("):
                close = rest.find(b")", 1)
                if close == -1:
                    out += b"$("
                else:
                    name = rest[1:close].decode("utf-8", "surrogateescape")
                    found = lookup(name)
                    out += b"$(" + rest[1:close] + b")" if found is None else found.encode()
                    advance = close + 1
            elif bytewise:
                out += b"$" + chr(rest[0]).encode("utf-8")
            else:
                size = len(
                    rest.decode("utf-8", "surrogateescape")[0].encode("utf-8", "surrogateescape")
                )
                out += b"$" + rest[:size]
                advance = size
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    out += data[checkpoint:]
    return out.decode("utf-8", "surrogateescape")


def every_name(name: str) -> str:
    """Every variable is defined (the worst case for a value that holds ``$(…)``)."""
    return f"<{name}>"


def no_name(name: str) -> None:
    """No variable is defined."""
    return None
